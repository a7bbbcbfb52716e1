// Contacts that follow the bodies within a step (issue 16, item 5).
//
// The seed detects contacts once per step and keeps their features for the Newton
// iterations (nonsmooth-newton-ncp.txt, Algorithm 1): the rows are re-evaluated at every
// iterate from body-fixed points (constraints/contact_rows.cpp), so a contact point found
// at q^n follows its bodies, but a feature that was not in the manifold at q^n (a box
// edge that tumbles down during the step, a corner beyond the 4 points kept by manifold
// reduction) has no row and sinks until the next step finds it. Here the step collides
// once more at its result q^{n+1}; a contact deeper than refresh_depth that no contact of
// the step covers (same geom pair, core points within a quarter of the smaller geom's
// inner radius on both bodies, and its row at q^{n+1} as deep) joins the contacts, and the
// step is solved again with the enlarged set (Stepper::step: up to kRefreshRounds times).
// We chose this over persistent manifolds (MuJoCo-style speculative corners, Bullet's
// contact caches) because it needs no state between steps
// (batches stay bitwise reproducible and resettable per world) and costs one collision
// pass per step plus a second solve only in the steps that miss a feature; the figures
// are in docs/architecture.md "Contacts within a step".
#include <algorithm>

#include "ncpgym/constraints/contact_rows.hpp"
#include "ncpgym/dynamics/algorithms.hpp"
#include "ncpgym/solver/stepper.hpp"

namespace ncpgym {

bool Stepper::refresh_contacts(const State& s, double h) {
  const Model& m = *m_;
  if (opt_.refresh_depth <= 0 || m.nbody <= 1) return false;
  integrate(m, s.q.data(), u_.data(), h, qn_.data());
  kinematics(m, dk_, qn_.data(), false);
  posed_q_ = qn_;  // every body at the step's result, unless contacts join below
  CollisionOptions coll = opt_.collision;
  coll.margin = opt_.thickness;  // touching or deeper only
  detect_contacts(m, dk_, coll, fresh_, nullptr);
  const size_t before = contacts_.size();
  for (const Contact& f : fresh_) {
    if (f.dist - opt_.thickness - f.margin > -opt_.refresh_depth) continue;
    double cover = 1e300;
    for (int g : {f.geom1, f.geom2})
      if (m.geom_type[g] != GeomType::Plane) cover = std::min(cover, 0.25 * inner_radius(m, g));
    bool covered = false;
    for (size_t c = 0; c < before && !covered; ++c) {
      const Contact& k = contacts_[c];
      covered = k.geom1 == f.geom1 && k.geom2 == f.geom2 && (k.local1 - f.local1).norm() < cover &&
                (k.local2 - f.local2).norm() < cover;
      if (covered && !moves_particle(k)) {
        // ... and only if that contact's row sees the depth at q+ (within half the
        // threshold): a nearby contact whose normal or point no longer measures the overlap
        // (a rock turning about it) does not hold it, and the rocks' deepest state was 2.5 mm
        // with the distance test alone (1.0 mm with this one and the rounds of step())
        Vec3 a, b;
        contact_witnesses(dk_, s.x, k, a, b);
        covered = k.normal.dot(a - b) <= f.dist + 0.5 * opt_.refresh_depth;
      }
    }
    if (!covered) contacts_.push_back(f);
  }
  posed_valid_ = contacts_.size() == before;
  if (posed_valid_) return false;
  // the new contacts' dist at the start of the step, as every other contact's
  copy_poses(dH_, dk_);  // the bodies at q-, as free_velocity left them
  for (size_t c = before; c < contacts_.size(); ++c) {
    Contact& k = contacts_[c];
    Vec3 a, b;
    contact_witnesses(dk_, s.x, k, a, b);
    k.dist = k.normal.dot(a - b);
  }
  return true;
}

}  // namespace ncpgym
