// A batch of independent worlds of one Model stepped in parallel (DESIGN.md §4): state in
// structure-of-arrays buffers (world-major, so one world's q is contiguous and Python sees
// each buffer as an [N, ...] array), OpenMP over worlds with dynamic scheduling, one
// workspace per thread built at construction. A world's result depends only on its own
// state, parameters and random stream: bitwise the same for any N or thread count.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ncpgym/batch/observation.hpp"
#include "ncpgym/model/state.hpp"
#include "ncpgym/solver/stepper.hpp"

namespace ncpgym {

// Status of a world after the last step.
enum class WorldStatus : int8_t { Ok = 0, Diverged = 1 };

class Batch {
 public:
  // nthread = 0: OpenMP's default. Solver options are shared by all worlds.
  Batch(std::shared_ptr<const Model> model, int nworld, const SolverOptions& options, int nthread = 0);

  const Model& model() const { return *base_; }
  const std::shared_ptr<const Model>& model_ptr() const { return base_; }
  int size() const { return n_; }
  int num_threads() const { return nthread_; }
  void set_num_threads(int nthread);  // grows the per-thread workspaces if needed
  double timestep() const { return h_; }
  const SolverOptions& options() const { return opt_; }  // resolved (options.hpp)

  // Advances every world by `substeps` time steps with its ctrl held. A world whose state
  // is or becomes non-finite, or whose solver fails, keeps its pre-step state and is
  // flagged Diverged in status(); the others are untouched. Then refreshes the derived
  // quantities (a diverged world's from its kept state, without contacts). With obs_out
  // ([N, observation_dim()]), each world's observation row is also copied there by the
  // thread that stepped it (no serial pass over all worlds). Call without the GIL held.
  void step(int substeps = 1, double* obs_out = nullptr);
  // Recomputes the derived quantities (poses, com quantities, sites) of the worlds with
  // mask[i] != 0 (all if mask is null) from their current q, u: call after writing states.
  void forward(const uint8_t* mask = nullptr);
  // Copies q (nq) and u (nv) rows into the masked worlds (rows in world order, one per
  // masked world), resets their particles to the model's and zeroes ctrl, actuator activations, particle
  // forces and contacts.
  void reset(const uint8_t* mask, const double* q, const double* u);

  // Seeds world i's random stream with the key world_key(seed_i, i)-style value given.
  void set_rng_key(int world, uint64_t key) { key_[world] = key; counter_[world] = 0; }
  // The whole stream position of world i (key, counter): saved and restored with a state.
  uint64_t rng_key(int world) const { return key_[world]; }
  uint64_t rng_counter(int world) const { return counter_[world]; }
  void set_rng(int world, uint64_t key, uint64_t counter) { key_[world] = key; counter_[world] = counter; }
  // out[k, j] = uniform(lo, hi) from world worlds[k]'s stream, ncol numbers per world.
  void uniform(const int* worlds, int nworlds, int ncol, double lo, double hi, double* out);
  // The same from a standard normal (Box-Muller on two uniforms).
  void normal(const int* worlds, int nworlds, int ncol, double* out);

  // State (world-major rows).
  double* q() { return q_.data(); }
  double* u() { return u_.data(); }
  double* ctrl() { return ctrl_.data(); }
  double* x() { return x_.data(); }
  double* v() { return v_.data(); }
  int8_t* status() { return status_.data(); }
  // Each world's contact impulses of its last step (option warm_start; cleared by reset and
  // by a diverged step), for saving and restoring worlds (solver/warm_start.hpp).
  std::vector<WarmStart>& warm_starts() { return warm_; }
  double* activation() { return act_.data(); }  // [N, nactgroup] active strain per group
  double* actuator_act() { return actuator_act_.data(); }  // [N, na] actuators' activations (MuJoCo's act)
  double* particle_force() { return pforce_.data(); }  // [N, nparticle, 3] external forces (N)
  // Per-world parameters for domain randomisation: friction scale, mass scale (bodies
  // and particles, and the particles' density for buoyancy; armature untouched), stiffness
  // scale (Young's modulus times the scale, Poisson's ratio kept: the Lame parameters of
  // every tetrahedron, the stretch, bend, twist and hinge stiffness of rods and shells),
  // gravity (3).
  double* friction_scale() { return friction_scale_.data(); }
  double* mass_scale() { return mass_scale_.data(); }
  double* stiffness_scale() { return stiffness_scale_.data(); }
  double* gravity() { return gravity_.data(); }
  // The medium per world [N, 3]: density, drag coefficient, viscosity (soft/medium.hpp).
  double* medium() { return medium_.data(); }
  // Mocap poses [N, nmocap, 3] and [N, nmocap, 4] (w, x, y, z; normalised when applied) and
  // equality switches [N, neq] (1 on, 0 off), applied to each world's model copy as it
  // steps. Like the other per-world parameters they start at the model's values and keep
  // what was written (reset() leaves them: a task sets them when it resets a world).
  double* mocap_pos() { return mocap_pos_.data(); }
  double* mocap_quat() { return mocap_quat_.data(); }
  uint8_t* eq_active() { return eq_active_.data(); }

