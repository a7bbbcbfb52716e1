// Model: everything that does not change during a rollout, shared read-only by every
// world of a batch (the role of MuJoCo's mjModel and Pinocchio's Model). Arrays are
// structure-of-arrays indexed by body, joint, dof, geom, site or actuator id; body 0 is
// the world. Coordinates follow MuJoCo's qpos/qvel layout exactly, so a state can be
// copied between MuJoCo and ncpgym:
//   free joint  qpos = [x y z qw qx qy qz], qvel = [linear vel (world), angular vel (body)]
//   ball joint  qpos = [qw qx qy qz],       qvel = angular velocity (child body frame)
//   hinge/slide qpos = angle/offset,        qvel = rate
#pragma once

#include <array>
#include <string>
#include <vector>

#include "ncpgym/math/spatial.hpp"
#include "ncpgym/model/hull.hpp"

namespace ncpgym {

enum class JointType : int { Free = 0, Ball = 1, Slide = 2, Hinge = 3 };
enum class GeomType : int { Plane = 0, Sphere = 2, Capsule = 3, Ellipsoid = 4, Box = 6, Cylinder = 5, Mesh = 7 };
// Damper: MuJoCo's damper shortcut, f = -kv ctrl qdot (a control-scaled damper, ctrl >= 0).
enum class ActuatorType : int { Motor = 0, Position = 1, Damper = 2 };
// An actuator's activation dynamics (MuJoCo's dyntype): none (the force reads the control),
// integrator (d act/dt = ctrl), filter (d act/dt = (ctrl - act) / tau, Euler-integrated) and
// filterexact (the same, integrated exactly).
enum class ActuatorDyn : int { None = 0, Integrator, Filter, FilterExact };
// Equality constraints (MJCF <equality>): bilateral rows of the Newton solve (eq. 8).
enum class EqualityType : int { Connect = 0, Weld = 1, Joint = 2, Tendon = 3 };
// Sensor types (MuJoCo's of the same names; batch/sensors.hpp)
enum class SensorType : int {
  Touch = 0, JointPos, JointVel, TendonPos, TendonVel, ActuatorPos, ActuatorVel, ActuatorFrc, FramePos, FrameQuat,
  Gyro, Velocimeter, FrameLinVel, FrameAngVel, FrameXAxis, FrameYAxis, FrameZAxis, SubtreeCom, SubtreeLinVel,
  SubtreeAngMom, Accelerometer, Force, Torque
};
// A tendon term (Model.tendon_wrap): MuJoCo's wrap types joint, site, pulley, and a sphere
// or cylinder geom the tendon wraps around between the sites before and after it.
enum class TendonWrap : int { Joint = 0, Site, Pulley, Sphere, Cylinder };

inline bool frame_sensor(SensorType t) {
  return t == SensorType::FramePos || t == SensorType::FrameQuat || t == SensorType::FrameLinVel ||
         t == SensorType::FrameAngVel || t == SensorType::FrameXAxis || t == SensorType::FrameYAxis ||
         t == SensorType::FrameZAxis;
}

inline int joint_nq(JointType t) { return t == JointType::Free ? 7 : t == JointType::Ball ? 4 : 1; }
inline int joint_nv(JointType t) { return t == JointType::Free ? 6 : t == JointType::Ball ? 3 : 1; }

struct Model {
  // sizes
  int nbody = 1;  // including the world body 0
  int njnt = 0, nq = 0, nv = 0, ngeom = 0, nsite = 0, nu = 0, nmesh = 0;

  // bodies (nbody); parent[i] < i (topological order)
  std::vector<int> body_parent;
  std::vector<Vec3> body_pos;    // position in the parent frame at the reference pose
  std::vector<Quat> body_quat;   // orientation in the parent frame
  std::vector<Mat3> body_rot;    // body_quat as a rotation matrix
  std::vector<double> body_mass;
  std::vector<Vec3> body_com;    // centre of mass in the body frame
  std::vector<Mat3> body_inertia;  // rotational inertia about the com, body axes
  // its principal axes (rotation from them to the body frame; MuJoCo's body_iquat, whose
  // choice within a plane of equal moments fluid drag depends on) and moments (derived at
  // build unless given, Builder::set_principal_inertia)
  std::vector<Quat> body_iquat;
  std::vector<Vec3> body_iprincipal;
  std::vector<int> body_jntadr, body_jntnum;  // joints of the body, applied in order
  std::vector<int> body_dofadr, body_dofnum;  // contiguous dofs of the body
  std::vector<int> body_lastdof;  // deepest dof on the path world..body, -1 if none
  // Buffer slots that let the IIM sweeps reuse a parent's or child's 6-row block in place
  // (derived from the topology; see dynamics/iim.cpp).
  std::vector<int> body_slot_in, body_slot_out;
  std::vector<std::string> body_name;

