// Builder::add_shell: a discrete elastic shell as particles, stretching rows and hinges
// (dismech-rods-shells.txt §3.1, §3.3.1; soft/shell.hpp for the hinge angle).
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "ncpgym/builder/builder.hpp"
#include "ncpgym/soft/shell.hpp"

namespace ncpgym {

namespace {
void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("shell: " + what);
}
}  // namespace

int Builder::add_shell(const std::vector<Vec3>& vertices, const std::vector<std::array<int, 3>>& triangles,
                       double thickness, double young, double poisson, double density, double friction) {
  const int nv = static_cast<int>(vertices.size());
  require(nv >= 3 && !triangles.empty(), "needs vertices and triangles");
  for (const auto& v : vertices) require(v.allFinite(), "non-finite vertex");
  require(std::isfinite(thickness) && thickness > 0, "thickness must be > 0");
  require(std::isfinite(young) && young > 0, "Young's modulus must be > 0");
  require(std::isfinite(poisson) && poisson > -1 && poisson < 0.5, "Poisson's ratio must be in (-1, 0.5)");
  require(std::isfinite(density) && density > 0, "density must be > 0");
  require(std::isfinite(friction) && friction >= 0, "friction must be >= 0");

  // per edge (smaller vertex, larger): the triangles using it and the direction they walk it
  struct Use {
    int tri, from, tip;
  };
  std::map<std::pair<int, int>, std::vector<Use>> edges;
  std::vector<double> mass(nv, 0.0);
  for (size_t t = 0; t < triangles.size(); ++t) {
    const auto& f = triangles[t];
    const std::string who = "triangle " + std::to_string(t);
    for (int k = 0; k < 3; ++k) require(f[k] >= 0 && f[k] < nv, who + " names a missing vertex");
    require(f[0] != f[1] && f[1] != f[2] && f[0] != f[2], who + " repeats a vertex");
    const double area = 0.5 * (vertices[f[1]] - vertices[f[0]]).cross(vertices[f[2]] - vertices[f[0]]).norm();
    const double scale = (vertices[f[1]] - vertices[f[0]]).squaredNorm();
    require(area > 1e-9 * scale, who + " is degenerate (zero area)");
    for (int k = 0; k < 3; ++k) {
      mass[f[k]] += density * thickness * area / 3.0;
      const int a = f[k], b = f[(k + 1) % 3];
      edges[{std::min(a, b), std::max(a, b)}].push_back({static_cast<int>(t), a, f[(k + 2) % 3]});
    }
  }
  for (int v = 0; v < nv; ++v) require(mass[v] > 0, "vertex " + std::to_string(v) + " belongs to no triangle");
  for (const auto& [e, uses] : edges) {
    const std::string who = "edge (" + std::to_string(e.first) + ", " + std::to_string(e.second) + ")";
    require(uses.size() <= 2, who + " is shared by more than two triangles (non-manifold)");
    if (uses.size() == 2) require(uses[0].from != uses[1].from, who + ": its triangles are not consistently oriented");
  }

  const int first = m_.nparticle;
  for (int v = 0; v < nv; ++v) {
    const int p = add_particle(vertices[v], mass[v], 0.5 * thickness, friction);
    m_.particle_density[p] = density;  // buoyancy
    // viscous length: sqrt of the node's third of its triangles' area (soft/medium.hpp)
    m_.particle_visc_length[p] = std::sqrt(mass[v] / (density * thickness));
  }
  // stretching (seed eq. 10): U = 1/2 k_s eps^2 l = 1/2 (k_s / l) (|e| - l)^2 with
  // k_s = sqrt(3)/4 E h l: a stretch row of compliance l / k_s = 4 / (sqrt(3) E h)
  const double stretch_compliance = 4.0 / (std::sqrt(3.0) * young * thickness);
  // Seed eq. 17 prints k_b = E h^3 / (12 sqrt 3); on an equilateral mesh bent on a cylinder
  // that gives half the continuum energy 1/2 E h^3/12 kappa^2 per area (measured 0.49-0.50,
  // tests/python/test_shells.py), and a cantilever plate sags twice as far as Euler-Bernoulli.
  // Twice that value (Seung & Nelson's triangular-lattice relation) matches the continuum.
  const double kb = 2.0 * young * std::pow(thickness, 3) / (12.0 * std::sqrt(3.0));
  for (const auto& [e, uses] : edges) {
    add_stretch(first + e.first, first + e.second, stretch_compliance);
    if (uses.size() != 2) continue;
    const Use& u0 = uses[0];
    const Use& u1 = uses[1];
    const int x0 = u0.from, x1 = u0.from == e.first ? e.second : e.first;
    const std::array<int, 4> p{first + x0, first + x1, first + u0.tip, first + u1.tip};
    Vec3 xs[4];
    for (int k = 0; k < 4; ++k) xs[k] = vertices[p[k] - first];
    m_.hinge_p.push_back(p);
    m_.hinge_rest.push_back(hinge_angle<double>(xs));
    m_.hinge_compliance.push_back(1.0 / kb);
    m_.hinge_group.push_back(-1);
    ++m_.nhinge;
  }
  for (size_t t = 0; t < triangles.size(); ++t) {
    const auto& f = triangles[t];
    m_.shell_tri.push_back({first + f[0], first + f[1], first + f[2]});
    std::array<char, 3> own{0, 0, 0};  // the first triangle naming an edge reports contacts on it
    for (int k = 0; k < 3; ++k) {
      const int a = f[k], b = f[(k + 1) % 3];
      own[k] = edges.at({std::min(a, b), std::max(a, b)}).front().tri == static_cast<int>(t);
    }
    m_.shell_tri_edge_owner.push_back(own);
  }
  return first;
}

std::array<int, 4> Builder::hinge_particles(int h) const {
  require(h >= 0 && h < m_.nhinge, "hinge " + std::to_string(h) + " does not exist");
  return m_.hinge_p[h];
}

void Builder::set_hinge_group(int h, int group) {
  require(h >= 0 && h < m_.nhinge, "hinge " + std::to_string(h) + " does not exist");
  require(group >= -1, "group must be >= 0 (or -1 for none)");
  m_.hinge_group[h] = group;
  count_activation_groups();
}

}  // namespace ncpgym
