// Builder: assembles a Model programmatically (tests, scenes) or from a MuJoCo-compiled
// model (python/ncpgym/models). build() validates everything and rejects degenerate input
// with a std::invalid_argument naming the offending item. It sits above model/, collision/
// and soft/ (it derives hulls and soft surfaces while building), so that model/ includes
// nothing from the layers that read it.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "ncpgym/model/model.hpp"

namespace ncpgym {

struct JointSpec {
  JointType type = JointType::Hinge;
  Vec3 pos = Vec3::Zero();
  Vec3 axis = Vec3::UnitZ();
  double ref = 0, stiffness = 0, springref = 0, damping = 0, armature = 0;
  double frictionloss = 0;  // dry friction of each dof (N or N m), >= 0
  bool limited = false;
  double range_lo = 0, range_hi = 0;
  std::string name;
};

// A fixed tendon (MJCF <tendon><fixed>): L = sum_k coef[k] q_{joint[k]} over hinge and slide
// joints; range (when limited) bounds L; frictionloss (N or N m); stiffness k and damping b
// make the passive force -k (L - L_s) - b dL/dt, L_s the nearest point of
// [springlength_lo, springlength_hi].
struct TendonSpec {
  std::vector<int> joint;    // fixed: the joints, with coef
  std::vector<double> coef;  // fixed: a coefficient per joint; spatial: a pulley's divisor, else 1
  // spatial: the path's terms in order (Site, Pulley, Sphere or Cylinder), each with its
  // site or geom (path_obj; -1 for a pulley) and a wrapping geom's side site (path_side, -1)
  std::vector<TendonWrap> path_kind;
  std::vector<int> path_obj, path_side;
  bool limited = false;
  double range_lo = 0, range_hi = 0;
  double stiffness = 0, damping = 0, frictionloss = 0;
  double springlength_lo = 0, springlength_hi = 0;
  std::string name;
};

struct GeomSpec {
  GeomType type = GeomType::Sphere;
  Vec3 size = Vec3::Zero();  // MuJoCo semantics: sphere r; capsule/cylinder r, half-length; box half-sizes
  Vec3 pos = Vec3::Zero();
  Quat quat = Quat::Identity();
  Vec3 friction = Vec3(1.0, 0.005, 0.0001);
  int contype = 1, conaffinity = 1;
  int mesh = -1;
  // contact parameters (model.hpp): condim 1, 3, 4 or 6; priority; margin >= 0 (m)
  int condim = 3, priority = 0;
  double margin = 0;
  std::string name;
};

class Builder {
 public:
  Builder();

