// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// A set of CPU ids, as the kernel's struct cpumask: a bitmap sized for the machine.
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/time.h"

namespace schedlab {

class CpuMask {
 public:
  CpuMask() = default;
  explicit CpuMask(int nr_cpus) : nr_(nr_cpus), w_((nr_cpus + 63) / 64, 0) {}
  static CpuMask all(int nr_cpus);
  // The CPUs of a list (each < nr_cpus).
  static CpuMask of(int nr_cpus, const std::vector<int> &cpus);

  int nr_cpu_ids() const { return nr_; }
  bool test(int cpu) const { return (w_[cpu >> 6] >> (cpu & 63)) & 1; }
  void set(int cpu) { w_[cpu >> 6] |= u64{1} << (cpu & 63); }
  void clear(int cpu) { w_[cpu >> 6] &= ~(u64{1} << (cpu & 63)); }
  int weight() const;
  bool empty() const;
  // First set bit at or after `from`, or nr_cpu_ids() if none (cpumask_next semantics, from
  // inclusive).
  int next(int from) const {
    if (from >= nr_) return nr_;
    std::size_t i = static_cast<std::size_t>(from) >> 6;
    u64 w = w_[i] & (~u64{0} << (from & 63));
    for (;;) {
      if (w) {
        const int c = static_cast<int>(i * 64 + static_cast<std::size_t>(std::countr_zero(w)));
        return c < nr_ ? c : nr_;
      }
      if (++i >= w_.size()) return nr_;
      w = w_[i];
    }
  }
  int first() const { return next(0); }
  bool intersects(const CpuMask &o) const;
  bool subset_of(const CpuMask &o) const;
  CpuMask operator&(const CpuMask &o) const;
  CpuMask &operator&=(const CpuMask &o);
  CpuMask &operator|=(const CpuMask &o);
  CpuMask &andnot(const CpuMask &o);
  bool operator==(const CpuMask &o) const { return nr_ == o.nr_ && w_ == o.w_; }
  // Kernel cpulist format, e.g. "0-3,8".
  std::string to_list() const;

  // Copies a mask of the same size word by word: no reallocation, no memmove call, for the
  // per-jiffy snapshot of the ticking CPUs.
  void copy_from(const CpuMask &o) {
    for (std::size_t i = 0; i < w_.size(); i++) w_[i] = o.w_[i];
  }

  // The mask of the CPUs 0..nr_cpu_ids()-1 for which pred(cpu) holds, built a word at a time
  // without a branch per CPU (pred should be branch-free too): for sets that change too often
  // for the branch predictor, such as which CPUs are idle.
  template <typename P>
  void assign(P &&pred) {
    for (std::size_t i = 0; i < w_.size(); i++) {
      u64 w = 0;
      const int base = static_cast<int>(i * 64);
      const int end = nr_ - base < 64 ? nr_ - base : 64;
      for (int b = 0; b < end; b++) w |= static_cast<u64>(pred(base + b)) << b;
      w_[i] = w;
    }
  }

  template <typename F>
  void for_each(F &&f) const {
    auto all = [&](int c) {
      f(c);
      return true;
    };
    for (std::size_t i = 0; i < w_.size(); i++) each_bit(i, w_[i], all);
  }
  // for_each_cpu_wrap: every set bit starting at `start`, wrapping around; stops when f
  // returns false. Word at a time, as the hot loops of the core-wide pick run it per schedule.
  template <typename F>
  void for_each_wrap(int start, F &&f) const {
    if (w_.empty()) return;
    if (start >= nr_) start = 0;
    const std::size_t sw = static_cast<std::size_t>(start) >> 6;
    const u64 high = ~u64{0} << (start & 63);
    for (std::size_t i = sw; i < w_.size(); i++)
      if (!each_bit(i, i == sw ? w_[i] & high : w_[i], f)) return;
    for (std::size_t i = 0; i <= sw; i++)
      if (!each_bit(i, i == sw ? w_[i] & ~high : w_[i], f)) return;
  }

 private:
  template <typename F>
  static bool each_bit(std::size_t i, u64 w, F &f) {
    for (; w; w &= w - 1)
      if (!f(static_cast<int>(i * 64 + static_cast<std::size_t>(std::countr_zero(w)))))
        return false;
    return true;
  }

  int nr_ = 0;
  std::vector<u64> w_;
};

}  // namespace schedlab
