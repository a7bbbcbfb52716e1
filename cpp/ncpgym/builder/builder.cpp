#include "ncpgym/builder/builder.hpp"
#include "ncpgym/builder/hull.hpp"
#include "ncpgym/collision/broadphase.hpp"

#include "ncpgym/soft/components.hpp"
#include "ncpgym/soft/surface.hpp"
#include "ncpgym/soft/tet.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

namespace ncpgym {

namespace {
std::string label(const char* kind, int id, const std::string& name) {
  std::string s = std::string(kind) + " " + std::to_string(id);
  if (!name.empty()) s += " ('" + name + "')";
  return s;
}
void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}
bool finite3(const Vec3& v) { return v.allFinite(); }
}  // namespace

Builder::Builder() {
  // body 0: the world
  m_.body_parent = {-1};
  m_.body_pos = {Vec3::Zero()};
  m_.body_quat = {Quat::Identity()};
  m_.body_mass = {0.0};
  m_.body_com = {Vec3::Zero()};
  m_.body_inertia = {Mat3::Zero()};
  m_.body_iquat = {Quat::Identity()};
  m_.body_iprincipal = {Vec3::Zero()};
  m_.body_jntadr = {0};
  m_.body_jntnum = {0};
  m_.body_name = {"world"};
}

int Builder::add_body(int parent, const Vec3& pos, const Quat& quat, double mass, const Vec3& com,
                      const Mat3& inertia, const std::string& name) {
  const int id = m_.nbody;
  const std::string who = label("body", id, name);
  require(parent >= 0 && parent < id, who + ": parent id " + std::to_string(parent) +
                                           " does not exist (bodies must be added after their parent)");
  require(finite3(pos) && finite3(com) && inertia.allFinite() && std::isfinite(mass) &&
              quat.coeffs().allFinite(),
          who + ": non-finite pose, mass or inertia");
  require(quat.norm() > 1e-10, who + ": zero quaternion");
  require(mass >= 0, who + ": negative mass " + std::to_string(mass));
  require((inertia - inertia.transpose()).norm() <= 1e-9 * (1 + inertia.norm()),
          who + ": inertia tensor is not symmetric");
  const Eigen::SelfAdjointEigenSolver<Mat3> eig(inertia);
  const Vec3 ev = eig.eigenvalues();
  require(ev.minCoeff() >= -1e-12 * (1 + ev.maxCoeff()),
          who + ": inertia tensor is not positive semi-definite");
  Mat3 axes = eig.eigenvectors();
  if (axes.determinant() < 0) axes.col(2) = -axes.col(2);  // a rotation
  m_.body_iquat.push_back(Quat(axes).normalized());
  m_.body_iprincipal.push_back(ev.cwiseMax(0.0));
  m_.body_parent.push_back(parent);
  m_.body_pos.push_back(pos);
  m_.body_quat.push_back(quat.normalized());
  m_.body_mass.push_back(mass);
  m_.body_com.push_back(com);
  m_.body_inertia.push_back(0.5 * (inertia + inertia.transpose()));
  m_.body_jntadr.push_back(m_.njnt);
  m_.body_jntnum.push_back(0);
  m_.body_name.push_back(name);
  return m_.nbody++;
}

int Builder::add_joint(int body, const JointSpec& s) {
  const int id = m_.njnt;
  const std::string who = label("joint", id, s.name);
  require(body >= 1 && body < m_.nbody, who + ": body id " + std::to_string(body) + " does not exist");
  require(id == 0 || m_.jnt_body.back() <= body,
          who + ": joints must be added in body order (MuJoCo qpos layout)");
  require(finite3(s.pos) && finite3(s.axis) && std::isfinite(s.ref) && std::isfinite(s.stiffness) &&
              std::isfinite(s.damping) && std::isfinite(s.armature),
          who + ": non-finite parameter");
  require(s.damping >= 0 && s.armature >= 0 && s.stiffness >= 0,
          who + ": damping, armature and stiffness must be >= 0");
  Vec3 axis = s.axis;
  if (s.type == JointType::Hinge || s.type == JointType::Slide) {
    require(axis.norm() > 1e-10, who + ": zero joint axis");
    axis.normalize();
  }
  if (s.type == JointType::Free) {
    require(m_.body_parent[body] == 0, who + ": a free joint needs a body whose parent is the world");
    require(m_.body_jntnum[body] == 0, who + ": a free joint must be the only joint of its body");
  } else if (m_.body_jntnum[body] > 0) {
    require(m_.jnt_type[m_.body_jntadr[body]] != JointType::Free,
            who + ": a free joint must be the only joint of its body");
  }
  if ((s.type == JointType::Free || s.type == JointType::Ball) && s.stiffness != 0)
    throw std::invalid_argument(who + ": springs on free and ball joints are not supported yet");
  if (s.limited) {
    require(s.range_lo <= s.range_hi, who + ": joint range lower bound exceeds upper bound");
    require(s.type != JointType::Free, who + ": a free joint cannot be limited");
  }
  if (m_.body_jntnum[body] == 0) m_.body_jntadr[body] = id;
  m_.body_jntnum[body]++;
  require(std::isfinite(s.frictionloss) && s.frictionloss >= 0, who + ": frictionloss must be finite and >= 0");
  m_.jnt_type.push_back(s.type);
  m_.jnt_body.push_back(body);
  m_.jnt_qposadr.push_back(m_.nq);
  m_.jnt_dofadr.push_back(m_.nv);
  m_.jnt_pos.push_back(s.pos);
  m_.jnt_axis.push_back(axis);
  m_.jnt_ref.push_back(s.ref);
  m_.jnt_stiffness.push_back(s.stiffness);
  m_.jnt_springref.push_back(s.springref);
  m_.jnt_limited.push_back(s.limited ? 1 : 0);
  m_.jnt_range.push_back(s.range_lo);
  m_.jnt_range.push_back(s.range_hi);
  m_.jnt_name.push_back(s.name);
  const int nq = joint_nq(s.type), nv = joint_nv(s.type);
  m_.qpos0.conservativeResize(m_.nq + nq);
  if (s.type == JointType::Free) {
    // MuJoCo's default pose of a free body is the body's own placement.
    const Vec3& p = m_.body_pos[body];
    const Quat& r = m_.body_quat[body];
    m_.qpos0.segment<7>(m_.nq) << p.x(), p.y(), p.z(), r.w(), r.x(), r.y(), r.z();
  } else if (s.type == JointType::Ball) {
    m_.qpos0.segment<4>(m_.nq) << 1, 0, 0, 0;
  } else {
    m_.qpos0[m_.nq] = s.ref;
  }
  for (int k = 0; k < nv; ++k) {
    m_.dof_qposadr.push_back(nv == 1 ? m_.nq : -1);  // hinge and slide
    m_.dof_body.push_back(body);
    m_.dof_jnt.push_back(id);
    m_.dof_armature.push_back(s.armature);
    m_.dof_damping.push_back(s.damping);
    m_.dof_frictionloss.push_back(s.frictionloss);
  }
  m_.nq += nq;
  m_.nv += nv;
  return m_.njnt++;
}