  // joints (njnt)
  std::vector<JointType> jnt_type;
  std::vector<int> jnt_body, jnt_qposadr, jnt_dofadr;
  std::vector<Vec3> jnt_pos;   // anchor in the body frame
  std::vector<Vec3> jnt_axis;  // unit axis in the body frame (hinge, slide)
  std::vector<double> jnt_ref;        // qpos0 of hinge/slide: the angle at the reference pose
  std::vector<double> jnt_stiffness;  // spring stiffness (hinge, slide)
  std::vector<double> jnt_springref;  // spring rest position (hinge, slide)
  std::vector<int> jnt_limited;
  std::vector<double> jnt_range;  // 2 * njnt
  std::vector<std::string> jnt_name;

  // dofs (nv)
  std::vector<int> dof_body, dof_jnt;
  std::vector<int> dof_parent;  // previous dof on the path to the root, -1 at a root
  std::vector<double> dof_armature, dof_damping;
  // dry friction (MJCF joint/@frictionloss, N or N m): a row per dof with it whose force is
  // bounded by it (constraints/dof_friction_rows.hpp)
  std::vector<double> dof_frictionloss;

  VecX qpos0;  // default configuration (nq)

  // actuators (nu): act_type Motor gives torque gear*ctrl on the joint; Position is a
  // servo kp*(ctrl - q) - kv*qdot used by later solver stages.
  std::vector<ActuatorType> act_type;
  std::vector<int> act_joint;   // the joint driven (-1: a tendon's actuator)
  std::vector<int> act_tendon;  // the tendon driven (-1: a joint's); its force is explicit
  std::vector<double> act_gear, act_kp, act_kv;
  std::vector<int> act_ctrllimited;
  std::vector<double> act_ctrlrange;  // 2 * nu
  // force limits (MJCF actuator/@forcerange) on the scalar force f of actuation.hpp: a servo
  // whose force would leave them acts explicitly with the bound (solver/stepper.cpp)
  // MuJoCo's general affine actuator f = kc ctrl + b0 - kp g q - kv g qdot (<general> with a
  // fixed gain kc and an affine bias [b0, -kp, -kv]): a Position servo whose control gain kc
  // differs from kp or with an offset b0 (a position servo: kc = kp, b0 = 0), targeting
  // (kc ctrl + b0) / kp when kp > 0 (servo_target, actuation.hpp)
  std::vector<double> act_ctrlgain, act_bias0;
  std::vector<int> act_forcelimited;
  std::vector<double> act_forcerange;  // 2 * nu
  std::vector<std::string> act_name;
  // activation dynamics (MJCF actuator/@dyntype, dynamics/actuation.hpp): an actuator with
  // them reads its activation (State.actuator_act[act_actadr], na in all) instead of its
  // control, and the step advances the activation from the clamped control as MuJoCo does
  int na = 0;
  std::vector<ActuatorDyn> act_dyn;
  std::vector<double> act_dyntau;      // filter time constant (s)
  std::vector<int> act_actadr;         // -1 without dynamics
  std::vector<int> act_actlimited;
  std::vector<double> act_actrange;    // 2 * nu

  // geoms (ngeom)
  std::vector<GeomType> geom_type;
  std::vector<int> geom_body, geom_mesh;
  std::vector<Vec3> geom_pos, geom_size, geom_friction;
  std::vector<Quat> geom_quat;
  std::vector<Mat3> geom_rot;  // geom_quat as a rotation matrix
  std::vector<int> geom_contype, geom_conaffinity;
  std::vector<std::string> geom_name;
  // Contact parameters of a geom (MJCF geom/@condim, @priority, @margin), resolved per pair
  // at detection (collision/contact_params.hpp): condim 1 frictionless, 3 sliding friction
  // (geom_friction[0]), 4 also torsional (geom_friction[1], a length), 6 also rolling
  // (geom_friction[2], a length); margin: the pair is in contact below this distance.
  std::vector<int> geom_condim, geom_priority;
  std::vector<double> geom_margin;
  double max_geom_margin = 0;  // derived at build: the broad phase grows every box by it

