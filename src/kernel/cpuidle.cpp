// SPDX-License-Identifier: GPL-2.0-only
// drivers/cpuidle/governors/menu.c: which idle state a CPU enters when it goes idle, and what a
// wakeup then pays to get it out (the state's exit latency, charged to the wakeup IPI in
// send_ipi()). Only with idle states declared ([machine.idle]); without them nothing here runs.
#include <limits>

#include "kernel/kernel.h"

namespace schedlab::kernel {

namespace {

constexpr u32 kUintMax = std::numeric_limits<u32>::max();

// get_typical_interval(): the mean of the last eight residencies when they agree (standard
// deviation at most 20 us, or at most a sixth of the mean with three quarters of them kept),
// dropping the largest outliers one by one; UINT_MAX when there is no such pattern, which lets
// the deepest state be chosen.
u32 typical_interval_us(const std::array<u32, 8> &v) {
  constexpr u32 kIntervals = 8;
  u32 thresh = std::numeric_limits<int>::max();
  for (;;) {
    u32 max = 0, divisor = 0;
    u64 sum = 0;
    for (u32 x : v)
      if (x <= thresh) {
        sum += x;
        divisor++;
        max = std::max(max, x);
      }
    if (!max) return kUintMax;
    const u64 avg = sum / divisor;
    u64 variance = 0;
    for (u32 x : v)
      if (x <= thresh) {
        const s64 d = static_cast<s64>(x) - static_cast<s64>(avg);
        variance += static_cast<u64>(d * d);
      }
    variance /= divisor;
    if (variance <= std::numeric_limits<u64>::max() / 36 &&
        ((avg * avg > variance * 36 && divisor * 4 >= kIntervals * 3) || variance <= 400))
      return static_cast<u32>(avg);
    if (divisor * 4 <= kIntervals * 3) return kUintMax;
    thresh = max - 1;
  }
}

}  // namespace

// menu_select() on entry to the idle loop: the typical interval, or the time to the CPU's next
// timer when that is sooner and the interval is over RESIDENCY_THRESHOLD_NS (15 us); state 0
// when the next timer comes before state 1 would pay off; else the deepest state whose target
// residency fits. MODEL: no learnt correction factor scales the next timer event, no PM QoS
// latency limit, no polling state 0 (x86 chooses it only when less than C1's target residency,
// 1-2 us, is expected); the tick is not a timer here, as it is stopped on idle entry.
void Kernel::cpuidle_select(int cpu) {
  if (!costs_.nr_idle_states) return;
  constexpr Time kNever = std::numeric_limits<Time>::max();
  constexpr Time kResidencyThresholdNs = 15'000;
  CpuidleDev &d = cpuidle_[cpu];
  const u32 typical = typical_interval_us(d.intervals_us);
  Time predicted = typical == kUintMax ? kNever : static_cast<Time>(typical) * 1000;
  const Time next_timer = d.timers.empty()             ? kNever
                          : *d.timers.begin() > clock_ ? *d.timers.begin() - clock_
                                                       : 0;
  if (predicted > kResidencyThresholdNs) predicted = std::min(predicted, next_timer);
  int idx = 0;
  if (costs_.nr_idle_states > 1 && next_timer >= costs_.idle_target_residency_ns[1])
    for (int i = 1; i < costs_.nr_idle_states; i++)
      if (costs_.idle_target_residency_ns[i] <= predicted) idx = i;
  d.state = idx;
  d.entered = clock_;
}

// menu_reflect()/menu_update() when the CPU leaves the state: the residency joins the last
// eight, less the exit latency it includes (halved instead when it is not above twice that).
void Kernel::cpuidle_reflect(int cpu) {
  CpuidleDev &d = cpuidle_[cpu];
  if (d.state < 0) return;
  const Time exit = costs_.idle_exit_latency_ns[d.state];
  Time measured = clock_ - d.entered;
  measured = measured > 2 * exit ? measured - exit : measured / 2;
  const Time us = measured / 1000;
  d.intervals_us[d.interval_ptr] = us > kUintMax ? kUintMax : static_cast<u32>(us);
  d.interval_ptr = (d.interval_ptr + 1) % d.intervals_us.size();
  d.state = -1;
}

}  // namespace schedlab::kernel
