// Python bindings of Model, Builder and State. The Model is immutable: Python sees copies
// of its arrays, never writable views.
#include <stdexcept>

#include <optional>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "ncpgym/builder/builder.hpp"
#include "ncpgym/model/serialize.hpp"
#include "ncpgym/model/state.hpp"
#include "ncpgym/soft/pressure.hpp"

using namespace ncpgym;

namespace {
template <class T>
py::array_t<double> vec3s(const std::vector<T>& v) {
  py::array_t<double> a({static_cast<py::ssize_t>(v.size()), py::ssize_t(3)});
  auto r = a.mutable_unchecked<2>();
  for (size_t i = 0; i < v.size(); ++i)
    for (int k = 0; k < 3; ++k) r(i, k) = v[i][k];
  return a;
}
py::array_t<double> quats(const std::vector<Quat>& v) {
  py::array_t<double> a({static_cast<py::ssize_t>(v.size()), py::ssize_t(4)});
  auto r = a.mutable_unchecked<2>();
  for (size_t i = 0; i < v.size(); ++i) {
    r(i, 0) = v[i].w();
    r(i, 1) = v[i].x();
    r(i, 2) = v[i].y();
    r(i, 3) = v[i].z();
  }
  return a;
}
py::array_t<double> mat3s(const std::vector<Mat3>& v) {
  py::array_t<double> a({static_cast<py::ssize_t>(v.size()), py::ssize_t(3), py::ssize_t(3)});
  auto r = a.mutable_unchecked<3>();
  for (size_t i = 0; i < v.size(); ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) r(i, j, k) = v[i](j, k);
  return a;
}
template <class T>
py::array_t<T> arr(const std::vector<T>& v) {
  return py::array_t<T>(static_cast<py::ssize_t>(v.size()), v.data());
}
template <class E>
py::array_t<int> enum_arr(const std::vector<E>& v) {
  py::array_t<int> a(static_cast<py::ssize_t>(v.size()));
  for (size_t i = 0; i < v.size(); ++i) a.mutable_at(i) = static_cast<int>(v[i]);
  return a;
}
Quat quat_from(const Eigen::Vector4d& wxyz) { return Quat(wxyz[0], wxyz[1], wxyz[2], wxyz[3]); }

JointType joint_type(const std::string& s) {
  if (s == "free") return JointType::Free;
  if (s == "ball") return JointType::Ball;
  if (s == "slide" || s == "prismatic") return JointType::Slide;
  if (s == "hinge" || s == "revolute") return JointType::Hinge;
  throw std::invalid_argument("unknown joint type '" + s + "' (expected free, ball, slide or hinge)");
}
GeomType geom_type(const std::string& s) {
  if (s == "plane") return GeomType::Plane;
  if (s == "sphere") return GeomType::Sphere;
  if (s == "capsule") return GeomType::Capsule;
  if (s == "box") return GeomType::Box;
  if (s == "cylinder") return GeomType::Cylinder;
  if (s == "mesh") return GeomType::Mesh;
  if (s == "ellipsoid") return GeomType::Ellipsoid;
  throw std::invalid_argument("unknown geom type '" + s +
                              "' (expected plane, sphere, capsule, ellipsoid, box, cylinder or mesh)");
}
// A coupling's polynomial coefficients, padded with zeros to five.
std::array<double, 5> polycoef5(const std::vector<double>& polycoef) {
  if (polycoef.size() > 5) throw std::invalid_argument("polycoef: at most 5 coefficients");
  std::array<double, 5> c{};
  std::copy(polycoef.begin(), polycoef.end(), c.begin());
  return c;
}
// A tendon's range (None: unlimited), spring, damper and friction, as both tendon kinds take them.
void set_tendon_parameters(TendonSpec& s, const py::object& range, double stiffness, double damping, double frictionloss,
                           std::pair<double, double> springlength, const std::string& name) {
  if (!range.is_none()) {
    const auto r = range.cast<std::pair<double, double>>();
    s.limited = true;
    s.range_lo = r.first;
    s.range_hi = r.second;
  }
  s.stiffness = stiffness;
  s.damping = damping;
  s.frictionloss = frictionloss;
  s.springlength_lo = springlength.first;
  s.springlength_hi = springlength.second;
  s.name = name;
}

ActuatorType actuator_type(const std::string& s) {
  if (s == "motor") return ActuatorType::Motor;
  if (s == "position") return ActuatorType::Position;
  if (s == "damper") return ActuatorType::Damper;
  throw std::invalid_argument("unknown actuator type '" + s + "' (expected motor, position or damper)");
}
}  // namespace

namespace {
int tet_model(const std::string& s) {
  if (s == "linear") return 0;
  if (s == "neohookean") return 1;
  throw std::invalid_argument("unknown tet model '" + s + "' (expected 'linear' or 'neohookean')");
}
}  // namespace

