// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// The invariant checker (`--check`, and every full-scenario run in the unit tests): an observer
// that verifies what the kernel model must guarantee, and measures the "wasted cores" metric.
// docs/checks.md describes each invariant and the metric.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kernel/kernel.h"
#include "kernel/trace.h"
#include "machine/costs.h"
#include "observe/checkers.h"
#include "observe/metrics.h"

namespace schedlab::observe {

struct Violation {
  enum class Kind { Time, Cookie, Affinity, Task };
  Kind kind = Kind::Time;
  Time time = 0;
  int cpu = -1, core = -1, pid = -1;  // -1: not about one
  std::string what;                   // one line
};
const char *violation_kind_name(Violation::Kind k);
// "1.234567890s: cpu 3: what"
std::string format_violation(const Violation &v);

struct CheckReport {
  u64 violations = 0;            // all of them
  std::vector<Violation> first;  // the first kMaxKept, in order of detection
  Time wasted_threshold_ns = 0;
  Time wasted_ns = 0;     // summed over CPUs
  double wasted_pct = 0;  // of (run length x CPUs)
  Time max_cookie_overlap_ns = 0;
  Time cookie_tolerance_ns = 0;
  u64 count(Violation::Kind k) const;  // among the kept ones
};

class InvariantChecker : public kernel::TraceSink {
 public:
  static constexpr std::size_t kMaxKept = 10;
  static constexpr Time kDefaultWastedThreshold = 1'000'000;  // 1 ms
  // The full structural check (every task on exactly one queue) runs every this many events.
  static constexpr u64 kFullCheckEvery = 64;

  InvariantChecker(const kernel::Kernel &k, const MachineCosts &costs,
                   Time wasted_threshold = kDefaultWastedThreshold);

  // Two cookies may share a core for at most this long: a core-wide pick's reschedule IPI,
  // possibly chained once with a sibling's re-pick, plus the switches they cause.
  static Time cookie_tolerance(const MachineCosts &c) {
    return 4 * c.wakeup_ipi_ns + 2 * c.context_switch_ns;
  }

  void sched_switch(Time, int, const kernel::task_struct *, unsigned int,
                    const kernel::task_struct *) override;
  void sched_wakeup(Time, const kernel::task_struct *, int) override;
  void sched_wakeup_new(Time, const kernel::task_struct *, int) override;
  void sched_process_exit(Time, const kernel::task_struct *) override;
  void sched_migrate_task(Time, const kernel::task_struct *, int, int) override;
  void cpu_idle(Time, int, bool) override;
  void sched_forceidle(Time, int, bool) override;
  void sched_core_cookie(Time, const kernel::task_struct *, unsigned long, unsigned long) override;

  // After every event, with the model settled (Simulation calls it; tests call it by hand).
  void after_event(Time now);
  // Every structural check, now (also run every kFullCheckEvery events and at finish).
  void check_structure(Time now);
  // Closes the run at `end`; with the Metrics' totals, checks time conservation against them.
  void finish(Time end, const RunMetrics *m = nullptr);

  CheckReport report() const;
  u64 violations() const { return nr_violations_; }
  Time wasted_ns() const { return wasted_ns_; }

 private:
  enum class CpuState : unsigned char { Busy, Idle, ForcedIdle };
  struct Cpu {
    CpuState state = CpuState::Idle;
    Time since = 0;
    Time busy = 0, idle = 0, forced = 0;
    Time wasted_from = kTimeNever;  // idle CPU: when a waiting task became wasted time
  };
  struct Task {
    int running_on = -1;
    Time wait_since = kTimeNever;  // runnable and not running, since
    int wait_llc = -1;             // the LLC whose waiting_ set holds it; -1 = not waiting
    const kernel::task_struct *p = nullptr;
    bool exited = false;
  };
  void violate(Violation::Kind kind, Time t, int cpu, int pid, std::string what, int core = -1);
  void cpu_enter(int cpu, CpuState s, Time now);
  Task &task(const kernel::task_struct *p);
  void start_waiting(const kernel::task_struct *p, Task &t, Time now);
  void stop_waiting(Task &t);
  void account_wasted(Time now);
  void update_wasted();
  bool could_run(const kernel::task_struct *p, int cpu) const;

  const kernel::Kernel &k_;
  const Topology &topo_;
  Time tolerance_;
  Time threshold_;
  CoreSafetyChecker core_;
  std::vector<Cpu> cpus_;
  std::vector<Task> tasks_;  // by pid
  // Per LLC, the tasks runnable but not running there, by (wait start, pid): an idle CPU's
  // earliest eligible waiter is usually the first it looks at.
  std::vector<std::set<std::pair<Time, int>>> waiting_;
  std::size_t nr_waiting_ = 0;
  std::vector<int> llc_cpu_;  // per LLC, one of its CPUs
  Time last_ = 0;
  u64 events_ = 0;
  u64 nr_violations_ = 0;
  std::vector<Violation> kept_;
  Time wasted_ns_ = 0;
  bool any_wasted_ = false;  // some CPU's wasted_from is set
  Time end_ = 0;
  std::vector<unsigned> queued_, current_, waking_;  // check_structure's scratch, by pid
};

}  // namespace schedlab::observe
