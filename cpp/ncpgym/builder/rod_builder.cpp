// Builder::add_rod: a discrete elastic rod as particles, stretch rows and bend-twist elements
// (dismech-rods-shells.txt §3; soft/rod.hpp for the strains and the ghost-point twist).
#include <cmath>
#include <stdexcept>
#include <string>

#include "ncpgym/builder/builder.hpp"
#include "ncpgym/soft/rod.hpp"

namespace ncpgym {

namespace {

constexpr double kPi = 3.14159265358979323846;

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("rod: " + what);
}

// A unit vector perpendicular to unit t: `hint` without its component along t, or, when that
// vanishes, the world axis least aligned with t.
Vec3 perpendicular(const Vec3& t, const Vec3& hint) {
  Vec3 v = hint - t * t.dot(hint);
  if (v.norm() > 1e-9 * std::max(1.0, hint.norm())) return v.normalized();
  int k = 0;
  t.cwiseAbs().minCoeff(&k);
  v = Vec3::Unit(k) - t * t[k];
  return v.normalized();
}

}  // namespace

int Builder::add_rod(const std::vector<Vec3>& points, double radius, double young, double poisson, double density,
                     double friction, const Vec3& normal, int group, int start_particle, int end_particle) {
  const int n = static_cast<int>(points.size());
  require(n >= 2, "needs at least 2 points, got " + std::to_string(n));
  for (const auto& p : points) require(p.allFinite(), "non-finite point");
  require(std::isfinite(radius) && radius > 0, "radius must be > 0");
  require(std::isfinite(young) && young > 0, "Young's modulus must be > 0");
  require(std::isfinite(poisson) && poisson > -1 && poisson <= 0.5, "Poisson's ratio must be in (-1, 0.5]");
  require(std::isfinite(density) && density > 0, "density must be > 0");
  require(std::isfinite(friction) && friction >= 0, "friction must be >= 0");
  require(normal.allFinite(), "non-finite normal");
  require(group >= -1, "group must be >= 0 (or -1 for none)");

  const int ne = n - 1;
  std::vector<double> len(ne);
  std::vector<Vec3> t(ne);
  for (int e = 0; e < ne; ++e) {
    len[e] = (points[e + 1] - points[e]).norm();
    require(len[e] > 1e-9, "points " + std::to_string(e) + " and " + std::to_string(e + 1) + " coincide");
    t[e] = (points[e + 1] - points[e]) / len[e];
    if (e > 0) require(t[e - 1].dot(t[e]) > -1 + 1e-6, "the rod turns back on itself at point " + std::to_string(e));
  }

  // Section: area, bending and polar moments of a solid disc.
  const double A = kPi * radius * radius, I = 0.25 * kPi * std::pow(radius, 4), Jp = 2 * I;
  const double G = young / (2 * (1 + poisson));

  // Material frames of the rest shape: m1 of the first edge from `normal`, then parallel
  // transport (zero rest twist for a planar rod; a helix gets its own twist as rest value).
  std::vector<Vec3> m1(ne);
  m1[0] = perpendicular(t[0], normal);
  for (int e = 1; e < ne; ++e) m1[e] = perpendicular(t[e], rod_transport<double>(t[e - 1], t[e], m1[e - 1]));

  // Masses: each edge's rho A l split between its nodes, less its ghost's share. The ghost,
  // at distance dg from the axis, carries the edge's polar inertia 1/2 m_e r^2 = m_g dg^2;
  // dg >= max(l, 2r) keeps m_g <= m_e / 8, so the ghost hardly adds translational mass.
  std::vector<double> node_mass(n, 0.0), gmass(ne), gdist(ne);
  for (int e = 0; e < ne; ++e) {
    const double me = density * A * len[e];
    gdist[e] = std::max(len[e], 2 * radius);
    gmass[e] = 0.5 * me * radius * radius / (gdist[e] * gdist[e]);
    node_mass[e] += 0.5 * (me - gmass[e]);
    node_mass[e + 1] += 0.5 * (me - gmass[e]);
  }

  // Nodes: the given end particles (rod-rod and rod-shell joints share them; they gain the
  // rod's share of mass), new particles for the others, then one ghost per edge.
  std::vector<int> node(n, -1);
  for (auto [i, given] : {std::pair{0, start_particle}, std::pair{n - 1, end_particle}}) {
    if (given < 0) continue;
    const std::string who = "end particle " + std::to_string(given);
    require(given < m_.nparticle && !m_.particle_ghost[given], who + " does not exist (or is a ghost)");
    require((m_.particle_pos0[given] - points[i]).norm() <= 1e-9 * std::max(1.0, points[i].norm()),
            who + " is not at the rod's end point");
    node[i] = given;
  }
  require(n > 2 || node[0] < 0 || node[0] != node[n - 1], "a rod of one edge cannot start and end at one particle");
  const int first = m_.nparticle;
  for (int i = 0; i < n; ++i) {
    const double lv = 0.5 * ((i > 0 ? len[i - 1] : 0.0) + (i < ne ? len[i] : 0.0));  // Voronoi length
    if (node[i] >= 0) {
      m_.particle_mass[node[i]] += node_mass[i];
      m_.particle_visc_length[node[i]] += lv;  // its density (buoyancy) stays its own
      continue;
    }
    node[i] = add_particle(points[i], node_mass[i], radius, friction);
    m_.particle_density[node[i]] = density;  // buoyancy
    m_.particle_visc_length[node[i]] = lv;
  }
  const int ghost0 = m_.nparticle;
  for (int e = 0; e < ne; ++e) {
    const int g = add_particle(0.5 * (points[e] + points[e + 1]) + gdist[e] * m1[e], gmass[e], 0.0, 0.0);
    m_.particle_ghost[g] = 1;
    m_.particle_density[g] = density;  // buoyant like its edge; no viscous drag of its own
  }
  // stretching: U = EA / (2 l) (|e| - l)^2, a stretch row with compliance l / EA
  for (int e = 0; e < ne; ++e) add_stretch(node[e], node[e + 1], len[e] / (young * A));
  const int edge0 = m_.nrodedge;
  for (int e = 0; e < ne; ++e) {
    m_.rodedge_p.push_back({node[e], node[e + 1], ghost0 + e});
    m_.rodedge_ghost.push_back(gdist[e]);
    m_.rodedge_radius.push_back(radius);
    ++m_.nrodedge;
  }
  for (int i = 1; i < n - 1; ++i) {
    // the rest shape's strains are the natural ones; Voronoi length l = (l0 + l1) / 2
    Vec3 x[5] = {points[i - 1], points[i], points[i + 1], m_.particle_pos0[ghost0 + i - 1],
                 m_.particle_pos0[ghost0 + i]};
    double s[3];
    rod_node_strains<double>(x, s);
    const double lv = 0.5 * (len[i - 1] + len[i]);
    m_.rodnode_edge.push_back({edge0 + i - 1, edge0 + i});
    m_.rodnode_len.push_back({len[i - 1], len[i]});
    m_.rodnode_rest.push_back(Vec3(s[0], s[1], s[2]));
    m_.rodnode_compliance.push_back(Vec3(lv / (young * I), lv / (young * I), lv / (G * Jp)));
    m_.rodnode_group.push_back(group);
    ++m_.nrodnode;
  }
  count_activation_groups();
  return first;
}

}  // namespace ncpgym
