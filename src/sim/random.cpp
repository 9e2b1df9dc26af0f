// SPDX-License-Identifier: GPL-2.0-only
#include "sim/random.h"

#include <cmath>

namespace schedlab::sim {

u64 splitmix64(u64 &state) {
  u64 z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static inline u64 rotl(u64 x, int k) {
  return (x << k) | (x >> (64 - k));
}

Stream::Stream(u64 seed, std::initializer_list<u64> path) {
  // Hash the path by chaining SplitMix64: each element perturbs the state, then mixes it.
  u64 h = seed ^ 0x5ced1ab5eedULL;
  (void)splitmix64(h);
  for (u64 v : path) {
    h ^= v * 0xd1342543de82ef95ULL + 0x2545f4914f6cdd1dULL;
    h = splitmix64(h);
  }
  u64 st = h;
  for (u64 &w : s_) w = splitmix64(st);
  if ((s_[0] | s_[1] | s_[2] | s_[3]) == 0) s_[0] = 1;  // the all-zero state is a fixed point
}

u64 Stream::next() {
  const u64 result = rotl(s_[1] * 5, 7) * 9;
  const u64 t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

u64 Stream::uniform_u64(u64 lo, u64 hi) {
  const u64 span = hi - lo;
  if (span == ~u64{0}) return next();
  const u64 range = span + 1;
  // Lemire (2019): the high word of x * range is uniform once the biased low region is rejected.
  unsigned __int128 m = static_cast<unsigned __int128>(next()) * range;
  u64 low = static_cast<u64>(m);
  if (low < range) {
    const u64 threshold = (0 - range) % range;
    while (low < threshold) {
      m = static_cast<unsigned __int128>(next()) * range;
      low = static_cast<u64>(m);
    }
  }
  return lo + static_cast<u64>(m >> 64);
}

double Stream::uniform01() {
  return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

double Stream::exponential(double mean) {
  return -mean * std::log(1.0 - uniform01());
}

double Stream::normal(double mean, double sd) {
  if (has_spare_) {
    has_spare_ = false;
    return mean + sd * spare_;
  }
  double u, v, s;
  do {
    u = 2.0 * uniform01() - 1.0;
    v = 2.0 * uniform01() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double f = std::sqrt(-2.0 * std::log(s) / s);
  spare_ = v * f;
  has_spare_ = true;
  return mean + sd * u * f;
}

}  // namespace schedlab::sim
