// Which geoms may touch (see filter.hpp).
#include "ncpgym/collision/filter.hpp"

#include <algorithm>
#include <array>

#include "ncpgym/collision/contact_params.hpp"

namespace ncpgym {

namespace {

// MuJoCo's body_weldid: the body itself if it has joints, else its parent's (the world's, 0,
// for a static body): bodies welded together move as one and are filtered as one.
int weld(const Model& m, int b) {
  while (b != 0 && m.body_jntnum[b] == 0) b = m.body_parent[b];
  return b;
}

}  // namespace

bool geoms_may_collide(const Model& m, int g1, int g2) {
  const int b1 = m.geom_body[g1], b2 = m.geom_body[g2];
  // one body, or welded together (both static: both welded to the world)
  const int w1 = weld(m, b1), w2 = weld(m, b2);
  if (w1 == w2) return false;
  // MuJoCo's parent-child filter on welded groups, which never applies to the world's
  if (w1 != 0 && w2 != 0 && (w1 == weld(m, m.body_parent[w2]) || w2 == weld(m, m.body_parent[w1]))) return false;
  if (m.geom_type[g1] == GeomType::Plane && m.geom_type[g2] == GeomType::Plane) return false;
  const std::array<int, 2> pair{std::min(b1, b2), std::max(b1, b2)};  // <contact><exclude>
  if (std::find(m.exclude_pairs.begin(), m.exclude_pairs.end(), pair) != m.exclude_pairs.end()) return false;
  if (explicit_pair(m, g1, g2) >= 0) return false;  // collided as its explicit pair (MuJoCo: once)
  return (m.geom_contype[g1] & m.geom_conaffinity[g2]) || (m.geom_contype[g2] & m.geom_conaffinity[g1]);
}

bool accepts_particles(const Model& m, int g) { return (m.geom_conaffinity[g] & 1) != 0; }

}  // namespace ncpgym