int Builder::add_mesh(const std::vector<Vec3>& vertices, const std::string& name,
                      const std::vector<std::array<int, 3>>& hull_triangles) {
  const std::string who = label("mesh", m_.nmesh, name);
  require(vertices.size() >= 4, who + ": a convex mesh needs at least 4 vertices, got " +
                                    std::to_string(vertices.size()));
  for (const Vec3& v : vertices) require(finite3(v), who + ": non-finite vertex");
  // A convex hull with volume needs four vertices that are not coplanar.
  bool volume = false;
  const Vec3 a = vertices[0];
  for (size_t i = 1; i < vertices.size() && !volume; ++i)
    for (size_t j = i + 1; j < vertices.size() && !volume; ++j)
      for (size_t k = j + 1; k < vertices.size() && !volume; ++k)
        volume = std::abs((vertices[i] - a).cross(vertices[j] - a).dot(vertices[k] - a)) > 1e-15;
  require(volume, who + ": all vertices are coplanar (the mesh has no volume)");
  ConvexHull hull;
  try {
    hull = hull_triangles.empty() ? hull_from_points(vertices) : hull_from_triangles(vertices, hull_triangles);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(who + ": " + e.what());
  }
  m_.mesh_vert.push_back(vertices);
  m_.mesh_name.push_back(name);
  m_.mesh_hull.push_back(std::move(hull));
  return m_.nmesh++;
}

int Builder::add_geom(int body, const GeomSpec& s) {
  const int id = m_.ngeom;
  const std::string who = label("geom", id, s.name);
  require(body >= 0 && body < m_.nbody, who + ": body id " + std::to_string(body) + " does not exist");
  require(finite3(s.pos) && finite3(s.size) && finite3(s.friction) && s.quat.coeffs().allFinite(),
          who + ": non-finite parameter");
  require(s.friction.minCoeff() >= 0, who + ": friction must be >= 0");
  require(s.condim == 1 || s.condim == 3 || s.condim == 4 || s.condim == 6, who + ": condim must be 1, 3, 4 or 6");
  require(std::isfinite(s.margin) && s.margin >= 0, who + ": margin must be >= 0");
  switch (s.type) {
    case GeomType::Plane:
      break;
    case GeomType::Sphere:
      require(s.size[0] > 0, who + ": sphere radius must be > 0");
      break;
    case GeomType::Capsule:
    case GeomType::Cylinder:
      require(s.size[0] > 0 && s.size[1] > 0, who + ": radius and half-length must be > 0");
      break;
    case GeomType::Box:
      require(s.size.minCoeff() > 0, who + ": box half-sizes must be > 0");
      break;
    case GeomType::Ellipsoid:
      require(s.size.minCoeff() > 0, who + ": ellipsoid semi-axes must be > 0");
      break;
    case GeomType::Mesh:
      require(s.mesh >= 0 && s.mesh < m_.nmesh, who + ": mesh id " + std::to_string(s.mesh) + " does not exist");
      break;
    default:
      throw std::invalid_argument(who + ": unsupported geom type");
  }
  m_.geom_type.push_back(s.type);
  m_.geom_body.push_back(body);
  m_.geom_mesh.push_back(s.mesh);
  m_.geom_pos.push_back(s.pos);
  m_.geom_quat.push_back(s.quat.normalized());
  m_.geom_size.push_back(s.size);
  m_.geom_friction.push_back(s.friction);
  m_.geom_contype.push_back(s.contype);
  m_.geom_conaffinity.push_back(s.conaffinity);
  m_.geom_name.push_back(s.name);
  m_.geom_condim.push_back(s.condim);
  m_.geom_priority.push_back(s.priority);
  m_.geom_margin.push_back(s.margin);
  m_.geom_hull.push_back(s.type == GeomType::Box ? box_hull(s.size) : ConvexHull{});
  return m_.ngeom++;
}

int Builder::add_site(int body, const Vec3& pos, const Quat& quat, const std::string& name) {
  const std::string who = label("site", m_.nsite, name);
  require(body >= 0 && body < m_.nbody, who + ": body id " + std::to_string(body) + " does not exist");
  require(finite3(pos) && quat.coeffs().allFinite() && quat.norm() > 1e-10, who + ": bad pose");
  m_.site_body.push_back(body);
  m_.site_pos.push_back(pos);
  m_.site_quat.push_back(quat.normalized());
  m_.site_name.push_back(name);
  m_.site_type.push_back(2);  // a sphere
  m_.site_size.push_back(Vec3(0.005, 0.005, 0.005));  // MuJoCo's default site size
  return m_.nsite++;
}

int Builder::add_actuator(int joint, ActuatorType type, double gear, bool ctrllimited,
                          double lo, double hi, double kp, double kv, const std::string& name) {
  const std::string who = label("actuator", m_.nu, name);
  require(joint >= 0 && joint < m_.njnt, who + ": joint id " + std::to_string(joint) + " does not exist");
  const JointType jt = m_.jnt_type[joint];
  require(jt == JointType::Hinge || jt == JointType::Slide,
          who + ": only hinge and slide joints can be actuated (joint '" + m_.jnt_name[joint] + "')");
  require(std::isfinite(gear) && std::isfinite(kp) && std::isfinite(kv), who + ": non-finite gain");
  if (ctrllimited) require(lo <= hi, who + ": ctrl range lower bound exceeds upper bound");
  if (type == ActuatorType::Position) require(kp > 0 && kv >= 0, who + ": position servo needs kp > 0, kv >= 0");
  if (type == ActuatorType::Damper)
    require(kv >= 0 && ctrllimited && lo >= 0, who + ": a damper needs kv >= 0 and a ctrlrange within [0, inf)");
  return push_actuator(type, joint, -1, gear, ctrllimited, lo, hi, kp, kv, kp, 0.0, name);
}

