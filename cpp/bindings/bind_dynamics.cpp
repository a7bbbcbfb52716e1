// Batched dynamics entry points: each takes arrays with a leading batch dimension N
// (validated again in python/ncpgym/dynamics.py), releases the GIL and runs OpenMP over
// the batch with one Data per thread. Results are independent of the thread count.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "ncpgym/dynamics/algorithms.hpp"
#include "ncpgym/dynamics/actuation.hpp"
#include "ncpgym/dynamics/tendon.hpp"

using namespace ncpgym;
using Arr = py::array_t<double, py::array::c_style | py::array::forcecast>;
using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

namespace {

void check(const Arr& a, std::initializer_list<py::ssize_t> shape, const char* name) {
  std::vector<py::ssize_t> want(shape);
  bool ok = a.ndim() == static_cast<py::ssize_t>(want.size());
  for (size_t i = 0; ok && i < want.size(); ++i) ok = a.shape(i) == want[i];
  if (!ok) {
    std::string got = "(", exp = "(";
    for (py::ssize_t i = 0; i < a.ndim(); ++i) got += std::to_string(a.shape(i)) + ",";
    for (auto w : want) exp += std::to_string(w) + ",";
    throw std::invalid_argument(std::string(name) + ": expected shape " + exp + ") got " + got + ")");
  }
}

// Runs f(data, i) for i in [0, n) on up to `threads` threads (0: OpenMP default).
template <class F>
void batch(const Model& m, py::ssize_t n, int threads, F&& f) {
  int nt = threads > 0 ? threads : omp_get_max_threads();
  nt = static_cast<int>(std::max<py::ssize_t>(1, std::min<py::ssize_t>(nt, n)));
  std::vector<Data> ds;
  ds.reserve(nt);
  for (int t = 0; t < nt; ++t) ds.emplace_back(m);
  py::gil_scoped_release release;
#pragma omp parallel for schedule(dynamic) num_threads(nt)
  for (py::ssize_t i = 0; i < n; ++i) f(ds[omp_get_thread_num()], i);
}

}  // namespace