  // Derived quantities after step()/forward(), world-major:
  //   xpos [nbody, 3], xquat [nbody, 4] (w, x, y, z), xipos [nbody, 3] (centres of mass),
  //   MuJoCo's com-based quantities about the centre of mass of each body's tree
  //   (mjData.subtree_com[rootid]): cinert [nbody, 10], cvel [nbody, 6] (angular, linear),
  //   cfrc_ext [nbody, 6] (torque, force of the contacts on each body),
  //   qfrc_actuator [nv], site_xpos [nsite, 3], site_xmat [nsite, 9] (row-major),
  //   geom_contact [ngeom] (1 if the geom has an active contact), geom_static_contact
  //   [ngeom] (1 if one of them is with a static geom: the ground), geom_dynamic_contact
  //   [ngeom] (1 if one of them is with a moving body or a particle), geom_force [ngeom]
  //   (sum of its contacts' normal forces, N), ncontact [1] (active contacts),
  //   contact_depth [1] (deepest penetration, m, among the contacts the last step detected
  //   at its start: what the step before left; 0 without contacts),
  //   soft_volume [nsoft] (each soft body's volume, the sum of its tetrahedra's signed
  //   volumes det(x1 - x0, x2 - x0, x3 - x0) / 6: the volumetric strain is V / V0 - 1),
  //   chamber_volume [nchamber] (each pressure chamber's enclosed volume, soft/pressure.hpp),
  //   mass_centre [3] (centre of mass of all bodies: mjData.subtree_com of the world body,
  //   with the world's mass_scale), sensordata [nsensordata] (batch/sensors.hpp).
  double* xpos() { return xpos_.data(); }
  double* xquat() { return xquat_.data(); }
  double* xipos() { return xipos_.data(); }
  double* cinert() { return cinert_.data(); }
  double* cvel() { return cvel_.data(); }
  double* cfrc_ext() { return cfrc_ext_.data(); }
  double* qfrc_actuator() { return qfrc_act_.data(); }
  double* site_xpos() { return site_xpos_.data(); }
  double* site_xmat() { return site_xmat_.data(); }
  uint8_t* geom_contact() { return geom_contact_.data(); }
  uint8_t* geom_static_contact() { return geom_static_.data(); }
  uint8_t* geom_dynamic_contact() { return geom_dynamic_.data(); }
  double* geom_force() { return geom_force_.data(); }
  int32_t* ncontact() { return ncontact_.data(); }
  double* contact_depth() { return contact_depth_.data(); }
  double* soft_volume() { return soft_volume_.data(); }
  double* chamber_volume() { return chamber_volume_.data(); }
  double* mass_centre() { return mass_centre_.data(); }
  double* sensordata() { return sensordata_.data(); }

  // The fused observation (batch/observation.hpp): set_observation checks the segments
  // against the model's sizes and gathers every world's row from the current arrays;
  // afterwards every step(), forward() and reset() gathers the rows of the worlds it
  // touches, except a world whose step diverged: its row keeps the last observation
  // gathered (the last finite one). observation() is [N, observation_dim()] (world-major;
  // writable: a restored environment puts back the observations it saved).
  void set_observation(const std::vector<ObsSegment>& segments);
  const std::vector<ObsSegment>& observation_segments() const { return obs_segments_; }
  int observation_dim() const { return obs_dim_; }
  double* observation() { return obs_.data(); }

  // Step II of inverse-qp-soft-robots.txt for every world at once (batch/projection.cpp):
  // from each world's state, a free step (not stored) with its current activation and
  // particle forces, then the effectors' free positions x_free [N, ne, 3] and the projections
  // W_ea [N, 3 ne, na] and W_aa [N, na, na] of the actuators: ng pressure groups (a unit of
  // group g's pressure, at the step's end positions) then nc cables (a unit force on
  // particle p towards its anchor, at the start). A world whose free step fails gets NaN.
  void project(const int* effectors, int ne, const int* groups, int ng, const int* cable_particle,
               const double* cable_anchor, int nc, double* x_free, double* W_ea, double* W_aa);

 private:
  struct Workspace {
    std::shared_ptr<Model> model;  // a copy carrying the world's parameters while it steps
    std::unique_ptr<Stepper> stepper;
    State state;
    Data data;
    std::vector<Vec6> cfrc;  // per body, at the world origin
    explicit Workspace(const std::shared_ptr<Model>& m, const SolverOptions& o);
  };
  void apply_parameters(Workspace& w, int world) const;
  void load(Workspace& w, int world);
  void store(Workspace& w, int world);
  void derive(Workspace& w, int world, bool with_contacts);
  void gather_observation(int world);  // the world's fused observation row, from the arrays
  struct FieldRows {
    const std::vector<double>* data;  // the world-major array
    int per_world;                    // numbers per world
  };
  FieldRows field(ObsField f) const;
  void reset_parameters(int world);  // mocap poses and equality switches to the model's (construction)
  void check_mocap() const;          // finite positions, non-zero quaternions

  std::shared_ptr<const Model> base_;
  SolverOptions opt_;
  int n_, nthread_;
  double h_;
  std::vector<std::unique_ptr<Workspace>> work_;
  std::vector<double> q_, u_, ctrl_, x_, v_, act_, pforce_, actuator_act_;
  std::vector<double> mocap_pos_, mocap_quat_;
  std::vector<uint8_t> eq_active_;
  std::vector<int> mocap_body_;  // body of each mocap index
  std::vector<int8_t> status_;
  std::vector<WarmStart> warm_;  // per world: the last step's contact impulses (warm_start)
  std::vector<double> friction_scale_, mass_scale_, stiffness_scale_, gravity_, medium_;
  std::vector<uint64_t> key_, counter_;
  std::vector<double> xpos_, xquat_, xipos_, cinert_, cvel_, cfrc_ext_, qfrc_act_, site_xpos_, site_xmat_,
      geom_force_, soft_volume_, chamber_volume_, contact_depth_, mass_centre_, sensordata_;
  std::vector<uint8_t> geom_contact_, geom_static_, geom_dynamic_;
  std::vector<int32_t> ncontact_;
  std::vector<int> root_;  // tree root body of each body (0 for the world)
  std::vector<ObsSegment> obs_segments_;
  int obs_dim_ = 0;
  std::vector<double> obs_;
};

}  // namespace ncpgym