int Builder::push_actuator(ActuatorType type, int joint, int tendon, double gear, bool ctrllimited, double lo, double hi,
                           double kp, double kv, double ctrlgain, double bias0, const std::string& name) {
  m_.act_type.push_back(type);
  m_.act_joint.push_back(joint);
  m_.act_tendon.push_back(tendon);
  m_.act_gear.push_back(gear);
  m_.act_kp.push_back(kp);
  m_.act_kv.push_back(kv);
  m_.act_ctrllimited.push_back(ctrllimited ? 1 : 0);
  m_.act_ctrlrange.push_back(lo);
  m_.act_ctrlrange.push_back(hi);
  m_.act_ctrlgain.push_back(ctrlgain);
  m_.act_bias0.push_back(bias0);
  m_.act_forcelimited.push_back(0);  // set_actuator_forcerange
  m_.act_forcerange.push_back(0.0);
  m_.act_forcerange.push_back(0.0);
  m_.act_name.push_back(name);
  m_.act_dyn.push_back(ActuatorDyn::None);  // set_actuator_dynamics
  m_.act_dyntau.push_back(0.0);
  m_.act_actadr.push_back(-1);
  m_.act_actlimited.push_back(0);
  m_.act_actrange.push_back(0.0);
  m_.act_actrange.push_back(0.0);
  return m_.nu++;
}

int Builder::add_affine_actuator(int joint, double gear, bool ctrllimited, double ctrl_lo, double ctrl_hi, double ctrlgain,
                                 double bias0, double kp, double kv, const std::string& name) {
  const std::string who = label("actuator", m_.nu, name);
  require(std::isfinite(ctrlgain) && std::isfinite(bias0), who + ": non-finite gain or bias");
  require(kp >= 0 && kv >= 0, who + ": an affine actuator needs kp >= 0 and kv >= 0");
  // a Position servo's checks (kp > 0) do not apply: validated here, then stored as one
  const int a = add_actuator(joint, ActuatorType::Position, gear, ctrllimited, ctrl_lo, ctrl_hi, kp > 0 ? kp : 1.0, kv, name);
  m_.act_kp[a] = kp;
  m_.act_ctrlgain[a] = ctrlgain;
  m_.act_bias0[a] = bias0;
  return a;
}

int Builder::add_tendon_actuator(int tendon, double gear, bool ctrllimited, double ctrl_lo, double ctrl_hi,
                                 double ctrlgain, double bias0, double kp, double kv, const std::string& name) {
  const std::string who = label("actuator", m_.nu, name);
  require(tendon >= 0 && tendon < m_.ntendon, who + ": tendon id " + std::to_string(tendon) + " does not exist");
  require(std::isfinite(gear) && std::isfinite(ctrlgain) && std::isfinite(bias0) && kp >= 0 && kv >= 0,
          who + ": non-finite gain or negative kp, kv");
  if (ctrllimited) require(ctrl_lo <= ctrl_hi, who + ": ctrl range lower bound exceeds upper bound");
  // stored as an affine actuator (a motor when kp = kv = 0 and the gain is 1) on no joint
  const bool motor = kp == 0 && kv == 0 && ctrlgain == 1 && bias0 == 0;
  return push_actuator(motor ? ActuatorType::Motor : ActuatorType::Position, -1, tendon, gear, ctrllimited, ctrl_lo,
                       ctrl_hi, kp, kv, motor ? kp : ctrlgain, bias0, name);
}

void Builder::set_actuator_forcerange(int a, double lo, double hi) {
  const std::string who = label("actuator", a, a >= 0 && a < m_.nu ? m_.act_name[a] : "");
  require(a >= 0 && a < m_.nu, who + ": does not exist");
  require(std::isfinite(lo) && std::isfinite(hi) && lo <= hi, who + ": force range must be finite with lo <= hi");
  m_.act_forcelimited[a] = 1;
  m_.act_forcerange[2 * a] = lo;
  m_.act_forcerange[2 * a + 1] = hi;
}

void Builder::set_actuator_dynamics(int a, ActuatorDyn dyn, double tau, bool actlimited, double lo, double hi) {
  const std::string who = label("actuator", a, a >= 0 && a < m_.nu ? m_.act_name[a] : "");
  require(a >= 0 && a < m_.nu, who + ": does not exist");
  require(m_.act_dyn[a] == ActuatorDyn::None, who + ": already has activation dynamics");
  require(dyn != ActuatorDyn::None, who + ": no dynamics given");
  if (dyn != ActuatorDyn::Integrator) require(std::isfinite(tau) && tau > 0, who + ": a filter needs a time constant > 0");
  if (actlimited) require(std::isfinite(lo) && std::isfinite(hi) && lo <= hi, who + ": activation range must be finite with lo <= hi");
  m_.act_dyn[a] = dyn;
  m_.act_dyntau[a] = dyn == ActuatorDyn::Integrator ? 0.0 : tau;
  m_.act_actadr[a] = m_.na++;
  m_.act_actlimited[a] = actlimited ? 1 : 0;
  m_.act_actrange[2 * a] = actlimited ? lo : 0.0;
  m_.act_actrange[2 * a + 1] = actlimited ? hi : 0.0;
}

int Builder::add_particle(const Vec3& pos, double mass, double radius, double friction) {
  const std::string who = "particle " + std::to_string(m_.nparticle);
  require(finite3(pos) && std::isfinite(mass) && std::isfinite(radius) && std::isfinite(friction),
          who + ": non-finite parameter");
  require(mass > 0, who + ": mass must be > 0, got " + std::to_string(mass));
  require(radius >= 0 && friction >= 0, who + ": radius and friction must be >= 0");
  m_.particle_pos0.push_back(pos);
  m_.particle_mass.push_back(mass);
  m_.particle_radius.push_back(radius);
  m_.particle_friction.push_back(friction);
  m_.particle_ghost.push_back(0);
  m_.particle_density.push_back(0.0);
  m_.particle_visc_length.push_back(0.0);
  return m_.nparticle++;
}

Vec3 Builder::particle_pos(int p) const {
  require(p >= 0 && p < m_.nparticle, "particle_pos: particle " + std::to_string(p) + " does not exist");
  return m_.particle_pos0[p];
}

