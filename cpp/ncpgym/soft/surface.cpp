// Soft bodies' boundaries for contact (written for ncpgym): connected components of the
// tetrahedra, their boundary faces oriented outward, and which triangle reports each
// shared edge, so that an edge contact is generated once.
#include "ncpgym/soft/surface.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

namespace ncpgym {

void build_soft_surfaces(Model& m) {
  // union-find over particles joined by tetrahedra
  std::vector<int> root(m.nparticle);
  std::iota(root.begin(), root.end(), 0);
  auto find = [&](int a) {
    while (root[a] != a) a = root[a] = root[root[a]];
    return a;
  };
  for (const auto& t : m.tet_p)
    for (int a = 1; a < 4; ++a) root[find(t[a])] = find(t[0]);
  m.particle_soft.assign(m.nparticle, -1);
  std::vector<int> label(m.nparticle, -1);
  m.nsoft = 0;
  for (const auto& t : m.tet_p) {
    const int r = find(t[0]);
    if (label[r] < 0) label[r] = m.nsoft++;
  }
  for (int p = 0; p < m.nparticle; ++p)
    if (label[find(p)] >= 0) m.particle_soft[p] = label[find(p)];
  std::vector<char> in_tet(m.nparticle, 0);
  for (const auto& t : m.tet_p)
    for (int a : t) in_tet[a] = 1;
  for (int p = 0; p < m.nparticle; ++p)
    if (!in_tet[p]) m.particle_soft[p] = -1;

  // boundary faces: a face of exactly one tetrahedron; outward = away from the fourth vertex
  std::map<std::array<int, 3>, std::pair<int, std::array<int, 3>>> faces;  // sorted key -> (count, face)
  static const int F[4][4] = {{1, 2, 3, 0}, {0, 3, 2, 1}, {0, 1, 3, 2}, {0, 2, 1, 3}};
  for (int t = 0; t < m.ntet; ++t) {
    const auto& p = m.tet_p[t];
    for (const auto& f : F) {
      std::array<int, 3> face{p[f[0]], p[f[1]], p[f[2]]};
      const Vec3 &a = m.particle_pos0[face[0]], &b = m.particle_pos0[face[1]], &c = m.particle_pos0[face[2]];
      if ((b - a).cross(c - a).dot(m.particle_pos0[p[f[3]]] - a) > 0) std::swap(face[1], face[2]);
      std::array<int, 3> key = face;
      std::sort(key.begin(), key.end());
      auto [it, fresh] = faces.try_emplace(key, 0, face);
      ++it->second.first;
    }
  }
  std::vector<std::pair<int, std::array<int, 3>>> tris;  // (soft body, face)
  for (const auto& [key, v] : faces)
    if (v.first == 1) tris.emplace_back(m.particle_soft[v.second[0]], v.second);
  std::stable_sort(tris.begin(), tris.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  m.tri_p.clear();
  m.tri_soft.clear();
  for (const auto& [s, f] : tris) {
    m.tri_p.push_back(f);
    m.tri_soft.push_back(s);
  }
  // the first triangle naming an edge reports contacts on it
  std::map<std::pair<int, int>, int> owner;
  m.tri_edge_owner.assign(m.tri_p.size(), {0, 0, 0});
  for (size_t t = 0; t < m.tri_p.size(); ++t)
    for (int k = 0; k < 3; ++k) {
      const int a = m.tri_p[t][k], b = m.tri_p[t][(k + 1) % 3];
      if (owner.try_emplace({std::min(a, b), std::max(a, b)}, static_cast<int>(t)).second)
        m.tri_edge_owner[t][k] = 1;
    }
  m.soft_exclude.assign(static_cast<size_t>(m.nsoft) * m.nsoft, 0);
  for (const auto& [a, b] : m.soft_exclude_particles) {
    const int sa = m.particle_soft[a], sb = m.particle_soft[b];
    if (sa < 0 || sb < 0)
      throw std::invalid_argument("exclude_soft_pair: particle " + std::to_string(sa < 0 ? a : b) +
                                  " belongs to no tetrahedron");
    m.soft_exclude[static_cast<size_t>(sa) * m.nsoft + sb] = m.soft_exclude[static_cast<size_t>(sb) * m.nsoft + sa] = 1;
  }
  // ranges per soft body
  m.soft_tri_start.assign(m.nsoft + 1, 0);
  for (int s : m.tri_soft) ++m.soft_tri_start[s + 1];
  std::partial_sum(m.soft_tri_start.begin(), m.soft_tri_start.end(), m.soft_tri_start.begin());
  std::vector<char> on_surface(m.nparticle, 0);
  for (const auto& f : m.tri_p)
    for (int a : f) on_surface[a] = 1;
  m.soft_vertex.clear();
  m.soft_vertex_start.assign(m.nsoft + 1, 0);
  for (int s = 0; s < m.nsoft; ++s) {
    for (int p = 0; p < m.nparticle; ++p)
      if (on_surface[p] && m.particle_soft[p] == s) m.soft_vertex.push_back(p);
    m.soft_vertex_start[s + 1] = static_cast<int>(m.soft_vertex.size());
  }
}

}  // namespace ncpgym
