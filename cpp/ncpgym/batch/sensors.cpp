#include "ncpgym/batch/sensors.hpp"

#include <algorithm>
#include <cmath>

#include "ncpgym/collision/geom.hpp"
#include "ncpgym/dynamics/actuation.hpp"
#include "ncpgym/dynamics/algorithms.hpp"
#include "ncpgym/dynamics/kinematics.hpp"
#include "ncpgym/dynamics/tendon.hpp"
#include "ncpgym/solver/stepper.hpp"

namespace ncpgym {

namespace {

// The smallest t >= 0 root of a t^2 + 2 b t + c = 0 exists (the ray enters or is inside).
bool quadratic_hit(double a, double b, double c) {
  if (c <= 0) return true;  // the start is inside
  const double disc = b * b - a * c;
  return disc >= 0 && b < 0 && a > 0;  // both roots positive when c > 0: they exist and b < 0
}

bool ray_sphere(const Vec3& p, const Vec3& d, double r) { return quadratic_hit(d.dot(d), p.dot(d), p.dot(p) - r * r); }

// the infinite cylinder about z of radius r, between z = -h and h
bool ray_cylinder(const Vec3& p, const Vec3& d, double r, double h) {
  // the ray's interval within the slab |z| <= h, then within the round side
  double t0 = 0, t1 = INFINITY;
  if (d.z() == 0) {
    if (std::abs(p.z()) > h) return false;
  } else {
    double a = (-h - p.z()) / d.z(), b = (h - p.z()) / d.z();
    if (a > b) std::swap(a, b);
    t0 = std::max(t0, a);
    t1 = std::min(t1, b);
  }
  const double A = d.x() * d.x() + d.y() * d.y(), B = p.x() * d.x() + p.y() * d.y(),
               C = p.x() * p.x() + p.y() * p.y() - r * r;
  if (A == 0) return C <= 0 && t0 <= t1;
  const double disc = B * B - A * C;
  if (disc < 0) return false;
  const double s = std::sqrt(disc);
  t0 = std::max(t0, (-B - s) / A);
  t1 = std::min(t1, (-B + s) / A);
  return t0 <= t1;
}

bool ray_box(const Vec3& p, const Vec3& d, const Vec3& h) {
  double t0 = 0, t1 = INFINITY;  // slabs
  for (int i = 0; i < 3; ++i) {
    if (d[i] == 0) {
      if (std::abs(p[i]) > h[i]) return false;
      continue;
    }
    double a = (-h[i] - p[i]) / d[i], b = (h[i] - p[i]) / d[i];
    if (a > b) std::swap(a, b);
    t0 = std::max(t0, a);
    t1 = std::min(t1, b);
  }
  return t0 <= t1;
}

Vec3 frame_pos(const Model& m, const Data& d, int objtype, int id) {
  switch (objtype) {
    case 0: return d.site_xpos[id];   // site
    case 1: return d.xipos[id];       // body: its inertial frame (MuJoCo's "body")
    case 2: return d.xpos[id];        // xbody: its own frame
    default: return geom_pose(m, d, id).pos;
  }
}

Mat3 frame_rot(const Model& m, const Data& d, int objtype, int id) {
  switch (objtype) {
    case 0: return d.site_xmat[id];
    case 1: return d.xmat[id] * m.body_iquat[id].toRotationMatrix();  // the inertial frame
    case 2: return d.xmat[id];
    default: return geom_pose(m, d, id).rot;
  }
}

int frame_body(const Model& m, int objtype, int id) {
  return objtype == 0 ? m.site_body[id] : objtype == 3 ? m.geom_body[id] : id;
}

// world velocity of the point p moving with body b (d.cvel: twist about the world origin)
Vec3 point_velocity_of(const Data& d, int b, const Vec3& p) {
  return d.cvel[b].tail<3>() + d.cvel[b].head<3>().cross(p);
}

bool in_subtree(const Model& m, int root, int b) {
  while (b > root) b = m.body_parent[b];
  return b == root;
}

// the subtree of `root`: its centre of mass, the velocity of that centre and its angular
// momentum about it (MuJoCo's subtree_com, subtree_linvel, subtree_angmom)
void subtree(const Model& m, const Data& d, int root, Vec3& com, Vec3& vel, Vec3& angmom) {
  double mass = 0;
  com.setZero();
  vel.setZero();
  for (int b = root; b < m.nbody; ++b)
    if (in_subtree(m, root, b)) {
      mass += m.body_mass[b];
      com += m.body_mass[b] * d.xipos[b];
      vel += m.body_mass[b] * point_velocity_of(d, b, d.xipos[b]);
    }
  if (mass > 0) {
    com /= mass;
    vel /= mass;
  }
  angmom.setZero();
  for (int b = root; b < m.nbody; ++b)
    if (in_subtree(m, root, b)) {
      const Vec3 w = d.cvel[b].head<3>();
      const Mat3 Iw = d.xmat[b] * m.body_inertia[b] * d.xmat[b].transpose();
      angmom += Iw * w + m.body_mass[b] * (d.xipos[b] - com).cross(point_velocity_of(d, b, d.xipos[b]) - vel);
    }
}

// MuJoCo's touch: the normal forces of the contacts of geoms on the site's body whose point
// is in the site's zone or whose normal ray from the point out of that body meets it (its
// re-projection, for points that sank below a zone on the surface; checked against MuJoCo in
// tests/python/test_sensors.py)
double touch(const Model& m, const Data& d, int site, const std::vector<Contact>& cs, const double* f) {
  const int body = m.site_body[site];
  const Mat3& R = d.site_xmat[site];
  double sum = 0;
  for (size_t k = 0; k < cs.size(); ++k) {
    const Contact& c = cs[k];
    const bool on1 = c.n1 == 0 && c.geom1 >= 0 && c.body1 == body, on2 = c.n2 == 0 && c.body2 == body;
    if (!(on1 || on2) || !(f[3 * k] > 0)) continue;
    const Vec3 dir = on1 ? Vec3(-c.normal) : Vec3(c.normal);  // the normal points into body 1
    const Vec3 p = R.transpose() * (c.pos - d.site_xpos[site]);
    if (ray_meets_site(m.site_type[site], m.site_size[site], p, R.transpose() * dir)) sum += f[3 * k];
  }
  return sum;
}

// MuJoCo's cacc and cfrc_int (mj_rnePostConstraint) at the trees' acceleration qacc: d.acc[b]
// the body's spatial acceleration with gravity as the base's, d.force[b] the spatial force
// (about the world origin) its parent exerts on the subtree of b: what the subtree's motion
// needs less the contact forces on it (MuJoCo's cfrc_ext, which joint-space forces are not).
void interaction_forces(const Model& m, Data& d, const double* qacc, const Stepper* st) {
  body_inertias(m, d);  // Batch poses the bodies without them
  body_forces(m, d, qacc);
  if (st) {
    const auto& cs = st->contacts();
    const auto f = st->contact_forces();
    for (size_t k = 0; k < cs.size(); ++k) {
      const Contact& c = cs[k];
      const Vec3 F = f[3 * k] * c.normal + f[3 * k + 1] * c.tangent1 + f[3 * k + 2] * c.tangent2;  // on body 1
      Vec6 w;
      w << c.pos.cross(F), F;
      if (c.condim > 3) w.head<3>() += st->contact_torque(static_cast<int>(k));
      if (c.n1 == 0 && c.body1 > 0) d.force[c.body1] -= w;
      if (c.n2 == 0 && c.body2 > 0) d.force[c.body2] += w;
    }
  }
  for (int b = m.nbody - 1; b > 0; --b)
    if (m.body_parent[b] > 0) d.force[m.body_parent[b]] += d.force[b];
}

}  // namespace

bool has_acceleration_sensors(const Model& m) {
  for (SensorType t : m.sensor_type)
    if (t == SensorType::Accelerometer || t == SensorType::Force || t == SensorType::Torque) return true;
  return false;
}

bool ray_meets_site(int type, const Vec3& size, const Vec3& p, const Vec3& dir) {
  switch (type) {
    case 2: return ray_sphere(p, dir, size[0]);
    case 3:
      return ray_cylinder(p, dir, size[0], size[1]) || ray_sphere(p - Vec3(0, 0, size[1]), dir, size[0]) ||
             ray_sphere(p + Vec3(0, 0, size[1]), dir, size[0]);
    case 4: {
      const Vec3 s = size.cwiseInverse();  // the unit sphere in scaled coordinates
      return ray_sphere(p.cwiseProduct(s), dir.cwiseProduct(s), 1.0);
    }
    case 5: return ray_cylinder(p, dir, size[0], size[1]);
    case 6: return ray_box(p, dir, size);
  }
  return false;
}

void compute_sensors(const Model& m, Data& d, const State& s, const double* qacc, const Stepper* stepper, double* out) {
  const double *q = s.q.data(), *u = s.u.data();
  bool forces = false;  // interaction_forces() done
  for (int k = 0; k < m.nsensor; ++k) {
    double* o = out + m.sensor_adr[k];
    const int id = m.sensor_obj[k];
    const double scale = m.sensor_scale[k];
    const int ot = m.sensor_objtype[k];
    const auto put3 = [&](const Vec3& v) { o[0] = v[0], o[1] = v[1], o[2] = v[2]; };
    switch (m.sensor_type[k]) {
      case SensorType::Touch:
        o[0] = stepper ? touch(m, d, id, stepper->contacts(), stepper->contact_forces().data()) : 0.0;
        break;
      case SensorType::JointPos: o[0] = q[m.jnt_qposadr[id]]; break;
      case SensorType::JointVel: o[0] = u[m.jnt_dofadr[id]]; break;
      case SensorType::TendonPos: o[0] = tendon_length(m, d, id, q); break;
      case SensorType::TendonVel: o[0] = tendon_rate(m, d, id, u); break;
      case SensorType::ActuatorPos: o[0] = scale * m.act_gear[id] * actuated_coordinate(m, d, id, q); break;
      case SensorType::ActuatorVel: o[0] = scale * m.act_gear[id] * actuated_rate(m, d, id, u); break;
      case SensorType::ActuatorFrc:
        o[0] = scale * actuator_force(m, id, actuator_input(m, id, s.ctrl.data(), s.actuator_act.data()),
                                      actuated_coordinate(m, d, id, q), actuated_rate(m, d, id, u));
        break;
      case SensorType::FramePos: put3(frame_pos(m, d, ot, id)); break;
      case SensorType::FrameQuat: {
        Quat qt(frame_rot(m, d, ot, id));
        if (qt.w() < 0) qt.coeffs() = -qt.coeffs();  // MuJoCo's sign: w >= 0
        o[0] = qt.w(), o[1] = qt.x(), o[2] = qt.y(), o[3] = qt.z();
        break;
      }
      case SensorType::Gyro: put3(d.site_xmat[id].transpose() * d.cvel[m.site_body[id]].head<3>()); break;
      case SensorType::Velocimeter:
        put3(d.site_xmat[id].transpose() * point_velocity_of(d, m.site_body[id], d.site_xpos[id]));
        break;
      case SensorType::FrameLinVel: put3(point_velocity_of(d, frame_body(m, ot, id), frame_pos(m, d, ot, id))); break;
      case SensorType::FrameAngVel: put3(d.cvel[frame_body(m, ot, id)].head<3>()); break;
      case SensorType::FrameXAxis: put3(frame_rot(m, d, ot, id).col(0)); break;
      case SensorType::FrameYAxis: put3(frame_rot(m, d, ot, id).col(1)); break;
      case SensorType::FrameZAxis: put3(frame_rot(m, d, ot, id).col(2)); break;
      case SensorType::Accelerometer:
      case SensorType::Force:
      case SensorType::Torque: {
        if (!forces) interaction_forces(m, d, qacc, stepper);
        forces = true;
        const int b = m.site_body[id];
        const Vec3& p = d.site_xpos[id];
        const Mat3& R = d.site_xmat[id];
        const Vec6 &a = d.acc[b], &f = d.force[b];
        if (m.sensor_type[k] == SensorType::Accelerometer)  // the point's classical acceleration
          put3(R.transpose() * (a.tail<3>() + a.head<3>().cross(p) +
                                d.cvel[b].head<3>().cross(point_velocity_of(d, b, p))));
        else if (m.sensor_type[k] == SensorType::Force)
          put3(R.transpose() * f.tail<3>());
        else  // the torque about the site
          put3(R.transpose() * (f.head<3>() - p.cross(f.tail<3>())));
        break;
      }
      case SensorType::SubtreeCom:
      case SensorType::SubtreeLinVel:
      case SensorType::SubtreeAngMom: {
        Vec3 com, vel, angmom;
        subtree(m, d, id, com, vel, angmom);
        put3(m.sensor_type[k] == SensorType::SubtreeCom ? com : m.sensor_type[k] == SensorType::SubtreeLinVel ? vel : angmom);
        break;
      }
    }
    const double cut = m.sensor_cutoff[k];
    if (cut > 0 && m.sensor_type[k] != SensorType::FrameQuat)
      for (int i = 0; i < m.sensor_dim[k]; ++i) o[i] = std::clamp(o[i], -cut, cut);
  }
}

}  // namespace ncpgym
