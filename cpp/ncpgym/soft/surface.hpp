// Soft bodies' boundary surfaces (connected components of tetrahedra, outward boundary
// triangles, edge ownership, boundary vertices), filled into the Model by Builder::build.
#pragma once

#include "ncpgym/model/model.hpp"

namespace ncpgym {

void build_soft_surfaces(Model& m);

}  // namespace ncpgym
