// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Seeded, splittable random streams.
//
// Generator: xoshiro256** (Blackman & Vigna, 2018), seeded through SplitMix64. A stream is
// named by (run seed, a path of integers such as {task id, purpose}); its state is SplitMix64
// run over a hash of that path, so adding a task or a purpose never shifts another stream.
// That is what gives every configuration of an experiment the same demands (common random
// numbers).
//
// The conversions are our own, so results do not depend on the standard library:
//  - uniform_u64(lo, hi): Lemire's multiply-shift with rejection: exact, unbiased, integer;
//  - uniform01(): the top 53 bits as a double in [0, 1);
//  - exponential(mean): inversion, -mean * ln(1 - U);
//  - normal(mean, sd): Marsaglia's polar method; the second value of each pair is kept.
// The floating-point conversions use only +, *, / , sqrt and log, which IEEE 754 and glibc
// give identically on every x86-64 and arm64 Debian machine.
#include <cstdint>
#include <initializer_list>

#include "sim/time.h"

namespace schedlab::sim {

u64 splitmix64(u64 &state);

class Stream {
 public:
  Stream() : Stream(0, {}) {}
  Stream(u64 seed, std::initializer_list<u64> path);

  u64 next();
  // Uniform integer in [lo, hi], both inclusive. Precondition: lo <= hi.
  u64 uniform_u64(u64 lo, u64 hi);
  double uniform01();
  double exponential(double mean);
  double normal(double mean, double sd);

 private:
  u64 s_[4];
  double spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace schedlab::sim