int Builder::add_distance(int p1, int p2, double compliance, double rest) {
  const std::string who = "distance " + std::to_string(m_.ndistance);
  require(p1 >= 0 && p1 < m_.nparticle && p2 >= 0 && p2 < m_.nparticle && p1 != p2,
          who + ": needs two different existing particles");
  require(std::isfinite(compliance) && compliance >= 0, who + ": compliance must be >= 0");
  if (rest < 0) rest = (m_.particle_pos0[p1] - m_.particle_pos0[p2]).norm();
  require(std::isfinite(rest) && rest > 0, who + ": rest length must be > 0");
  m_.dist_p1.push_back(p1);
  m_.dist_p2.push_back(p2);
  m_.dist_rest.push_back(rest);
  m_.dist_compliance.push_back(compliance);
  return m_.ndistance++;
}

int Builder::add_tet(const std::array<int, 4>& p, double young, double poisson, int model) {
  const std::string who = "tet " + std::to_string(m_.ntet);
  for (int a = 0; a < 4; ++a) {
    require(p[a] >= 0 && p[a] < m_.nparticle, who + ": particle " + std::to_string(p[a]) + " does not exist");
    for (int b = 0; b < a; ++b) require(p[a] != p[b], who + ": repeats particle " + std::to_string(p[a]));
  }
  require(std::isfinite(young) && young > 0, who + ": Young's modulus must be > 0");
  require(std::isfinite(poisson) && poisson >= 0 && poisson < 0.5, who + ": Poisson's ratio must be in [0, 0.5)");
  require(model == 0 || model == 1, who + ": model must be 0 (linear co-rotational) or 1 (stable Neo-Hookean)");
  Mat3 Dm;
  for (int a = 0; a < 3; ++a) Dm.col(a) = m_.particle_pos0[p[a + 1]] - m_.particle_pos0[p[0]];
  const double vol = Dm.determinant() / 6.0;
  const double scale = std::pow(Dm.colwise().norm().prod(), 1.0 / 3.0);  // edge length^3 / 6 scale
  require(vol > 1e-9 * scale * scale * scale, vol < 0 ? who + ": inverted at rest (negative volume; swap two vertices)"
                                                      : who + ": degenerate (zero volume)");
  m_.tet_p.push_back(p);
  m_.tet_Dminv.push_back(Dm.inverse());
  m_.tet_volume.push_back(vol);
  m_.tet_mu.push_back(lame_mu(young, poisson));
  m_.tet_lambda.push_back(lame_lambda(young, poisson));
  m_.tet_model.push_back(model);
  m_.tet_group.push_back(-1);
  return m_.ntet++;
}

void Builder::set_tet_group(int tet, int group) {
  require(tet >= 0 && tet < m_.ntet, "set_tet_group: tet " + std::to_string(tet) + " does not exist");
  require(group >= -1, "set_tet_group: group must be >= 0 (or -1 for none)");
  m_.tet_group[tet] = group;
  count_activation_groups();
}

void Builder::set_medium(double density, double drag_coefficient, double viscosity, double skin_friction) {
  require(std::isfinite(density) && density >= 0, "medium: density must be >= 0");
  require(std::isfinite(skin_friction) && skin_friction >= 0, "medium: skin friction coefficient must be >= 0");
  m_.skin_friction = skin_friction;
  require(std::isfinite(drag_coefficient) && drag_coefficient >= 0, "medium: drag coefficient must be >= 0");
  require(std::isfinite(viscosity) && viscosity >= 0, "medium: viscosity must be >= 0");
  m_.medium_density = density;
  m_.drag_coefficient = drag_coefficient;
  m_.viscosity = viscosity;
}

void Builder::add_stretch(int p1, int p2, double compliance) {
  m_.stretch_p.push_back({p1, p2});
  m_.stretch_rest.push_back((m_.particle_pos0[p1] - m_.particle_pos0[p2]).norm());
  m_.stretch_compliance.push_back(compliance);
  ++m_.nstretch;
}

int Builder::add_pressure_chamber(const std::vector<std::array<int, 3>>& triangles, int group) {
  const std::string who = "add_pressure_chamber: ";
  require(!triangles.empty(), who + "no triangles");
  require(group >= 0, who + "group must be >= 0 (the chamber's pressure is that group's activation)");
  std::map<std::pair<int, int>, int> edges;  // directed edge -> count
  for (const auto& t : triangles) {
    for (int p : t)
      require(p >= 0 && p < m_.nparticle && !m_.particle_ghost[p],
              who + "particle " + std::to_string(p) + " does not exist (or is a rod's ghost)");
    require(t[0] != t[1] && t[1] != t[2] && t[0] != t[2], who + "a triangle repeats a particle");
    for (int k = 0; k < 3; ++k) ++edges[{t[k], t[(k + 1) % 3]}];
  }
  for (const auto& [e, n] : edges) {
    const auto back = edges.find({e.second, e.first});
    require(n == 1 && back != edges.end() && back->second == 1,
            who + "the surface is not closed and consistently oriented (edge " + std::to_string(e.first) + "-" +
                std::to_string(e.second) + "): a chamber must enclose its cavity");
  }
  Vec3 mean = Vec3::Zero();
  for (const auto& t : triangles)
    for (int p : t) mean += m_.particle_pos0[p];
  mean /= 3.0 * triangles.size();
  double volume = 0;
  for (const auto& t : triangles) {
    const Vec3 y0 = m_.particle_pos0[t[0]] - mean, y1 = m_.particle_pos0[t[1]] - mean, y2 = m_.particle_pos0[t[2]] - mean;
    volume += y0.dot(y1.cross(y2)) / 6.0;
  }
  require(volume > 0, who + "the enclosed volume is " + std::to_string(volume) +
                          " m^3: orient the triangles out of the cavity (into the walls)");
  m_.chamber_tri.insert(m_.chamber_tri.end(), triangles.begin(), triangles.end());
  m_.chamber_start.push_back(static_cast<int>(m_.chamber_tri.size()));
  m_.chamber_group.push_back(group);
  count_activation_groups();
  return m_.nchamber++;
}

void Builder::count_activation_groups() {
  m_.nactgroup = 0;
  for (int g : m_.chamber_group) m_.nactgroup = std::max(m_.nactgroup, g + 1);
  for (int g : m_.tet_group) m_.nactgroup = std::max(m_.nactgroup, g + 1);
  for (int g : m_.rodnode_group) m_.nactgroup = std::max(m_.nactgroup, g + 1);
  for (int g : m_.hinge_group) m_.nactgroup = std::max(m_.nactgroup, g + 1);
}

