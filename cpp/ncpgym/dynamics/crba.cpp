// Composite rigid-body algorithm (Featherstone, RBDA §6.2): composite inertias Ic_i
// accumulated inward, then M(i, j) = S_j^T Ic_body(i) S_i for every dof j on the path from
// dof i to the root. Reference and test oracle for the O(n) algorithms.
#include "ncpgym/dynamics/algorithms.hpp"

namespace ncpgym {

void crba(const Model& m, Data& d, const double* q) {
  kinematics(m, d, q);
  for (int b = 1; b < m.nbody; ++b) d.IA[b] = d.cinert[b];  // IA reused as Ic here
  for (int b = m.nbody - 1; b > 0; --b) {
    const int p = m.body_parent[b];
    if (p > 0) d.IA[p] += d.IA[b];
  }
  d.M.setZero();
  for (int i = 0; i < m.nv; ++i) {
    const Vec6 F = d.IA[m.dof_body[i]] * d.cdof.col(i);
    for (int j = i; j >= 0; j = m.dof_parent[j]) {
      const double v = d.cdof.col(j).dot(F);
      d.M(i, j) = v;
      d.M(j, i) = v;
    }
    d.M(i, i) += m.dof_armature[i];
  }
}

}  // namespace ncpgym
