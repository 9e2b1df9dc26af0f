// SPDX-License-Identifier: GPL-2.0-only
// The latency histogram against exact order statistics: what observe/histogram.h promises
// (exact below 256, then at most 1/128, under 0.8 %, above the true sample) on random samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "observe/histogram.h"
#include "sim/random.h"

using namespace schedlab;

namespace {

// The q-quantile as percentile() defines it: the sample of rank ceil(q n), at least the first.
u64 order_statistic(const std::vector<u64> &sorted, double q) {
  auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::max<std::size_t>(rank, 1) - 1];
}

void check(const std::vector<u64> &samples, const char *what) {
  observe::Histogram h;
  for (u64 v : samples) h.add(v);
  std::vector<u64> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_EQ(h.count(), sorted.size()) << what;
  EXPECT_EQ(h.min(), sorted.front()) << what;
  EXPECT_EQ(h.max(), sorted.back()) << what;
  for (double q : {0.0, 0.001, 0.1, 0.5, 0.9, 0.95, 0.99, 0.999, 1.0}) {
    const u64 exact = order_statistic(sorted, q);
    const u64 got = h.percentile(q);
    EXPECT_GE(got, exact) << what << " q=" << q;
    if (exact < 256)
      EXPECT_EQ(got, exact) << what << " q=" << q;
    else
      EXPECT_LE(got - exact, exact / 128) << what << " q=" << q << " exact " << exact;
  }
}

}  // namespace

TEST(Histogram, PercentilesAreWithinTheStatedAccuracyOfExactOrderStatistics) {
  sim::Stream rng(2024, {7});
  for (int round = 0; round < 20; round++) {
    const auto n = static_cast<std::size_t>(rng.uniform_u64(1, 5000));
    std::vector<u64> small, uniform, wide;
    for (std::size_t i = 0; i < n; i++) {
      small.push_back(rng.uniform_u64(0, 300));
      uniform.push_back(rng.uniform_u64(0, 10'000'000));
      // Log-uniform over 1 ns .. ~1 s: every power of two gets samples.
      wide.push_back(u64{1} << rng.uniform_u64(0, 30) | rng.uniform_u64(0, 1023));
    }
    check(small, "small");
    check(uniform, "uniform");
    check(wide, "log-uniform");
    if (::testing::Test::HasFailure()) return;
  }
}

// The worst case of a bucket: its lowest value reads as the bucket's top, 1/128 above it.
TEST(Histogram, TheErrorBoundIsReachedAtABucketsLowestValue) {
  observe::Histogram h;
  h.add(1024);  // bucket [1024, 1031]
  h.add(2000000);
  EXPECT_EQ(h.percentile(0.5), 1031u);
  EXPECT_EQ(h.percentile(1.0), 2000000u);  // clamped to the exact maximum
  observe::Histogram empty;
  EXPECT_EQ(empty.percentile(0.5), 0u);
}
