#include "ncpgym/soft/tet.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>

namespace ncpgym {

const std::array<Mat3, 6>& strain_basis() {
  static const std::array<Mat3, 6> B = [] {
    std::array<Mat3, 6> b;
    const double r2 = std::sqrt(2.0), r3 = std::sqrt(3.0), r6 = std::sqrt(6.0);
    b[0] = Mat3::Identity() / r3;
    b[1] = Vec3(1, -1, 0).asDiagonal();
    b[1] /= r2;
    b[2] = Vec3(1, 1, -2).asDiagonal();
    b[2] /= r6;
    for (int k = 0; k < 3; ++k) {
      const int i = k == 2 ? 1 : 0, j = k == 0 ? 1 : 2;  // (0,1), (0,2), (1,2)
      b[3 + k].setZero();
      b[3 + k](i, j) = b[3 + k](j, i) = 1 / r2;
    }
    return b;
  }();
  return B;
}

Mat3 deformation_gradient(const Vec3 x[4], const Mat3& Dminv) {
  Mat3 Ds;  // edge vectors from vertex 0
  for (int a = 0; a < 3; ++a) Ds.col(a) = x[a + 1] - x[0];
  return Ds * Dminv;
}

void stretch_eigen(const Mat3& C, Eigen::SelfAdjointEigenSolver<Mat3>& eig) {
  // Closed-form 3 x 3 eigen-decomposition (Eigen's computeDirect): the iterative solver was
  // an eighth of a soft step. It fails where all three eigenvalues agree to a few ulps but
  // the matrix is not exactly diagonal (an element at rest after a step of rounding noise:
  // C = (1 - 2^-52) I plus 1e-21 off the diagonal gave eigenvectors 0.11 from orthogonal,
  // and a strain row of 0.15 at rest that kicked a resting finger). Such results are caught
  // by their orthogonality and recomputed by the iterative solver, which is exact there.
  eig.computeDirect(C);
  const Mat3& V = eig.eigenvectors();
  if (!((V.transpose() * V - Mat3::Identity()).cwiseAbs().maxCoeff() < 1e-12)) eig.compute(C);
}

void tet_rows(const Vec3 x[4], const Mat3& Dminv, TetRows& out) {
  const Mat3 F = deformation_gradient(x, Dminv);
  // the rows are invariant to the basis of a repeated eigenvalue
  Eigen::SelfAdjointEigenSolver<Mat3> eig;
  stretch_eigen(F.transpose() * F, eig);
  const Mat3& V = eig.eigenvectors();
  const Vec3 s = eig.eigenvalues().cwiseMax(0.0).cwiseSqrt();
  const Mat3 eps = V * s.asDiagonal() * V.transpose() - Mat3::Identity();
  out.s = s;
  out.V = V;
  const auto& B = strain_basis();
  // W_k = (V^T B_k V) / (s_i + s_j): dc_k = 2 g^T W_k f in the eigenbasis, for
  // dF = e_d g_a^T (vertex a, axis d) and f = F^T e_d.
  Mat3 W[6];
  for (int k = 0; k < 6; ++k) {
    out.c[k] = (eps.cwiseProduct(B[k])).sum();
    const Mat3 Bh = V.transpose() * B[k] * V;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) W[k](i, j) = Bh(i, j) / std::max(s[i] + s[j], 1e-12);
  }
  // g_a: rows of Dminv for vertices 1..3, minus their sum for vertex 0 (dDs/dx_a); in the
  // eigenbasis, G = V^T [g_0 .. g_3] and Fh = V^T F^T, so that grad_k = 2 G^T W_k Fh (4 x 3)
  Eigen::Matrix<double, 3, 4> G;
  G.rightCols<3>() = Dminv.transpose();
  G.col(0) = -G.rightCols<3>().rowwise().sum();
  G = V.transpose() * G;
  const Mat3 Fh = V.transpose() * F.transpose();
  for (int k = 0; k < 6; ++k) {
    const Eigen::Matrix<double, 4, 3> Gk = 2.0 * G.transpose() * (W[k] * Fh);
    for (int a = 0; a < 4; ++a)
      for (int d = 0; d < 3; ++d) out.grad[k][a][d] = Gk(a, d);
  }
}