  // Explicit contact pairs (MJCF <contact><pair>): these geom pairs collide whatever their
  // contact bits say, with the pair's own condim, friction (slide, spin, roll: the five MuJoCo
  // values with equal tangents) and margin; geoms_may_collide leaves them to this list.
  int npair = 0;
  std::vector<std::array<int, 2>> pair_geom;  // (g1 < g2)
  std::vector<int> pair_condim;
  std::vector<Vec3> pair_friction;
  std::vector<double> pair_margin;

  // meshes (nmesh): vertices in the mesh frame as given (export, rendering), and the convex
  // hull they collide as (any vertex count; builder/hull.hpp)
  std::vector<std::vector<Vec3>> mesh_vert;
  std::vector<std::string> mesh_name;
  std::vector<ConvexHull> mesh_hull;
  // Boxes also as hulls, in the geom frame, for pairs that go through support functions
  // (collision/convex.hpp); empty for other geom types.
  std::vector<ConvexHull> geom_hull;

  // sites (nsite)
  std::vector<int> site_body;
  std::vector<Vec3> site_pos;
  std::vector<Quat> site_quat;
  std::vector<Mat3> site_rot;  // site_quat as a rotation matrix
  std::vector<std::string> site_name;
  std::vector<int> site_type;   // shape, as MuJoCo's geom types (2 sphere ... 6 box): touch zones
  std::vector<Vec3> site_size;

  // Sensors (nsensor; batch/sensors.hpp): sensor k writes sensor_dim[k] values from
  // sensor_adr[k] of a world's nsensordata. sensor_obj: the joint, tendon, actuator, site
  // (touch) or frame object; sensor_objtype for frame sensors: 0 site, 1 body (inertial
  // frame), 2 xbody, 3 geom. sensor_scale: actuator sensors' factor to MuJoCo's units (a
  // motor's gain, which ncpgym keeps in its gear). A positive cutoff clamps the reading.
  int nsensor = 0, nsensordata = 0;
  std::vector<SensorType> sensor_type;
  std::vector<int> sensor_objtype, sensor_obj, sensor_adr, sensor_dim;
  std::vector<double> sensor_cutoff, sensor_scale;
  std::vector<std::string> sensor_name;

  // particles (nparticle): point masses with a collision radius, outside the articulated
  // trees; their coordinates follow the trees' in the solver's velocity vector.
  int nparticle = 0;
  std::vector<double> particle_mass, particle_radius, particle_friction;
  std::vector<Vec3> particle_pos0;
  // distance constraints between particles (compliant rows, eq. 8): |x1 - x2| - rest
  int ndistance = 0;
  std::vector<int> dist_p1, dist_p2;
  std::vector<double> dist_rest, dist_compliance;
  // attachments of a particle to a point fixed on a body (3 hard bilateral rows)
  int nattach = 0;
  std::vector<int> att_particle, att_body;
  std::vector<Vec3> att_local;