void bind_dynamics(py::module_& mod) {
  mod.def(
      "mass_matrix",
      [](const Model& m, const Arr& q, int threads) {
        const auto n = q.shape(0);
        check(q, {n, m.nq}, "q");
        Arr out({n, py::ssize_t(m.nv), py::ssize_t(m.nv)});
        const double* qp = q.data();
        double* op = out.mutable_data();
        batch(m, n, threads, [&](Data& d, py::ssize_t i) {
          crba(m, d, qp + i * m.nq);
          Eigen::Map<RowMat>(op + i * m.nv * m.nv, m.nv, m.nv) = d.M;
        });
        return out;
      },
      py::arg("model"), py::arg("q"), py::arg("threads") = 0);

  mod.def(
      "inverse",
      [](const Model& m, const Arr& q, const Arr& u, const Arr& qacc, int threads) {
        const auto n = q.shape(0);
        check(q, {n, m.nq}, "q");
        check(u, {n, m.nv}, "u");
        check(qacc, {n, m.nv}, "qacc");
        Arr out({n, py::ssize_t(m.nv)});
        const double *qp = q.data(), *up = u.data(), *ap = qacc.data();
        double* op = out.mutable_data();
        batch(m, n, threads, [&](Data& d, py::ssize_t i) {
          rnea(m, d, qp + i * m.nq, up + i * m.nv, ap + i * m.nv, op + i * m.nv);
        });
        return out;
      },
      py::arg("model"), py::arg("q"), py::arg("u"), py::arg("qacc"), py::arg("threads") = 0);

  mod.def(
      "forward",
      [](const Model& m, const Arr& q, const Arr& u, const Arr& tau, bool passive, int threads) {
        const auto n = q.shape(0);
        check(q, {n, m.nq}, "q");
        check(u, {n, m.nv}, "u");
        check(tau, {n, m.nv}, "tau");
        Arr out({n, py::ssize_t(m.nv)});
        const double *qp = q.data(), *up = u.data(), *tp = tau.data();
        double* op = out.mutable_data();
        batch(m, n, threads, [&](Data& d, py::ssize_t i) {
          aba(m, d, qp + i * m.nq, up + i * m.nv, tp + i * m.nv, passive ? Passive::All : Passive::None);
          Eigen::Map<VecX>(op + i * m.nv, m.nv) = d.qacc;
        });
        return out;
      },
      py::arg("model"), py::arg("q"), py::arg("u"), py::arg("tau"), py::arg("passive") = true,
      py::arg("threads") = 0);

  mod.def(
      "passive",
      [](const Model& m, const Arr& q, const Arr& u) {
        const auto n = q.shape(0);
        check(q, {n, m.nq}, "q");
        check(u, {n, m.nv}, "u");
        Arr out({n, py::ssize_t(m.nv)});
        Data d(m);
        for (py::ssize_t i = 0; i < n; ++i) {
          double* o = out.mutable_data() + i * m.nv;
          std::fill(o, o + m.nv, 0.0);
          add_passive_spring(m, q.data() + i * m.nq, o);
          add_passive_damping(m, u.data() + i * m.nv, o);
          add_tendon_passive(m, q.data() + i * m.nq, u.data() + i * m.nv, o);
          kinematics(m, d, q.data() + i * m.nq);
          velocities(m, d, u.data() + i * m.nv);
          add_passive_gravcomp(m, d, o);
          add_passive_fluid(m, d, o);
          add_spatial_tendon_passive(m, d, u.data() + i * m.nv, o);
        }
        return out;
      },
      py::arg("model"), py::arg("q"), py::arg("u"));

  // M^-1 B for a batch: B is (N, nv, ncols) row-major, which is B^T (ncols x nv) in
  // column-major memory: the IIM's native layout, used without copies.
  mod.def(
      "minv_times",
      [](const Model& m, const Arr& q, const Arr& B, int threads) {
        const auto n = q.shape(0);
        check(q, {n, m.nq}, "q");
        const auto nc = B.ndim() == 3 ? B.shape(2) : 0;
        check(B, {n, m.nv, nc}, "B");
        Arr out({n, py::ssize_t(m.nv), nc});
        const double *qp = q.data(), *bp = B.data();
        double* op = out.mutable_data();
        batch(m, n, threads, [&](Data& d, py::ssize_t i) {
          factorize(m, d, qp + i * m.nq);
          minv_times_transposed(m, d, Eigen::Map<const MatX>(bp + i * m.nv * nc, nc, m.nv),
                                Eigen::Map<MatX>(op + i * m.nv * nc, nc, m.nv));
        });
        return out;
      },
      py::arg("model"), py::arg("q"), py::arg("B"), py::arg("threads") = 0);
  mod.def(
      "task_space",
      [](const Model& m, const Arr& q, const std::vector<int>& sites, int threads) {
        // Per world: J M^-1 B and J M^-1 J^T for the stacked site Jacobians J (6k x nv),
        // with J M^-1 = (M^-1 J^T)^T from one IIM call on the k sites' rows.
        const auto n = q.shape(0);
        check(q, {n, m.nq}, "q");
        for (int s : sites)
          if (s < 0 || s >= m.nsite)
            throw std::out_of_range("unknown site id " + std::to_string(s) + " (model has " + std::to_string(m.nsite) + " sites)");
        const py::ssize_t k = 6 * static_cast<py::ssize_t>(sites.size());
        Arr jmb({n, k, py::ssize_t(m.nu)}), lam({n, k, k});
        const double* qp = q.data();
        double *jp = jmb.mutable_data(), *lp = lam.mutable_data();
        batch(m, n, threads, [&](Data& d, py::ssize_t i) {
          factorize(m, d, qp + i * m.nq);
          MatX J(k, m.nv), JMinv(k, m.nv), J6(6, m.nv);
          for (size_t s = 0; s < sites.size(); ++s) {
            site_jacobian(m, d, sites[s], J6);
            J.middleRows(6 * s, 6) = J6;
          }
          minv_times_transposed(m, d, J, JMinv);
          Eigen::Map<RowMat> out_b(jp + i * k * m.nu, k, m.nu);
          VecX b(m.nv);
          for (int a = 0; a < m.nu; ++a) {  // B's column: g J^T (a joint's unit row, or a tendon's J_t)
            b.setZero();
            add_actuator_force(m, d, a, 1.0, b.data());
            out_b.col(a) = JMinv * b;
          }
          Eigen::Map<RowMat>(lp + i * k * k, k, k) = JMinv * J.transpose();
        });
        return py::make_tuple(jmb, lam);
      },
      py::arg("model"), py::arg("q"), py::arg("sites"), py::arg("threads") = 0);
  mod.def(
      "eufm",
      [](const Model& m, const Arr& q, const Arr& u, const Arr& tau, const Arr& B, int threads) {
        const auto n = q.shape(0);
        check(q, {n, m.nq}, "q");
        check(u, {n, m.nv}, "u");
        check(tau, {n, m.nv}, "tau");
        const auto nc = B.ndim() == 3 ? B.shape(2) : 0;
        check(B, {n, m.nv, nc}, "B");
        Arr out({n, py::ssize_t(m.nv), nc});
        const double *qp = q.data(), *up = u.data(), *tp = tau.data(), *bp = B.data();
        double* op = out.mutable_data();
        batch(m, n, threads, [&](Data& d, py::ssize_t i) {
          const MatX Bi = Eigen::Map<const RowMat>(bp + i * m.nv * nc, m.nv, nc);
          MatX R(m.nv, nc);
          eufm(m, d, qp + i * m.nq, up + i * m.nv, tp + i * m.nv, Bi, R);
          Eigen::Map<RowMat>(op + i * m.nv * nc, m.nv, nc) = R;
        });
        return out;
      },
      py::arg("model"), py::arg("q"), py::arg("u"), py::arg("tau"), py::arg("B"),
      py::arg("threads") = 0);

  mod.def(
      "site_jacobian",
      [](const Model& m, const Arr& q, const Arr& u, int site) {
        if (site < 0 || site >= m.nsite)
          throw std::out_of_range("unknown site id " + std::to_string(site) + " (model has " +
                                  std::to_string(m.nsite) + " sites)");
        const auto n = q.shape(0);
        check(q, {n, m.nq}, "q");
        check(u, {n, m.nv}, "u");
        Arr J({n, py::ssize_t(6), py::ssize_t(m.nv)});
        Arr Jdu({n, py::ssize_t(6)});
        Data d(m);
        MatX Jm(6, m.nv);
        for (py::ssize_t i = 0; i < n; ++i) {
          kinematics(m, d, q.data() + i * m.nq);
          velocities(m, d, u.data() + i * m.nv);
          site_jacobian(m, d, site, Jm);
          Eigen::Map<RowMat>(J.mutable_data() + i * 6 * m.nv, 6, m.nv) = Jm;
          Eigen::Map<Vec6>(Jdu.mutable_data() + i * 6) = site_jdot_u(m, d, site);
        }
        return py::make_tuple(J, Jdu);
      },
      py::arg("model"), py::arg("q"), py::arg("u"), py::arg("site"));

  mod.def(
      "kinematics",
      [](const Model& m, const Arr& q) {
        const auto n = q.shape(0);
        check(q, {n, m.nq}, "q");
        Arr xpos({n, py::ssize_t(m.nbody), py::ssize_t(3)});
        Arr xquat({n, py::ssize_t(m.nbody), py::ssize_t(4)});
        Arr sxpos({n, py::ssize_t(m.nsite), py::ssize_t(3)});
        Arr sxmat({n, py::ssize_t(m.nsite), py::ssize_t(3), py::ssize_t(3)});
        Data d(m);
        for (py::ssize_t i = 0; i < n; ++i) {
          kinematics(m, d, q.data() + i * m.nq);
          for (int b = 0; b < m.nbody; ++b) {
            Eigen::Map<Vec3>(xpos.mutable_data() + (i * m.nbody + b) * 3) = d.xpos[b];
            store_wxyz(Quat(d.xmat[b]), xquat.mutable_data() + (i * m.nbody + b) * 4);
          }
          for (int s = 0; s < m.nsite; ++s) {
            Eigen::Map<Vec3>(sxpos.mutable_data() + (i * m.nsite + s) * 3) = d.site_xpos[s];
            Eigen::Map<Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(
                sxmat.mutable_data() + (i * m.nsite + s) * 9) = d.site_xmat[s];
          }
        }
        py::dict r;
        r["xpos"] = xpos;
        r["xquat"] = xquat;
        r["site_xpos"] = sxpos;
        r["site_xmat"] = sxmat;
        return r;
      },
      py::arg("model"), py::arg("q"));

  mod.def(
      "kinematic_map",
      [](const Model& m, const Arr& q) {
        const auto n = q.shape(0);
        check(q, {n, m.nq}, "q");
        Arr out({n, py::ssize_t(m.nq), py::ssize_t(m.nv)});
        MatX G(m.nq, m.nv);
        for (py::ssize_t i = 0; i < n; ++i) {
          kinematic_map(m, q.data() + i * m.nq, G);
          Eigen::Map<RowMat>(out.mutable_data() + i * m.nq * m.nv, m.nq, m.nv) = G;
        }
        return out;
      },
      py::arg("model"), py::arg("q"));

  mod.def(
      "integrate",
      [](const Model& m, const Arr& q, const Arr& u, double h) {
        const auto n = q.shape(0);
        check(q, {n, m.nq}, "q");
        check(u, {n, m.nv}, "u");
        Arr out({n, py::ssize_t(m.nq)});
        for (py::ssize_t i = 0; i < n; ++i)
          integrate(m, q.data() + i * m.nq, u.data() + i * m.nv, h, out.mutable_data() + i * m.nq);
        return out;
      },
      py::arg("model"), py::arg("q"), py::arg("u"), py::arg("h"));

  // Timing helper for benchmarks/dynamics.py: median microseconds per call of one
  // algorithm on one thread, looping in C++ so no binding overhead is measured.
  mod.def(
      "bench_dynamics",
      [](const Model& m, const std::string& algo, const VecX& q, const VecX& u, const VecX& tau,
         const MatX& B, int reps, int rounds) {
        if (q.size() != m.nq || u.size() != m.nv || tau.size() != m.nv || B.rows() != m.nv)
          throw std::invalid_argument("bench_dynamics: wrong input sizes");
        Data d(m);
        MatX out(m.nv, B.cols());
        const MatX Bt = B.transpose();
        MatX Xt(B.cols(), m.nv);
        std::vector<double> times;
        py::gil_scoped_release release;
        auto run = [&]() {
          if (algo == "fd") {
            aba(m, d, q.data(), u.data(), tau.data(), Passive::None);
          } else if (algo == "iim") {
            aba(m, d, q.data(), u.data(), tau.data(), Passive::None);  // qdd_0 and the factorisation
            minv_times_transposed(m, d, Bt, Xt);
          } else if (algo == "minv_b") {  // M^-1 B alone: factorisation + IIM sweeps
            factorize(m, d, q.data());
            minv_times_transposed(m, d, Bt, Xt);
          } else if (algo == "eufm") {
            eufm(m, d, q.data(), u.data(), tau.data(), B, out);
          } else if (algo == "crba") {
            crba(m, d, q.data());
          } else if (algo == "rnea") {
            rnea(m, d, q.data(), u.data(), tau.data(), out.data());
          } else {
            throw std::invalid_argument("unknown algorithm " + algo);
          }
        };
        run();  // warm-up
        for (int r = 0; r < rounds; ++r) {
          auto t0 = std::chrono::steady_clock::now();
          for (int k = 0; k < reps; ++k) run();
          auto t1 = std::chrono::steady_clock::now();
          times.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / reps);
        }
        std::sort(times.begin(), times.end());
        return times[times.size() / 2];
      },
      py::arg("model"), py::arg("algo"), py::arg("q"), py::arg("u"), py::arg("tau"), py::arg("B"),
      py::arg("reps") = 1000, py::arg("rounds") = 7);
}
