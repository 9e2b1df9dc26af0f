// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Invariant checkers: observers that verify what the kernel model guarantees.
#include <functional>
#include <vector>

#include "kernel/kernel.h"
#include "kernel/trace.h"
#include "machine/topology.h"

namespace schedlab::observe {

// Core-scheduling safety: two tasks of different cookies never run on the two threads of one
// core, except for the time a sibling takes to act on its reschedule IPI. Records the longest
// such overlap; a test compares it with the machine's IPI latency.
class CoreSafetyChecker : public kernel::TraceSink {
 public:
  explicit CoreSafetyChecker(const Topology &topo);
  void sched_switch(Time, int, const kernel::task_struct *, unsigned int,
                    const kernel::task_struct *) override;
  void sched_core_cookie(Time, const kernel::task_struct *, unsigned long, unsigned long) override;
  void finish(Time end);
  // After an event: two cookies may share a core only while one of its CPUs has a reschedule
  // pending (the IPI of a core-wide pick is on its way). Counts the moments when not.
  // only_overlapping: check only the cores the trace shows running two cookies (cheap enough
  // for every event; the kernel's state and the trace agree unless the model is broken).
  void check_pending(const kernel::Kernel &k, Time now, bool only_overlapping = false);
  // Optional: called for each violation counted by check_pending, and once per overlap longer
  // than `limit` (when it ends, is checked, or at finish), with the core and a description.
  using Report = std::function<void(Time, int core, const char *what, Time overlap)>;
  void set_report(Report r, Time limit) {
    report_ = std::move(r);
    limit_ = limit;
  }
  u64 violations() const { return violations_; }
  Time max_overlap_ns() const { return max_overlap_; }
  u64 overlaps() const { return overlaps_; }

 private:
  void check_core(int cpu, Time now, bool switched);
  void end_overlap(int cpu, Time now);
  bool core_pending_violation(const kernel::Kernel &k, int core) const;
  const Topology &topo_;
  std::vector<const kernel::task_struct *> running_;  // per CPU; nullptr = idle
  // Per CPU: since when its task has co-run with another cookie; kTimeNever = it does not.
  std::vector<Time> overlap_since_;
  Time max_overlap_ = 0;
  u64 overlaps_ = 0;
  u64 violations_ = 0;
  int nr_overlapping_ = 0;
  std::vector<char> reported_;  // per CPU: the current overlap was reported as too long
  Report report_;
  Time limit_ = kTimeNever;
};

}  // namespace schedlab::observe
