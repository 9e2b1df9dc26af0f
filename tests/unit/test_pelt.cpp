// SPDX-License-Identifier: GPL-2.0-only
#include <gtest/gtest.h>

#include "kernel/pelt.h"
#include "sim/random.h"

using namespace schedlab;
using kernel::sched_avg;

namespace {

void expect_same(const sched_avg &x, const sched_avg &y, int step) {
  EXPECT_EQ(x.last_update_time, y.last_update_time) << "step " << step;
  EXPECT_EQ(x.load_sum, y.load_sum) << "step " << step;
  EXPECT_EQ(x.runnable_sum, y.runnable_sum) << "step " << step;
  EXPECT_EQ(x.util_sum, y.util_sum) << "step " << step;
  EXPECT_EQ(x.period_contrib, y.period_contrib) << "step " << step;
}

}  // namespace

// The paired update (an entity and its queue at the same point of the PELT clock) must leave
// both exactly as two separate updates do, whatever their loads: spans within a period, across
// a few periods, across more than 32 (the halving path of decay_load) and more than 2016 (all
// decayed), a clock that went backwards, and entities with no load whose queue has some.
TEST(PeltSums, PairedUpdateEqualsTwoSeparateUpdates) {
  sim::Stream rng(11, {2});
  sched_avg a, b;
  a.last_update_time = b.last_update_time = 5'000'123;
  a.period_contrib = b.period_contrib = 317;
  a.load_sum = 40'000, a.runnable_sum = 30'000 << 10, a.util_sum = 20'000 << 10;
  b.load_sum = 9'000'000, b.runnable_sum = 50'000 << 10, b.util_sum = 45'000 << 10;
  sched_avg a2 = a, b2 = b;
  u64 now = a.last_update_time;
  int crossed = 0;
  for (int step = 0; step < 20'000; step++) {
    switch (rng.uniform_u64(0, 9)) {
      case 0:
        now += rng.uniform_u64(0, 1023);
        break;  // under one unit
      case 1:
        now += rng.uniform_u64(1024, 1'100'000);
        break;  // about one tick
      case 2:
        now += rng.uniform_u64(30'000'000, 90'000'000);
        break;  // > 32 periods
      case 3:
        now += rng.uniform_u64(3'000'000'000, 9'000'000'000);
        break;  // all decayed
      case 4:
        now -= rng.uniform_u64(0, 5'000);
        break;  // clock went back
      default:
        now += rng.uniform_u64(0, 4'000'000);
        break;
    }
    const unsigned long load_a = rng.uniform_u64(0, 1);  // an entity: on_rq or not
    const unsigned long load_b = rng.uniform_u64(0, 3) ? rng.uniform_u64(0, 88761) : 0;
    const unsigned long runnable_a = load_a && rng.uniform_u64(0, 1);
    const unsigned long runnable_b = rng.uniform_u64(0, 4);
    const int running_a = static_cast<int>(rng.uniform_u64(0, 1));
    const int running_b = static_cast<int>(rng.uniform_u64(0, 1));
    const bool paired = kernel::pelt::update_load_sum_pair(now, &a, load_a, runnable_a, running_a,
                                                           &b, load_b, runnable_b, running_b);
    const bool sep_a = kernel::pelt::update_load_sum(now, &a2, load_a, runnable_a, running_a);
    const bool sep_b = kernel::pelt::update_load_sum(now, &b2, load_b, runnable_b, running_b);
    ASSERT_EQ(paired, sep_a) << "step " << step;
    ASSERT_EQ(paired, sep_b) << "step " << step;
    crossed += paired;
    expect_same(a, a2, step);
    expect_same(b, b2, step);
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(crossed, 5'000);  // the decay paths did run
}

// decay_load() over whole half-lives: y^32 = 1/2, so 32 and 64 periods of nothing halve and
// quarter the sums (then the y^0 multiplier, 2^32 - 1 over 2^32, takes one off), and past
// 63 x 32 periods nothing is left.
TEST(PeltSums, WholeHalfLivesHalveTheSums) {
  constexpr u64 period_ns = 1024 * 1024;
  for (const auto &[periods, expect] :
       {std::pair<u64, u64>{32, 524287}, {64, 262143}, {96, 131071}, {2017, 0}}) {
    sched_avg sa;
    sa.last_update_time = 0;
    sa.period_contrib = 0;
    sa.load_sum = 1 << 20;
    kernel::pelt::update_load_sum(periods * period_ns, &sa, 0, 0, 0);
    EXPECT_EQ(sa.load_sum, expect) << periods << " periods";
  }
}
