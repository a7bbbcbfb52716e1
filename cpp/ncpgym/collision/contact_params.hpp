// Contact parameters of a geom pair, resolved once per pair at detection, by MuJoCo's rules
// (its XML reference, "contact" and geom/@priority): an explicit <contact><pair> gives its own;
// otherwise the geom of higher priority gives its condim and friction, and between equal
// priorities the contact takes the larger condim and the elementwise larger friction. The
// margin is the larger of the two. (solmix only mixes solref/solimp, which hard contact
// does not read.)
#pragma once

#include <algorithm>

#include "ncpgym/model/model.hpp"

namespace ncpgym {

struct ContactParams {
  int condim = 3;
  double slide = 0, spin = 0, roll = 0;  // friction: sliding (dimensionless), torsional and rolling (m)
  double margin = 0;                     // contact below this distance (m)
};

// The explicit pair of geoms g1, g2 (either order), or -1.
inline int explicit_pair(const Model& m, int g1, int g2) {
  if (m.npair == 0) return -1;
  const std::array<int, 2> key{std::min(g1, g2), std::max(g1, g2)};
  const auto it = std::find(m.pair_geom.begin(), m.pair_geom.end(), key);
  return it == m.pair_geom.end() ? -1 : static_cast<int>(it - m.pair_geom.begin());
}

inline ContactParams pair_params(const Model& m, int p) {
  const Vec3& f = m.pair_friction[p];
  return {m.pair_condim[p], f[0], f[1], f[2], m.pair_margin[p]};
}

// Parameters of a contact of geoms g1 and g2 found by the filtering rules (not a pair).
inline ContactParams geom_pair_params(const Model& m, int g1, int g2) {
  ContactParams c;
  const int p1 = m.geom_priority[g1], p2 = m.geom_priority[g2];
  if (p1 != p2) {
    const int g = p1 > p2 ? g1 : g2;
    c.condim = m.geom_condim[g];
    c.slide = m.geom_friction[g][0];
    c.spin = m.geom_friction[g][1];
    c.roll = m.geom_friction[g][2];
  } else {
    c.condim = std::max(m.geom_condim[g1], m.geom_condim[g2]);
    const Vec3 f = m.geom_friction[g1].cwiseMax(m.geom_friction[g2]);
    c.slide = f[0];
    c.spin = f[1];
    c.roll = f[2];
  }
  c.margin = std::max(m.geom_margin[g1], m.geom_margin[g2]);
  return c;
}

// The rows a contact of this condim adds to its normal and two tangent rows: torsion (4),
// torsion and two rolling directions (6).
inline int extra_friction_rows(int condim) { return condim == 6 ? 3 : condim == 4 ? 1 : 0; }

}  // namespace ncpgym