bool tet_newton_block(const Vec3 x[4], const Mat3& Dminv, const double grad[6][12], const double w[6],
                      const double lambda[6], double h2, bool project, Eigen::Matrix<double, 12, 12>& B) {
  using Mat9 = Eigen::Matrix<double, 9, 9>;
  using Vec9 = Eigen::Matrix<double, 9, 1>;
  const Mat3 F = deformation_gradient(x, Dminv);
  if (!(F.determinant() > 0.0)) return false;
  Eigen::SelfAdjointEigenSolver<Mat3> eig;
  stretch_eigen(F.transpose() * F, eig);
  const Mat3& V = eig.eigenvectors();
  const Vec3 s = eig.eigenvalues().cwiseMax(0.0).cwiseSqrt();
  if (!(s.minCoeff() > 1e-9)) return false;
  const Mat3 U = F * V * s.cwiseInverse().asDiagonal();
  // G: dF = sum_a dx_a g_a^T, g_1..3 the rows of Dminv, g_0 = -(g_1 + g_2 + g_3); a row's
  // F-gradient from its x-gradient by least squares, a(d, :) = (Gm Gm^T)^-1 Gm grad(:, d)
  Eigen::Matrix<double, 3, 4> Gm;
  Gm.rightCols<3>() = Dminv.transpose();
  Gm.col(0) = -Gm.rightCols<3>().rowwise().sum();
  const Eigen::Matrix<double, 3, 4> Ginv = (Gm * Gm.transpose()).inverse() * Gm;
  Mat9 T = Mat9::Zero();
  Mat3 P = Mat3::Zero();  // the force in F-space, sum_k lambda_k a_k
  for (int k = 0; k < 6; ++k) {
    Vec9 a;  // index 3 d + c: dc_k / dF_dc
    for (int d = 0; d < 3; ++d) {
      Eigen::Vector4d gd;
      for (int v = 0; v < 4; ++v) gd[v] = grad[k][3 * v + d];
      a.segment<3>(3 * d) = Ginv * gd;
    }
    T.noalias() += w[k] * a * a.transpose();
    P += lambda[k] * Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(a.data());
  }
  // Y in the frames: U^T P V = 2 diag(s) Y
  Mat3 Y = s.cwiseInverse().asDiagonal() * (U.transpose() * P * V) * 0.5;
  Y = 0.5 * (Y + Y.transpose()).eval();
  // d2f over the unit dF = e_d e_c^T: in the frames dFh = u_d v_c^T (u_d, v_c: rows of U, V)
  Mat3 dS[9], YdS[9], dFh[9];
  for (int d = 0; d < 3; ++d)
    for (int c = 0; c < 3; ++c) {
      const int i9 = 3 * d + c;
      dFh[i9] = U.row(d).transpose() * V.row(c);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) dS[i9](i, j) = (s[i] * dFh[i9](i, j) + s[j] * dFh[i9](j, i)) / (s[i] + s[j]);
      YdS[i9] = Y * dS[i9];
    }
  for (int p = 0; p < 9; ++p)
    for (int q = 0; q <= p; ++q) {
      const double d2f = 2.0 * (dFh[p].transpose() * dFh[q]).cwiseProduct(Y).sum() -
                         2.0 * YdS[p].transpose().cwiseProduct(dS[q]).sum();
      T(p, q) -= h2 * d2f;
      if (q != p) T(q, p) -= h2 * d2f;
    }
  // positive semi-definite already (a Cholesky with a shift of 1e-12 of the trace: the rotations
  // of an unstressed element are exact zeros)? else project: the eigenvalues clamped at 0
  if (project && Eigen::LLT<Mat9>(T + Mat9::Identity() * (1e-12 * T.trace())).info() != Eigen::Success) {
    const Eigen::SelfAdjointEigenSolver<Mat9> e9(T);
    T = e9.eigenvectors() * e9.eigenvalues().cwiseMax(0.0).asDiagonal() * e9.eigenvectors().transpose();
  }
  // B = G^T T G: B(3 a + d, 3 b + e) = g_a^T T(d., e.) g_b
  for (int d = 0; d < 3; ++d)
    for (int e = 0; e < 3; ++e) {
      const Eigen::Matrix4d blk = Gm.transpose() * T.block<3, 3>(3 * d, 3 * e) * Gm;
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) B(3 * a + d, 3 * b + e) = blk(a, b);
    }
  return true;
}

