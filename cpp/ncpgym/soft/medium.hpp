// Forces of a surrounding medium on particles (dismech-rods-shells.txt §5):
//   buoyancy (§5.1): g becomes (rho - rho_med) / rho g on particles with material density rho;
//   viscous friction (§5.3, eqs. 27-28): F = -eta dl v on particles with a viscous length dl
//     (rods: the node's Voronoi length, as the seed; shells: the square root of the node's
//     third of its triangles' area, ncpgym's choice);
//   aerodynamic drag (§5.4): F_i = -sum_k rho_med C_D / 2 A_k / 3 sgn(v_i . n_k)(v_i . n_k)^2 n_k
//     over the shell triangles k around node i;
//   skin friction (ncpgym's, not in the seed, whose drag is normal to each triangle only, so a
//   streamlined body coasted almost without loss): the tangential velocity v_t = (I - n_k n_k^T) v_i
//   is opposed by F_i = -sum_k rho_med C_f A_k / 3 |v_t| v_t, the quadratic skin-friction law
//   D = 1/2 rho C_f S U^2 over both faces (wetted area S = 2 A_k) shared by the three nodes.
// Buoyancy and viscosity are linear in the step's velocity and enter exactly (stepper.cpp:
// viscosity adds h eta dl to the particle's mass in H). Drag enters the Newton iteration
// implicitly through its velocity Jacobian dF/dv = -rho_med C_D sum_k A_k/3 |v . n_k| n_k n_k^T
// (skin friction's: -rho_med C_f sum_k A_k/3 (|v_t| P_k + v_t v_t^T / |v_t|), P_k = I - n_k n_k^T);
// the seed's Jacobian also carries the triangles' rotation dn/dx, which is O(h |v| / l)
// smaller, makes the block unsymmetric, and is left out (the KKT solve is symmetric); the
// Newton iterates converge to the same step either way.
#pragma once

#include <vector>

#include "ncpgym/model/model.hpp"

namespace ncpgym {

inline double buoyancy_factor(const Model& m, int p) {
  const double rho = m.particle_density[p];
  return rho > 0 ? 1.0 - m.medium_density / rho : 1.0;
}

inline double viscous_coefficient(const Model& m, int p) { return m.viscosity * m.particle_visc_length[p]; }

inline bool has_drag(const Model& m) {
  return (m.drag_coefficient > 0 || m.skin_friction > 0) && m.medium_density > 0 && !m.shell_tri.empty();
}

// Forces that are evaluated at every Newton iterate's positions (and velocities): drag, and
// the pressure of chambers (soft/pressure.hpp).
inline bool has_iterate_forces(const Model& m) { return has_drag(m) || m.nchamber > 0; }

// Drag forces f (3 nparticle, overwritten) at positions x and velocities v, and per particle
// D = -dF/dv (3 x 3, symmetric positive semi-definite; dfdv sized nparticle, overwritten).
void drag_forces(const Model& m, const VecX& x, Eigen::Ref<const VecX> v, VecX& f, std::vector<Mat3>& D);

}  // namespace ncpgym
