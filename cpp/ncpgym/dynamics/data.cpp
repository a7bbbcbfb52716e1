#include "ncpgym/dynamics/data.hpp"

namespace ncpgym {

Data::Data(const Model& m)
    : xpos(m.nbody, Vec3::Zero()),
      xmat(m.nbody, Mat3::Identity()),
      xipos(m.nbody, Vec3::Zero()),
      xanchor(m.njnt, Vec3::Zero()),
      site_xpos(m.nsite, Vec3::Zero()),
      site_xmat(m.nsite, Mat3::Identity()),
      cdof(Mat6X::Zero(6, m.nv)),
      cvel(m.nbody, Vec6::Zero()),
      cdofdot(Mat6X::Zero(6, m.nv)),
      cbias(m.nbody, Vec6::Zero()),
      cacc0(m.nbody, Vec6::Zero()),
      cinert(m.nbody, Mat6::Zero()),
      IA(m.nbody, Mat6::Zero()),
      pA(m.nbody, Vec6::Zero()),
      U(Mat6X::Zero(6, m.nv)),
      dinv(VecX::Zero(m.nv)),
      uu(VecX::Zero(m.nv)),
      acc(m.nbody, Vec6::Zero()),
      force(m.nbody, Vec6::Zero()),
      qacc(VecX::Zero(m.nv)),
      tau(VecX::Zero(m.nv)),
      M(MatX::Zero(m.nv, m.nv)),
      iim_lo(m.nbody, 0),
      iim_hi(m.nbody, 0),
      iim_p(m.nbody, Vec6::Zero()),
      iim_a(m.nbody, Vec6::Zero()) {}

}  // namespace ncpgym
