// Which particles belong to one deformable piece (written for ncpgym): the connected
// components of the graph whose edges are tetrahedra, rod edges (with their ghosts), shell
// triangles, stretch and distance rows. Contacts between deformables use it to tell a
// piece touching itself (folded shell, looped rod) from neighbours that touch by
// construction (collision/deformable_contact.cpp).
#pragma once

#include "ncpgym/model/model.hpp"

namespace ncpgym {

// Fills m.particle_component (nparticle): the smallest particle index of each particle's
// component, so the labels do not depend on the order the elements were added in.
void build_particle_components(Model& m);

}  // namespace ncpgym