  // tetrahedral elements on particles (soft bodies, nonsmooth-newton-ncp.txt §9.2.1):
  // linear co-rotational (six compliant rows) or stable Neo-Hookean (three), soft/tet.hpp
  int ntet = 0;
  std::vector<std::array<int, 4>> tet_p;  // particles, positively oriented at rest
  std::vector<Mat3> tet_Dminv;            // inverse rest edge matrix
  std::vector<double> tet_volume, tet_mu, tet_lambda;
  std::vector<int> tet_model;             // 0 linear co-rotational, 1 stable Neo-Hookean (6 rows each)
  // activation groups (pneumatic chambers): tetrahedra of group g take State::act[g] as an
  // active volumetric strain a, i.e. their rest shape is scaled by 1 + a (-1: none); rod
  // nodes of group g take it as a natural curvature (rodnode_group)
  std::vector<int> tet_group;
  int nactgroup = 0;
  // Pressure chambers (soft/pressure.hpp): closed triangle surfaces on particles, oriented out
  // of the cavity; chamber c's pressure (Pa) is State::act[chamber_group[c]], its load the
  // follower force p dV/dx of the enclosed volume V.
  int nchamber = 0;
  std::vector<std::array<int, 3>> chamber_tri;
  std::vector<int> chamber_start = {0};  // nchamber + 1: chamber c's triangles
  std::vector<int> chamber_group;
  // Elastic stretching of rod and shell edges (dismech-rods-shells.txt eqs. 9-10): compliant
  // rows |x1 - x2| - rest with compliance rest / k_s, eliminated into the particle block by
  // the primal solve like the other element rows (constraints/stretch_rows.cpp).
  int nstretch = 0;
  std::vector<std::array<int, 2>> stretch_p;
  std::vector<double> stretch_rest, stretch_compliance;
  // Discrete elastic rods (dismech-rods-shells.txt §3; soft/rod.hpp, constraints/rod_rows.cpp).
  // Nodes are particles; each edge has a ghost particle whose direction from the edge's
  // axis is the edge's material vector m1 (the twist coordinate, soft/rod.hpp says why).
  // Stretching is a stretch row. Interior nodes carry the bend-twist rows.
  int nrodedge = 0;
  std::vector<std::array<int, 3>> rodedge_p;  // nodes a, b (a -> b) and the ghost
  std::vector<double> rodedge_ghost;          // the ghost's rest distance from the midpoint
  std::vector<double> rodedge_radius;         // the rod's radius (contact, drawing)
  int nrodnode = 0;                           // interior nodes
  std::vector<std::array<int, 2>> rodnode_edge;     // incoming edge (.., b), outgoing (b, ..)
  std::vector<std::array<double, 2>> rodnode_len;   // their rest lengths
  std::vector<Vec3> rodnode_rest;        // kappa1, kappa2 (integrated), tau of the rest shape
  std::vector<Vec3> rodnode_compliance;  // l / EI, l / EI, l / GJ (l: Voronoi length)
  // activation group whose State::act value (1/m) is added as natural curvature on kappa1
  // (the seed's PneuNet rod actuation); -1: none
  std::vector<int> rodnode_group;
  std::vector<char> particle_ghost;      // nparticle: 1 for a rod's ghost (no contact)
  // nparticle: the deformable piece each particle belongs to (soft/components.hpp)
  std::vector<int> particle_component;
  // Per particle, for the forces of a surrounding medium (soft/medium.hpp): the material
  // density (buoyancy; 0: none) and the length that scales viscous friction (0: none).
  std::vector<double> particle_density, particle_visc_length;
  // Discrete elastic shells (dismech-rods-shells.txt §3.1, §3.3.1; soft/shell.hpp): nodes are
  // particles, edges stretch as stretch rows (k_s = sqrt(3)/4 E h l), and each hinge (an edge
  // shared by two triangles) bends as one compliant row c = phi - phi_bar, E = 1 / k_b with
  // k_b = 2 E h^3 / (12 sqrt(3)), twice seed eq. 17's:
  // builder/shell_builder.cpp says why.
  int nhinge = 0;
  std::vector<std::array<int, 4>> hinge_p;  // edge x0 -> x1, then the tips of (x0, x1, x2), (x1, x0, x3)
  std::vector<double> hinge_rest, hinge_compliance;  // phi at rest (rad); 1 / k_b
  // activation group whose State::act value (rad) is added to the natural hinge angle; -1: none
  std::vector<int> hinge_group;
  std::vector<std::array<int, 3>> shell_tri;  // shell triangles (particles, counter-clockwise)
  std::vector<std::array<char, 3>> shell_tri_edge_owner;  // edge k (p_k, p_k+1) reported by this triangle
  // Soft surfaces (computed by Builder::build, soft/surface.cpp): each connected set of
  // tetrahedra is a soft body (particle_soft: its index, -1 for loose particles); its
  // boundary faces, outward, are the triangles rigid geoms and other soft bodies touch.
  int nsoft = 0;
  std::vector<int> particle_soft;
  std::vector<std::array<int, 3>> tri_p;     // boundary triangles (particles), outward
  std::vector<int> tri_soft;                 // soft body of each triangle
  std::vector<std::array<char, 3>> tri_edge_owner;  // edge k (p_k, p_k+1) reported by this triangle
  std::vector<int> soft_vertex;              // particles on a boundary, grouped by soft body
  std::vector<int> soft_vertex_start, soft_tri_start;  // per soft body (nsoft + 1): ranges
  std::vector<std::array<int, 2>> soft_exclude_particles;  // Builder::exclude_soft_pair
  std::vector<char> soft_exclude;                          // nsoft x nsoft: no contact

