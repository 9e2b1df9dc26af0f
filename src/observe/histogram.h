// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// A log-linear histogram of non-negative integers (HDR-style): exact below 256, then 128
// buckets per power of two, so any percentile is within 0.8 % of the true sample while memory
// stays fixed whatever the run length.
#include <array>
#include <cstdint>

#include "sim/time.h"

namespace schedlab::observe {

class Histogram {
 public:
  void add(u64 v);
  u64 count() const { return count_; }
  u64 max() const { return max_; }
  u64 min() const { return count_ ? min_ : 0; }
  double mean() const {
    return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0;
  }
  u64 sum() const { return sum_; }
  // The smallest bucket bound b such that at least q of the samples are <= b (q in [0, 1]),
  // clamped to the exact maximum.
  u64 percentile(double q) const;

 private:
  static constexpr int kSubBits = 7;
  static constexpr int kSub = 1 << kSubBits;
  static constexpr int kBuckets = 2 * kSub + (64 - kSubBits - 1) * kSub;
  static int index(u64 v);
  static u64 upper(int idx);
  std::array<u64, kBuckets> b_{};
  u64 count_ = 0, sum_ = 0, max_ = 0, min_ = ~u64{0};
};

}  // namespace schedlab::observe
