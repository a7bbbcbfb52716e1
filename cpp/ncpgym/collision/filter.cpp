// Which geoms may touch (see filter.hpp).
#include "ncpgym/collision/filter.hpp"

#include <algorithm>
#include <array>

#include "ncpgym/collision/contact_params.hpp"

namespace ncpgym {

namespace {

bool is_static(const Model& m, int body) { return m.body_lastdof[body] < 0; }

bool ancestor(const Model& m, int a, int b) {  // a is the parent of b
  return m.body_parent[b] == a;
}

}  // namespace

bool geoms_may_collide(const Model& m, int g1, int g2) {
  const int b1 = m.geom_body[g1], b2 = m.geom_body[g2];
  if (b1 == b2) return false;
  if (is_static(m, b1) && is_static(m, b2)) return false;
  // MuJoCo's parent-child filter, which never applies to the world body
  if ((b1 != 0 && ancestor(m, b1, b2)) || (b2 != 0 && ancestor(m, b2, b1))) return false;
  if (m.geom_type[g1] == GeomType::Plane && m.geom_type[g2] == GeomType::Plane) return false;
  const std::array<int, 2> pair{std::min(b1, b2), std::max(b1, b2)};  // <contact><exclude>
  if (std::find(m.exclude_pairs.begin(), m.exclude_pairs.end(), pair) != m.exclude_pairs.end()) return false;
  if (explicit_pair(m, g1, g2) >= 0) return false;  // collided as its explicit pair (MuJoCo: once)
  return (m.geom_contype[g1] & m.geom_conaffinity[g2]) || (m.geom_contype[g2] & m.geom_conaffinity[g1]);
}

bool accepts_particles(const Model& m, int g) { return (m.geom_conaffinity[g] & 1) != 0; }

}  // namespace ncpgym