int Builder::add_soft_body(const std::vector<Vec3>& vertices, const std::vector<std::array<int, 4>>& tets,
                           double density, double young, double poisson, double radius, double friction,
                           int model) {
  require(!vertices.empty() && !tets.empty(), "soft body: needs vertices and tetrahedra");
  require(std::isfinite(density) && density > 0, "soft body: density must be > 0");
  std::vector<double> mass(vertices.size(), 0.0);
  std::vector<std::array<int, 4>> oriented(tets);
  for (size_t t = 0; t < tets.size(); ++t) {
    auto& e = oriented[t];
    for (int a = 0; a < 4; ++a)
      require(e[a] >= 0 && static_cast<size_t>(e[a]) < vertices.size(),
              "soft body: tet " + std::to_string(t) + " names a missing vertex");
    Mat3 Dm;
    for (int a = 0; a < 3; ++a) Dm.col(a) = vertices[e[a + 1]] - vertices[e[0]];
    double vol = Dm.determinant() / 6.0;
    if (vol < 0) {
      std::swap(e[2], e[3]);
      vol = -vol;
    }
    for (int a = 0; a < 4; ++a) mass[e[a]] += density * vol / 4.0;
  }
  const int first = m_.nparticle;
  for (size_t v = 0; v < vertices.size(); ++v) {
    require(mass[v] > 0, "soft body: vertex " + std::to_string(v) + " belongs to no element of positive volume");
    add_particle(vertices[v], mass[v], radius, friction);
  }
  for (auto e : oriented) {
    for (int& a : e) a += first;
    add_tet(e, young, poisson, model);
  }
  return first;
}

void Builder::exclude_soft_pair(int a, int b) {
  require(a >= 0 && a < m_.nparticle && b >= 0 && b < m_.nparticle,
          "exclude_soft_pair: particle " + std::to_string(a < 0 || a >= m_.nparticle ? a : b) + " does not exist");
  m_.soft_exclude_particles.push_back({a, b});
}

int Builder::add_attachment(int particle, int body, const Vec3& local) {
  const std::string who = "attachment " + std::to_string(m_.nattach);
  require(particle >= 0 && particle < m_.nparticle, who + ": particle does not exist");
  require(body >= 0 && body < m_.nbody, who + ": body does not exist");
  require(finite3(local), who + ": non-finite point");
  m_.att_particle.push_back(particle);
  m_.att_body.push_back(body);
  m_.att_local.push_back(local);
  return m_.nattach++;
}

namespace {
void add_equality(Model& m, EqualityType type, int o1, int o2, const Vec3& a1, const Vec3& a2, const Quat& rel,
                  const std::array<double, 5>& poly, double compliance, bool active, const std::string& name) {
  m.eq_type.push_back(type);
  m.eq_obj1.push_back(o1);
  m.eq_obj2.push_back(o2);
  m.eq_anchor1.push_back(a1);
  m.eq_anchor2.push_back(a2);
  m.eq_relquat.push_back(rel);
  m.eq_polycoef.push_back(poly);
  m.eq_compliance.push_back(compliance);
  m.eq_active.push_back(active ? 1 : 0);
  m.eq_name.push_back(name);
  ++m.neq;
}
}  // namespace

int Builder::add_connect(int body1, int body2, const Vec3& anchor1, const Vec3& anchor2, double compliance, bool active,
                         const std::string& name) {
  const std::string who = label("connect equality", m_.neq, name);
  require(body1 >= 0 && body1 < m_.nbody && body2 >= 0 && body2 < m_.nbody, who + ": body does not exist");
  require(body1 != body2, who + ": connects body " + std::to_string(body1) + " to itself");
  require(finite3(anchor1) && finite3(anchor2), who + ": non-finite anchor");
  require(std::isfinite(compliance) && compliance >= 0, who + ": compliance must be >= 0 and finite");
  add_equality(m_, EqualityType::Connect, body1, body2, anchor1, anchor2, Quat::Identity(), {}, compliance, active, name);
  return m_.neq - 1;
}

int Builder::add_weld(int body1, int body2, const Vec3& relpos, const Quat& relquat, const Vec3& anchor,
                      double compliance, bool active, const std::string& name) {
  const std::string who = label("weld equality", m_.neq, name);
  require(body1 >= 0 && body1 < m_.nbody && body2 >= 0 && body2 < m_.nbody, who + ": body does not exist");
  require(body1 != body2, who + ": welds body " + std::to_string(body1) + " to itself");
  require(finite3(relpos) && finite3(anchor) && relquat.coeffs().allFinite() && relquat.norm() > 1e-10,
          who + ": non-finite or zero relative pose");
  require(std::isfinite(compliance) && compliance >= 0, who + ": compliance must be >= 0 and finite");
  add_equality(m_, EqualityType::Weld, body1, body2, relpos, anchor, relquat.normalized(), {}, compliance, active,
               name);
  return m_.neq - 1;
}

int Builder::add_joint_coupling(int joint1, int joint2, const std::array<double, 5>& polycoef, double compliance,
                                bool active, const std::string& name) {
  const std::string who = label("joint equality", m_.neq, name);
  require(joint1 >= 0 && joint1 < m_.njnt && joint2 >= -1 && joint2 < m_.njnt, who + ": joint does not exist");
  require(joint1 != joint2, who + ": couples joint " + std::to_string(joint1) + " to itself");
  for (int j : {joint1, joint2})
    require(j < 0 || m_.jnt_type[j] == JointType::Hinge || m_.jnt_type[j] == JointType::Slide,
            who + ": joint " + std::to_string(j) + " is not a hinge or slide joint (couplings act on one coordinate)");
  for (double c : polycoef) require(std::isfinite(c), who + ": non-finite polycoef");
  require(std::isfinite(compliance) && compliance >= 0, who + ": compliance must be >= 0 and finite");
  add_equality(m_, EqualityType::Joint, joint1, joint2, Vec3::Zero(), Vec3::Zero(), Quat::Identity(), polycoef,
               compliance, active, name);
  return m_.neq - 1;
}