double NeoHookean::energy(const Vec3& s) const {
  const double J = s.prod();
  return C1 * (s.squaredNorm() - 3) + D1 * (J - alpha) * (J - alpha);
}

Vec3 NeoHookean::gradient(const Vec3& s) const {
  const double J = s.prod();
  const Vec3 cof(s[1] * s[2], s[0] * s[2], s[0] * s[1]);  // dJ / ds
  return 2 * C1 * s + 2 * D1 * (J - alpha) * cof;
}

Mat3 NeoHookean::hessian(const Vec3& s) const {
  const double J = s.prod(), k0 = 2 * J - alpha;
  const Vec3 cof(s[1] * s[2], s[0] * s[2], s[0] * s[1]);
  Mat3 H;
  for (int i = 0; i < 3; ++i) H(i, i) = 2 * (D1 * cof[i] * cof[i] + C1);
  H(0, 1) = H(1, 0) = 2 * D1 * s[2] * k0;
  H(0, 2) = H(2, 0) = 2 * D1 * s[1] * k0;
  H(1, 2) = H(2, 1) = 2 * D1 * s[0] * k0;
  return H;
}

void principal_stretches(const Vec3 x[4], const Mat3& Dminv, Vec3& s, double grad[3][4][3]) {
  const Mat3 F = deformation_gradient(x, Dminv);
  const Eigen::JacobiSVD<Mat3> svd(F, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Mat3 U = svd.matrixU(), V = svd.matrixV();
  s = svd.singularValues();
  // rotation-variant SVD: make U and V rotations, moving a reflection into s3 < 0
  if (U.determinant() < 0) {
    U.col(2) *= -1;
    s[2] *= -1;
  }
  if (V.determinant() < 0) {
    V.col(2) *= -1;
    s[2] *= -1;
  }
  Vec3 g[4];
  for (int a = 1; a < 4; ++a) g[a] = Dminv.row(a - 1).transpose();
  g[0] = -(g[1] + g[2] + g[3]);
  for (int i = 0; i < 3; ++i)
    for (int a = 0; a < 4; ++a) {
      const double gv = g[a].dot(V.col(i));
      for (int d = 0; d < 3; ++d) grad[i][a][d] = U(d, i) * gv;
    }
}

void tet_rows_neohookean(const Vec3 x[4], const Mat3& Dminv, double volume, const NeoHookean& mat, TetRowsNH& out,
                         double activation) {
  Vec3 s;
  double ds[3][4][3];
  principal_stretches(x, Dminv, s, ds);
  const double k = 1.0 / (1.0 + activation);  // elastic stretches s_e = k s
  const Vec3 c = volume * k * mat.gradient(k * s);
  const Eigen::SelfAdjointEigenSolver<Mat3> eig(volume * k * k * mat.hessian(k * s));
  const Mat3& Q = eig.eigenvectors();
  const double floor = 1e-6 * volume * (mat.C1 + mat.D1);
  const Vec3 L = eig.eigenvalues().cwiseMax(floor);
  const Vec3 qc = Q.transpose() * c;
  for (int k = 0; k < 3; ++k) {
    out.c[k] = qc[k] / L[k];
    out.E[k] = 1.0 / L[k];
    for (int a = 0; a < 4; ++a)
      for (int d = 0; d < 3; ++d)
        out.grad[k][a][d] = Q(0, k) * ds[0][a][d] + Q(1, k) * ds[1][a][d] + Q(2, k) * ds[2][a][d];
  }
}

namespace {

// The three principal-stretch rows and three empty ones (where the six rows do not apply).
void principal_rows_in_six(const Vec3 x[4], const Mat3& Dminv, double volume, const NeoHookean& mat,
                           TetRowsNH6& out, double activation) {
  TetRowsNH nh;
  tet_rows_neohookean(x, Dminv, volume, mat, nh, activation);
  for (int m = 0; m < 6; ++m) {
    out.c[m] = m < 3 ? nh.c[m] : 0.0;
    out.E[m] = m < 3 ? nh.E[m] : 1.0;
    for (int a = 0; a < 4; ++a)
      for (int d = 0; d < 3; ++d) out.grad[m][a][d] = m < 3 ? nh.grad[m][a][d] : 0.0;
  }
}

}  // namespace

void tet_rows_neohookean6(const Vec3 x[4], const Mat3& Dminv, double volume, const NeoHookean& mat,
                          TetRowsNH6& out, double activation) {
  if (deformation_gradient(x, Dminv).determinant() <= 0.0) {  // inverted: the principal-stretch rows
    principal_rows_in_six(x, Dminv, volume, mat, out, activation);
    return;
  }
  TetRows tr;
  tet_rows(x, Dminv, tr);
  const double k = 1.0 / (1.0 + activation);  // elastic stretches k s: Psi(k S), d/dS = k Psi'
  const Vec3 se = k * tr.s;
  const Vec3 psi = mat.gradient(se);
  const Mat3 H = mat.hessian(se);
  Mat3 kappa;  // the shear coefficients of the spectral Hessian
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const double ds = se[i] - se[j];
      kappa(i, j) = std::abs(ds) > 1e-6 ? (psi[i] - psi[j]) / ds : H(i, i) - H(i, j);
    }
  const auto& B = strain_basis();
  Mat3 Bh[6], HB[6];
  Eigen::Matrix<double, 6, 1> g;
  for (int l = 0; l < 6; ++l) {
    Bh[l] = tr.V.transpose() * B[l] * tr.V;
    g[l] = volume * k * Bh[l].diagonal().dot(psi);
    const Vec3 d = H * Bh[l].diagonal();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) HB[l](i, j) = i == j ? d[i] : kappa(i, j) * Bh[l](i, j);
  }
  Eigen::Matrix<double, 6, 6> N;
  for (int a = 0; a < 6; ++a)
    for (int b = 0; b < 6; ++b) N(a, b) = volume * k * k * Bh[a].cwiseProduct(HB[b]).sum();
  // N = L D L^T with L unit lower triangular, unpivoted, in the fixed order of the basis:
  // unlike an eigenbasis (five-fold degenerate at rest) the rows then change continuously
  // with x, so the dual path's multipliers keep their meaning from one Newton iterate to
  // the next. Where N is not positive definite (the energy is not convex under strong
  // volumetric tension: kappa < 0) the element falls back to the principal-stretch rows,
  // whose eigenvalue floor projects it (a floored pivot here made the KKT system fail).
  const double floor = 1e-6 * volume * (mat.C1 + mat.D1);
  Eigen::Matrix<double, 6, 6> L = Eigen::Matrix<double, 6, 6>::Identity();
  Eigen::Matrix<double, 6, 1> D;
  for (int j = 0; j < 6; ++j) {
    double d = N(j, j);
    for (int q = 0; q < j; ++q) d -= L(j, q) * L(j, q) * D[q];
    if (!(d > floor)) {
      principal_rows_in_six(x, Dminv, volume, mat, out, activation);
      return;
    }
    D[j] = d;
    for (int i = j + 1; i < 6; ++i) {
      double v = N(i, j);
      for (int q = 0; q < j; ++q) v -= L(i, q) * L(j, q) * D[q];
      L(i, j) = v / D[j];
    }
  }
  // rows: value (L^-1 g)_m / D_m, compliance 1 / D_m, gradient sum_k L_km de_k/dx; then
  // lambda* = -L^-1 g and J^T lambda* = -sum_k g_k de_k/dx, sum_m D_m (..)(..)^T = J^T N J
  const Eigen::Matrix<double, 6, 1> y = L.triangularView<Eigen::UnitLower>().solve(g);
  for (int m = 0; m < 6; ++m) {
    out.c[m] = y[m] / D[m];
    out.E[m] = 1.0 / D[m];
    for (int a = 0; a < 4; ++a)
      for (int d = 0; d < 3; ++d) {
        double v = 0.0;
        for (int l = m; l < 6; ++l) v += L(l, m) * tr.grad[l][a][d];
        out.grad[m][a][d] = v;
      }
  }
}

}  // namespace ncpgym
