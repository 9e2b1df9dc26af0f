// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Writes the run as Chrome trace-event JSON (chrome://tracing, ui.perfetto.dev), laid out as
// Perfetto shows a system trace:
//  - a "CPUs" process with one track per CPU: a slice per running task and per forced-idle
//    interval, and a counter of forced-idle CPUs;
//  - a process per thread group (the scenario's processes; a VM's vCPU threads are one) with a
//    thread per task, named, whose track shows its states: Running (on which CPU), Runnable,
//    and Runnable (forced idle) while its CPU is forced idle;
//  - a flow arrow from a task that wakes another (or forks it) to the woken task's track.
// Timestamps are microseconds with nanosecond fractions. Slices are written as they end, so
// memory does not grow with the trace (only with the number of tasks).
#include <cstdio>
#include <map>
#include <unordered_set>
#include <vector>

#include "kernel/kernel.h"
#include "kernel/trace.h"

namespace schedlab::observe {

class ChromeTraceWriter : public kernel::TraceSink {
 public:
  // The process id of the CPU tracks: no task has it.
  static constexpr int kCpuProcess = 0;
  // Slices are clipped to [from, to); only `cpus` (empty = all) get tracks, and only tasks
  // that run or wait there get thread tracks. With `pelt`, each of those CPUs also gets a
  // counter of its fair queue's util_avg and util_est.
  ChromeTraceWriter(const kernel::Kernel &k, std::FILE *out, Time from, Time to,
                    std::vector<int> cpus = {}, bool pelt = false);
  void finish(Time end);  // closes open slices and the JSON

  void sched_switch(Time, int, const kernel::task_struct *, unsigned int,
                    const kernel::task_struct *) override;
  void sched_waking(Time, int, const kernel::task_struct *) override;
  void sched_wakeup(Time, const kernel::task_struct *, int) override;
  void sched_wakeup_new(Time, const kernel::task_struct *, int) override;
  void sched_migrate_task(Time, const kernel::task_struct *, int, int) override;
  void sched_forceidle(Time, int, bool) override;
  bool traces_pelt() const override { return pelt_; }
  void pelt_cfs(Time t, int, int cpu, const kernel::sched_avg &avg) override {
    util_counter(t, cpu, avg);
  }
  void util_est_cfs(Time t, int, int cpu, const kernel::sched_avg &avg) override {
    util_counter(t, cpu, avg);
  }

 private:
  enum class State { Sleeping, Runnable, Running };
  struct Task {
    const kernel::task_struct *p = nullptr;
    State state = State::Sleeping;
    Time since = 0;
    int cpu = 0;                  // where it runs or waits
    bool forced_idle = false;     // runnable on a forced-idle CPU
    unsigned long long flow = 0;  // a wakeup arrow to finish, 0 = none
  };
  void util_counter(Time t, int cpu, const kernel::sched_avg &avg);
  void slice(int cpu, Time start, Time end, const char *name, int pid, unsigned long cookie);
  // Ends the task's current state slice at `now` and starts `s`.
  void set_state(const kernel::task_struct *p, Time now, State s, int cpu);
  void close_state(Task &t, Time now);
  void name_task(const kernel::task_struct *p);
  void flow_start(Time now, int this_cpu, const kernel::task_struct *p);
  void flow_end(Time now, Task &t);
  bool in_window(Time t) const { return t >= from_ && t < to_; }
  bool traced(int cpu) const { return traced_[static_cast<std::size_t>(cpu)]; }
  void event_prefix();
  const kernel::Kernel &k_;
  std::FILE *out_;
  Time from_, to_;
  std::vector<char> traced_;  // by CPU
  struct Track {
    const kernel::task_struct *task = nullptr;  // running task, nullptr when idle
    Time since = 0;
    Time forceidle_since = kTimeNever;
  };
  std::vector<Track> tracks_;
  std::map<int, Task> tasks_;  // by pid (ordered: the output is the same from run to run)
  std::unordered_set<int> named_threads_, named_processes_;  // names written, by pid/tgid
  unsigned long long next_flow_ = 1;
  int forceidle_cpus_ = 0;
  bool first_ = true;
  bool pelt_;
};

}  // namespace schedlab::observe