int Builder::add_tendon_coupling(int tendon1, int tendon2, const std::array<double, 5>& polycoef, double compliance,
                                 bool active, const std::string& name) {
  const std::string who = label("tendon equality", m_.neq, name);
  require(tendon1 >= 0 && tendon1 < m_.ntendon && tendon2 >= -1 && tendon2 < m_.ntendon, who + ": tendon does not exist");
  require(tendon1 != tendon2, who + ": couples tendon " + std::to_string(tendon1) + " to itself");
  for (double c : polycoef) require(std::isfinite(c), who + ": non-finite polycoef");
  require(std::isfinite(compliance) && compliance >= 0, who + ": compliance must be >= 0 and finite");
  add_equality(m_, EqualityType::Tendon, tendon1, tendon2, Vec3::Zero(), Vec3::Zero(), Quat::Identity(), polycoef,
               compliance, active, name);
  return m_.neq - 1;
}

void Builder::set_mocap(int body) {
  require(body > 0 && body < m_.nbody, "set_mocap: body " + std::to_string(body) + " does not exist (or is the world)");
  m_.body_mocapid.resize(m_.nbody, -1);
  if (m_.body_mocapid[body] < 0) m_.body_mocapid[body] = m_.nmocap++;
}

void Builder::set_gravcomp(int body, double weight) {
  require(body > 0 && body < m_.nbody, "set_gravcomp: body " + std::to_string(body) + " does not exist (or is the world)");
  require(std::isfinite(weight), "set_gravcomp: weight must be finite");
  m_.body_gravcomp.resize(m_.nbody, 0.0);
  m_.body_gravcomp[body] = weight;
}

void Builder::exclude_bodies(int body1, int body2) {
  require(body1 >= 0 && body1 < m_.nbody && body2 >= 0 && body2 < m_.nbody,
          "exclude_bodies: body " + std::to_string(body1 < 0 || body1 >= m_.nbody ? body1 : body2) + " does not exist");
  const std::array<int, 2> pair{std::min(body1, body2), std::max(body1, body2)};
  if (std::find(m_.exclude_pairs.begin(), m_.exclude_pairs.end(), pair) == m_.exclude_pairs.end())
    m_.exclude_pairs.push_back(pair);
}

int Builder::add_fixed_tendon(const TendonSpec& s) {
  const std::string who = label("tendon", m_.ntendon, s.name);
  require(!s.joint.empty() && s.joint.size() == s.coef.size(), who + ": needs joints with one coefficient each");
  for (size_t k = 0; k < s.joint.size(); ++k) {
    const int j = s.joint[k];
    require(j >= 0 && j < m_.njnt, who + ": joint id " + std::to_string(j) + " does not exist");
    require(m_.jnt_type[j] == JointType::Hinge || m_.jnt_type[j] == JointType::Slide,
            who + ": a fixed tendon spans hinge and slide joints only");
    require(std::isfinite(s.coef[k]), who + ": non-finite coefficient");
  }
  check_tendon_parameters(s, who);
  m_.tendon_adr.push_back(static_cast<int>(m_.tendon_obj.size()));
  m_.tendon_num.push_back(static_cast<int>(s.joint.size()));
  for (size_t k = 0; k < s.joint.size(); ++k) {
    m_.tendon_wrap.push_back(TendonWrap::Joint);
    m_.tendon_obj.push_back(m_.jnt_dofadr[s.joint[k]]);
    m_.tendon_coef.push_back(s.coef[k]);
    m_.tendon_side.push_back(-1);
  }
  return push_tendon_parameters(s);
}

int Builder::add_spatial_tendon(const TendonSpec& s) {
  const std::string who = label("tendon", m_.ntendon, s.name);
  const size_t n = s.path_kind.size();
  require(s.path_obj.size() == n && s.path_side.size() == n && s.coef.size() == n,
          who + ": path_kind, path_obj, path_side and coef differ in length");
  int branch = 0;  // sites since the branch began
  for (size_t k = 0; k < n; ++k) {
    const TendonWrap w = s.path_kind[k];
    const int o = s.path_obj[k];
    if (w == TendonWrap::Pulley) {
      require(branch >= 2, who + ": each branch (the path's start, or a pulley) needs at least two sites");
      require(std::isfinite(s.coef[k]) && s.coef[k] > 0, who + ": a pulley's divisor must be > 0");
      branch = 0;
    } else if (w == TendonWrap::Site) {
      require(o >= 0 && o < m_.nsite, who + ": site id " + std::to_string(o) + " does not exist");
      ++branch;
    } else {
      require(w == TendonWrap::Sphere || w == TendonWrap::Cylinder, who + ": a path term is a site, a pulley or a geom");
      require(o >= 0 && o < m_.ngeom, who + ": geom id " + std::to_string(o) + " does not exist");
      require(m_.geom_type[o] == (w == TendonWrap::Sphere ? GeomType::Sphere : GeomType::Cylinder),
              who + ": geom " + std::to_string(o) + " is not a " + (w == TendonWrap::Sphere ? "sphere" : "cylinder"));
      require(branch >= 1 && k + 1 < n && s.path_kind[k + 1] == TendonWrap::Site,
              who + ": a wrapping geom lies between two sites");
      require(s.path_side[k] >= -1 && s.path_side[k] < m_.nsite, who + ": side site does not exist");
    }
  }
  require(branch >= 2, who + ": each branch (the path's start, or a pulley) needs at least two sites");
  check_tendon_parameters(s, who);
  m_.tendon_adr.push_back(static_cast<int>(m_.tendon_obj.size()));
  m_.tendon_num.push_back(static_cast<int>(n));
  for (size_t k = 0; k < n; ++k) {
    const TendonWrap w = s.path_kind[k];
    m_.tendon_wrap.push_back(w);
    m_.tendon_obj.push_back(w == TendonWrap::Pulley ? -1 : s.path_obj[k]);
    m_.tendon_coef.push_back(w == TendonWrap::Pulley ? s.coef[k] : 1.0);
    m_.tendon_side.push_back(w == TendonWrap::Sphere || w == TendonWrap::Cylinder ? s.path_side[k] : -1);
  }
  return push_tendon_parameters(s);
}

void Builder::check_tendon_parameters(const TendonSpec& s, const std::string& who) const {
  for (double v : {s.range_lo, s.range_hi, s.stiffness, s.damping, s.frictionloss, s.springlength_lo, s.springlength_hi})
    require(std::isfinite(v), who + ": non-finite parameter");
  require(s.stiffness >= 0 && s.damping >= 0 && s.frictionloss >= 0, who + ": stiffness, damping, frictionloss must be >= 0");
  if (s.limited) require(s.range_lo <= s.range_hi, who + ": range lower bound exceeds upper bound");
  require(s.springlength_lo <= s.springlength_hi, who + ": spring length lower bound exceeds upper bound");
}

