// Contact filtering, MuJoCo's rules: which geom pairs may collide (not on one body or on
// bodies welded together, not both static, not parent and child (as welded groups), not
// excluded, contype/conaffinity bits) and which
// geoms take particles and soft bodies.
#pragma once

#include "ncpgym/model/model.hpp"

namespace ncpgym {

// Whether geoms g1 and g2 may collide under the model's filtering rules (an explicit
// contact pair is not: it is collided from the model's pair list).
bool geoms_may_collide(const Model& m, int g1, int g2);

// Whether a geom collides with particles and soft bodies (conaffinity bit 1).
bool accepts_particles(const Model& m, int g);

}  // namespace ncpgym
