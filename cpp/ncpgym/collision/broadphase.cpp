#include "ncpgym/collision/broadphase.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ncpgym/collision/filter.hpp"
#include "ncpgym/collision/geom.hpp"

namespace ncpgym {

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
    case GeomType::Mesh: return Vec3::Constant(m.mesh_hull[m.geom_mesh[g]].rbound);
  }
  return Vec3::Zero();
}

void candidate_pairs(const Model& m, const Data& d, double margin, const double* sweep,
                     std::vector<std::pair<int, int>>& pairs) {
  struct Box {
    Vec3 lo, hi;
    int g;
  };
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
    const GeomPose p = geom_pose(m, d, g);
    const Vec3 e = geom_half_extents(m, g, p.rot) + Vec3::Constant(0.5 * margin + (sweep ? sweep[g] : 0.0));
    boxes.push_back({p.pos - e, p.pos + e, g});
  }
  // sweep along x: boxes sorted by their lower x bound (ties by geom id: deterministic)
  std::sort(boxes.begin(), boxes.end(),
            [](const Box& p, const Box& q) { return p.lo.x() < q.lo.x() || (p.lo.x() == q.lo.x() && p.g < q.g); });
  for (size_t i = 0; i < boxes.size(); ++i) {
    const Box& A = boxes[i];
    for (size_t j = i + 1; j < boxes.size() && boxes[j].lo.x() <= A.hi.x(); ++j) {
      const Box& B = boxes[j];
      if (B.lo.y() > A.hi.y() || A.lo.y() > B.hi.y() || B.lo.z() > A.hi.z() || A.lo.z() > B.hi.z()) continue;
      if (!geoms_may_collide(m, A.g, B.g)) continue;
      pairs.emplace_back(std::min(A.g, B.g), std::max(A.g, B.g));
    }
  }
  for (int p : planes)
    for (const Box& B : boxes)
      if (geoms_may_collide(m, p, B.g)) pairs.emplace_back(std::min(p, B.g), std::max(p, B.g));
  std::sort(pairs.begin(), pairs.end());
}

}  // namespace ncpgym
