#include "ncpgym/collision/broadphase.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ncpgym/collision/filter.hpp"

namespace ncpgym {

namespace {

// A geom's world box, grown by margin/2 + its sweep.
struct Box {
  Vec3 lo, hi;
  int g;
};

Box geom_box(const Model& m, int g, const GeomPose& p, double margin, const double* sweep) {
  const Vec3 e = geom_half_extents(m, g, p.rot) + Vec3::Constant(0.5 * margin + (sweep ? sweep[g] : 0.0));
  return {p.pos - e, p.pos + e, g};
}

bool overlap(const Box& a, const Box& b) {
  return !(b.lo.x() > a.hi.x() || a.lo.x() > b.hi.x() || b.lo.y() > a.hi.y() || a.lo.y() > b.hi.y() ||
           b.lo.z() > a.hi.z() || a.lo.z() > b.hi.z());
}

}  // namespace

Vec3 geom_half_extents(const Model& m, int g, const Mat3& R) {
  const Vec3& s = m.geom_size[g];
  const Vec3 a = R.col(2).cwiseAbs();  // |axis| per world axis (capsules, cylinders)
  switch (m.geom_type[g]) {
    case GeomType::Plane: return Vec3::Constant(std::numeric_limits<double>::infinity());
    case GeomType::Sphere: return Vec3::Constant(s[0]);
    case GeomType::Capsule: return a * s[1] + Vec3::Constant(s[0]);
    case GeomType::Box: return R.cwiseAbs() * s;
    case GeomType::Cylinder:
      return a * s[1] + s[0] * (Vec3::Ones() - a.cwiseAbs2()).cwiseMax(0.0).cwiseSqrt();
    case GeomType::Ellipsoid: return (R.cwiseAbs2() * s.cwiseAbs2()).cwiseSqrt();  // exact box of x^T S^-2 x = 1
    case GeomType::Mesh: return Vec3::Constant(m.mesh_hull[m.geom_mesh[g]].rbound);
  }
  return Vec3::Zero();
}

void list_geom_pairs(Model& m) {
  m.geom_pairs.clear();
  const long cap = 8L * m.ngeom;
  for (int g1 = 0; g1 < m.ngeom; ++g1)
    for (int g2 = g1 + 1; g2 < m.ngeom; ++g2) {
      if (!geoms_may_collide(m, g1, g2)) continue;
      if (static_cast<long>(m.geom_pairs.size()) == cap) {  // too many: sweep and prune
        m.geom_pairs.clear();
        m.geom_pairs.shrink_to_fit();
        return;
      }
      m.geom_pairs.push_back({g1, g2});
    }
}

void candidate_pairs(const Model& m, const GeomPose* pose, double margin, const double* sweep,
                     std::vector<std::pair<int, int>>& pairs) {
  if (!m.geom_pairs.empty())
    candidate_pairs_listed(m, pose, margin, sweep, pairs);
  else
    candidate_pairs_sweep(m, pose, margin, sweep, pairs);
}

void candidate_pairs_listed(const Model& m, const GeomPose* pose, double margin, const double* sweep,
                            std::vector<std::pair<int, int>>& pairs) {
  // the listed pairs are sorted: testing them in order keeps the output sorted
  thread_local std::vector<Box> boxes;  // per-thread scratch, indexed by geom
  if (boxes.size() < static_cast<size_t>(m.ngeom)) boxes.resize(m.ngeom);
  pairs.clear();
  for (int g = 0; g < m.ngeom; ++g)
    if (m.geom_type[g] != GeomType::Plane) boxes[g] = geom_box(m, g, pose[g], margin, sweep);
  for (const auto& [g1, g2] : m.geom_pairs) {
    const bool plane = m.geom_type[g1] == GeomType::Plane || m.geom_type[g2] == GeomType::Plane;
    if (plane || overlap(boxes[g1], boxes[g2])) pairs.emplace_back(g1, g2);
  }
}

void candidate_pairs_sweep(const Model& m, const GeomPose* pose, double margin, const double* sweep,
                           std::vector<std::pair<int, int>>& pairs) {
  // per-thread scratch: grows to the largest model once, never shrinks
  thread_local std::vector<Box> boxes;
  thread_local std::vector<int> planes;
  boxes.clear();
  planes.clear();
  pairs.clear();
  if (boxes.capacity() < static_cast<size_t>(m.ngeom)) boxes.reserve(m.ngeom);
  if (planes.capacity() < static_cast<size_t>(m.ngeom)) planes.reserve(m.ngeom);
  for (int g = 0; g < m.ngeom; ++g) {
    if (m.geom_type[g] == GeomType::Plane) {
      planes.push_back(g);
      continue;
    }
    boxes.push_back(geom_box(m, g, pose[g], margin, sweep));
  }
  // sweep along x: boxes sorted by their lower x bound (ties by geom id: deterministic)
  std::sort(boxes.begin(), boxes.end(),
            [](const Box& p, const Box& q) { return p.lo.x() < q.lo.x() || (p.lo.x() == q.lo.x() && p.g < q.g); });
  for (size_t i = 0; i < boxes.size(); ++i) {
    const Box& A = boxes[i];
    for (size_t j = i + 1; j < boxes.size() && boxes[j].lo.x() <= A.hi.x(); ++j) {
      const Box& B = boxes[j];
      if (!overlap(A, B) || !geoms_may_collide(m, A.g, B.g)) continue;
      pairs.emplace_back(std::min(A.g, B.g), std::max(A.g, B.g));
    }
  }
  for (int p : planes)
    for (const Box& B : boxes)
      if (geoms_may_collide(m, p, B.g)) pairs.emplace_back(std::min(p, B.g), std::max(p, B.g));
  std::sort(pairs.begin(), pairs.end());
}

}  // namespace ncpgym