int Builder::push_tendon_parameters(const TendonSpec& s) {
  m_.tendon_limited.push_back(s.limited ? 1 : 0);
  m_.tendon_range.push_back(s.range_lo);
  m_.tendon_range.push_back(s.range_hi);
  m_.tendon_stiffness.push_back(s.stiffness);
  m_.tendon_damping.push_back(s.damping);
  m_.tendon_frictionloss.push_back(s.frictionloss);
  m_.tendon_springlength.push_back(s.springlength_lo);
  m_.tendon_springlength.push_back(s.springlength_hi);
  m_.tendon_name.push_back(s.name);
  return m_.ntendon++;
}

void Builder::set_principal_inertia(int body, const Quat& iquat, const Vec3& principal) {
  const std::string who = label("body", body, body > 0 && body < m_.nbody ? m_.body_name[body] : "");
  require(body > 0 && body < m_.nbody, who + ": does not exist (or is the world)");
  require(iquat.coeffs().allFinite() && iquat.norm() > 1e-10 && finite3(principal) && principal.minCoeff() >= 0,
          who + ": bad principal axes or moments");
  const Mat3 R = iquat.normalized().toRotationMatrix();
  const Mat3 I = R * principal.asDiagonal() * R.transpose();
  require((I - m_.body_inertia[body]).norm() <= 1e-9 * (1 + m_.body_inertia[body].norm()),
          who + ": principal axes and moments disagree with the body's inertia");
  m_.body_iquat[body] = iquat.normalized();
  m_.body_iprincipal[body] = principal;
}

void Builder::set_fluid(double density, double viscosity, const Vec3& wind) {
  require(std::isfinite(density) && density >= 0 && std::isfinite(viscosity) && viscosity >= 0 && finite3(wind),
          "fluid: density and viscosity must be >= 0, the wind finite");
  m_.fluid_density = density;
  m_.fluid_viscosity = viscosity;
  m_.fluid_wind = wind;
}

void Builder::set_geom_fluid(int geom, const Vec3& semi_axes, const Eigen::Matrix<double, 5, 1>& coef,
                             const Vec3& added_mass, const Vec3& added_inertia) {
  const std::string who = label("geom", geom, geom >= 0 && geom < m_.ngeom ? m_.geom_name[geom] : "");
  require(geom >= 0 && geom < m_.ngeom, who + ": does not exist");
  require(std::find(m_.fluid_geom.begin(), m_.fluid_geom.end(), geom) == m_.fluid_geom.end(),
          who + ": its fluid model is already set");
  require(finite3(semi_axes) && semi_axes.minCoeff() > 0, who + ": fluid semi-axes must be finite and > 0");
  require(coef.allFinite(), who + ": fluid coefficients must be finite");
  require(finite3(added_mass) && added_mass.minCoeff() >= 0 && finite3(added_inertia) && added_inertia.minCoeff() >= 0,
          who + ": added mass and moments must be finite and >= 0");
  m_.fluid_geom.push_back(geom);
  m_.fluid_axes.push_back(semi_axes);
  m_.fluid_coef.push_back(coef);
  m_.fluid_added_mass.push_back(added_mass);
  m_.fluid_added_inertia.push_back(added_inertia);
}

void Builder::set_site_shape(int site, int type, const Vec3& size) {
  const std::string who = label("site", site, site >= 0 && site < m_.nsite ? m_.site_name[site] : "");
  require(site >= 0 && site < m_.nsite, who + ": does not exist");
  require(type >= 2 && type <= 6, who + ": shape must be a sphere (2), capsule (3), ellipsoid (4), cylinder (5) or box (6)");
  require(finite3(size) && size.minCoeff() >= 0, who + ": sizes must be finite and >= 0");
  m_.site_type[site] = type;
  m_.site_size[site] = size;
}

int Builder::add_sensor(SensorType type, int objtype, int obj, double cutoff, double scale, const std::string& name) {
  const std::string who = label("sensor", m_.nsensor, name);
  const bool frame = frame_sensor(type);
  require(!frame || (objtype >= 0 && objtype <= 3), who + ": frame object type must be 0 site, 1 body, 2 xbody, 3 geom");
  require(obj >= 0 && obj < sensor_object_count(m_, type, objtype), who + ": object id " + std::to_string(obj) + " does not exist");
  if (type == SensorType::JointPos || type == SensorType::JointVel)
    require(m_.jnt_type[obj] == JointType::Hinge || m_.jnt_type[obj] == JointType::Slide,
            who + ": joint sensors read hinge and slide joints");
  require(std::isfinite(cutoff) && cutoff >= 0 && std::isfinite(scale), who + ": cutoff must be >= 0, scale finite");
  const int dim = type == SensorType::FrameQuat ? 4 : type >= SensorType::Gyro || type == SensorType::FramePos ? 3 : 1;
  m_.sensor_type.push_back(type);
  m_.sensor_objtype.push_back(frame ? objtype : 0);
  m_.sensor_obj.push_back(obj);
  m_.sensor_adr.push_back(m_.nsensordata);
  m_.sensor_dim.push_back(dim);
  m_.sensor_cutoff.push_back(cutoff);
  m_.sensor_scale.push_back(scale);
  m_.sensor_name.push_back(name);
  m_.nsensordata += dim;
  return m_.nsensor++;
}

int Builder::add_contact_pair(int g1, int g2, int condim, const Vec3& friction, double margin) {
  const std::string who = "contact pair " + std::to_string(m_.npair);
  require(g1 >= 0 && g1 < m_.ngeom && g2 >= 0 && g2 < m_.ngeom,
          who + ": geom id " + std::to_string(g1 < 0 || g1 >= m_.ngeom ? g1 : g2) + " does not exist");
  require(g1 != g2, who + ": a geom cannot pair with itself");
  require(m_.geom_body[g1] != m_.geom_body[g2], who + ": both geoms are on one body");
  require(condim == 1 || condim == 3 || condim == 4 || condim == 6, who + ": condim must be 1, 3, 4 or 6");
  require(finite3(friction) && friction.minCoeff() >= 0, who + ": friction must be finite and >= 0");
  require(std::isfinite(margin) && margin >= 0, who + ": margin must be >= 0");
  const std::array<int, 2> key{std::min(g1, g2), std::max(g1, g2)};
  require(std::find(m_.pair_geom.begin(), m_.pair_geom.end(), key) == m_.pair_geom.end(),
          who + ": geoms " + std::to_string(key[0]) + " and " + std::to_string(key[1]) + " are paired already");
  m_.pair_geom.push_back(key);
  m_.pair_condim.push_back(condim);
  m_.pair_friction.push_back(friction);
  m_.pair_margin.push_back(margin);
  return m_.npair++;
}