  // Adds a body to `parent` (0 = world) at pose (pos, quat) in the parent frame, with
  // mass, centre of mass `com` and rotational inertia about the com, both in the body frame.
  int add_body(int parent, const Vec3& pos, const Quat& quat, double mass, const Vec3& com,
               const Mat3& inertia, const std::string& name = "");
  // Joints of one body are applied in the order added; add all joints of a body before
  // adding joints to a later body (MuJoCo's qpos order).
  int add_joint(int body, const JointSpec& spec);
  int add_geom(int body, const GeomSpec& spec);
  // A mesh collides as its convex hull. `hull_triangles` (indices into vertices) are the
  // triangles of that hull, e.g. from MuJoCo's compiler (qhull); without them the hull is
  // computed here by brute force, for at most kMaxBruteForceHullVertices vertices.
  int add_mesh(const std::vector<Vec3>& vertices, const std::string& name = "",
               const std::vector<std::array<int, 3>>& hull_triangles = {});
  int add_site(int body, const Vec3& pos, const Quat& quat, const std::string& name = "");
  int add_actuator(int joint, ActuatorType type, double gear, bool ctrllimited, double ctrl_lo,
                   double ctrl_hi, double kp = 0, double kv = 0, const std::string& name = "");
  // MuJoCo's <general> actuator with a fixed gain and an affine bias: f = ctrlgain ctrl + bias0
  // - kp g q - kv g qdot (kp, kv >= 0, not both 0), implicit in q and qdot as the servo is.
  int add_affine_actuator(int joint, double gear, bool ctrllimited, double ctrl_lo, double ctrl_hi, double ctrlgain,
                          double bias0, double kp, double kv, const std::string& name = "");
  // An actuator on fixed tendon `tendon` (MuJoCo's tendon transmission): force f = ctrlgain
  // ctrl + bias0 - kp g L - kv g dL/dt (a motor: ctrlgain 1, the rest 0), applied as
  // g J_t^T f, explicitly (its stiffness would couple the tendon's joints in H).
  int add_tendon_actuator(int tendon, double gear, bool ctrllimited, double ctrl_lo, double ctrl_hi, double ctrlgain,
                          double bias0, double kp, double kv, const std::string& name = "");
  // Limits actuator a's scalar force f (dynamics/actuation.hpp: the motor's control, the
  // servo's kp (ctrl - g q) - kv g qdot) to [lo, hi] (MJCF actuator/@forcerange).
  void set_actuator_forcerange(int a, double lo, double hi);
  // Activation dynamics (MuJoCo's dyntype integrator, filter or filterexact with its time
  // constant tau, and its actrange when actlimited): the actuator's force reads its activation.
  void set_actuator_dynamics(int a, ActuatorDyn dyn, double tau, bool actlimited, double lo, double hi);
  // A particle (point mass) at `pos` with collision radius and friction coefficient.
  int add_particle(const Vec3& pos, double mass, double radius = 0.0, double friction = 0.5);
  // Distance constraint between two particles; rest < 0 takes the initial distance;
  // compliance 0 is a hard constraint.
  int add_distance(int p1, int p2, double compliance = 0.0, double rest = -1.0);
  // A linear co-rotational tetrahedron on four particles (positively oriented: the rest
  // edges x1 - x0, x2 - x0, x3 - x0 form a right-handed frame) with Young's modulus (Pa)
  // and Poisson's ratio in [0, 0.5).
  // `model`: 0 linear co-rotational, 1 stable Neo-Hookean.
  int add_tet(const std::array<int, 4>& particles, double young, double poisson, int model = 0);
  // Puts a tetrahedron in activation group `group` (>= 0; -1 removes it from any group).
  void set_tet_group(int tet, int group);
  // A pressure chamber (soft/pressure.hpp): a closed surface of triangles on existing
  // particles, each edge shared by two triangles in opposite directions, oriented out of the
  // cavity (positive enclosed volume). Its pressure (Pa) is the activation of `group`.
  // Returns the chamber's index.
  int add_pressure_chamber(const std::vector<std::array<int, 3>>& triangles, int group);
  // A soft body from a tetrahedral mesh: one particle per vertex with the lumped mass
  // (density x volume of the elements around it / 4), then the elements. Returns the first
  // particle's index. Negatively oriented elements are reordered; degenerate ones rejected.
  int add_soft_body(const std::vector<Vec3>& vertices, const std::vector<std::array<int, 4>>& tets,
                    double density, double young, double poisson, double radius = 0.0, double friction = 0.5,
                    int model = 0);
  // A discrete elastic rod through `points` (>= 2, consecutive points distinct, no turn of
  // 180 degrees) with a solid circular section of `radius` (m), Young's modulus and Poisson's
  // ratio (twist modulus G = E / 2(1 + nu)), density (kg/m^3) and contact friction
  // (builder/rod_builder.cpp; dismech-rods-shells.txt §3). Its rest shape is stress-free
  // (a helix keeps its shape). `normal`: the first edge's material vector m1 (projected
  // off the edge; zero: any), carried along the rod by parallel transport; natural curvature
  // from activation group `group` (>= 0, act in 1/m) bends the rod towards m1.
  // start_particle / end_particle (>= 0): an existing particle at the first / last point
  // becomes that end node (joints with other rods and shells, a payload); it gains the
  // rod's share of mass. Returns the first new particle: the new nodes in order, then the
  // n - 1 edges' ghost particles.
  int add_rod(const std::vector<Vec3>& points, double radius, double young, double poisson, double density,
              double friction = 0.5, const Vec3& normal = Vec3::Zero(), int group = -1, int start_particle = -1,
              int end_particle = -1);
  // A discrete elastic shell (builder/shell_builder.cpp; dismech-rods-shells.txt §3.1, §3.3.1)
  // from a triangle mesh with consistently oriented (counter-clockwise) triangles: one
  // particle per vertex (mass rho h A / 3 from each triangle), every edge a stretching row
  // (k_s = sqrt(3)/4 E h l), every interior edge a hinge (k_b = 2 E h^3 / (12 sqrt(3)), twice seed eq. 17's: shell_builder.cpp) whose
  // rest angle is the initial one. Returns the first particle; hinges are appended in the
  // order of their edges (smaller vertex, then larger).
  int add_shell(const std::vector<Vec3>& vertices, const std::vector<std::array<int, 3>>& triangles,
                double thickness, double young, double poisson, double density, double friction = 0.5);
  int nhinge() const { return m_.nhinge; }
  // The particles of hinge h: the edge x0 -> x1 and the two tips.
  std::array<int, 4> hinge_particles(int h) const;
  // Hinge h's natural angle becomes its rest angle plus the activation of `group` (rad).
  void set_hinge_group(int h, int group);
  // Pins a particle to the point `local` of `body` (0: a point fixed in the world).
  int add_attachment(int particle, int body, const Vec3& local);
  // No contact between the soft body containing particle a and the one containing b
  // (e.g. fingers sharing a mount); resolved to soft bodies when the model is built.
  void exclude_soft_pair(int a, int b);
  // Equality constraints (bilateral rows of the Newton solve; compliance 0: rigid).
  // connect: the point anchor1 of body1 (body-1 frame) and anchor2 of body2 coincide.
  int add_connect(int body1, int body2, const Vec3& anchor1, const Vec3& anchor2, double compliance = 0.0,
                  bool active = true, const std::string& name = "");
  // weld: relpos (body-1 frame) of body1 coincides with anchor (body-2 frame) of body2, and
  // body2's orientation is body1's times relquat.
  int add_weld(int body1, int body2, const Vec3& relpos, const Quat& relquat, const Vec3& anchor,
               double compliance = 0.0, bool active = true, const std::string& name = "");
  // joint coupling: q1 - q1_0 = sum_k polycoef[k] (q2 - q2_0)^k on hinge/slide joints
  // (joint2 = -1: q1 - q1_0 = polycoef[0]); q_0 is the joints' reference position.
  int add_joint_coupling(int joint1, int joint2, const std::array<double, 5>& polycoef, double compliance = 0.0,
                         bool active = true, const std::string& name = "");
  // tendon coupling: L1 - L1_0 = sum_k polycoef[k] (L2 - L2_0)^k on fixed tendons (tendon2 =
  // -1: L1 - L1_0 = polycoef[0]); L_0 is the tendon's length at qpos0 (MuJoCo's tendon equality).
  int add_tendon_coupling(int tendon1, int tendon2, const std::array<double, 5>& polycoef, double compliance = 0.0,
                          bool active = true, const std::string& name = "");
  // A mocap body: a child of the world without joints, posed per world and step.
  void set_mocap(int body);
  // Gravity compensation (MJCF body/@gravcomp): a force -weight m g at the body's centre of
  // mass, a passive force (1 cancels its weight, 0 none, other values scale it).
  void set_gravcomp(int body, double weight);
  int add_fixed_tendon(const TendonSpec& spec);
  // A spatial tendon along spec.path_* (pulleys' divisors in spec.coef).
  int add_spatial_tendon(const TendonSpec& spec);
  // A body's principal axes of inertia (rotation to the body frame) and moments, as MuJoCo's
  // compiler chose them (its body_iquat, body_inertia); checked against the body's inertia.
  // Otherwise they come from an eigendecomposition, whose axes within a plane of equal
  // moments are arbitrary (fluid drag depends on them).
  void set_principal_inertia(int body, const Quat& iquat, const Vec3& principal);
  // MuJoCo's fluid forces on rigid bodies (option density, viscosity, wind; dynamics/fluid.hpp).
  void set_fluid(double density, double viscosity, const Vec3& wind = Vec3::Zero());
  // MuJoCo's ellipsoid fluid model on one geom (its fluidshape="ellipsoid", dynamics/fluid.hpp):
  // the equivalent ellipsoid's semi-axes (geom frame), coefficients (blunt drag, slender drag,
  // angular drag, Kutta lift, Magnus lift) and its added mass and moments per unit fluid density
  // (MuJoCo's compiler writes all of these in geom_fluid). Its body leaves the inertia-box model.
  void set_geom_fluid(int geom, const Vec3& semi_axes, const Eigen::Matrix<double, 5, 1>& coef,
                      const Vec3& added_mass, const Vec3& added_inertia);
  // A site's shape (MuJoCo geom type 2 sphere, 3 capsule, 4 ellipsoid, 5 cylinder, 6 box, and
  // half-sizes): the zone of touch sensors.
  void set_site_shape(int site, int type, const Vec3& size);
  // A sensor (batch/sensors.hpp; model.hpp says what objtype, obj and scale mean); returns its id.
  int add_sensor(SensorType type, int objtype, int obj, double cutoff = 0, double scale = 1, const std::string& name = "");
  // No contact between the geoms of two bodies (MJCF <contact><exclude>).
  void exclude_bodies(int body1, int body2);
  // An explicit contact pair (MJCF <contact><pair>): geoms g1 and g2 collide whatever their
  // contact bits, with this condim (1, 3, 4, 6), friction (slide, spin, roll) and margin.
  int add_contact_pair(int g1, int g2, int condim, const Vec3& friction, double margin);
  void set_gravity(const Vec3& g) { m_.gravity = g; }
  // The medium (soft/medium.hpp): density (kg/m^3; buoyancy of rods and shells, and with a
  // drag coefficient C_D the drag on shell triangles) and viscosity (Pa s, on rod and shell
  // nodes), and skin_friction C_f (tangential drag on shell triangles, ncpgym's addition).
  // All >= 0; zero is vacuum.
  void set_medium(double density, double drag_coefficient, double viscosity, double skin_friction = 0.0);
  void set_timestep(double h);
  // Newton / linear iteration counts for this model (0: the solver's defaults).
  void set_solver_iterations(int newton, int linear);

  int nbody() const { return m_.nbody; }
  int nparticle() const { return m_.nparticle; }
  // A particle's initial position (e.g. to attach a rod's ghost where it was placed).
  Vec3 particle_pos(int p) const;

  // Validates and returns the immutable Model. The Builder may be reused afterwards.
  std::shared_ptr<const Model> build() const;

 private:
  void count_activation_groups();
  // appends actuator arrays' entries (validated by the caller); returns the id
  int push_actuator(ActuatorType type, int joint, int tendon, double gear, bool ctrllimited, double lo, double hi,
                    double kp, double kv, double ctrlgain, double bias0, const std::string& name);  // nactgroup from the tetrahedra's, rod nodes' and hinges' groups
  // a tendon's range, spring, damper and friction: validated, then appended (returns the id)
  void check_tendon_parameters(const TendonSpec& s, const std::string& who) const;
  int push_tendon_parameters(const TendonSpec& s);
  // an elastic stretching row between two particles at their initial distance (rods, shells)
  void add_stretch(int p1, int p2, double compliance);
  Model m_;
};

}  // namespace ncpgym
