#include "ncpgym/builder/hull.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace ncpgym {

namespace {

double scale_of(const std::vector<Vec3>& p) {
  double s = 0;
  for (const Vec3& v : p) s = std::max(s, v.cwiseAbs().maxCoeff());
  return s;
}

// The face on plane (n, .) through the points `ids`: their 2D convex hull in the plane
// (Andrew's monotone chain), counter-clockwise about n, so that points inside the face or
// on its edges do not enter the loop.
HullFace make_face(const std::vector<Vec3>& p, std::vector<int> ids, const Vec3& n) {
  const Vec3 e1 = (std::abs(n.x()) > 0.57 ? Vec3::UnitY() : Vec3::UnitX()).cross(n).normalized();
  const Vec3 e2 = n.cross(e1);
  auto uv = [&](int i) { return std::pair<double, double>(p[i].dot(e1), p[i].dot(e2)); };
  std::sort(ids.begin(), ids.end(), [&](int a, int b) { return uv(a) < uv(b) || (uv(a) == uv(b) && a < b); });
  ids.erase(std::unique(ids.begin(), ids.end(), [&](int a, int b) { return (p[a] - p[b]).norm() == 0; }), ids.end());
  auto cross = [&](int o, int a, int b) {
    const auto [ou, ov] = uv(o);
    const auto [au, av] = uv(a);
    const auto [bu, bv] = uv(b);
    return (au - ou) * (bv - ov) - (av - ov) * (bu - ou);
  };
  const double tol = 1e-12 * (1 + scale_of(p)) * (1 + scale_of(p));
  std::vector<int> loop(2 * ids.size());
  size_t k = 0;
  for (size_t i = 0; i < ids.size(); ++i) {  // lower chain
    while (k >= 2 && cross(loop[k - 2], loop[k - 1], ids[i]) <= tol) --k;
    loop[k++] = ids[i];
  }
  for (size_t i = ids.size() - 1, t = k + 1; i-- > 0;) {  // upper chain
    while (k >= t && cross(loop[k - 2], loop[k - 1], ids[i]) <= tol) --k;
    loop[k++] = ids[i];
  }
  loop.resize(k > 1 ? k - 1 : k);
  HullFace f{n, -1e300, loop};
  for (int i : ids) f.offset = std::max(f.offset, n.dot(p[i]));  // every point inside
  return f;
}

// Keep only the vertices the faces and edges use, renumbered in their original order, and
// build the CSR adjacency from the edges and the faces around each vertex.
ConvexHull finish(const std::vector<Vec3>& p, std::vector<HullFace> faces, std::vector<std::pair<int, int>> edges) {
  std::vector<int> id(p.size(), -1);
  for (const auto& f : faces)
    for (int v : f.verts) id[v] = 0;
  for (const auto& [a, b] : edges) id[a] = id[b] = 0;
  ConvexHull h;
  for (size_t i = 0; i < p.size(); ++i)
    if (id[i] == 0) {
      id[i] = static_cast<int>(h.vert.size());
      h.vert.push_back(p[i]);
      h.rbound = std::max(h.rbound, p[i].norm());
    }
  for (auto& f : faces)
    for (int& v : f.verts) v = id[v];
  h.faces = std::move(faces);
  for (auto& [a, b] : edges) {
    a = id[a];
    b = id[b];
    if (a > b) std::swap(a, b);
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  const int nv = static_cast<int>(h.vert.size());
  h.adj_start.assign(nv + 1, 0);
  for (const auto& [a, b] : edges) {
    ++h.adj_start[a + 1];
    ++h.adj_start[b + 1];
  }
  for (int i = 0; i < nv; ++i) h.adj_start[i + 1] += h.adj_start[i];
  h.adj.resize(h.adj_start[nv]);
  std::vector<int> fill(h.adj_start.begin(), h.adj_start.end() - 1);
  for (const auto& [a, b] : edges) {
    h.adj[fill[a]++] = b;
    h.adj[fill[b]++] = a;
  }
  h.vface_start.assign(nv + 1, 0);
  for (const auto& f : h.faces)
    for (int v : f.verts) ++h.vface_start[v + 1];
  for (int i = 0; i < nv; ++i) h.vface_start[i + 1] += h.vface_start[i];
  h.vface.resize(h.vface_start[nv]);
  fill.assign(h.vface_start.begin(), h.vface_start.end() - 1);
  for (size_t f = 0; f < h.faces.size(); ++f)
    for (int v : h.faces[f].verts) h.vface[fill[v]++] = static_cast<int>(f);
  return h;
}

void require_volume(const ConvexHull& h) {
  if (h.faces.size() < 4 || h.vert.size() < 4)
    throw std::invalid_argument("convex hull has no volume (" + std::to_string(h.faces.size()) + " faces)");
}

}  // namespace

ConvexHull hull_from_triangles(const std::vector<Vec3>& p, const std::vector<std::array<int, 3>>& tris) {
  const int n = static_cast<int>(p.size());
  Vec3 centre = Vec3::Zero();
  std::vector<char> used(n, 0);
  for (const auto& t : tris)
    for (int v : t) {
      if (v < 0 || v >= n)
        throw std::invalid_argument("hull triangle vertex " + std::to_string(v) + " out of range [0, " +
                                    std::to_string(n) + ")");
      used[v] = 1;
    }
  int nused = 0;
  for (int i = 0; i < n; ++i)
    if (used[i]) {
      centre += p[i];
      ++nused;
    }
  if (nused < 4) throw std::invalid_argument("convex hull needs at least 4 vertices");
  centre /= nused;
  // Group the triangles by supporting plane (outward normal, offset): one face per plane.
  const double s = 1 + scale_of(p);
  struct Group {
    Vec3 nsum;  // area-weighted normal
    Vec3 n;
    double d;
    std::vector<int> ids;
  };
  std::vector<Group> groups;
  std::vector<std::pair<int, int>> edges;
  for (const auto& t : tris) {
    for (int k = 0; k < 3; ++k) edges.emplace_back(t[k], t[(k + 1) % 3]);
    Vec3 a = (p[t[1]] - p[t[0]]).cross(p[t[2]] - p[t[0]]);
    const double area2 = a.norm();
    if (area2 < 1e-14 * s * s) continue;  // sliver: its vertices belong to its neighbours' faces
    if (a.dot(p[t[0]] - centre) < 0) a = -a;
    const Vec3 nrm = a / area2;
    const double d = nrm.dot(p[t[0]]);
    Group* g = nullptr;
    for (auto& c : groups)
      if ((c.n - nrm).norm() < 1e-6 && std::abs(c.d - d) < 1e-9 * s) g = &c;
    if (!g) {
      groups.push_back({Vec3::Zero(), nrm, d, {}});
      g = &groups.back();
    }
    g->nsum += a;
    g->ids.insert(g->ids.end(), t.begin(), t.end());
  }
  std::vector<HullFace> faces;
  for (auto& g : groups) {
    const Vec3 nrm = g.nsum.normalized();
    HullFace f = make_face(p, g.ids, nrm);
    if (f.verts.size() >= 3) faces.push_back(std::move(f));
  }
  ConvexHull h = finish(p, std::move(faces), std::move(edges));
  require_volume(h);
  return h;
}

ConvexHull hull_from_points(const std::vector<Vec3>& v) {
  const int n = static_cast<int>(v.size());
  if (n > kMaxBruteForceHullVertices)
    throw std::invalid_argument(std::to_string(n) + " vertices: more than " +
                                std::to_string(kMaxBruteForceHullVertices) +
                                " need the hull's triangles (ncpgym.models.convex_hull computes them)");
  const double s = 1 + scale_of(v), eps = 1e-9 * s;
  std::vector<HullFace> faces;
  std::vector<std::pair<int, int>> edges;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      for (int k = j + 1; k < n; ++k) {
        Vec3 nrm = (v[j] - v[i]).cross(v[k] - v[i]);
        if (nrm.norm() < 1e-12 * s * s) continue;
        nrm.normalize();
        double d = nrm.dot(v[i]);
        int above = 0, below = 0;
        for (const Vec3& q : v) {
          const double sd = nrm.dot(q) - d;
          above += sd > eps;
          below += sd < -eps;
        }
        if (above && below) continue;
        if (above) {
          nrm = -nrm;
          d = -d;
        }
        bool seen = false;
        for (const auto& f : faces) seen = seen || ((f.normal - nrm).norm() < 1e-7 && std::abs(f.offset - d) < 10 * eps);
        if (seen) continue;
        std::vector<int> ids;
        for (int q = 0; q < n; ++q)
          if (std::abs(nrm.dot(v[q]) - d) <= eps) ids.push_back(q);
        HullFace f = make_face(v, ids, nrm);
        for (size_t e = 0; e < f.verts.size(); ++e) edges.emplace_back(f.verts[e], f.verts[(e + 1) % f.verts.size()]);
        faces.push_back(std::move(f));
      }
  ConvexHull h = finish(v, std::move(faces), std::move(edges));
  require_volume(h);
  return h;
}

ConvexHull box_hull(const Vec3& h) {
  std::vector<Vec3> verts(8);
  for (int i = 0; i < 8; ++i) verts[i] = Vec3((i & 1 ? 1 : -1) * h[0], (i & 2 ? 1 : -1) * h[1], (i & 4 ? 1 : -1) * h[2]);
  // faces +-x, +-y, +-z with counter-clockwise loops about the outward normal
  std::vector<HullFace> faces = {{Vec3(1, 0, 0), h[0], {1, 3, 7, 5}}, {Vec3(-1, 0, 0), h[0], {0, 4, 6, 2}},
                                 {Vec3(0, 1, 0), h[1], {2, 6, 7, 3}}, {Vec3(0, -1, 0), h[1], {0, 1, 5, 4}},
                                 {Vec3(0, 0, 1), h[2], {4, 5, 7, 6}}, {Vec3(0, 0, -1), h[2], {0, 2, 3, 1}}};
  std::vector<std::pair<int, int>> edges;
  for (const auto& f : faces)
    for (size_t e = 0; e < 4; ++e) edges.emplace_back(f.verts[e], f.verts[(e + 1) % 4]);
  return finish(verts, std::move(faces), std::move(edges));
}

}  // namespace ncpgym
