// SPDX-License-Identifier: GPL-2.0-only
#include "observe/histogram.h"

#include <bit>
#include <cmath>

namespace schedlab::observe {

int Histogram::index(u64 v) {
  if (v < 2 * kSub) return static_cast<int>(v);
  const int msb = 63 - std::countl_zero(v);  // >= kSubBits + 1
  const int shift = msb - kSubBits;          // keep kSubBits bits below the leading one
  const int sub = static_cast<int>((v >> shift) & (kSub - 1));
  return 2 * kSub + (shift - 1) * kSub + sub;
}

u64 Histogram::upper(int idx) {
  if (idx < 2 * kSub) return static_cast<u64>(idx);
  const int shift = (idx - 2 * kSub) / kSub + 1;
  const u64 sub = static_cast<u64>((idx - 2 * kSub) % kSub);
  const u64 lo = (u64{kSub} + sub) << shift;
  return lo + ((u64{1} << shift) - 1);
}

void Histogram::add(u64 v) {
  b_[static_cast<std::size_t>(index(v))]++;
  count_++;
  sum_ += v;
  if (v > max_) max_ = v;
  if (v < min_) min_ = v;
}

u64 Histogram::percentile(double q) const {
  if (!count_) return 0;
  u64 rank = static_cast<u64>(std::ceil(q * static_cast<double>(count_)));
  if (rank < 1) rank = 1;
  u64 seen = 0;
  for (int i = 0; i < kBuckets; i++) {
    seen += b_[static_cast<std::size_t>(i)];
    if (seen >= rank) {
      const u64 u = upper(i);
      return u < max_ ? u : max_;
    }
  }
  return max_;
}

}  // namespace schedlab::observe
