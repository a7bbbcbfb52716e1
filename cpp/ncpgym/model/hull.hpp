// Convex hulls as the collision geometry of meshes and boxes: vertices, planar faces and
// vertex adjacency, in the geom (mesh) frame. Built once by the Builder (builder/hull.cpp)
// and read by the narrow phase (support queries, face clipping).
#pragma once

#include <vector>

#include "ncpgym/math/spatial.hpp"

namespace ncpgym {

// A planar face of a hull: outward unit normal, offset (normal . x <= offset inside) and
// the loop of vertex indices counter-clockwise about the normal.
struct HullFace {
  Vec3 normal;
  double offset;
  std::vector<int> verts;
};

struct ConvexHull {
  std::vector<Vec3> vert;           // hull vertices only (interior mesh vertices dropped)
  std::vector<HullFace> faces;      // coplanar triangles merged into one polygon
  std::vector<int> adj_start, adj;  // CSR adjacency over hull edges: neighbours of vertex i
                                    // are adj[adj_start[i] .. adj_start[i+1])
  std::vector<int> vface_start, vface;  // CSR: faces around vertex i
  double rbound = 0;                // largest |vertex|: bounding sphere about the frame origin

  // Among the faces around vertex v, the one whose normal is most aligned with dir (the
  // face a hull presents in direction dir near its support vertex v).
  int face_around(int v, const Vec3& dir) const {
    int best = vface[vface_start[v]];
    double bc = faces[best].normal.dot(dir);
    for (int k = vface_start[v] + 1; k < vface_start[v + 1]; ++k) {
      const double c = faces[vface[k]].normal.dot(dir);
      if (c > bc) {
        bc = c;
        best = vface[k];
      }
    }
    return best;
  }

  // Index of the vertex maximising dir . v, by hill climbing over the adjacency from
  // vertex `start` (exact on a convex polytope: its vertex graph has no local maxima).
  int support_index(const Vec3& dir, int start = 0) const {
    int best = start;
    double bd = dir.dot(vert[best]);
    for (bool moved = true; moved;) {
      moved = false;
      for (int k = adj_start[best]; k < adj_start[best + 1]; ++k) {
        const double s = dir.dot(vert[adj[k]]);
        if (s > bd) {
          bd = s;
          best = adj[k];
          moved = true;
        }
      }
    }
    return best;
  }
};

}  // namespace ncpgym
