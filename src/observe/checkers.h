#pragma once
// Invariant checkers: observers that verify what the kernel model guarantees.
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
  void check_pending(const kernel::Kernel &k, Time now);
  u64 violations() const { return violations_; }
  Time max_overlap_ns() const { return max_overlap_; }
  u64 overlaps() const { return overlaps_; }

 private:
  void check_core(int cpu, Time now);
  const Topology &topo_;
  std::vector<const kernel::task_struct *> running_;  // per CPU; nullptr = idle
  std::vector<Time> overlap_since_;                   // per core; kTimeNever = no overlap
  Time max_overlap_ = 0;
  u64 overlaps_ = 0;
  u64 violations_ = 0;
};

}  // namespace schedlab::observe
