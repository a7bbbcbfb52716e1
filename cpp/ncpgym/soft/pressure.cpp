#include "ncpgym/soft/pressure.hpp"

namespace ncpgym {

namespace {

Vec3 mean_of(const Model& m, const VecX& x, int c) {
  Vec3 mean = Vec3::Zero();
  for (int t = m.chamber_start[c]; t < m.chamber_start[c + 1]; ++t)
    for (int p : m.chamber_tri[t]) mean += x.segment<3>(3 * p);
  return mean / (3.0 * (m.chamber_start[c + 1] - m.chamber_start[c]));
}

Mat3 cross_matrix(const Vec3& v) {
  Mat3 S;
  S << 0, -v.z(), v.y(), v.z(), 0, -v.x(), -v.y(), v.x(), 0;
  return S;
}

}  // namespace

Vec3 chamber_origin(const Model& m, const VecX& x, int c) { return mean_of(m, x, c); }

void chamber_volumes(const Model& m, const VecX& x, double* volume) {
  for (int c = 0; c < m.nchamber; ++c) {
    const Vec3 o = mean_of(m, x, c);
    volume[c] = 0.0;
    for (int t = m.chamber_start[c]; t < m.chamber_start[c + 1]; ++t) {
      const auto& p = m.chamber_tri[t];
      const Vec3 y0 = x.segment<3>(3 * p[0]) - o, y1 = x.segment<3>(3 * p[1]) - o, y2 = x.segment<3>(3 * p[2]) - o;
      volume[c] += y0.dot(y1.cross(y2)) / 6.0;
    }
  }
}

void chamber_volumes(const Model& m, const VecX& x, VecX& volume) {
  volume.resize(m.nchamber);
  chamber_volumes(m, x, volume.data());
}

void add_pressure_forces(const Model& m, const VecX& x, const VecX& act, VecX& f) {
  for (int c = 0; c < m.nchamber; ++c) {
    const double pr = act[m.chamber_group[c]];
    if (pr == 0) continue;
    const Vec3 o = mean_of(m, x, c);
    for (int t = m.chamber_start[c]; t < m.chamber_start[c + 1]; ++t) {
      const auto& p = m.chamber_tri[t];
      const Vec3 y0 = x.segment<3>(3 * p[0]) - o, y1 = x.segment<3>(3 * p[1]) - o, y2 = x.segment<3>(3 * p[2]) - o;
      const double s = pr / 6.0;
      f.segment<3>(3 * p[0]) += s * y1.cross(y2);
      f.segment<3>(3 * p[1]) += s * y2.cross(y0);
      f.segment<3>(3 * p[2]) += s * y0.cross(y1);
    }
  }
}

void pressure_hessian(const Model& m, const VecX& x, const Vec3& o, int t, double pr, Mat3 H[9]) {
  const auto& p = m.chamber_tri[t];
  const Vec3 y[3] = {x.segment<3>(3 * p[0]) - o, x.segment<3>(3 * p[1]) - o, x.segment<3>(3 * p[2]) - o};
  const double s = pr / 6.0;
  for (int i = 0; i < 3; ++i) H[4 * i].setZero();
  // d2V/dx_i dx_j = -1/6 [y_k]x for (i, j, k) cyclic, +1/6 [y_k]x anticyclic
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    H[3 * i + j] = -s * cross_matrix(y[k]);
    H[3 * j + i] = H[3 * i + j].transpose();
  }
}

}  // namespace ncpgym
