// pin_bench MODEL.bin REPS ROUNDS < inputs
// MODEL.bin: a pinocchio::Model saved by the Python bindings (Model.saveToBinary), e.g.
// from pin.buildModelFromMJCF; the wheel ships no urdfdom headers for the C++ parsers.
// inputs (whitespace separated): q (nq, Pinocchio order), v (nv), tau (nv), ncols, B (nv x
// ncols, row-major). Prints median microseconds per call of aba and of
// computeMinverse followed by the product M^-1 B, timed like ncpgym's bench_dynamics.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <vector>

#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/joint-configuration.hpp>
#include <pinocchio/multibody.hpp>
#include <pinocchio/serialization.hpp>

template <class F>
double median_us(F&& f, int reps, int rounds) {
  f();
  std::vector<double> t;
  for (int r = 0; r < rounds; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < reps; ++k) f();
    auto t1 = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / reps);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: pin_bench MODEL.bin REPS ROUNDS < inputs\n";
    return 2;
  }
  pinocchio::Model model;
  model.loadFromBinary(argv[1]);
  pinocchio::Data data(model);
  const int reps = std::atoi(argv[2]), rounds = std::atoi(argv[3]);
  Eigen::VectorXd q(model.nq), v(model.nv), tau(model.nv);
  for (int i = 0; i < model.nq; ++i) std::cin >> q[i];
  for (int i = 0; i < model.nv; ++i) std::cin >> v[i];
  for (int i = 0; i < model.nv; ++i) std::cin >> tau[i];
  int ncols = 0;
  std::cin >> ncols;
  Eigen::MatrixXd B(model.nv, ncols), out(model.nv, ncols);
  for (int i = 0; i < model.nv; ++i)
    for (int j = 0; j < ncols; ++j) std::cin >> B(i, j);
  if (!std::cin) {
    std::cerr << "pin_bench: bad input (model has nq=" << model.nq << " nv=" << model.nv << ")\n";
    return 1;
  }
  const double aba_us = median_us([&] { pinocchio::aba(model, data, q, v, tau); }, reps, rounds);
  const double minv_us = median_us(
      [&] {
        pinocchio::computeMinverse(model, data, q);
        data.Minv.triangularView<Eigen::StrictlyLower>() =
            data.Minv.transpose().triangularView<Eigen::StrictlyLower>();
        out.noalias() = data.Minv * B;
      },
      reps, rounds);
  std::cout << model.nq << " " << model.nv << " " << aba_us << " " << minv_us << "\n";
  return 0;
}
