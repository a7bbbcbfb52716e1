#include "ncpgym/model/serialize.hpp"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace ncpgym {

namespace {

constexpr char kMagic[8] = {'n', 'c', 'p', 'g', 'y', 'm', 'M', '\0'};
constexpr std::uint32_t kVersion = 9;  // 2: rods, shells, the medium; 3: particle components, chambers; 4: gravcomp;
                                        // 5: geom rotations and listed geom pairs; 6: contact parameters, pairs, dry friction,
                                        // force ranges, fixed tendons; 7: spatial tendons, activation dynamics;
                                        // 8: MuJoCo's ellipsoid fluid model; 9: skin friction (8 still read:
                                        // without it, as none)

// Writing: values appended to a string.
struct Out {
  std::string buf;
  void raw(const void* p, size_t n) { buf.append(static_cast<const char*>(p), n); }
  template <class T>
  void operator()(const T& v) { put(v); }

  template <class T>
  std::enable_if_t<std::is_trivially_copyable_v<T>> put(const T& v) { raw(&v, sizeof(T)); }
  template <class S, int R, int C>
  void put(const Eigen::Matrix<S, R, C>& v) {
    if constexpr (R == Eigen::Dynamic || C == Eigen::Dynamic) put(static_cast<std::int64_t>(v.size()));
    raw(v.data(), sizeof(S) * v.size());
  }
  void put(const Quat& q) { raw(q.coeffs().data(), 4 * sizeof(double)); }
  void put(const std::string& s) {
    put(static_cast<std::int64_t>(s.size()));
    raw(s.data(), s.size());
  }
  void put(const HullFace& f) {
    put(f.normal);
    put(f.offset);
    put(f.verts);
  }
  void put(const ConvexHull& h);
  template <class T>
  void put(const std::vector<T>& v) {
    put(static_cast<std::int64_t>(v.size()));
    if constexpr (std::is_trivially_copyable_v<T>)
      raw(v.data(), sizeof(T) * v.size());
    else
      for (const T& x : v) put(x);
  }
};

// Reading: the same calls fill the fields, checking the buffer's length at every read.
struct In {
  const std::string& buf;
  size_t at = 0;
  std::uint32_t version = kVersion;  // of the bytes read
  void raw(void* p, size_t n) {
    if (n > buf.size() - at) throw std::invalid_argument("model bytes truncated (" + std::to_string(buf.size()) + " bytes)");
    std::memcpy(p, buf.data() + at, n);
    at += n;
  }
  template <class T>
  void operator()(T& v) { get(v); }