  // Mocap bodies: children of the world without joints whose pose is set per world and
  // step (Batch.mocap_pos / mocap_quat, applied to each world's model copy like gravity);
  // kinematic, as in MuJoCo. body_mocapid: index among the mocap bodies, -1 for the others.
  int nmocap = 0;
  std::vector<int> body_mocapid;
  // Gravity compensation (MJCF body/@gravcomp, nbody): a force -gravcomp m g at each
  // body's centre of mass, a passive force as in MuJoCo (1 cancels the body's weight).
  // Empty when no body has one, so that models without it pay nothing.
  std::vector<double> body_gravcomp;

  // Equality constraints (neq), constraints/equality_rows.cpp:
  //   connect: p1 = x1 + R1 a1 and p2 = x2 + R2 a2 coincide (3 rows; a1, a2 in the body frames)
  //   weld:    the same with a1 = relpos (body 1 frame) and a2 = anchor (body 2 frame), and
  //            R2 = R1 Rrel (3 more rows; Rrel = eq_relquat)
  //   joint:   q1 - q1_0 = sum_k c_k (q2 - q2_0)^k, k = 0..4 (1 row; obj2 = -1: q1 - q1_0 = c_0)
  //   tendon:  the same on two fixed tendons' lengths, L_0 their lengths at qpos0
  // with compliance E (0: rigid). eq_active: 1 on, 0 off (a per-world parameter in Batch).
  int neq = 0;
  std::vector<EqualityType> eq_type;
  std::vector<int> eq_obj1, eq_obj2;  // bodies (connect, weld) or joints (joint)
  std::vector<Vec3> eq_anchor1, eq_anchor2;
  std::vector<Quat> eq_relquat;
  std::vector<std::array<double, 5>> eq_polycoef;
  std::vector<double> eq_compliance;
  std::vector<unsigned char> eq_active;
  std::vector<std::string> eq_name;
  // Tendons (MJCF <tendon>, dynamics/tendon.hpp). A fixed tendon's terms are joints: length
  // L = sum_k coef_k q_k over hinge and slide joints, so its row J_t (the coefficients on the
  // joints' dofs) is constant. A spatial tendon's terms are sites, with pulleys and wrapping
  // geoms (spheres, cylinders: dynamics/tendon_wrap.hpp) between sites: L is the sum of the
  // path's straight segments and arcs, each divided by the divisor of the last pulley before
  // it (1 before any), and J_t comes from the point Jacobians of its segments' ends.
  // Limits are unilateral rows (constraints/limit_rows.cpp), frictionloss dry-friction rows,
  // stiffness and damping passive forces J_t^T f (solver/stepper.cpp, dynamics/aba.cpp).
  int ntendon = 0;
  std::vector<int> tendon_adr, tendon_num;  // the tendon's terms in tendon_wrap / tendon_obj / tendon_coef
  std::vector<TendonWrap> tendon_wrap;      // a term's kind: all Joint (fixed), or Site and Pulley (spatial)
  std::vector<int> tendon_obj;              // a joint term's dof (qpos: dof_qposadr), a site's, a geom's, -1
  std::vector<double> tendon_coef;          // a joint term's coefficient, a pulley's divisor, else 1
  std::vector<int> tendon_side;             // a wrapping geom's side site, else -1
  std::vector<int> tendon_limited;
  std::vector<double> tendon_range;         // 2 * ntendon
  std::vector<double> tendon_stiffness, tendon_damping, tendon_frictionloss;
  std::vector<double> tendon_springlength;  // 2 * ntendon: the spring is slack between these
  std::vector<std::string> tendon_name;
  std::vector<int> dof_qposadr;             // nv: the qpos entry of a hinge or slide dof (-1 otherwise)

  // Body pairs that never collide (MJCF <contact><exclude>), as (min, max) body ids.
  std::vector<std::array<int, 2>> exclude_pairs;
  // The geom pairs (g1 < g2, sorted) the filtering rules let collide (collision/filter.hpp),
  // listed at build when they are few (collision/broadphase.hpp, list_geom_pairs): the
  // broad phase then tests just these. Empty: too many (or none), sweep and prune.
  std::vector<std::array<int, 2>> geom_pairs;

