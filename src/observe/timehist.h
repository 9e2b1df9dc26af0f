// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// perf sched timehist's view of a run, from the model's tracepoints: a line per sched_switch
// with the task switched out, how long it waited off the CPU, its scheduling delay and how long
// it ran (ms, 3 decimals); with `wakeups`, a line per wakeup ("awakened:"), with
// `migrations`, a line per migration ("migrated:"). Columns, widths and the rules for the
// times are perf's (tools/perf/builtin-sched.c), so the output reads as perf's does.
#include <cstdio>
#include <string>
#include <vector>

#include "kernel/kernel.h"
#include "kernel/trace.h"

namespace schedlab::observe {

class Timehist : public kernel::TraceSink {
 public:
  struct Options {
    bool wakeups = false;     // perf sched timehist -w
    bool migrations = false;  // -M
    // --time from,to: switches before `from` are not shown and a run that began before it is
    // counted from it; a switch after `to` closes its run at `to`, and later ones are not shown.
    Time from = 0, to = kTimeNever;
    std::vector<int> cpus;  // -C: only these CPUs (empty: all)
  };
  // Writes the header, then a line per event, to `out`, which the caller keeps open.
  Timehist(const kernel::Kernel &k, std::FILE *out, Options opt);

  // perf's three header lines (names, units, dashes) without its optional columns.
  static std::string header();

  void sched_switch(Time, int, const kernel::task_struct *, unsigned int,
                    const kernel::task_struct *) override;
  void sched_waking(Time, int, const kernel::task_struct *) override;
  void sched_wakeup_new(Time, const kernel::task_struct *, int) override;
  void sched_migrate_task(Time, const kernel::task_struct *, int, int) override;

 private:
  // What perf keeps per thread (struct thread_runtime); kTimeNever: not seen.
  struct Runtime {
    Time last_time = kTimeNever;     // last switched out
    Time ready_to_run = kTimeNever;  // woken, or preempted, at
  };
  Runtime &runtime(const kernel::task_struct *p, int cpu);
  void woken(Time t, int cpu, const kernel::task_struct *p);
  // "time [cpu]  comm[tid] " for an event on cpu by `current`; false when it is filtered out.
  bool event_prefix(Time t, int cpu, const kernel::task_struct *current);
  std::string commstr(const kernel::task_struct *p, bool idle_as_swapper);

  const kernel::Kernel &k_;
  std::FILE *out_;
  Options opt_;
  std::vector<char> cpus_;         // by CPU: shown or not
  std::vector<Runtime> tasks_;     // by pid
  std::vector<Runtime> idle_;      // by CPU: perf keeps one idle thread per CPU
  std::vector<Time> last_switch_;  // by CPU: the previous sched_switch there
  int comm_width_ = 30;            // perf widens the column for a longer name
};

}  // namespace schedlab::observe