  size_t count(size_t elem) {
    std::int64_t n;
    raw(&n, sizeof n);
    if (n < 0 || static_cast<size_t>(n) > (buf.size() - at) / std::max<size_t>(elem, 1))
      throw std::invalid_argument("model bytes corrupt: an array of " + std::to_string(n) + " items");
    return static_cast<size_t>(n);
  }
  template <class T>
  std::enable_if_t<std::is_trivially_copyable_v<T>> get(T& v) { raw(&v, sizeof(T)); }
  template <class S, int R, int C>
  void get(Eigen::Matrix<S, R, C>& v) {
    if constexpr (R == Eigen::Dynamic || C == Eigen::Dynamic) v.resize(static_cast<Eigen::Index>(count(sizeof(S))));
    raw(v.data(), sizeof(S) * v.size());
  }
  void get(Quat& q) { raw(q.coeffs().data(), 4 * sizeof(double)); }
  void get(std::string& s) {
    s.resize(count(1));
    raw(s.data(), s.size());
  }
  void get(HullFace& f) {
    get(f.normal);
    get(f.offset);
    get(f.verts);
  }
  void get(ConvexHull& h);
  template <class T>
  void get(std::vector<T>& v) {
    // the smallest encoding of one item bounds the count (strings and vectors: their length)
    v.resize(count(std::is_trivially_copyable_v<T> ? sizeof(T) : sizeof(std::int64_t)));
    if constexpr (std::is_trivially_copyable_v<T>)
      raw(v.data(), sizeof(T) * v.size());
    else
      for (T& x : v) get(x);
  }
};

template <class Ar, class H>
void hull_fields(Ar& ar, H& h) {
  ar(h.vert);
  ar(h.faces);
  ar(h.adj_start);
  ar(h.adj);
  ar(h.vface_start);
  ar(h.vface);
  ar(h.rbound);
}
void Out::put(const ConvexHull& h) { hull_fields(*this, h); }
void In::get(ConvexHull& h) { hull_fields(*this, h); }

// Every field of Model, once. A field added to Model and not listed here would be lost
// in a round trip: the size check below stops the build until this list is updated.
template <class Ar, class M>
void model_fields(Ar& ar, M& m) {
  ar(m.nbody), ar(m.njnt), ar(m.nq), ar(m.nv), ar(m.ngeom), ar(m.nsite), ar(m.nu), ar(m.nmesh);
  // bodies
  ar(m.body_parent), ar(m.body_pos), ar(m.body_quat), ar(m.body_rot), ar(m.body_mass), ar(m.body_com);
  ar(m.body_inertia), ar(m.body_jntadr), ar(m.body_jntnum), ar(m.body_dofadr), ar(m.body_dofnum);
  ar(m.body_lastdof), ar(m.body_slot_in), ar(m.body_slot_out), ar(m.body_name), ar(m.body_iquat), ar(m.body_iprincipal);
  // joints
  ar(m.jnt_type), ar(m.jnt_body), ar(m.jnt_qposadr), ar(m.jnt_dofadr), ar(m.jnt_pos), ar(m.jnt_axis);
  ar(m.jnt_ref), ar(m.jnt_stiffness), ar(m.jnt_springref), ar(m.jnt_limited), ar(m.jnt_range), ar(m.jnt_name);
  // dofs
  ar(m.dof_body), ar(m.dof_jnt), ar(m.dof_parent), ar(m.dof_armature), ar(m.dof_damping), ar(m.dof_frictionloss);
  ar(m.qpos0);
  // actuators
  ar(m.act_type), ar(m.act_joint), ar(m.act_tendon), ar(m.act_gear), ar(m.act_kp), ar(m.act_kv), ar(m.act_ctrllimited);
  ar(m.act_ctrlrange), ar(m.act_name), ar(m.act_forcelimited), ar(m.act_forcerange), ar(m.act_ctrlgain), ar(m.act_bias0);
  ar(m.na), ar(m.act_dyn), ar(m.act_dyntau), ar(m.act_actadr), ar(m.act_actlimited), ar(m.act_actrange);
  // geoms and meshes
  ar(m.geom_type), ar(m.geom_body), ar(m.geom_mesh), ar(m.geom_pos), ar(m.geom_size), ar(m.geom_friction);
  ar(m.geom_quat), ar(m.geom_rot), ar(m.geom_contype), ar(m.geom_conaffinity), ar(m.geom_name);
  ar(m.geom_condim), ar(m.geom_priority), ar(m.geom_margin), ar(m.max_geom_margin);
  ar(m.npair), ar(m.pair_geom), ar(m.pair_condim), ar(m.pair_friction), ar(m.pair_margin);
  ar(m.mesh_vert), ar(m.mesh_name), ar(m.mesh_hull), ar(m.geom_hull);
  // sites
  ar(m.site_body), ar(m.site_pos), ar(m.site_quat), ar(m.site_rot), ar(m.site_name), ar(m.site_type), ar(m.site_size);
  ar(m.nsensor), ar(m.nsensordata), ar(m.sensor_type), ar(m.sensor_objtype), ar(m.sensor_obj), ar(m.sensor_adr);
  ar(m.sensor_dim), ar(m.sensor_cutoff), ar(m.sensor_scale), ar(m.sensor_name);
  // particles, distances, attachments
  ar(m.nparticle), ar(m.particle_mass), ar(m.particle_radius), ar(m.particle_friction), ar(m.particle_pos0);
  ar(m.ndistance), ar(m.dist_p1), ar(m.dist_p2), ar(m.dist_rest), ar(m.dist_compliance);
  ar(m.nattach), ar(m.att_particle), ar(m.att_body), ar(m.att_local);
  // tetrahedra, activation groups, soft surfaces
  ar(m.ntet), ar(m.tet_p), ar(m.tet_Dminv), ar(m.tet_volume), ar(m.tet_mu), ar(m.tet_lambda), ar(m.tet_model);
  ar(m.tet_group), ar(m.nactgroup);
  ar(m.nchamber), ar(m.chamber_tri), ar(m.chamber_start), ar(m.chamber_group);
  ar(m.particle_density), ar(m.particle_visc_length);
  // stretching springs, rods
  ar(m.nstretch), ar(m.stretch_p), ar(m.stretch_rest), ar(m.stretch_compliance);
  ar(m.nrodedge), ar(m.rodedge_p), ar(m.rodedge_ghost), ar(m.rodedge_radius), ar(m.nrodnode), ar(m.rodnode_edge), ar(m.rodnode_len);
  ar(m.rodnode_rest), ar(m.rodnode_compliance), ar(m.rodnode_group), ar(m.particle_ghost);
  ar(m.particle_component);
  // shells
  ar(m.nhinge), ar(m.hinge_p), ar(m.hinge_rest), ar(m.hinge_compliance), ar(m.hinge_group), ar(m.shell_tri),
      ar(m.shell_tri_edge_owner);
  ar(m.nsoft), ar(m.particle_soft), ar(m.tri_p), ar(m.tri_soft), ar(m.tri_edge_owner), ar(m.soft_vertex);
  ar(m.soft_vertex_start), ar(m.soft_tri_start), ar(m.soft_exclude_particles), ar(m.soft_exclude);
  // mocap, equalities, exclusions
  ar(m.nmocap), ar(m.body_mocapid), ar(m.body_gravcomp);
  ar(m.neq), ar(m.eq_type), ar(m.eq_obj1), ar(m.eq_obj2), ar(m.eq_anchor1), ar(m.eq_anchor2), ar(m.eq_relquat);
  ar(m.eq_polycoef), ar(m.eq_compliance), ar(m.eq_active), ar(m.eq_name), ar(m.exclude_pairs);
  ar(m.geom_pairs);
  ar(m.ntendon), ar(m.tendon_adr), ar(m.tendon_num), ar(m.tendon_wrap), ar(m.tendon_obj), ar(m.tendon_coef), ar(m.tendon_side), ar(m.tendon_limited);
  ar(m.tendon_range), ar(m.tendon_stiffness), ar(m.tendon_damping), ar(m.tendon_frictionloss);
  ar(m.tendon_springlength), ar(m.tendon_name), ar(m.dof_qposadr);
  // options
  ar(m.gravity), ar(m.timestep), ar(m.newton_iterations), ar(m.linear_iterations);
  ar(m.medium_density), ar(m.drag_coefficient), ar(m.viscosity);
  ar(m.fluid_density), ar(m.fluid_viscosity), ar(m.fluid_wind);
  ar(m.fluid_geom), ar(m.fluid_axes), ar(m.fluid_added_mass), ar(m.fluid_added_inertia), ar(m.fluid_coef);
  ar(m.body_fluid_ellipsoid);
  if constexpr (std::is_same_v<Ar, In>) {
    if (ar.version >= 9) ar(m.skin_friction);
  } else {
    ar(m.skin_friction);
  }
}

#if defined(__x86_64__) && defined(__GLIBCXX__) && !defined(_GLIBCXX_DEBUG) && !defined(NCPGYM_NATIVE_BUILD)
// Model's size on the platform CI builds on: it changes when a field is added or removed.
static_assert(sizeof(Model) == 4496,
              "Model changed: list the new field in model_fields (model/serialize.cpp), then update this size");
#endif

// Bytes that decode but disagree with themselves (an array shorter than its count) would
// send the solver out of bounds: every array is checked against the count it belongs to.
void check_sizes(const Model& m) {
  const auto need = [](size_t got, long want, const char* name) {
    if (got != static_cast<size_t>(want))
      throw std::invalid_argument(std::string("model bytes corrupt: ") + name + " has " + std::to_string(got) +
                                  " items, expected " + std::to_string(want));
  };
  const long nb = m.nbody, nj = m.njnt, nv = m.nv, nu = m.nu, ng = m.ngeom, ns = m.nsite, np = m.nparticle;
  for (auto [got, name] : {std::pair{m.body_parent.size(), "body_parent"}, {m.body_pos.size(), "body_pos"},
                           {m.body_quat.size(), "body_quat"}, {m.body_rot.size(), "body_rot"},
                           {m.body_mass.size(), "body_mass"}, {m.body_com.size(), "body_com"},
                           {m.body_inertia.size(), "body_inertia"}, {m.body_jntadr.size(), "body_jntadr"},
                           {m.body_jntnum.size(), "body_jntnum"}, {m.body_dofadr.size(), "body_dofadr"},
                           {m.body_dofnum.size(), "body_dofnum"}, {m.body_lastdof.size(), "body_lastdof"},
                           {m.body_slot_in.size(), "body_slot_in"}, {m.body_slot_out.size(), "body_slot_out"},
                           {m.body_name.size(), "body_name"}, {m.body_mocapid.size(), "body_mocapid"},
                           {m.body_iquat.size(), "body_iquat"}, {m.body_iprincipal.size(), "body_iprincipal"}})
    need(got, nb, name);
  if (!m.body_gravcomp.empty()) need(m.body_gravcomp.size(), nb, "body_gravcomp");  // empty: none
  for (auto [got, name] : {std::pair{m.jnt_type.size(), "jnt_type"}, {m.jnt_body.size(), "jnt_body"},
                           {m.jnt_qposadr.size(), "jnt_qposadr"}, {m.jnt_dofadr.size(), "jnt_dofadr"},
                           {m.jnt_pos.size(), "jnt_pos"}, {m.jnt_axis.size(), "jnt_axis"}, {m.jnt_ref.size(), "jnt_ref"},
                           {m.jnt_stiffness.size(), "jnt_stiffness"}, {m.jnt_springref.size(), "jnt_springref"},
                           {m.jnt_limited.size(), "jnt_limited"}, {m.jnt_name.size(), "jnt_name"},
                           {m.jnt_range.size() / 2, "jnt_range"}})
    need(got, nj, name);
  for (auto [got, name] : {std::pair{m.dof_body.size(), "dof_body"}, {m.dof_jnt.size(), "dof_jnt"},
                           {m.dof_parent.size(), "dof_parent"}, {m.dof_armature.size(), "dof_armature"},
                           {m.dof_damping.size(), "dof_damping"}, {m.dof_frictionloss.size(), "dof_frictionloss"}})
    need(got, nv, name);
  need(static_cast<size_t>(m.qpos0.size()), m.nq, "qpos0");
  for (auto [got, name] : {std::pair{m.act_type.size(), "act_type"}, {m.act_joint.size(), "act_joint"},
                           {m.act_gear.size(), "act_gear"}, {m.act_kp.size(), "act_kp"}, {m.act_kv.size(), "act_kv"},
                           {m.act_ctrllimited.size(), "act_ctrllimited"}, {m.act_ctrlrange.size() / 2, "act_ctrlrange"},
                           {m.act_name.size(), "act_name"}, {m.act_forcelimited.size(), "act_forcelimited"},
                           {m.act_forcerange.size() / 2, "act_forcerange"}, {m.act_ctrlgain.size(), "act_ctrlgain"},
                           {m.act_bias0.size(), "act_bias0"}, {m.act_tendon.size(), "act_tendon"},
                           {m.act_dyn.size(), "act_dyn"}, {m.act_dyntau.size(), "act_dyntau"},
                           {m.act_actadr.size(), "act_actadr"}, {m.act_actlimited.size(), "act_actlimited"},
                           {m.act_actrange.size() / 2, "act_actrange"}})
    need(got, nu, name);
  int next_act = 0;  // activations in actuator order, one each
  for (int a = 0; a < nu; ++a)
    if ((m.act_dyn[a] == ActuatorDyn::None) != (m.act_actadr[a] < 0) || (m.act_actadr[a] >= 0 && m.act_actadr[a] != next_act++))
      throw std::invalid_argument("model bytes corrupt: act_actadr out of range");
  if (next_act != m.na) throw std::invalid_argument("model bytes corrupt: na");
  for (auto [got, name] : {std::pair{m.geom_type.size(), "geom_type"}, {m.geom_body.size(), "geom_body"},
                           {m.geom_mesh.size(), "geom_mesh"}, {m.geom_pos.size(), "geom_pos"},
                           {m.geom_size.size(), "geom_size"}, {m.geom_friction.size(), "geom_friction"},
                           {m.geom_quat.size(), "geom_quat"}, {m.geom_rot.size(), "geom_rot"}, {m.geom_contype.size(), "geom_contype"},
                           {m.geom_conaffinity.size(), "geom_conaffinity"}, {m.geom_name.size(), "geom_name"},
                           {m.geom_hull.size(), "geom_hull"}, {m.geom_condim.size(), "geom_condim"},
                           {m.geom_priority.size(), "geom_priority"}, {m.geom_margin.size(), "geom_margin"}})
    need(got, ng, name);
  for (auto [got, name] : {std::pair{m.pair_geom.size(), "pair_geom"}, {m.pair_condim.size(), "pair_condim"},
                           {m.pair_friction.size(), "pair_friction"}, {m.pair_margin.size(), "pair_margin"}})
    need(got, m.npair, name);
  const long nfluid = static_cast<long>(m.fluid_geom.size());
  for (auto [got, name] : {std::pair{m.fluid_axes.size(), "fluid_axes"}, {m.fluid_added_mass.size(), "fluid_added_mass"},
                           {m.fluid_added_inertia.size(), "fluid_added_inertia"}, {m.fluid_coef.size(), "fluid_coef"}})
    need(got, nfluid, name);
  for (int g : m.fluid_geom)
    if (g < 0 || g >= m.ngeom) throw std::invalid_argument("model bytes corrupt: fluid_geom names no geom");
  if (!m.body_fluid_ellipsoid.empty()) need(m.body_fluid_ellipsoid.size(), nb, "body_fluid_ellipsoid");  // empty: none
  for (auto [got, name] : {std::pair{m.mesh_vert.size(), "mesh_vert"}, {m.mesh_name.size(), "mesh_name"},
                           {m.mesh_hull.size(), "mesh_hull"}})
    need(got, m.nmesh, name);
  for (auto [got, name] : {std::pair{m.site_body.size(), "site_body"}, {m.site_pos.size(), "site_pos"},
                           {m.site_quat.size(), "site_quat"}, {m.site_rot.size(), "site_rot"},
                           {m.site_name.size(), "site_name"}, {m.site_type.size(), "site_type"},
                           {m.site_size.size(), "site_size"}})
    need(got, ns, name);
  for (auto [got, name] : {std::pair{m.sensor_type.size(), "sensor_type"}, {m.sensor_objtype.size(), "sensor_objtype"},
                           {m.sensor_obj.size(), "sensor_obj"}, {m.sensor_adr.size(), "sensor_adr"},
                           {m.sensor_dim.size(), "sensor_dim"}, {m.sensor_cutoff.size(), "sensor_cutoff"},
                           {m.sensor_scale.size(), "sensor_scale"}, {m.sensor_name.size(), "sensor_name"}})
    need(got, m.nsensor, name);
  for (int k = 0; k < m.nsensor; ++k)
    if (m.sensor_adr[k] < 0 || m.sensor_dim[k] < 1 || m.sensor_adr[k] + m.sensor_dim[k] > m.nsensordata)
      throw std::invalid_argument("model bytes corrupt: sensor_adr out of range");
  for (int k = 0; k < m.nsensor; ++k)
    if (m.sensor_obj[k] < 0 || m.sensor_obj[k] >= sensor_object_count(m, m.sensor_type[k], m.sensor_objtype[k]))
      throw std::invalid_argument("model bytes corrupt: sensor_obj out of range");
  for (auto [got, name] : {std::pair{m.particle_mass.size(), "particle_mass"}, {m.particle_radius.size(), "particle_radius"},
                           {m.particle_friction.size(), "particle_friction"}, {m.particle_pos0.size(), "particle_pos0"},
                           {m.particle_soft.size(), "particle_soft"}, {m.particle_ghost.size(), "particle_ghost"},
                           {m.particle_component.size(), "particle_component"},
                           {m.particle_density.size(), "particle_density"},
                           {m.particle_visc_length.size(), "particle_visc_length"}})
    need(got, np, name);
  for (auto [got, name] : {std::pair{m.stretch_p.size(), "stretch_p"}, {m.stretch_rest.size(), "stretch_rest"},
                           {m.stretch_compliance.size(), "stretch_compliance"}})
    need(got, m.nstretch, name);
  need(m.rodedge_p.size(), m.nrodedge, "rodedge_p");
  need(m.rodedge_ghost.size(), m.nrodedge, "rodedge_ghost");
  need(m.rodedge_radius.size(), m.nrodedge, "rodedge_radius");
  for (auto [got, name] : {std::pair{m.rodnode_edge.size(), "rodnode_edge"}, {m.rodnode_len.size(), "rodnode_len"},
                           {m.rodnode_rest.size(), "rodnode_rest"}, {m.rodnode_compliance.size(), "rodnode_compliance"},
                           {m.rodnode_group.size(), "rodnode_group"}})
    need(got, m.nrodnode, name);
  for (auto [got, name] : {std::pair{m.hinge_p.size(), "hinge_p"}, {m.hinge_rest.size(), "hinge_rest"},
                           {m.hinge_compliance.size(), "hinge_compliance"}, {m.hinge_group.size(), "hinge_group"}})
    need(got, m.nhinge, name);
  need(m.shell_tri_edge_owner.size(), static_cast<long>(m.shell_tri.size()), "shell_tri_edge_owner");
  for (auto [got, name] : {std::pair{m.dist_p1.size(), "dist_p1"}, {m.dist_p2.size(), "dist_p2"},
                           {m.dist_rest.size(), "dist_rest"}, {m.dist_compliance.size(), "dist_compliance"}})
    need(got, m.ndistance, name);
  for (auto [got, name] : {std::pair{m.att_particle.size(), "att_particle"}, {m.att_body.size(), "att_body"},
                           {m.att_local.size(), "att_local"}})
    need(got, m.nattach, name);
  for (auto [got, name] : {std::pair{m.tet_p.size(), "tet_p"}, {m.tet_Dminv.size(), "tet_Dminv"},
                           {m.tet_volume.size(), "tet_volume"}, {m.tet_mu.size(), "tet_mu"},
                           {m.tet_lambda.size(), "tet_lambda"}, {m.tet_model.size(), "tet_model"},
                           {m.tet_group.size(), "tet_group"}})
    need(got, m.ntet, name);
  for (auto [got, name] : {std::pair{m.eq_type.size(), "eq_type"}, {m.eq_obj1.size(), "eq_obj1"},
                           {m.eq_obj2.size(), "eq_obj2"}, {m.eq_anchor1.size(), "eq_anchor1"},
                           {m.eq_anchor2.size(), "eq_anchor2"}, {m.eq_relquat.size(), "eq_relquat"},
                           {m.eq_polycoef.size(), "eq_polycoef"}, {m.eq_compliance.size(), "eq_compliance"},
                           {m.eq_active.size(), "eq_active"}, {m.eq_name.size(), "eq_name"}})
    need(got, m.neq, name);
  need(m.chamber_start.size(), m.nchamber + 1, "chamber_start");
  need(m.chamber_group.size(), m.nchamber, "chamber_group");
  need(m.chamber_tri.size(), static_cast<long>(m.chamber_start.back()), "chamber_tri");
  need(m.tri_soft.size(), static_cast<long>(m.tri_p.size()), "tri_soft");
  need(m.tri_edge_owner.size(), static_cast<long>(m.tri_p.size()), "tri_edge_owner");
  need(m.soft_vertex_start.size(), m.nsoft + 1, "soft_vertex_start");
  need(m.soft_tri_start.size(), m.nsoft + 1, "soft_tri_start");
  need(m.soft_exclude.size(), static_cast<long>(m.nsoft) * m.nsoft, "soft_exclude");
  for (const auto& [g1, g2] : m.geom_pairs)
    if (g1 < 0 || g2 <= g1 || g2 >= ng) throw std::invalid_argument("model bytes corrupt: geom_pairs out of range");
  for (auto [got, name] : {std::pair{m.tendon_adr.size(), "tendon_adr"}, {m.tendon_num.size(), "tendon_num"},
                           {m.tendon_limited.size(), "tendon_limited"}, {m.tendon_range.size() / 2, "tendon_range"},
                           {m.tendon_stiffness.size(), "tendon_stiffness"}, {m.tendon_damping.size(), "tendon_damping"},
                           {m.tendon_frictionloss.size(), "tendon_frictionloss"},
                           {m.tendon_springlength.size() / 2, "tendon_springlength"}, {m.tendon_name.size(), "tendon_name"}})
    need(got, m.ntendon, name);
  need(m.dof_qposadr.size(), m.nv, "dof_qposadr");
  need(m.tendon_coef.size(), static_cast<long>(m.tendon_obj.size()), "tendon_coef");
  need(m.tendon_wrap.size(), static_cast<long>(m.tendon_obj.size()), "tendon_wrap");
  need(m.tendon_side.size(), static_cast<long>(m.tendon_obj.size()), "tendon_side");
  for (int t = 0; t < m.ntendon; ++t)
    if (m.tendon_adr[t] < 0 || m.tendon_num[t] < 1 || m.tendon_adr[t] + m.tendon_num[t] > static_cast<int>(m.tendon_obj.size()))
      throw std::invalid_argument("model bytes corrupt: tendon terms out of range");
  for (size_t k = 0; k < m.tendon_obj.size(); ++k) {
    const int o = m.tendon_obj[k];
    const TendonWrap w = m.tendon_wrap[k];
    const bool ok = w == TendonWrap::Joint    ? o >= 0 && o < nv && m.dof_qposadr[o] >= 0
                    : w == TendonWrap::Site   ? o >= 0 && o < m.nsite
                    : w == TendonWrap::Pulley ? m.tendon_coef[k] > 0
                                              : (w == TendonWrap::Sphere || w == TendonWrap::Cylinder) && o >= 0 &&
                                                    o < ng && m.tendon_side[k] >= -1 && m.tendon_side[k] < m.nsite;
    if (!ok) throw std::invalid_argument("model bytes corrupt: tendon term out of range");
  }
  for (const auto& [g1, g2] : m.pair_geom)
    if (g1 < 0 || g2 <= g1 || g2 >= ng) throw std::invalid_argument("model bytes corrupt: pair_geom out of range");
}

}  // namespace

