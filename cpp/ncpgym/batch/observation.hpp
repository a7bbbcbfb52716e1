// A fused observation (issue 23): the concatenation of slices of a world's state and derived
// arrays, gathered in C++ at the end of each world's step (inside the parallel loop, while
// the world's data is in cache) instead of by NumPy over all worlds afterwards. For tasks
// whose observation is only such slices (Humanoid-v0: MuJoCo's q[2:], qvel, cinert,
// cvel, qfrc_actuator, cfrc_ext).
#pragma once

#include <string>
#include <vector>

namespace ncpgym {

// The per-world arrays a segment may read, each one world's row of the Batch array of the
// same name.
enum class ObsField : int { Q, U, XPOS, XQUAT, XIPOS, CINERT, CVEL, CFRC_EXT, QFRC_ACTUATOR, SITE_XPOS };

struct ObsSegment {
  ObsField field;
  int offset;  // first number within the world's row of `field`
  int length;
};

// The field named as the Batch property ("q", "cinert", ...); std::invalid_argument otherwise.
ObsField obs_field(const std::string& name);
const char* obs_field_name(ObsField f);

}  // namespace ncpgym
