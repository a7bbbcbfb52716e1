// Counter-based random numbers: the value is a pure function of (key, counter), so a
// world's stream depends only on its own seed and how many numbers it has drawn, never on
// the number of worlds or the thread that steps it. The mixer is the splitmix64 finaliser
// (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014)
// applied to a Weyl sequence keyed by the seed; written here because it is ten lines.
#pragma once

#include <cstdint>

namespace ncpgym {

inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// 64 random bits number `counter` of the stream `key`.
inline uint64_t random_bits(uint64_t key, uint64_t counter) {
  return mix64(mix64(key) + (counter + 1) * 0x9e3779b97f4a7c15ULL);
}

// Uniform double in [0, 1) with 53 random bits.
inline double random_unit(uint64_t key, uint64_t counter) {
  return static_cast<double>(random_bits(key, counter) >> 11) * 0x1.0p-53;
}

// The key of world `index` after reset(seed): independent of the batch size.
inline uint64_t world_key(uint64_t seed, uint64_t index) { return mix64(mix64(seed) ^ mix64(index + 0x5851f42d4c957f2dULL)); }

}  // namespace ncpgym
