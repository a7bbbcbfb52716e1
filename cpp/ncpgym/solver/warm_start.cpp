#include "ncpgym/solver/warm_start.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ncpgym {

namespace {

bool key_less(const int* a, const int* b) { return std::lexicographical_compare(a, a + kWarmKeys, b, b + kWarmKeys); }

}  // namespace

void contact_key(const Contact& c, int key[kWarmKeys]) {
  key[0] = c.geom1;
  key[1] = c.geom2;
  key[2] = c.particle1;
  key[3] = c.n1 > 0 ? c.p1[0] : -1;
  key[4] = c.n2 > 0 ? c.p2[0] : -1;
}

void WarmStart::record(const std::vector<Contact>& contacts, const double* lambda) {
  entries_.resize(contacts.size());  // no allocation once the world's largest count was met
  for (size_t c = 0; c < contacts.size(); ++c) {
    const Contact& k = contacts[c];
    WarmContact& e = entries_[c];
    contact_key(k, e.key);
    e.pos = k.pos;
    e.lambda = Vec3(lambda[3 * c], lambda[3 * c + 1], lambda[3 * c + 2]);
  }
  sort();
}

void WarmStart::sort() {
  // by key, ties by position: the same contacts give the same order (determinism)
  std::sort(entries_.begin(), entries_.end(), [](const WarmContact& a, const WarmContact& b) {
    if (key_less(a.key, b.key)) return true;
    if (key_less(b.key, a.key)) return false;
    return std::lexicographical_compare(a.pos.data(), a.pos.data() + 3, b.pos.data(), b.pos.data() + 3);
  });
}

void WarmStart::apply(const std::vector<Contact>& contacts, double* lambda, const double* reach) const {
  if (entries_.empty()) return;
  int key[kWarmKeys];
  for (size_t c = 0; c < contacts.size(); ++c) {
    const Contact& k = contacts[c];
    // Contacts that move a particle start from 0: warm-started, the soft grips loosened (the
    // strain gripper's held ball jittered 0.45-0.53 mm, the seed-mesh gripper's ball sank
    // below its bound), as a full warm start of soft rows did before (docs/architecture.md).
    if (moves_particle(k)) continue;
    contact_key(k, key);
    auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                               [](const WarmContact& e, const int* kk) { return key_less(e.key, kk); });
    const WarmContact* best = nullptr;
    double best_d = kWarmMatchDistance;
    if (reach) best_d = std::max({best_d, k.geom1 >= 0 ? reach[k.geom1] : 0.0, k.geom2 >= 0 ? reach[k.geom2] : 0.0});
    for (; it != entries_.end() && !key_less(key, it->key); ++it) {
      const double d = (it->pos - k.pos).norm();
      if (d < best_d) best_d = d, best = &*it;
    }
    if (!best) continue;
    for (int i = 0; i < 3; ++i) lambda[3 * c + i] = best->lambda[i];
  }
}

void WarmStart::write_rows(int world, double* out) const {
  for (const WarmContact& e : entries_) {
    *out++ = world;
    for (int k = 0; k < kWarmKeys; ++k) *out++ = e.key[k];
    for (int k = 0; k < 3; ++k) *out++ = e.pos[k];
    for (int k = 0; k < 3; ++k) *out++ = e.lambda[k];
  }
}

void WarmStart::read_rows(const double* rows, int n) {
  std::vector<WarmContact> read(static_cast<size_t>(n));  // the memory is kept on a bad row
  for (int i = 0; i < n; ++i) {
    const double* r = rows + static_cast<size_t>(i) * kWarmColumns;
    WarmContact& e = read[static_cast<size_t>(i)];
    for (int k = 0; k < kWarmKeys; ++k) {
      const double v = r[1 + k];
      if (!(v == std::floor(v)) || v < -1 || v > 2e9)
        throw std::invalid_argument("warm_start_state: row " + std::to_string(i) + " has a non-integer geom/particle id");
      e.key[k] = static_cast<int>(v);
    }
    for (int k = 0; k < 3; ++k) e.pos[k] = r[1 + kWarmKeys + k], e.lambda[k] = r[4 + kWarmKeys + k];
    if (!e.pos.allFinite() || !e.lambda.allFinite())
      throw std::invalid_argument("warm_start_state: row " + std::to_string(i) + " is not finite");
  }
  entries_.swap(read);
  sort();
}

}  // namespace ncpgym
