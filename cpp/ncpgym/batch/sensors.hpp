// Sensors (MJCF <sensor>): readings in MuJoCo's sensordata layout (sensor k's sensor_dim[k]
// values from sensor_adr[k]), computed from a world's state after its step. The types are
// MuJoCo's, with its definitions (XML reference, "sensor"); contact sensors read the forces
// ncpgym's solver applied in the step (the impulses / h, docs/architecture.md "Reported
// forces"), not MuJoCo's. A positive cutoff clamps a reading as MuJoCo does.
#pragma once

#include <vector>

#include "ncpgym/collision/contact.hpp"
#include "ncpgym/dynamics/data.hpp"
#include "ncpgym/model/model.hpp"

namespace ncpgym {

// d: kinematics and velocities at (q, u) (body and site poses, cvel); contacts and their forces (normal and two
// tangents per contact, N) from the last step, or none. Writes m.nsensordata values.
void compute_sensors(const Model& m, const Data& d, const double* q, const double* u, const double* ctrl,
                     const std::vector<Contact>* contacts, const double* contact_force, double* out);

// Whether the ray from p along dir (site frame: both already in it) meets the solid of a
// site of MuJoCo geom type `type` (sphere 2, capsule 3, ellipsoid 4, cylinder 5, box 6) and
// half-sizes `size` at a distance >= 0 (a start inside counts).
bool ray_meets_site(int type, const Vec3& size, const Vec3& p, const Vec3& dir);

}  // namespace ncpgym
