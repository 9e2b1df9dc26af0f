// SPDX-License-Identifier: GPL-2.0-only
#include <gtest/gtest.h>

#include "kernel/pelt_div.h"
#include "sim/random.h"

using namespace schedlab;
using kernel::pelt::div_by_divider;
using kernel::pelt::PELT_MIN_DIVIDER;

// The reciprocal must give the kernel's quotient for every divider, at the edges where a
// rounding error would show first (multiples of the divider and one below them), across the
// 2^48 boundary where it hands over to the divide instruction, and on random sums.
TEST(PeltDivider, SameQuotientAsDivision) {
  sim::Stream rng(7, {1});
  for (u32 pc = 0; pc < 1024; pc++) {
    const u64 d = PELT_MIN_DIVIDER + pc;
    for (u64 n : {u64{0}, u64{1}, d - 1, d, d + 1, u64{47742} * 1024, (u64{1} << 48) - 1,
                  u64{1} << 48, ~u64{0}}) {
      ASSERT_EQ(div_by_divider(n, pc), n / d) << "n=" << n << " pc=" << pc;
    }
    const u64 top = ((u64{1} << 48) - 1) / d;  // the largest quotient on the reciprocal path
    for (u64 q : {u64{1}, u64{1024}, top / 2, top}) {
      ASSERT_EQ(div_by_divider(q * d - 1, pc), q - 1) << "q=" << q << " pc=" << pc;
      ASSERT_EQ(div_by_divider(q * d, pc), q) << "q=" << q << " pc=" << pc;
    }
    for (int i = 0; i < 200; i++) {
      const u64 n = rng.next() >> (rng.next() % 64);
      ASSERT_EQ(div_by_divider(n, pc), n / d) << "n=" << n << " pc=" << pc;
    }
  }
}