void bind_model(py::module_& m) {
  using ModelPtr = std::shared_ptr<Model>;
  py::class_<Model, ModelPtr>(m, "Model", "Immutable model shared by every world of a batch.")
      .def("to_bytes", [](const Model& m) { return py::bytes(serialize_model(m)); },
           "Every field of the model as bytes (this ncpgym version and platform; Model.from_bytes reads them).")
      .def_static("from_bytes", [](const py::bytes& b) { return std::make_shared<Model>(deserialize_model(std::string(b))); },
                  py::arg("data"), "The Model saved by to_bytes (ValueError for other bytes).")
      .def(py::pickle([](const Model& m) { return py::make_tuple(py::bytes(serialize_model(m))); },
                      [](const py::tuple& t) {
                        if (t.size() != 1) throw std::invalid_argument("Model pickle: expected one bytes item");
                        return std::make_shared<Model>(deserialize_model(t[0].cast<std::string>()));
                      }))
      .def_readonly("nbody", &Model::nbody, "number of bodies, the world (body 0) included")
      .def_readonly("njnt", &Model::njnt, "number of joints")
      .def_readonly("nq", &Model::nq, "number of position coordinates (MuJoCo's qpos layout: 7 per free joint, 4 per ball joint)")
      .def_readonly("nv", &Model::nv, "number of velocity coordinates (dofs)")
      .def_readonly("nu", &Model::nu, "number of actuators (the length of ctrl)")
      .def_readonly("na", &Model::na, "number of actuator activations (MuJoCo's act: actuators with activation dynamics)")
      .def_readonly("ngeom", &Model::ngeom, "number of geoms (a concave mesh split into convex parts counts each part)")
      .def_readonly("nsite", &Model::nsite, "number of sites")
      .def_readonly("nmesh", &Model::nmesh, "number of meshes (convex hulls)")
      .def_readonly("timestep", &Model::timestep, "the model's time step h (s); Simulator/Batch options may override it")
      .def_property_readonly("solver_iterations", [](const Model& m) { return py::make_tuple(m.newton_iterations, m.linear_iterations); },
                             "(newton, linear) iteration counts this model asks for; 0: the solver's defaults")
      .def_readonly("nparticle", &Model::nparticle, "number of particles (soft-body nodes, rod nodes and ghosts, shell vertices)")
      .def_readonly("ndistance", &Model::ndistance, "number of distance constraints between particles")
      .def_readonly("nattach", &Model::nattach, "number of particle attachments (Builder.add_attachment)")
      .def_readonly("neq", &Model::neq, "equality constraints")
      .def_readonly("nmocap", &Model::nmocap, "mocap bodies")
      .def_property_readonly("body_mocapid", [](const Model& s) { return arr(s.body_mocapid); },
                             "index of each body among the mocap bodies (-1: not mocap)")
      .def_property_readonly("eq_type", [](const Model& s) {
        py::list out;
        for (auto t : s.eq_type)
          out.append(t == EqualityType::Connect ? "connect" : t == EqualityType::Weld ? "weld"
                     : t == EqualityType::Joint ? "joint" : "tendon");
        return out;
      }, "(neq,) list of each equality's kind: 'connect', 'weld', 'joint' or 'tendon'")
      .def_property_readonly("eq_obj1", [](const Model& s) { return arr(s.eq_obj1); },
                             "(neq,) int: first object of each equality (body, joint or tendon id)")
      .def_property_readonly("eq_obj2", [](const Model& s) { return arr(s.eq_obj2); },
                             "(neq,) int: second object of each equality (-1: the world / none)")
      .def_property_readonly("eq_active", [](const Model& s) { return py::array_t<uint8_t>(s.eq_active.size(), s.eq_active.data()); },
                             "(neq,) uint8: 1 where the equality starts active (Batch.eq_active switches them per world)")
      .def_property_readonly("eq_compliance", [](const Model& s) { return arr(s.eq_compliance); },
                             "(neq,) compliance of each equality (0: rigid)")
      .def_readonly("eq_name", &Model::eq_name, "(neq,) list of equality names")
      .def_readonly("exclude_pairs", &Model::exclude_pairs, "list of (body1, body2) pairs that never collide (MJCF <exclude>)")
      .def_readonly("ntet", &Model::ntet, "number of tetrahedra of the soft bodies")
      .def_readonly("nsoft", &Model::nsoft, "soft bodies (connected sets of tetrahedra)")
      .def_property_readonly("surface_triangles", [](const Model& m) {
        py::array_t<int> a({static_cast<py::ssize_t>(m.tri_p.size()), py::ssize_t(3)});
        for (size_t t = 0; t < m.tri_p.size(); ++t)
          for (int k = 0; k < 3; ++k) a.mutable_at(t, k) = m.tri_p[t][k];
        return a;
      }, "[ntri, 3] boundary triangles of the soft bodies (particle ids, outward)")
      .def_readonly("nactgroup", &Model::nactgroup, "number of activation groups (soft active strain, rod curvature, hinge angle, chamber pressure)")
      .def_readonly("nrodedge", &Model::nrodedge, "rod edges (each with a ghost particle)")
      .def_readonly("nrodnode", &Model::nrodnode, "interior rod nodes (bend-twist elements)")
      .def_property_readonly("rod_edges", [](const Model& m) {
        py::array_t<int> a({py::ssize_t(m.nrodedge), py::ssize_t(3)});
        for (int e = 0; e < m.nrodedge; ++e)
          for (int k = 0; k < 3; ++k) a.mutable_at(e, k) = m.rodedge_p[e][k];
        return a;
      }, "(nrodedge, 3) particle ids of each rod edge: nodes a, b and the ghost")
      .def_property_readonly("rod_edge_radius", [](const Model& m) { return py::array_t<double>(py::ssize_t(m.nrodedge), m.rodedge_radius.data()); },
                             "(nrodedge,) radius of each rod edge (m)")
      .def_property_readonly("rod_node_edges", [](const Model& m) {
        py::array_t<int> a({py::ssize_t(m.nrodnode), py::ssize_t(2)});
        for (int k = 0; k < m.nrodnode; ++k)
          for (int j = 0; j < 2; ++j) a.mutable_at(k, j) = m.rodnode_edge[k][j];
        return a;
      }, "(nrodnode, 2) incoming and outgoing edge of each interior rod node")
      .def_property_readonly("rod_node_rest", [](const Model& m) {
        py::array_t<double> a({py::ssize_t(m.nrodnode), py::ssize_t(3)});
        for (int k = 0; k < m.nrodnode; ++k)
          for (int j = 0; j < 3; ++j) a.mutable_at(k, j) = m.rodnode_rest[k][j];
        return a;
      }, "(nrodnode, 3) natural kappa1, kappa2 (integrated) and twist of each interior node")
      .def_property_readonly("rod_node_compliance", [](const Model& m) {
        py::array_t<double> a({py::ssize_t(m.nrodnode), py::ssize_t(3)});
        for (int k = 0; k < m.nrodnode; ++k)
          for (int j = 0; j < 3; ++j) a.mutable_at(k, j) = m.rodnode_compliance[k][j];
        return a;
      }, "(nrodnode, 3) compliances l/EI, l/EI, l/GJ of the bend and twist rows")
      .def_readonly("nhinge", &Model::nhinge, "shell hinges (interior edges)")
      .def_property_readonly("hinges", [](const Model& m) {
        py::array_t<int> a({py::ssize_t(m.nhinge), py::ssize_t(4)});
        for (int k = 0; k < m.nhinge; ++k)
          for (int j = 0; j < 4; ++j) a.mutable_at(k, j) = m.hinge_p[k][j];
        return a;
      }, "(nhinge, 4) particle ids of each hinge: edge x0 -> x1, then the tips")
      .def_property_readonly("hinge_rest", [](const Model& m) { return py::array_t<double>(py::ssize_t(m.nhinge), m.hinge_rest.data()); },
                             "(nhinge,) rest hinge angles (rad)")
      .def_property_readonly("hinge_compliance", [](const Model& m) { return py::array_t<double>(py::ssize_t(m.nhinge), m.hinge_compliance.data()); },
                             "(nhinge,) 1 / k_b of each hinge")
      .def_property_readonly("hinge_group", [](const Model& m) { return py::array_t<int>(py::ssize_t(m.nhinge), m.hinge_group.data()); },
                             "(nhinge,) activation group of each hinge (-1: none)")
      .def_property_readonly("shell_triangles", [](const Model& m) {
        py::array_t<int> a({py::ssize_t(m.shell_tri.size()), py::ssize_t(3)});
        for (size_t k = 0; k < m.shell_tri.size(); ++k)
          for (int j = 0; j < 3; ++j) a.mutable_at(k, j) = m.shell_tri[k][j];
        return a;
      }, "(ntri, 3) particle ids of the shell triangles")
      .def_property_readonly("attachment_particles", [](const Model& m) { return py::array_t<int>(py::ssize_t(m.nattach), m.att_particle.data()); },
                             "(nattach,) the particle of each attachment (Builder.add_attachment)")
      .def_property_readonly("attachment_bodies", [](const Model& m) { return py::array_t<int>(py::ssize_t(m.nattach), m.att_body.data()); },
                             "(nattach,) the body each attachment pins its particle to (0: the world)")
      .def_readonly("nchamber", &Model::nchamber, "number of pressure chambers")
      .def_property_readonly("chamber_triangles", [](const Model& m) {
        py::array_t<int> a({py::ssize_t(m.chamber_tri.size()), py::ssize_t(3)});
        for (size_t k = 0; k < m.chamber_tri.size(); ++k)
          for (int j = 0; j < 3; ++j) a.mutable_at(k, j) = m.chamber_tri[k][j];
        return a;
      }, "(ntri, 3) particle ids of every chamber's triangles, chamber by chamber (chamber_start)")
      .def_property_readonly("chamber_start", [](const Model& m) { return py::array_t<int>(py::ssize_t(m.nchamber + 1), m.chamber_start.data()); },
                             "(nchamber + 1,) chamber c's triangles are chamber_triangles[start[c]:start[c + 1]]")
      .def_property_readonly("chamber_group", [](const Model& m) { return py::array_t<int>(py::ssize_t(m.nchamber), m.chamber_group.data()); },
                             "(nchamber,) activation group holding each chamber's pressure (Pa)")
      .def("chamber_volumes", [](const Model& m, const VecX& x) {
        if (x.size() != 3 * m.nparticle) throw std::invalid_argument("x: expected 3 nparticle values");
        VecX v;
        chamber_volumes(m, x, v);
        return v;
      }, py::arg("x"), "Each chamber's enclosed volume (m^3) at particle positions x (flat, 3 nparticle).")
      .def("pressure_forces", [](const Model& m, const VecX& x, const VecX& act) {
        if (x.size() != 3 * m.nparticle) throw std::invalid_argument("x: expected 3 nparticle values");
        if (act.size() != m.nactgroup) throw std::invalid_argument("activation: expected nactgroup values");
        VecX f = VecX::Zero(3 * m.nparticle);
        add_pressure_forces(m, x, act, f);
        return f;
      }, py::arg("x"), py::arg("activation"),
           "The chambers' pressure forces p dV/dx (flat, 3 nparticle) at positions x with pressures from activation.")
      .def("pressure_stiffness", [](const Model& m, const VecX& x, const VecX& act) {
        if (x.size() != 3 * m.nparticle) throw std::invalid_argument("x: expected 3 nparticle values");
        if (act.size() != m.nactgroup) throw std::invalid_argument("activation: expected nactgroup values");
        MatX K = MatX::Zero(3 * m.nparticle, 3 * m.nparticle);
        for (int c = 0; c < m.nchamber; ++c)
          for (int t = m.chamber_start[c]; t < m.chamber_start[c + 1]; ++t) {
            Mat3 H[9];
            pressure_hessian(m, x, chamber_origin(m, x, c), t, act[m.chamber_group[c]], H);
            for (int i = 0; i < 3; ++i)
              for (int j = 0; j < 3; ++j)
                K.block<3, 3>(3 * m.chamber_tri[t][i], 3 * m.chamber_tri[t][j]) += H[3 * i + j];
          }
        return K;
      }, py::arg("x"), py::arg("activation"),
           "d(pressure_forces)/dx (dense, 3 nparticle square): the follower load's stiffness the solver uses.")
      .def_readonly("medium_density", &Model::medium_density, "density of the surrounding medium (kg/m^3)")
      .def_readonly("drag_coefficient", &Model::drag_coefficient, "drag coefficient C_D of shell triangles")
      .def_readonly("viscosity", &Model::viscosity, "viscosity of the medium (Pa s)")
      .def_readonly("skin_friction", &Model::skin_friction, "skin friction coefficient C_f of shell triangles (ncpgym's, not the seed's)")
      .def_property_readonly("particle_radius", [](const Model& m) { return py::array_t<double>(py::ssize_t(m.nparticle), m.particle_radius.data()); },
                             "(nparticle,) collision radius of each particle (m)")
      .def_property_readonly("particle_density", [](const Model& m) { return py::array_t<double>(py::ssize_t(m.nparticle), m.particle_density.data()); },
                             "(nparticle,) material density for buoyancy (0: none)")
      .def_property_readonly("particle_visc_length", [](const Model& m) { return py::array_t<double>(py::ssize_t(m.nparticle), m.particle_visc_length.data()); },
                             "(nparticle,) length scaling viscous friction (0: none)")
      .def_property_readonly("particle_ghost", [](const Model& m) {
        py::array_t<bool> a(py::ssize_t(m.nparticle));
        for (int p = 0; p < m.nparticle; ++p) a.mutable_at(p) = m.particle_ghost[p] != 0;
        return a;
      }, "(nparticle,) True for a rod's ghost particle (twist marker, no contact)")
      .def_property_readonly("tet_particles", [](const Model& m) {
        py::array_t<int> a({py::ssize_t(m.ntet), py::ssize_t(4)});
        for (int t = 0; t < m.ntet; ++t)
          for (int k = 0; k < 4; ++k) a.mutable_at(t, k) = m.tet_p[t][k];
        return a;
      }, "(ntet, 4) particle ids of each tetrahedron")
      .def_property_readonly("tet_model", [](const Model& m) {
        return py::array_t<int>(py::ssize_t(m.ntet), m.tet_model.data());
      }, "(ntet,) element model: 0 linear co-rotational, 1 stable Neo-Hookean")
      .def_property_readonly("tet_volume", [](const Model& m) {
        return py::array_t<double>(py::ssize_t(m.ntet), m.tet_volume.data());
      }, "(ntet,) rest volumes")
      .def_property_readonly("soft_volume0", [](const Model& m) {
        py::array_t<double> a(py::ssize_t(m.nsoft));
        std::fill(a.mutable_data(), a.mutable_data() + m.nsoft, 0.0);
        for (int t = 0; t < m.ntet; ++t) a.mutable_data()[m.particle_soft[m.tet_p[t][0]]] += m.tet_volume[t];
        return a;
      }, "(nsoft,) rest volume of each soft body (the sum of its tetrahedra's)")
      .def_property_readonly("particle_mass", [](const Model& s) { return arr(s.particle_mass); },
                             "(nparticle,) particle masses (kg)")
      .def_property_readonly("particle_pos0", [](const Model& s) { return vec3s(s.particle_pos0); },
                             "(nparticle, 3) particle rest positions (m, world)")
      .def_property_readonly("gravity", [](const Model& s) { return Vec3(s.gravity); },
                             "(3,) gravitational acceleration (m/s^2, world)")
      .def_property_readonly("qpos0", [](const Model& s) { return VecX(s.qpos0); },
                             "(nq,) the reference configuration (MuJoCo's qpos0)")
      .def_readonly("body_names", &Model::body_name, "list of body names ('' where unnamed)")
      .def_readonly("joint_names", &Model::jnt_name, "list of joint names")
      .def_readonly("geom_names", &Model::geom_name, "list of geom names")
      .def_readonly("site_names", &Model::site_name, "list of site names")
      .def_readonly("actuator_names", &Model::act_name, "list of actuator names")
      .def_property_readonly("body_parent", [](const Model& s) { return arr(s.body_parent); },
                             "(nbody,) int: each body's parent body (0 for the world's children; -1 for the world)")
      .def_property_readonly("body_mass", [](const Model& s) { return arr(s.body_mass); },
                             "(nbody,) body masses (kg)")
      .def_property_readonly(
          "body_gravcomp",
          [](const Model& s) {
            return s.body_gravcomp.empty() ? arr(std::vector<double>(s.nbody, 0.0)) : arr(s.body_gravcomp);
          },
          "Gravity compensation weight per body (nbody; MJCF body/@gravcomp).")
      .def_property_readonly("body_pos", [](const Model& s) { return vec3s(s.body_pos); },
                             "(nbody, 3) each body's position in its parent's frame (m)")
      .def_property_readonly("body_quat", [](const Model& s) { return quats(s.body_quat); },
                             "(nbody, 4) each body's orientation in its parent's frame (w, x, y, z)")
      .def_property_readonly("body_com", [](const Model& s) { return vec3s(s.body_com); },
                             "(nbody, 3) each body's centre of mass in its own frame (m)")
      .def_property_readonly("body_inertia", [](const Model& s) { return mat3s(s.body_inertia); },
                             "(nbody, 3, 3) each body's inertia about its centre of mass, body frame (kg m^2)")
      .def_property_readonly("body_dofadr", [](const Model& s) { return arr(s.body_dofadr); },
                             "(nbody,) int: first dof of each body's joints")
      .def_property_readonly("body_dofnum", [](const Model& s) { return arr(s.body_dofnum); },
                             "(nbody,) int: number of dofs of each body's joints")
      .def_property_readonly("jnt_type", [](const Model& s) { return enum_arr(s.jnt_type); },
                             "(njnt,) int: joint type (0 free, 1 ball, 2 slide, 3 hinge; MuJoCo's mjtJoint)")
      .def_property_readonly("jnt_body", [](const Model& s) { return arr(s.jnt_body); },
                             "(njnt,) int: the body each joint moves")
      .def_property_readonly("jnt_qposadr", [](const Model& s) { return arr(s.jnt_qposadr); },
                             "(njnt,) int: each joint's first position coordinate")
      .def_property_readonly("jnt_dofadr", [](const Model& s) { return arr(s.jnt_dofadr); },
                             "(njnt,) int: each joint's first dof")
      .def_property_readonly("jnt_stiffness", [](const Model& s) { return arr(s.jnt_stiffness); },
                             "(njnt,) joint spring stiffness (N m/rad or N/m)")
      .def_property_readonly("jnt_limited", [](const Model& s) { return arr(s.jnt_limited); },
                             "(njnt,) uint8: 1 where the joint has limits")
      .def_property_readonly("jnt_range", [](const Model& s) {
        return py::array_t<double>({s.njnt, 2}, s.jnt_range.data());
      }, "(njnt, 2) joint limits (rad or m)")
      .def_property_readonly("jnt_pos", [](const Model& s) { return vec3s(s.jnt_pos); },
                             "(njnt, 3) joint anchor in its body's frame (m)")
      .def_property_readonly("jnt_axis", [](const Model& s) { return vec3s(s.jnt_axis); },
                             "(njnt, 3) joint axis in its body's frame (unit)")
      .def_property_readonly("jnt_ref", [](const Model& s) { return arr(s.jnt_ref); },
                             "(njnt,) joint reference position (rad or m: the coordinate at the body's pose)")
      .def_property_readonly("jnt_springref", [](const Model& s) { return arr(s.jnt_springref); },
                             "(njnt,) joint spring rest position (rad or m)")
      .def_property_readonly("dof_armature", [](const Model& s) { return arr(s.dof_armature); },
                             "(nv,) armature inertia added to each dof (kg m^2 or kg)")
      .def_property_readonly("dof_damping", [](const Model& s) { return arr(s.dof_damping); },
                             "(nv,) viscous damping of each dof (N m s/rad or N s/m)")
      .def_property_readonly("dof_frictionloss", [](const Model& s) { return arr(s.dof_frictionloss); },
                             "(nv,) dry friction of each dof (N m or N)")
      .def_property_readonly("actuator_joint", [](const Model& s) { return arr(s.act_joint); },
                             "(nu,) int: the joint each actuator drives (-1: a tendon)")
      .def_property_readonly("actuator_tendon", [](const Model& s) { return arr(s.act_tendon); },
                             "(nu,) int: the tendon each actuator drives (-1: a joint)")
      .def_property_readonly("actuator_gear", [](const Model& s) { return arr(s.act_gear); },
                             "(nu,) gear ratio of each actuator")
      .def_property_readonly("actuator_ctrlrange", [](const Model& s) {
        return py::array_t<double>({s.nu, 2}, s.act_ctrlrange.data());
      }, "(nu, 2) control range of each actuator (where actuator_ctrllimited)")
      .def_property_readonly("actuator_type", [](const Model& s) { return enum_arr(s.act_type); },
                             "(nu,) 0 motor (gear x ctrl), 1 position servo (kp, kv)")
      .def_property_readonly("actuator_kp", [](const Model& s) { return arr(s.act_kp); },
                             "(nu,) position gain of servos (N m/rad or N/m)")
      .def_property_readonly("actuator_kv", [](const Model& s) { return arr(s.act_kv); },
                             "(nu,) velocity gain of servos and dampers (N m s/rad or N s/m)")
      .def_property_readonly("actuator_ctrllimited", [](const Model& s) { return arr(s.act_ctrllimited); },
                             "(nu,) uint8: 1 where ctrl is clamped to actuator_ctrlrange")
      .def_property_readonly("geom_type", [](const Model& s) { return enum_arr(s.geom_type); },
                             "(ngeom,) int: geom type (MuJoCo's mjtGeom: 0 plane, 2 sphere, 3 capsule, 4 ellipsoid, 5 cylinder, 6 box, 7 mesh)")
      .def_property_readonly("geom_body", [](const Model& s) { return arr(s.geom_body); },
                             "(ngeom,) int: the body each geom belongs to")
      .def_property_readonly("geom_size", [](const Model& s) { return vec3s(s.geom_size); },
                             "(ngeom, 3) geom sizes as MuJoCo defines them (m)")
      .def_property_readonly("geom_pos", [](const Model& s) { return vec3s(s.geom_pos); },
                             "(ngeom, 3) geom position in its body's frame (m)")
      .def_property_readonly("geom_quat", [](const Model& s) { return quats(s.geom_quat); },
                             "(ngeom, 4) geom orientation in its body's frame (w, x, y, z)")
      .def_property_readonly("geom_friction", [](const Model& s) { return vec3s(s.geom_friction); },
                             "(ngeom, 3) sliding, torsional and rolling friction coefficients")
      .def_property_readonly("geom_contype", [](const Model& s) { return arr(s.geom_contype); },
                             "(ngeom,) int: contact type bits (MuJoCo's contype)")
      .def_property_readonly("geom_condim", [](const Model& s) { return arr(s.geom_condim); },
                             "(ngeom,) int: contact dimensionality (1, 3, 4 or 6)")
      .def_property_readonly("geom_priority", [](const Model& s) { return arr(s.geom_priority); },
                             "(ngeom,) int: contact priority (the higher geom's parameters win a pair)")
      .def_property_readonly("geom_margin", [](const Model& s) { return arr(s.geom_margin); },
                             "(ngeom,) contact margin (m): contacts are detected within it")
      .def_readonly("npair", &Model::npair, "number of explicit contact pairs (MJCF <contact><pair>)")
      .def_readonly("ntendon", &Model::ntendon, "number of tendons (fixed and spatial)")
      .def_readonly("nsensor", &Model::nsensor, "number of sensors")
      .def_readonly("nsensordata", &Model::nsensordata, "length of sensordata (MuJoCo's layout)")
      .def_readonly("sensor_names", &Model::sensor_name, "list of sensor names")
      .def_property_readonly("sensor_adr", [](const Model& s) { return arr(s.sensor_adr); },
                             "(nsensor,) int: each sensor's first entry in sensordata")
      .def_property_readonly("sensor_dim", [](const Model& s) { return arr(s.sensor_dim); },
                             "(nsensor,) int: number of sensordata entries of each sensor")
      .def_readonly("tendon_names", &Model::tendon_name, "list of tendon names")
      .def_property_readonly("tendon_range", [](const Model& s) {
        return py::array_t<double>({s.ntendon, 2}, s.tendon_range.data());
      }, "(ntendon, 2) tendon length limits (m)")
      .def_property_readonly("geom_conaffinity", [](const Model& s) { return arr(s.geom_conaffinity); },
                             "(ngeom,) int: contact affinity bits (MuJoCo's conaffinity)")
      .def_property_readonly("site_pos", [](const Model& s) { return vec3s(s.site_pos); },
                             "(nsite, 3) site position in its body's frame (m)")
      .def_property_readonly("geom_mesh", [](const Model& s) { return arr(s.geom_mesh); },
                             "(ngeom,) int: the mesh of each mesh geom (-1 otherwise)")
      .def("mesh_vertices", [](const Model& s, int i) {
        if (i < 0 || i >= s.nmesh) throw std::out_of_range("unknown mesh id " + std::to_string(i));
        return vec3s(s.mesh_vert[i]);
      }, py::arg("mesh"), "Vertices (n, 3) of a mesh in its frame.")
      .def("mesh_hull", [](const Model& s, int i) {
        if (i < 0 || i >= s.nmesh) throw std::out_of_range("unknown mesh id " + std::to_string(i));
        const ConvexHull& h = s.mesh_hull[i];
        py::list faces, normals;
        for (const auto& f : h.faces) faces.append(py::cast(f.verts));
        py::dict d;
        d["vertices"] = vec3s(h.vert);
        d["faces"] = faces;
        std::vector<Vec3> nrm;
        for (const auto& f : h.faces) nrm.push_back(f.normal);
        d["normals"] = vec3s(nrm);
        return d;
      }, py::arg("mesh"),
      "The convex hull a mesh collides as: {'vertices': (v, 3), 'faces': list of vertex-index "
      "loops (counter-clockwise about the outward normal), 'normals': (f, 3)}.")
      .def_property_readonly("site_body", [](const Model& s) { return arr(s.site_body); },
                             "(nsite,) int: the body each site belongs to")
      .def("body_id", &Model::body_id, py::arg("name"))
      .def("joint_id", &Model::joint_id, py::arg("name"))
      .def("site_id", &Model::site_id, py::arg("name"))
      .def("geom_id", &Model::geom_id, py::arg("name"))
      .def("actuator_id", &Model::actuator_id, py::arg("name"))
      .def("total_mass", &Model::total_mass)
      .def("__repr__", [](const Model& s) {
        return "<ncpgym.Model nbody=" + std::to_string(s.nbody - 1) + " njnt=" + std::to_string(s.njnt) +
               " nq=" + std::to_string(s.nq) + " nv=" + std::to_string(s.nv) +
               " nu=" + std::to_string(s.nu) + " ngeom=" + std::to_string(s.ngeom) + ">";
      });

  py::class_<Builder>(m, "Builder", "Builds a Model programmatically; build() validates it.")
      .def(py::init<>())
      .def(
          "add_body",
          [](Builder& b, int parent, const Vec3& pos, const Eigen::Vector4d& quat, double mass,
             const Vec3& com, const Mat3& inertia, const std::string& name) {
            return b.add_body(parent, pos, quat_from(quat), mass, com, inertia, name);
          },
          py::arg("parent"), py::arg("pos") = Vec3::Zero(),
          py::arg("quat") = Eigen::Vector4d(1, 0, 0, 0), py::arg("mass") = 1.0,
          py::arg("com") = Vec3::Zero(), py::arg("inertia") = Mat3::Identity(), py::arg("name") = "",
          "Add a body; inertia is about the com in body axes. Returns the body id.")
      .def(
          "add_joint",
          [](Builder& b, int body, const std::string& type, const Vec3& pos, const Vec3& axis,
             double ref, double stiffness, double springref, double damping, double armature,
             py::object range, const std::string& name, double frictionloss) {
            JointSpec s;
            s.frictionloss = frictionloss;
            s.type = joint_type(type);
            s.pos = pos;
            s.axis = axis;
            s.ref = ref;
            s.stiffness = stiffness;
            s.springref = springref;
            s.damping = damping;
            s.armature = armature;
            if (!range.is_none()) {
              auto r = range.cast<std::pair<double, double>>();
              s.limited = true;
              s.range_lo = r.first;
              s.range_hi = r.second;
            }
            s.name = name;
            return b.add_joint(body, s);
          },
          py::arg("body"), py::arg("type") = "hinge", py::arg("pos") = Vec3::Zero(),
          py::arg("axis") = Vec3::UnitZ(), py::arg("ref") = 0.0, py::arg("stiffness") = 0.0,
          py::arg("springref") = 0.0, py::arg("damping") = 0.0, py::arg("armature") = 0.0,
          py::arg("range") = py::none(), py::arg("name") = "", py::arg("frictionloss") = 0.0)
      .def(
          "add_geom",
          [](Builder& b, int body, const std::string& type, const Vec3& size, const Vec3& pos,
             const Eigen::Vector4d& quat, const Vec3& friction, int contype, int conaffinity,
             int mesh, const std::string& name, int condim, int priority, double margin) {
            GeomSpec s;
            s.condim = condim;
            s.priority = priority;
            s.margin = margin;
            s.type = geom_type(type);
            s.size = size;
            s.pos = pos;
            s.quat = quat_from(quat);
            s.friction = friction;
            s.contype = contype;
            s.conaffinity = conaffinity;
            s.mesh = mesh;
            s.name = name;
            return b.add_geom(body, s);
          },
          py::arg("body"), py::arg("type"), py::arg("size") = Vec3::Zero(),
          py::arg("pos") = Vec3::Zero(), py::arg("quat") = Eigen::Vector4d(1, 0, 0, 0),
          py::arg("friction") = Vec3(1.0, 0.005, 0.0001), py::arg("contype") = 1,
          py::arg("conaffinity") = 1, py::arg("mesh") = -1, py::arg("name") = "", py::arg("condim") = 3,
          py::arg("priority") = 0, py::arg("margin") = 0.0,
          "A geom on `body`. friction: (sliding, torsional, rolling), MuJoCo's; condim 1 "
          "(frictionless), 3 (sliding), 4 (+ torsional) or 6 (+ rolling); priority and margin as "
          "MJCF geom/@priority, @margin (a pair's parameters: ncpgym/collision/contact_params.hpp).")
      .def(
          "add_mesh",
          [](Builder& b, const Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor>& v,
             const std::string& name, std::optional<Eigen::Matrix<int, Eigen::Dynamic, 3, Eigen::RowMajor>> hull) {
            std::vector<Vec3> verts(v.rows());
            for (Eigen::Index i = 0; i < v.rows(); ++i) verts[i] = v.row(i).transpose();
            std::vector<std::array<int, 3>> tris;
            if (hull)
              for (Eigen::Index i = 0; i < hull->rows(); ++i) tris.push_back({(*hull)(i, 0), (*hull)(i, 1), (*hull)(i, 2)});
            return b.add_mesh(verts, name, tris);
          },
          py::arg("vertices"), py::arg("name") = "", py::arg("hull") = py::none(),
          "A mesh that collides as its convex hull. hull: (T, 3) triangles of that hull (indices "
          "into vertices), e.g. from ncpgym.models.convex_hull; without it the hull is computed by "
          "brute force, for at most 64 vertices.")
      .def(
          "add_site",
          [](Builder& b, int body, const Vec3& pos, const Eigen::Vector4d& quat,
             const std::string& name) { return b.add_site(body, pos, quat_from(quat), name); },
          py::arg("body"), py::arg("pos") = Vec3::Zero(),
          py::arg("quat") = Eigen::Vector4d(1, 0, 0, 0), py::arg("name") = "")
      .def(
          "add_actuator",
          [](Builder& b, int joint, const std::string& type, double gear, py::object ctrlrange,
             double kp, double kv, const std::string& name) {
            bool limited = !ctrlrange.is_none();
            std::pair<double, double> r{0, 0};
            if (limited) r = ctrlrange.cast<std::pair<double, double>>();
            return b.add_actuator(joint, actuator_type(type), gear, limited, r.first, r.second, kp,
                                  kv, name);
          },
          py::arg("joint"), py::arg("type") = "motor", py::arg("gear") = 1.0,
          py::arg("ctrlrange") = py::none(), py::arg("kp") = 0.0, py::arg("kv") = 0.0,
          py::arg("name") = "")
      .def(
          "add_affine_actuator",
          [](Builder& b, int joint, double gear, py::object ctrlrange, double ctrlgain, double bias0, double kp, double kv,
             const std::string& name) {
            const bool limited = !ctrlrange.is_none();
            std::pair<double, double> r{0, 0};
            if (limited) r = ctrlrange.cast<std::pair<double, double>>();
            return b.add_affine_actuator(joint, gear, limited, r.first, r.second, ctrlgain, bias0, kp, kv, name);
          },
          py::arg("joint"), py::arg("gear") = 1.0, py::arg("ctrlrange") = py::none(), py::arg("ctrlgain") = 1.0,
          py::arg("bias0") = 0.0, py::arg("kp") = 0.0, py::arg("kv") = 0.0, py::arg("name") = "",
          "MuJoCo's <general> actuator with a fixed gain and an affine bias: force ctrlgain * ctrl + bias0 - "
          "kp * gear * q - kv * gear * qdot on the joint (times the gear), implicit in q and qdot.")
      .def(
          "add_tendon_actuator",
          [](Builder& b, int tendon, double gear, py::object ctrlrange, double ctrlgain, double bias0, double kp,
             double kv, const std::string& name) {
            const bool limited = !ctrlrange.is_none();
            std::pair<double, double> r{0, 0};
            if (limited) r = ctrlrange.cast<std::pair<double, double>>();
            return b.add_tendon_actuator(tendon, gear, limited, r.first, r.second, ctrlgain, bias0, kp, kv, name);
          },
          py::arg("tendon"), py::arg("gear") = 1.0, py::arg("ctrlrange") = py::none(), py::arg("ctrlgain") = 1.0,
          py::arg("bias0") = 0.0, py::arg("kp") = 0.0, py::arg("kv") = 0.0, py::arg("name") = "",
          "An actuator on a tendon, fixed or spatial (MuJoCo's tendon transmission): force ctrlgain * ctrl + bias0 - kp * "
          "gear * L - kv * gear * dL/dt along the tendon (times the gear), explicit.")
      .def("set_actuator_forcerange", &Builder::set_actuator_forcerange, py::arg("actuator"), py::arg("lo"),
           py::arg("hi"), "Limit the actuator's scalar force (the motor's control, the servo's force) to [lo, hi].")
      .def(
          "set_actuator_dynamics",
          [](Builder& b, int a, const std::string& dyntype, double tau, py::object actrange) {
            static const std::pair<const char*, ActuatorDyn> kinds[] = {
                {"integrator", ActuatorDyn::Integrator}, {"filter", ActuatorDyn::Filter}, {"filterexact", ActuatorDyn::FilterExact}};
            for (const auto& [k, dyn] : kinds)
              if (dyntype == k) {
                if (actrange.is_none()) return b.set_actuator_dynamics(a, dyn, tau, false, 0.0, 0.0);
                const auto r = actrange.cast<std::pair<double, double>>();
                return b.set_actuator_dynamics(a, dyn, tau, true, r.first, r.second);
              }
            throw std::invalid_argument("unknown activation dynamics '" + dyntype + "' (integrator, filter, filterexact)");
          },
          py::arg("actuator"), py::arg("dyntype"), py::arg("tau") = 0.0, py::arg("actrange") = py::none(),
          "MuJoCo's activation dynamics on an actuator: its force reads its activation (Batch.actuator_act) "
          "instead of its control, and each step advances it from the clamped control: integrator "
          "(d act/dt = ctrl), filter ((ctrl - act) / tau, Euler) or filterexact (the same, exact); clamped "
          "to actrange when given.")
      .def("add_particle", &Builder::add_particle, py::arg("pos"), py::arg("mass"),
           py::arg("radius") = 0.0, py::arg("friction") = 0.5,
           "Add a point mass with a collision radius; returns the particle id.")
      .def("particle_pos", &Builder::particle_pos, py::arg("particle"), "A particle's initial position.")
      .def_property_readonly("nparticle", &Builder::nparticle, "particles added so far")
      .def("add_distance", &Builder::add_distance, py::arg("p1"), py::arg("p2"),
           py::arg("compliance") = 0.0, py::arg("rest") = -1.0,
           "Distance constraint between particles (rest < 0: the initial distance).")
      .def(
          "add_tet",
          [](Builder& b, const std::array<int, 4>& p, double young, double poisson, const std::string& model) {
            return b.add_tet(p, young, poisson, tet_model(model));
          },
          py::arg("particles"), py::arg("young"), py::arg("poisson"), py::arg("model") = "linear",
          "Tetrahedron on four particles (positively oriented); model 'linear' (co-rotational) or 'neohookean'.")
      .def(
          "add_soft_body",
          [](Builder& b, const py::array_t<double, py::array::c_style | py::array::forcecast>& vertices,
             const py::array_t<int, py::array::c_style | py::array::forcecast>& tets, double density, double young,
             double poisson, double radius, double friction, const std::string& model) {
            if (vertices.ndim() != 2 || vertices.shape(1) != 3)
              throw std::invalid_argument("vertices: expected shape (n, 3)");
            if (tets.ndim() != 2 || tets.shape(1) != 4) throw std::invalid_argument("tets: expected shape (m, 4)");
            std::vector<Vec3> v(vertices.shape(0));
            for (py::ssize_t i = 0; i < vertices.shape(0); ++i)
              v[i] = Vec3(vertices.at(i, 0), vertices.at(i, 1), vertices.at(i, 2));
            std::vector<std::array<int, 4>> t(tets.shape(0));
            for (py::ssize_t i = 0; i < tets.shape(0); ++i)
              for (int k = 0; k < 4; ++k) t[i][k] = tets.at(i, k);
            return b.add_soft_body(v, t, density, young, poisson, radius, friction, tet_model(model));
          },
          py::arg("vertices"), py::arg("tets"), py::arg("density"), py::arg("young"), py::arg("poisson"),
          py::arg("radius") = 0.0, py::arg("friction") = 0.5, py::arg("model") = "linear",
          "Soft body from a tetrahedral mesh (lumped masses); returns the first particle id.")
      .def(
          "add_rod",
          [](Builder& b, const py::array_t<double, py::array::c_style | py::array::forcecast>& points, double radius,
             double young, double poisson, double density, double friction, const Vec3& normal, int group,
             int start_particle, int end_particle) {
            if (points.ndim() != 2 || points.shape(1) != 3) throw std::invalid_argument("points: expected shape (n, 3)");
            std::vector<Vec3> v(points.shape(0));
            for (py::ssize_t i = 0; i < points.shape(0); ++i) v[i] = Vec3(points.at(i, 0), points.at(i, 1), points.at(i, 2));
            return b.add_rod(v, radius, young, poisson, density, friction, normal, group, start_particle, end_particle);
          },
          py::arg("points"), py::arg("radius"), py::arg("young"), py::arg("poisson"), py::arg("density"),
          py::arg("friction") = 0.5, py::arg("normal") = Vec3::Zero(), py::arg("group") = -1,
          py::arg("start_particle") = -1, py::arg("end_particle") = -1,
          "Discrete elastic rod through points (n, 3): stress-free rest shape, solid circular section. "
          "normal: the first edge's material vector m1 (zero: any); group >= 0: the activation of that group "
          "(1/m) is a natural curvature bending the rod towards m1. start_particle/end_particle >= 0: an existing "
          "particle at that end point is the end node (joints). Returns the first new particle: the new nodes, "
          "then the n - 1 edges' ghost particles (ncpgym.rods wraps this).")
      .def(
          "add_shell",
          [](Builder& b, const py::array_t<double, py::array::c_style | py::array::forcecast>& vertices,
             const py::array_t<int, py::array::c_style | py::array::forcecast>& tris, double thickness, double young,
             double poisson, double density, double friction) {
            if (vertices.ndim() != 2 || vertices.shape(1) != 3) throw std::invalid_argument("vertices: expected shape (n, 3)");
            if (tris.ndim() != 2 || tris.shape(1) != 3) throw std::invalid_argument("triangles: expected shape (m, 3)");
            std::vector<Vec3> v(vertices.shape(0));
            for (py::ssize_t i = 0; i < vertices.shape(0); ++i)
              v[i] = Vec3(vertices.at(i, 0), vertices.at(i, 1), vertices.at(i, 2));
            std::vector<std::array<int, 3>> t(tris.shape(0));
            for (py::ssize_t i = 0; i < tris.shape(0); ++i)
              for (int k = 0; k < 3; ++k) t[i][k] = tris.at(i, k);
            return b.add_shell(v, t, thickness, young, poisson, density, friction);
          },
          py::arg("vertices"), py::arg("triangles"), py::arg("thickness"), py::arg("young"), py::arg("poisson"),
          py::arg("density"), py::arg("friction") = 0.5,
          "Discrete elastic shell from a consistently oriented triangle mesh: stretching rows on the edges, "
          "hinge bending rows on interior edges (stress-free at the initial shape). Returns the first particle.")
      .def_property_readonly("nhinge", &Builder::nhinge, "shell hinges added so far")
      .def("set_medium", &Builder::set_medium, py::arg("density") = 0.0, py::arg("drag_coefficient") = 0.0,
           py::arg("viscosity") = 0.0, py::arg("skin_friction") = 0.0,
           "The surrounding medium: density (kg/m^3; buoyancy of rods and shells, and drag on shell triangles "
           "with drag_coefficient C_D) and viscosity (Pa s, on rod and shell nodes). Per world: Batch.medium. "
           "skin_friction: C_f of the tangential drag on shell triangles (not in the seed; per model).")
      .def("hinge_particles", &Builder::hinge_particles, py::arg("hinge"),
           "The particles of a hinge: edge x0 -> x1, then the two tips.")
      .def("set_hinge_group", &Builder::set_hinge_group, py::arg("hinge"), py::arg("group"),
           "The hinge's natural angle becomes its rest angle plus the activation of `group` (rad); -1: none.")
      .def("add_pressure_chamber", [](Builder& b, const py::array_t<int, py::array::c_style | py::array::forcecast>& tris,
                                      int group) {
            if (tris.ndim() != 2 || tris.shape(1) != 3) throw std::invalid_argument("triangles: expected shape (m, 3)");
            std::vector<std::array<int, 3>> t(tris.shape(0));
            for (py::ssize_t i = 0; i < tris.shape(0); ++i)
              for (int k = 0; k < 3; ++k) t[i][k] = tris.at(i, k);
            return b.add_pressure_chamber(t, group);
          }, py::arg("triangles"), py::arg("group"),
           "A pressure chamber: a closed surface of (m, 3) particle-id triangles oriented out of the cavity; its "
           "pressure (Pa) is the activation of `group` (per world: Batch.activation). Returns the chamber's index.")
      .def("set_tet_group", &Builder::set_tet_group, py::arg("tet"), py::arg("group"),
           "Put a tetrahedron in an activation group (pneumatic chamber); -1: none.")
      .def("add_attachment", &Builder::add_attachment, py::arg("particle"), py::arg("body"),
           py::arg("local") = Vec3::Zero(), "Pin a particle to a point of a body (0: the world).")
      .def("exclude_soft_pair", &Builder::exclude_soft_pair, py::arg("a"), py::arg("b"),
           "No contact between the soft bodies containing particles a and b.")
      .def("add_connect", &Builder::add_connect, py::arg("body1"), py::arg("body2"), py::arg("anchor1") = Vec3::Zero(),
           py::arg("anchor2") = Vec3::Zero(), py::kw_only(), py::arg("compliance") = 0.0, py::arg("active") = true,
           py::arg("name") = "",
           "Equality: the point anchor1 of body1 (its frame) and anchor2 of body2 coincide (3 rows; "
           "compliance 0: rigid). Returns its index.")
      .def(
          "add_weld",
          [](Builder& b, int body1, int body2, const Vec3& relpos, const Eigen::Vector4d& relquat, const Vec3& anchor,
             double compliance, bool active, const std::string& name) {
            return b.add_weld(body1, body2, relpos, quat_from(relquat), anchor, compliance, active, name);
          },
          py::arg("body1"), py::arg("body2"), py::arg("relpos") = Vec3::Zero(),
          py::arg("relquat") = Eigen::Vector4d(1, 0, 0, 0), py::arg("anchor") = Vec3::Zero(), py::kw_only(),
          py::arg("compliance") = 0.0, py::arg("active") = true, py::arg("name") = "",
          "Equality: relpos (body1 frame) of body1 coincides with anchor (body2 frame) of body2, and body2's "
          "orientation is body1's times relquat (w, x, y, z) (6 rows). Returns its index.")
      .def(
          "add_joint_coupling",
          [](Builder& b, int joint1, int joint2, std::vector<double> polycoef, double compliance, bool active,
             const std::string& name) {
            return b.add_joint_coupling(joint1, joint2, polycoef5(polycoef), compliance, active, name);
          },
          py::arg("joint1"), py::arg("joint2"), py::arg("polycoef"), py::kw_only(), py::arg("compliance") = 0.0,
          py::arg("active") = true, py::arg("name") = "",
          "Equality on hinge/slide joints: q1 - q1_0 = sum_k polycoef[k] (q2 - q2_0)^k (joint2 = -1: "
          "q1 - q1_0 = polycoef[0]), q_0 the joints' reference positions (1 row). Returns its index.")
      .def(
          "add_tendon_coupling",
          [](Builder& b, int tendon1, int tendon2, std::vector<double> polycoef, double compliance, bool active,
             const std::string& name) {
            return b.add_tendon_coupling(tendon1, tendon2, polycoef5(polycoef), compliance, active, name);
          },
          py::arg("tendon1"), py::arg("tendon2"), py::arg("polycoef"), py::kw_only(), py::arg("compliance") = 0.0,
          py::arg("active") = true, py::arg("name") = "",
          "Equality on tendons, fixed or spatial (MuJoCo's tendon equality): L1 - L1_0 = sum_k polycoef[k] (L2 - L2_0)^k "
          "(tendon2 = -1: L1 - L1_0 = polycoef[0]), L_0 their lengths at qpos0 (1 row). Returns its index.")
      .def("set_mocap", &Builder::set_mocap, py::arg("body"),
           "Make a body (a child of the world without joints) a mocap body, posed per world and step.")
      .def("set_gravcomp", &Builder::set_gravcomp, py::arg("body"), py::arg("weight"),
           "Gravity compensation (MJCF body/@gravcomp): a passive force -weight m g at the body's "
           "centre of mass (1 cancels its weight).")
      .def("exclude_bodies", &Builder::exclude_bodies, py::arg("body1"), py::arg("body2"),
           "No contact between the geoms of two bodies (MJCF <contact><exclude>).")
      .def(
          "add_fixed_tendon",
          [](Builder& b, const std::vector<int>& joints, const std::vector<double>& coef, py::object range,
             double stiffness, double damping, double frictionloss, std::pair<double, double> springlength,
             const std::string& name) {
            TendonSpec s;
            s.joint = joints;
            s.coef = coef;
            set_tendon_parameters(s, range, stiffness, damping, frictionloss, springlength, name);
            return b.add_fixed_tendon(s);
          },
          py::arg("joints"), py::arg("coef"), py::arg("range") = py::none(), py::arg("stiffness") = 0.0,
          py::arg("damping") = 0.0, py::arg("frictionloss") = 0.0,
          py::arg("springlength") = std::pair<double, double>(0.0, 0.0), py::arg("name") = "",
          "A fixed tendon (MJCF <tendon><fixed>): length sum_k coef[k] q[joints[k]] over hinge and slide "
          "joints, with an optional range (limit rows), stiffness and damping (a spring slack within "
          "springlength), and frictionloss. Returns its id.")
      .def(
          "add_spatial_tendon",
          [](Builder& b, const py::list& path, py::object range, double stiffness, double damping, double frictionloss,
             std::pair<double, double> springlength, const std::string& name) {
            TendonSpec s;
            const auto bad = [] {
              return std::invalid_argument(
                  "add_spatial_tendon: a path entry is a site id, ('pulley', divisor), or ('sphere' | 'cylinder', "
                  "geom id[, side site id])");
            };
            for (const py::handle item : path) {
              TendonWrap kind = TendonWrap::Site;
              int obj = -1, side = -1;
              double coef = 1.0;
              if (py::isinstance<py::int_>(item)) {
                obj = item.cast<int>();
              } else {
                const auto t = item.cast<py::tuple>();
                if (t.size() < 2) throw bad();
                const auto tag = t[0].cast<std::string>();
                if (tag == "pulley" && t.size() == 2) {
                  kind = TendonWrap::Pulley;
                  coef = t[1].cast<double>();
                } else if ((tag == "sphere" || tag == "cylinder") && t.size() <= 3) {
                  kind = tag == "sphere" ? TendonWrap::Sphere : TendonWrap::Cylinder;
                  obj = t[1].cast<int>();
                  if (t.size() == 3) side = t[2].cast<int>();
                } else {
                  throw bad();
                }
              }
              s.path_kind.push_back(kind);
              s.path_obj.push_back(obj);
              s.path_side.push_back(side);
              s.coef.push_back(coef);
            }
            set_tendon_parameters(s, range, stiffness, damping, frictionloss, springlength, name);
            return b.add_spatial_tendon(s);
          },
          py::arg("path"), py::arg("range") = py::none(), py::arg("stiffness") = 0.0, py::arg("damping") = 0.0,
          py::arg("frictionloss") = 0.0, py::arg("springlength") = std::pair<double, double>(0.0, 0.0),
          py::arg("name") = "",
          "A spatial tendon (MJCF <tendon><spatial>): path lists site ids, ('pulley', divisor) entries (each "
          "branch: two sites or more) and ('sphere' | 'cylinder', geom id[, side site id]) between two sites, "
          "which the tendon wraps around as MuJoCo's does; its length is the sum of the path's straight "
          "pieces and arcs, each divided by the divisor of the last pulley before it. "
          "range, stiffness, damping, springlength and frictionloss as add_fixed_tendon. Returns its id.")
      .def(
          "set_principal_inertia",
          [](Builder& b, int body, const Eigen::Vector4d& iquat, const Vec3& principal) {
            b.set_principal_inertia(body, quat_from(iquat), principal);
          },
          py::arg("body"), py::arg("iquat"), py::arg("principal"),
          "A body's principal axes (quaternion w, x, y, z: from them to the body frame) and moments, as "
          "MuJoCo's compiler chose them (body_iquat, body_inertia); fluid drag depends on the axes.")
      .def("set_fluid", &Builder::set_fluid, py::arg("density"), py::arg("viscosity"), py::arg("wind") = Vec3::Zero(),
           "MuJoCo's fluid forces on rigid bodies: option density, viscosity and wind (the inertia-box model).")
      .def("set_geom_fluid", &Builder::set_geom_fluid, py::arg("geom"), py::arg("semi_axes"), py::arg("coef"),
           py::arg("added_mass"), py::arg("added_inertia"),
           "MuJoCo's ellipsoid fluid model on a geom (fluidshape=\"ellipsoid\"): the equivalent ellipsoid's "
           "semi-axes (m, geom frame), coef = (blunt drag, slender drag, angular drag, Kutta lift, Magnus lift) "
           "and the added mass (m^3) and moments (m^5) per unit fluid density, as MuJoCo's compiler writes them "
           "in geom_fluid[6:12]. The geom's body then leaves the inertia-box model. Needs set_fluid.")
      .def("set_site_shape", &Builder::set_site_shape, py::arg("site"), py::arg("type"), py::arg("size"),
           "A site's shape (MuJoCo geom type: 2 sphere, 3 capsule, 4 ellipsoid, 5 cylinder, 6 box) and "
           "half-sizes: the zone of touch sensors.")
      .def(
          "add_sensor",
          [](Builder& b, const std::string& type, int obj, int objtype, double cutoff, double scale, const std::string& name) {
            static const std::pair<const char*, SensorType> kinds[] = {
                {"touch", SensorType::Touch},         {"jointpos", SensorType::JointPos},
                {"jointvel", SensorType::JointVel},   {"tendonpos", SensorType::TendonPos},
                {"tendonvel", SensorType::TendonVel}, {"actuatorpos", SensorType::ActuatorPos},
                {"actuatorvel", SensorType::ActuatorVel}, {"actuatorfrc", SensorType::ActuatorFrc},
                {"framepos", SensorType::FramePos},   {"framequat", SensorType::FrameQuat},
                {"gyro", SensorType::Gyro},           {"velocimeter", SensorType::Velocimeter},
                {"framelinvel", SensorType::FrameLinVel}, {"frameangvel", SensorType::FrameAngVel},
                {"framexaxis", SensorType::FrameXAxis}, {"frameyaxis", SensorType::FrameYAxis},
                {"framezaxis", SensorType::FrameZAxis}, {"subtreecom", SensorType::SubtreeCom},
                {"subtreelinvel", SensorType::SubtreeLinVel}, {"subtreeangmom", SensorType::SubtreeAngMom},
                {"accelerometer", SensorType::Accelerometer}, {"force", SensorType::Force},
                {"torque", SensorType::Torque}};
            for (const auto& [k, t] : kinds)
              if (type == k) return b.add_sensor(t, objtype, obj, cutoff, scale, name);
            throw std::invalid_argument("unknown sensor type '" + type +
                                        "' (touch, jointpos, jointvel, tendonpos, tendonvel, actuatorpos, "
                                        "actuatorvel, actuatorfrc, framepos, framequat, gyro, velocimeter, "
                                        "framelinvel, frameangvel, framexaxis, frameyaxis, framezaxis, subtreecom, "
                                        "subtreelinvel, subtreeangmom, accelerometer, force, torque)");
          },
          py::arg("type"), py::arg("obj"), py::arg("objtype") = 0, py::arg("cutoff") = 0.0, py::arg("scale") = 1.0,
          py::arg("name") = "",
          "A sensor in MuJoCo's layout (its readings: Batch.sensordata, Simulator.sensordata). obj: the "
          "site (touch, accelerometer, force, torque, gyro, velocimeter), joint, tendon or actuator; for framepos/framequat objtype 0 site, 1 body (inertial "
          "frame), 2 xbody, 3 geom. scale: actuator sensors' factor to MuJoCo's units.")
      .def("add_contact_pair", &Builder::add_contact_pair, py::arg("geom1"), py::arg("geom2"), py::arg("condim") = 3,
           py::arg("friction") = Vec3(1.0, 0.005, 0.0001), py::arg("margin") = 0.0,
           "An explicit contact pair (MJCF <contact><pair>): the two geoms collide whatever their "
           "contact bits, with this condim, friction (sliding, torsional, rolling) and margin.")
      .def("set_gravity", &Builder::set_gravity, py::arg("gravity"))
      .def("set_timestep", &Builder::set_timestep, py::arg("timestep"))
      .def("set_solver_iterations", &Builder::set_solver_iterations, py::arg("newton") = 0, py::arg("linear") = 0,
           "Newton and linear iteration counts Simulators and Batches of this model use unless given "
           "explicitly (0: the solver's defaults, 8 and 50).")
      .def_property_readonly("nbody", &Builder::nbody, "bodies added so far, the world included")
      .def("build", [](const Builder& b) { return std::const_pointer_cast<Model>(b.build()); });

  py::class_<State>(m, "State", "Per-world state: q (nq), u (nv), ctrl (nu), writable views.")
      .def(py::init([](const Model& model) { return State(model); }), py::arg("model"))
      .def_property(
          "q", [](py::object self) { return view(self.cast<State&>().q, self); },
          [](State& s, const VecX& v) { assign_checked(s.q, v, "q"); }, "(nq,) positions, a writable view")
      .def_property(
          "u", [](py::object self) { return view(self.cast<State&>().u, self); },
          [](State& s, const VecX& v) { assign_checked(s.u, v, "u"); }, "(nv,) velocities, a writable view")
      .def_property(
          "ctrl", [](py::object self) { return view(self.cast<State&>().ctrl, self); },
          [](State& s, const VecX& v) { assign_checked(s.ctrl, v, "ctrl"); }, "(nu,) controls, a writable view");
}