void Builder::set_solver_iterations(int newton, int linear) {
  require(newton >= 0 && linear >= 0, "iteration counts must be >= 0 (0: the solver's defaults)");
  m_.newton_iterations = newton;
  m_.linear_iterations = linear;
}

void Builder::set_timestep(double h) {
  require(std::isfinite(h) && h > 0, "timestep must be positive and finite");
  m_.timestep = h;
}

std::shared_ptr<const Model> Builder::build() const {
  auto m = std::make_shared<Model>(m_);
  require(m->gravity.allFinite(), "gravity must be finite");

  // dof addresses per body and the dof tree (previous dof towards the root)
  m->body_dofadr.assign(m->nbody, 0);
  m->body_dofnum.assign(m->nbody, 0);
  std::vector<int> last_dof(m->nbody, -1);  // deepest dof on the path root..body
  m->dof_parent.assign(m->nv, -1);
  for (int b = 1; b < m->nbody; ++b) {
    int prev = last_dof[m->body_parent[b]];
    if (m->body_jntnum[b] > 0) {
      const int j0 = m->body_jntadr[b];
      const int jl = j0 + m->body_jntnum[b] - 1;
      m->body_dofadr[b] = m->jnt_dofadr[j0];
      m->body_dofnum[b] = m->jnt_dofadr[jl] + joint_nv(m->jnt_type[jl]) - m->body_dofadr[b];
      for (int d = m->body_dofadr[b]; d < m->body_dofadr[b] + m->body_dofnum[b]; ++d) {
        m->dof_parent[d] = prev;
        prev = d;
      }
    } else {
      m->body_dofadr[b] = m->nv;  // no dofs: empty range
    }
    last_dof[b] = prev;
  }
  m->body_lastdof = last_dof;
  m->body_mocapid.resize(m->nbody, -1);
  // no weight anywhere: empty, and the dynamics skip the pass (model.hpp)
  if (std::all_of(m->body_gravcomp.begin(), m->body_gravcomp.end(), [](double w) { return w == 0.0; }))
    m->body_gravcomp.clear();
  else
    m->body_gravcomp.resize(m->nbody, 0.0);
  for (int b = 1; b < m->nbody; ++b)
    if (m->body_mocapid[b] >= 0)
      require(m->body_parent[b] == 0 && m->body_jntnum[b] == 0,
              label("body", b, m->body_name[b]) + ": a mocap body must be a child of the world without joints");
  m->body_fluid_ellipsoid.clear();  // bodies out of the inertia-box model: empty when none
  if (!m->fluid_geom.empty()) {
    m->body_fluid_ellipsoid.assign(m->nbody, 0);
    for (int g : m->fluid_geom) m->body_fluid_ellipsoid[m->geom_body[g]] = 1;
  }
  m->body_rot.resize(m->nbody);
  for (int b = 0; b < m->nbody; ++b) m->body_rot[b] = m->body_quat[b].toRotationMatrix();
  m->site_rot.resize(m->nsite);
  for (int s = 0; s < m->nsite; ++s) m->site_rot[s] = m->site_quat[s].toRotationMatrix();
  m->geom_rot.resize(m->ngeom);
  for (int g = 0; g < m->ngeom; ++g) m->geom_rot[g] = m->geom_quat[g].toRotationMatrix();

  // IIM buffer slots. Inward, a body accumulates into the block of its highest-index
  // child (whose subtree is swept first); outward, a body's last child updates the
  // parent's block in place (nobody reads the parent's block after that child starts).
  std::vector<int> last_child(m->nbody, -1);
  for (int b = 1; b < m->nbody; ++b) last_child[m->body_parent[b]] = b;
  m->body_slot_in.assign(m->nbody, 0);
  m->body_slot_out.assign(m->nbody, 0);
  for (int b = m->nbody - 1; b > 0; --b)
    m->body_slot_in[b] = last_child[b] > 0 ? m->body_slot_in[last_child[b]] : b;
  for (int b = 1; b < m->nbody; ++b) {
    const int p = m->body_parent[b];
    m->body_slot_out[b] = (p > 0 && last_child[p] == b) ? m->body_slot_out[p] : b;
  }

  // Every dof must move some mass, otherwise M is singular (D_i = S_i^T I^A_i S_i = 0).
  std::vector<double> subtree_mass(m->body_mass);
  for (int b = m->nbody - 1; b > 0; --b) subtree_mass[m->body_parent[b]] += subtree_mass[b];
  for (int b = 1; b < m->nbody; ++b) {
    if (m->body_dofnum[b] == 0) continue;
    bool armature = true;
    for (int d = m->body_dofadr[b]; d < m->body_dofadr[b] + m->body_dofnum[b]; ++d)
      armature = armature && m->dof_armature[d] > 0;
    require(subtree_mass[b] > 0 || armature,
            label("body", b, m->body_name[b]) +
                ": zero mass in a moving subtree (the mass matrix would be singular)");
  }

  // names must be unique within a kind
  auto unique = [](const std::vector<std::string>& names, const char* kind) {
    std::set<std::string> seen;
    for (const auto& n : names) {
      if (n.empty()) continue;
      require(seen.insert(n).second, std::string("duplicate ") + kind + " name '" + n + "'");
    }
  };
  unique(m->body_name, "body");
  unique(m->jnt_name, "joint");
  unique(m->geom_name, "geom");
  unique(m->site_name, "site");
  unique(m->act_name, "actuator");
  unique(m->eq_name, "equality");
  build_soft_surfaces(*m);
  build_particle_components(*m);
  m->max_geom_margin = 0;
  for (const double g : m->geom_margin) m->max_geom_margin = std::max(m->max_geom_margin, g);
  list_geom_pairs(*m);  // after body_lastdof: the filter reads which bodies are static
  return m;
}

}  // namespace ncpgym
