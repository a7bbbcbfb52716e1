// The inverse method's projection for many worlds (inverse-qp-soft-robots.txt eq. 3; ncpgym's
// form: Stepper::particle_response on each world's free step), OpenMP over worlds as a step.
#include <omp.h>

#include <limits>
#include <stdexcept>

#include "ncpgym/batch/batch.hpp"
#include "ncpgym/batch/threads.hpp"
#include "ncpgym/soft/pressure.hpp"

namespace ncpgym {

void Batch::project(const int* effectors, int ne, const int* groups, int ng, const int* cable_particle,
                    const double* cable_anchor, int nc, double* x_free, double* W_ea, double* W_aa) {
  const Model& m = *base_;
  const int np3 = 3 * m.nparticle, na = ng + nc, ne3 = 3 * ne;
  for (int k = 0; k < ne; ++k)
    if (effectors[k] < 0 || effectors[k] >= m.nparticle) throw std::invalid_argument("project: effector out of range");
  for (int j = 0; j < ng; ++j)
    if (groups[j] < 0 || groups[j] >= m.nactgroup) throw std::invalid_argument("project: group out of range");
  for (int j = 0; j < nc; ++j)
    if (cable_particle[j] < 0 || cable_particle[j] >= m.nparticle)
      throw std::invalid_argument("project: cable particle out of range");
  check_mocap();
#pragma omp parallel for schedule(dynamic) num_threads(team_size(nthread_))
  for (int i = 0; i < n_; ++i) {
    Workspace& w = *work_[omp_get_thread_num()];
    const size_t I = static_cast<size_t>(i);
    double* xf = x_free + I * ne3;
    double* wea = W_ea + I * ne3 * na;
    double* waa = W_aa + I * na * na;
    apply_parameters(w, i);
    load(w, i);
    const VecX x0 = w.state.x;
    MatX B = MatX::Zero(np3, na);
    MatX R;
    w.stepper->warm_start() = warm_[i];  // a copy: the free step must not change the world's memory
    try {
      w.stepper->step(w.state);  // Step I: the free step (not stored)
      VecX act = VecX::Zero(m.nactgroup), f(np3);
      for (int j = 0; j < ng; ++j) {
        act.setZero();
        act[groups[j]] = 1.0;
        f.setZero();
        add_pressure_forces(*w.model, w.state.x, act, f);
        B.col(j) = f;
      }
      for (int j = 0; j < nc; ++j) {
        const int p = cable_particle[j];
        const Vec3 d = Eigen::Map<const Vec3>(cable_anchor + 3 * j) - x0.segment<3>(3 * p);
        B.col(ng + j).segment<3>(3 * p) = d.normalized();
      }
      R = w.stepper->particle_response(B);  // Step II
    } catch (const std::exception&) {
      const double nan = std::numeric_limits<double>::quiet_NaN();
      std::fill(xf, xf + ne3, nan);
      std::fill(wea, wea + ne3 * na, nan);
      std::fill(waa, waa + na * na, nan);
      continue;
    }
    for (int k = 0; k < ne; ++k)
      for (int c = 0; c < 3; ++c) {
        xf[3 * k + c] = w.state.x[3 * effectors[k] + c];
        for (int j = 0; j < na; ++j) wea[(3 * k + c) * na + j] = R(3 * effectors[k] + c, j);
      }
    const MatX Waa = B.transpose() * R;
    for (int a = 0; a < na; ++a)
      for (int j = 0; j < na; ++j) waa[a * na + j] = Waa(a, j);
  }
}

}  // namespace ncpgym
