// The contact impulses of a world's last step, kept to start the next step's Newton
// iteration from them (option warm_start) instead of lambda = 0 (eq. 68 of
// nonsmooth-newton-ncp.txt). A departure from the seed: why, and the figures, are in
// docs/architecture.md ("Warm start").
//
// The memory belongs to a world, not to a solver: a Batch keeps one per world and lends it
// to the stepper of the thread that steps the world, so the result does not depend on the
// thread count or on which worlds a thread stepped before (bitwise determinism).
#pragma once

#include <vector>

#include "ncpgym/collision/contact.hpp"

namespace ncpgym {

struct WarmContact {
  // What identifies a contact across steps: the geoms, the particle of side A, and the first
  // particle of each soft side (a soft triangle's point); the position must also be within
  // kWarmMatchDistance of the new contact's.
  int key[5];
  Vec3 pos;
  // The multipliers (normal, t1, t2) in the contact's own basis, copied as they are (the
  // seed's and the pre-session-28 rule). Why not a world-frame force turned with the normal
  // and read in the new basis: on the piles that was worse over every start measured (the
  // table pile's transient 33-279 mm against 2.2-3.8 mm, docs/architecture.md "Warm start").
  Vec3 lambda;
};

inline constexpr int kWarmKeys = 5;
inline constexpr int kWarmColumns = 1 + kWarmKeys + 6;
inline constexpr double kWarmMatchDistance = 1e-3;  // m

class WarmStart {
 public:
  // Keeps the step's contacts and their multipliers (3 per contact: normal, t1, t2).
  void record(const std::vector<Contact>& contacts, const double* lambda);
  // Writes the remembered impulse of each contact that matches one of the last step (the
  // nearest within kWarmMatchDistance with the same key) into lambda (3 per contact); the
  // others, and every contact that moves a particle, are left as they are.
  // reach (per geom, or null): how far each geom may move over the step (the detection's
  // sweep); with it a contact of geoms g1, g2 matches within max(kWarmMatchDistance,
  // reach[g1], reach[g2]), so that the contacts of a sliding or rolling body, which move with
  // it, are found again (option start_from_motion).
  void apply(const std::vector<Contact>& contacts, double* lambda, const double* reach = nullptr) const;
  void clear() { entries_.clear(); }
  bool empty() const { return entries_.empty(); }
  void reserve(size_t n) { entries_.reserve(n); }
  std::vector<WarmContact>& entries() { return entries_; }  // sorted by key (record)
  const std::vector<WarmContact>& entries() const { return entries_; }
  void swap(WarmStart& other) noexcept { entries_.swap(other.entries_); }

  // Saving and restoring a world (Simulator/Batch.warm_start_state): one row of
  // kWarmColumns numbers per remembered contact, [world, key (5), pos (3), lambda (3)].
  void write_rows(int world, double* out) const;
  // Replaces the memory with n such rows (their world column is not read); throws
  // std::invalid_argument on a non-integer key or non-finite numbers.
  void read_rows(const double* rows, int n);

 private:
  void sort();
  std::vector<WarmContact> entries_;
};

void contact_key(const Contact& c, int key[kWarmKeys]);

}  // namespace ncpgym