  Vec3 gravity = Vec3(0, 0, -9.81);
  // The medium around particles (dismech-rods-shells.txt §5; per world in a Batch):
  // density rho_med (buoyancy of particles with a material density; aerodynamic drag on
  // shell triangles with drag_coefficient C_D) and viscosity eta (Pa s) on particles with a
  // viscous length. Zero: vacuum.
  double medium_density = 0.0, drag_coefficient = 0.0, viscosity = 0.0;
  // Skin friction coefficient C_f of shell triangles in the medium (ncpgym's, not the seed's:
  // soft/medium.hpp). Zero: none. Per model, not per world.
  double skin_friction = 0.0;
  // MuJoCo's fluid forces on rigid bodies (its option density, viscosity, wind; the
  // inertia-box model, dynamics/fluid.hpp): passive forces, explicit. Zero: none.
  double fluid_density = 0.0, fluid_viscosity = 0.0;
  Vec3 fluid_wind = Vec3::Zero();
  // MuJoCo's ellipsoid model (its geom fluidshape="ellipsoid"; dynamics/fluid.hpp) on the geoms
  // fluid_geom lists, in that order: semi-axes, coefficients (blunt drag, slender drag, angular
  // drag, Kutta lift, Magnus lift), added mass and added moments per unit density (MuJoCo's
  // geom_fluid). A body with such a geom leaves the inertia-box model (body_fluid_ellipsoid).
  std::vector<int> fluid_geom;
  std::vector<Vec3> fluid_axes, fluid_added_mass, fluid_added_inertia;
  std::vector<Eigen::Matrix<double, 5, 1>> fluid_coef;
  std::vector<unsigned char> body_fluid_ellipsoid;  // derived at build (nbody, or empty)
  double timestep = 0.002;
  // Iteration counts this model asks for (0: the solver's defaults), as the seed's Table 2
  // sets them per scene. The Python Simulator and Batch constructors apply them unless the
  // options are given there; C++ callers pass complete SolverOptions and decide themselves.
  int newton_iterations = 0, linear_iterations = 0;

  // Lookup by name; throw std::out_of_range naming the missing item.
  int body_id(const std::string& name) const;
  int joint_id(const std::string& name) const;
  int site_id(const std::string& name) const;
  int geom_id(const std::string& name) const;
  int actuator_id(const std::string& name) const;
  int equality_id(const std::string& name) const;

  double total_mass() const;
};

// Whether tendon t is spatial (sites and pulleys) rather than fixed (joints).
inline bool spatial_tendon(const Model& m, int t) { return m.tendon_wrap[m.tendon_adr[t]] != TendonWrap::Joint; }

// How many objects a sensor of this type (and frame object type) may name: joints, tendons,
// actuators, sites, bodies or geoms (model.hpp, sensor_objtype).
inline int sensor_object_count(const Model& m, SensorType t, int objtype) {
  switch (t) {
    case SensorType::Touch:
    case SensorType::Accelerometer:
    case SensorType::Force:
    case SensorType::Torque:
    case SensorType::Gyro:
    case SensorType::Velocimeter: return m.nsite;
    case SensorType::SubtreeCom:
    case SensorType::SubtreeLinVel:
    case SensorType::SubtreeAngMom: return m.nbody;
    case SensorType::JointPos:
    case SensorType::JointVel: return m.njnt;
    case SensorType::TendonPos:
    case SensorType::TendonVel: return m.ntendon;
    case SensorType::ActuatorPos:
    case SensorType::ActuatorVel:
    case SensorType::ActuatorFrc: return m.nu;
    case SensorType::FramePos:
    case SensorType::FrameQuat:
    case SensorType::FrameLinVel:
    case SensorType::FrameAngVel:
    case SensorType::FrameXAxis:
    case SensorType::FrameYAxis:
    case SensorType::FrameZAxis:
      return objtype == 0 ? m.nsite : objtype == 1 || objtype == 2 ? m.nbody : objtype == 3 ? m.ngeom : 0;
  }
  return 0;
}

// Each body's tree: the world's child it hangs from (0 for the world); parents come before
// their children in the body order.
inline std::vector<int> body_trees(const Model& m) {
  std::vector<int> tree(m.nbody, 0);
  for (int b = 1; b < m.nbody; ++b) tree[b] = m.body_parent[b] == 0 ? b : tree[m.body_parent[b]];
  return tree;
}

}  // namespace ncpgym
