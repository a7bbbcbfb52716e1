// Sensors (MJCF <sensor>): readings in MuJoCo's sensordata layout (sensor k's sensor_dim[k]
// values from sensor_adr[k]), computed from a world's state after its step. The types are
// MuJoCo's, with its definitions (XML reference, "sensor"); contact sensors read the forces
// ncpgym's solver applied in the step (the impulses / h, docs/architecture.md "Reported
// forces"), not MuJoCo's. Accelerometer, force and torque sensors read the step's mean
// acceleration (u+ - u-) / h and its contact forces at the state after it: MuJoCo's
// mj_rnePostConstraint (cacc, cfrc_int) with ncpgym's step in place of MuJoCo's. A positive
// cutoff clamps a reading as MuJoCo does.
#pragma once

#include <vector>

#include "ncpgym/collision/contact.hpp"
#include "ncpgym/dynamics/data.hpp"
#include "ncpgym/model/model.hpp"
#include "ncpgym/model/state.hpp"

namespace ncpgym {

class Stepper;

// d: kinematics and velocities at the state's (q, u) (body and site poses, cvel). qacc (nv):
// the trees' acceleration, read by accelerometer, force and torque sensors (may be null when the model
// has none). stepper: the step that led to (q, u), whose contacts and contact forces touch,
// force and torque sensors read; null: no contacts (after forward()). Uses d.acc and
// d.force as scratch. Writes m.nsensordata values.
void compute_sensors(const Model& m, Data& d, const State& s, const double* qacc, const Stepper* stepper, double* out);

// Whether the model has sensors that read an acceleration (accelerometer, force, torque).
bool has_acceleration_sensors(const Model& m);

// Whether the ray from p along dir (site frame: both already in it) meets the solid of a
// site of MuJoCo geom type `type` (sphere 2, capsule 3, ellipsoid 4, cylinder 5, box 6) and
// half-sizes `size` at a distance >= 0 (a start inside counts).
bool ray_meets_site(int type, const Vec3& size, const Vec3& p, const Vec3& dir);

}  // namespace ncpgym
