// NCP functions of nonsmooth-newton-ncp.txt with the complementarity preconditioner r
// (§7, eq. 66), and the friction compliance W of Appendix A.2.
#pragma once

#include <algorithm>
#include <cmath>

namespace ncpgym::ncp {

// Value of an NCP function phi(C, r lambda) and its partial derivatives
// dphi/dC (alpha, multiplies the constraint gradient) and dphi/dlambda (beta, includes r).
struct Value {
  double phi, dC, dlambda;
};

// Fischer-Burmeister, eqs. 93-95; at (0, 0) the derivative is set-valued and the seed
// picks alpha = 0, beta = 1 (eqs. 26-27), i.e. dphi/dlambda = r.
inline Value fischer_burmeister(double C, double lambda, double r) {
  const double rl = r * lambda;
  const double norm = std::sqrt(C * C + rl * rl);
  if (norm == 0) return {0.0, 0.0, r};
  return {C + rl - norm, 1.0 - C / norm, (1.0 - rl / norm) * r};
}

// Minimum map, eqs. 96-98.
inline Value minimum_map(double C, double lambda, double r) {
  if (C <= r * lambda) return {C, 1.0, 0.0};
  return {r * lambda, 0.0, r};
}

// Friction compliance W for one contact (Appendix A.2). s = |D^T u| is the slip speed,
// lf = |lambda_f| and mu_ln = mu lambda_n > 0 (active contact). The seed's eqs. 102 and
// 104 print the first denominator term as |D^T u|^2; eq. 101 gives |D^T u|, as used here:
//   W_FB = r (sqrt(s^2 + r^2 g^2) - r g) / (s + r mu_ln - sqrt(s^2 + r^2 g^2)),
//   g = mu_ln - lf.  (eq. 103-104, corrected)
//
// Eq. 104 is W = |D^T u|^{n+1} / |lambda_f|^{n+1} after one FB step on the magnitudes
// (eqs. 99-102). Outside the cone (g < 0) that step reflects |lambda_f| about the cone
// boundary instead of projecting onto it (at s = 0: |lambda_f|^{n+1} = 2 mu_ln - lf), so
// the denominator reaches 0 for lf >= 2 mu_ln and W explodes (1e13 seen on the humanoid).
// With `bounded` set, g < 0 takes eq. 105's value (s - r g) / mu_ln, i.e. |lambda_f|^{n+1}
// projected onto the cone; both expressions equal s / mu_ln at g = 0, so W stays continuous.
inline double friction_w_fb(double s, double lf, double mu_ln, double r, bool bounded = false) {
  const double g = mu_ln - lf;
  if (bounded && g < 0) return (s - r * g) / mu_ln;
  const double root = std::sqrt(s * s + r * r * g * g);
  const double num = r * (root - r * g);
  const double den = s + r * mu_ln - root;
  if (num <= 0) return 0.0;  // sticking
  return num / std::max(den, 1e-12 * (s + r * mu_ln) + 1e-300);
}

// Minimum-map variant, eq. 105.
inline double friction_w_min(double s, double lf, double mu_ln, double r) {
  const double g = mu_ln - lf;
  if (s <= r * g) return 0.0;
  return (s - r * g) / mu_ln;
}

// Return of friction outside the cone (option cone_return; not in the seed). Where an
// iterate's friction lies outside the cone (lf > mu_ln), eq. 105's W (and the bounded eq.
// 104) is a sliding part W_s = s / mu_ln plus an excess part W_o = r (lf - mu_ln) / mu_ln.
// The seed's row slip + W lambda_f = 0 (eq. 36) asks the excess part to drive the whole
// friction impulse to zero; with the return it drives the impulse to a point of the cone's
// boundary, lambda_p = mu_ln z / |z| with z = lambda_f - slip / r (the augmented impulse of
// Alart and Curnier's friction law, r converting velocity to impulse as in eq. 105):
//   phi_f = slip + W_s lambda_f + W_o (lambda_f - lambda_p) = slip + W lambda_f - a z / |z|,
//   a = W_o mu_ln = r (lf - mu_ln).
// The Newton matrix (W / h on the diagonal, eq. 55) is unchanged; only phi_f is. At a sliding
// solution z is parallel to lambda_f, so lambda_p = lambda_f and the row is the seed's; and
// outside the cone phi_f cannot vanish: phi_f = 0 makes z parallel to lambda_f and the slip
// antiparallel to it with |slip| = W lf - a, but W lf = (s + a) lf / mu_ln > s + a, so
// |slip| > s = |slip|. No solution is added. Returns the offset a z / |z| (zero inside).
struct Offset {
  double x, y;
};
inline Offset friction_return(double l1, double l2, double s1, double s2, double mu_ln, double r) {
  const double lf = std::hypot(l1, l2);
  if (!(lf > mu_ln)) return {0.0, 0.0};
  const double z1 = l1 - s1 / r, z2 = l2 - s2 / r;
  const double zn = std::hypot(z1, z2);
  if (zn == 0) return {0.0, 0.0};
  const double a = r * (lf - mu_ln) / zn;
  return {a * z1, a * z2};
}

// Friction of one contact in MuJoCo's elliptic cone (condim 4 and 6: torsion and rolling
// with the two sliding directions), sum_i (lambda_i / mu_i)^2 <= lambda_n^2 over its n
// friction rows (2 to 5), each with coefficient mu_i > 0 (sliding dimensionless; torsion
// and rolling lengths, so that mu_i times an angular rate is a speed). Not in the seed,
// whose cone is isotropic; it generalises Appendix A.2 by a change of variables: in
// g_i = lambda_i / mu_i and v~_i = mu_i slip_i the cone is isotropic with coefficient 1 and
// the dissipated power lambda . slip = g . v~ is unchanged, so the maximal-dissipation law is
// the seed's (eq. 36) on (g, v~): v~ + W~ g = 0 with W~ from eq. 104 (or 105) at
// s = |v~|, |lambda_f| = |g|, mu lambda_n = lambda_n, and r~ = mean_i mu_i^2 r_i (the
// r-factor in these units; any r > 0 keeps the solution). Back in the rows' units row i
// reads slip_i + (W~ / mu_i^2) lambda_i = 0: W_i = W~ / mu_i^2, and cone_return's offset
// (friction_return) maps the same way. With equal mu_i it is the isotropic row of
// friction_w_fb exactly (W~ = mu^2 W when r~ = mu^2 r); condim-3 contacts keep that path.
// Writes each row's W (the solver's compliance W / h, eq. 55) and value phi (eq. 36).
inline void elliptic_friction(int n, const double* mu, const double* lambda, const double* slip, const double* r,
                              double ln, bool fb, bool bounded, bool returns, double* W, double* phi) {
  double s2 = 0, g2 = 0, rt = 0;
  for (int i = 0; i < n; ++i) {
    s2 += mu[i] * mu[i] * slip[i] * slip[i];
    g2 += lambda[i] * lambda[i] / (mu[i] * mu[i]);
    rt += mu[i] * mu[i] * r[i];
  }
  rt /= n;
  const double s = std::sqrt(s2), lg = std::sqrt(g2);
  const double Wt = fb ? friction_w_fb(s, lg, ln, rt, bounded) : friction_w_min(s, lg, ln, rt);
  // cone_return in the scaled variables: z~ = g - v~ / r~, offset r~ (|g| - lambda_n) z~ / |z~|
  double a = 0;
  if (returns && lg > ln) {
    double z2 = 0;
    for (int i = 0; i < n; ++i) {
      const double z = lambda[i] / mu[i] - mu[i] * slip[i] / rt;
      z2 += z * z;
    }
    if (z2 > 0) a = rt * (lg - ln) / std::sqrt(z2);
  }
  for (int i = 0; i < n; ++i) {
    W[i] = Wt / (mu[i] * mu[i]);
    const double z = lambda[i] / mu[i] - mu[i] * slip[i] / rt;
    phi[i] = slip[i] + W[i] * lambda[i] - a * z / mu[i];
  }
}


}  // namespace ncpgym::ncp