std::string serialize_model(const Model& m) {
  Out out;
  out.raw(kMagic, sizeof kMagic);
  out.put(kVersion);
  out.put(std::uint64_t{0});  // length, filled in below
  model_fields(out, m);
  const std::uint64_t n = out.buf.size();
  std::memcpy(out.buf.data() + sizeof kMagic + sizeof kVersion, &n, sizeof n);
  return std::move(out.buf);
}

Model deserialize_model(const std::string& bytes) {
  In in{bytes};
  char magic[sizeof kMagic];
  std::uint32_t version = 0;
  std::uint64_t n = 0;
  if (bytes.size() < sizeof magic + sizeof version + sizeof n || std::memcmp(bytes.data(), kMagic, sizeof magic) != 0)
    throw std::invalid_argument("not an ncpgym Model's bytes (no 'ncpgymM' header)");
  in.raw(magic, sizeof magic);
  in.get(version);
  if (version != kVersion && version != 8)
    throw std::invalid_argument("ncpgym Model bytes of format version " + std::to_string(version) +
                                "; this ncpgym reads versions 8 and " + std::to_string(kVersion));
  in.version = version;
  in.get(n);
  if (n != bytes.size())
    throw std::invalid_argument("model bytes truncated or padded: " + std::to_string(bytes.size()) +
                                " bytes, the header says " + std::to_string(n));
  Model m;
  model_fields(in, m);
  if (in.at != bytes.size()) throw std::invalid_argument("model bytes corrupt: trailing data");
  check_sizes(m);
  return m;
}

}  // namespace ncpgym
