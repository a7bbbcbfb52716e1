#include "ncpgym/soft/components.hpp"

#include <numeric>

namespace ncpgym {

void build_particle_components(Model& m) {
  // union-find with path halving; the root is kept as the smallest index of its set
  std::vector<int> parent(m.nparticle);
  std::iota(parent.begin(), parent.end(), 0);
  const auto find = [&](int p) {
    while (parent[p] != p) p = parent[p] = parent[parent[p]];
    return p;
  };
  const auto join = [&](int a, int b) {
    a = find(a), b = find(b);
    if (a < b) parent[b] = a;
    if (b < a) parent[a] = b;
  };
  for (const auto& t : m.tet_p) join(t[0], t[1]), join(t[0], t[2]), join(t[0], t[3]);
  for (const auto& e : m.rodedge_p) join(e[0], e[1]), join(e[0], e[2]);
  for (const auto& t : m.shell_tri) join(t[0], t[1]), join(t[0], t[2]);
  for (const auto& s : m.stretch_p) join(s[0], s[1]);
  for (int i = 0; i < m.ndistance; ++i) join(m.dist_p1[i], m.dist_p2[i]);
  m.particle_component.resize(m.nparticle);
  for (int p = 0; p < m.nparticle; ++p) m.particle_component[p] = find(p);
}

}  // namespace ncpgym
