// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Division by the PELT divider (LOAD_AVG_MAX - 1024 + period_contrib) without a divide
// instruction. The kernel divides; so does this, in effect: the quotient is the same integer.
// It is here because three such divisions per update made hardware division the largest single
// cost of update_load_avg() (docs/performance.md).
//
// With m = ceil(2^64 / d) and e = m*d - 2^64 < d < 2^16, floor(n*m / 2^64) = floor(n / d) for
// every n < 2^48: n*m / 2^64 = n/d + n*e / (d*2^64), and n*e < 2^64 keeps the excess below 1/d.
// Larger sums (cfs_rq load sums of thousands of heavy tasks) take the divide instruction.
#include <array>

#include "sim/time.h"

namespace schedlab::kernel::pelt {

inline constexpr u32 LOAD_AVG_PERIOD = 32;
inline constexpr u32 LOAD_AVG_MAX = 47742;  // the sum of 1024 * y^n over all n >= 0, truncated
inline constexpr u32 PELT_MIN_DIVIDER = LOAD_AVG_MAX - 1024;

inline constexpr std::array<u64, 1024> kDividerReciprocal = [] {
  std::array<u64, 1024> m{};
  for (u32 c = 0; c < 1024; c++) {
    const u64 d = PELT_MIN_DIVIDER + c;
    m[c] = static_cast<u64>(((static_cast<unsigned __int128>(1) << 64) + d - 1) / d);
  }
  return m;
}();

// n / (PELT_MIN_DIVIDER + period_contrib), period_contrib < 1024.
inline u64 div_by_divider(u64 n, u32 period_contrib) {
  if (n >> 48) return n / (PELT_MIN_DIVIDER + period_contrib);
  return static_cast<u64>(
      (static_cast<unsigned __int128>(n) * kDividerReciprocal[period_contrib]) >> 64);
}

}  // namespace schedlab::kernel::pelt
