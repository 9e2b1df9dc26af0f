// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Records the schedule inside a time window for `schedlab timeline` and the report's excerpt:
// task and forced-idle slices per CPU, clipped to the window, and wakeups on their target CPU.
// Memory is bounded: past `limit` items the recorder stops and marks the timeline overflowed.
#include <cstddef>
#include <vector>

#include "kernel/trace.h"
#include "machine/topology.h"
#include "observe/timeline.h"

namespace schedlab::observe {

class TimelineRecorder : public kernel::TraceSink {
 public:
  static constexpr std::size_t kDefaultLimit = 20000;
  // Window [from, to); only `cpus` (empty = all) are recorded. With `util`, also each CPU's
  // util_avg and util_est, from the load-tracking tracepoints.
  TimelineRecorder(const Topology &topo, Time from, Time to, std::vector<int> cpus = {},
                   std::size_t limit = kDefaultLimit, bool util = false);
  // Closes the slices still open at `end` (the run's end) and hands over the timeline.
  Timeline finish(Time end);

  void sched_switch(Time, int, const kernel::task_struct *, unsigned int,
                    const kernel::task_struct *) override;
  void sched_wakeup(Time, const kernel::task_struct *, int) override;
  void sched_wakeup_new(Time, const kernel::task_struct *, int) override;
  void sched_forceidle(Time, int, bool) override;
  bool traces_pelt() const override { return util_; }
  void pelt_cfs(Time t, int, int cpu, const kernel::sched_avg &avg) override {
    add_util(t, cpu, avg);
  }
  void util_est_cfs(Time t, int, int cpu, const kernel::sched_avg &avg) override {
    add_util(t, cpu, avg);
  }

 private:
  void add_util(Time, int cpu, const kernel::sched_avg &avg);
  void add_util_at_from(std::size_t cpu);
  void add_slice(TimelineSlice::Kind kind, int cpu, Time start, Time end,
                 const kernel::task_struct *p);
  void add_wakeup(Time, const kernel::task_struct *, int cpu, bool is_new);
  bool full();
  struct Lane {
    const kernel::task_struct *task = nullptr;  // running task, nullptr when idle
    Time since = 0;
    Time forceidle_since = kTimeNever;
  };
  std::vector<char> traced_;  // by CPU
  std::vector<Lane> lanes_;   // by CPU
  std::size_t limit_;
  bool util_;
  // By CPU: the last sample before the window (at == kTimeNever: none), and whether the
  // window's samples have begun.
  std::vector<TimelineUtil> util_before_;
  std::vector<char> util_started_;
  Timeline t_;
};

}  // namespace schedlab::observe
