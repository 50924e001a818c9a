#pragma once

#include <cmath>
#include <cstdint>

namespace sdma {

// Deterministic PRNG (xoshiro256** seeded through splitmix64). The standard library's
// distributions are avoided on purpose: their output differs between implementations,
// and the simulator promises identical numbers for the same --seed everywhere.

inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Folds one more value into a seed, so independent streams can be derived from a tuple.
inline std::uint64_t mixSeed(std::uint64_t seed, std::uint64_t value) {
  std::uint64_t state = seed ^ (value * 0xD1B54A32D192ED03ull);
  return splitmix64(state);
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    std::uint64_t s = seed;
    for (std::uint64_t& word : state_) word = splitmix64(s);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // [0, 1) with 53 random bits.
  double uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform01(); }

  // Standard normal by Box-Muller; the second value of each pair is kept for the next call.
  double normal() {
    if (hasSpare_) {
      hasSpare_ = false;
      return spare_;
    }
    const double u1 = 1.0 - uniform01();  // (0, 1]: log stays finite
    const double u2 = uniform01();
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double angle = 6.283185307179586 * u2;
    spare_ = radius * std::sin(angle);
    hasSpare_ = true;
    return radius * std::cos(angle);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  std::uint64_t state_[4];
  bool hasSpare_ = false;
  double spare_ = 0.0;
};

}  // namespace sdma
