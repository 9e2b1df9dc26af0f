// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// The metrics observer: per task and per CPU time accounting, wakeup latency, completion.
// Attached to the kernel's tracepoints; it never changes the model.
#include <string>
#include <vector>

#include "kernel/trace.h"
#include "observe/histogram.h"

namespace schedlab::observe {

struct TaskMetrics {
  int pid = 0;
  std::string comm;
  Time runtime_ns = 0;  // on a CPU
  Time wait_ns = 0;     // runnable (enqueued) but not running
  Time sleep_ns = 0;    // blocked, from switch-out to wakeup
  u64 nr_switches = 0, nr_voluntary_switches = 0, nr_involuntary_switches = 0;
  u64 nr_migrations = 0;
  u64 nr_wakeups = 0;
  Time core_forceidle_sum_ns = 0;  // forced idle charged to this task, as the kernel charges it
  // Scheduling delays, as perf sched latency counts them: from becoming runnable (a wakeup, a
  // fork, or a preemption) to the next switch-in. The longest, with when it began and ended.
  u64 nr_delays = 0;
  Time delay_sum_ns = 0, max_delay_ns = 0, max_delay_start_ns = 0, max_delay_end_ns = 0;
  Time start_ns = 0;
  Time exit_ns = 0;  // 0: did not exit
  bool exited = false;
  bool kthread = false;  // a kernel thread ([[group]] kthread = true): not the workload's
};

struct CpuMetrics {
  int cpu = 0;
  Time busy_ns = 0;       // running a task
  Time idle_ns = 0;       // idle with nothing runnable
  Time forceidle_ns = 0;  // idle although runnable (core scheduling forced idle)
  u64 nr_switches = 0;
  // /proc/schedstat's sched_info: time tasks waited on this runqueue before running here, and
  // how many times a task was switched in.
  Time run_delay_ns = 0;
  u64 pcount = 0;
};

struct RunMetrics {
  Time end_ns = 0;
  Time completion_ns = 0;  // last exit of a finite task (0 if none exited)
  Time forceidle_ns = 0;   // sum over CPUs of forced-idle time
  // Forced idle charged to kernel threads (their core_forceidle_sum): the twin counts only the
  // workload's tasks, so the run's forced idle leaves it out.
  Time kthread_forceidle_ns = 0;
  std::vector<TaskMetrics> tasks;
  std::vector<CpuMetrics> cpus;
  Histogram wakeup_latency;  // sched_waking -> first switch-in, ns
};

class Metrics : public kernel::TraceSink {
 public:
  explicit Metrics(int nr_cpus);
  // Closes every open interval at `end` and returns the totals.
  RunMetrics finish(Time end, const std::vector<const kernel::task_struct *> &tasks);

  void sched_switch(Time, int, const kernel::task_struct *, unsigned int,
                    const kernel::task_struct *) override;
  void sched_waking(Time, int, const kernel::task_struct *) override;
  void sched_wakeup(Time, const kernel::task_struct *, int) override;
  void sched_wakeup_new(Time, const kernel::task_struct *, int) override;
  void sched_migrate_task(Time, const kernel::task_struct *, int, int) override;
  void sched_process_exit(Time, const kernel::task_struct *) override;
  void sched_forceidle(Time, int, bool) override;

 private:
  enum class State { New, Runnable, Running, Sleeping, Dead };
  struct TaskState {
    State state = State::New;
    Time since = 0;
    Time waking_at = 0;
    bool waking = false;
    TaskMetrics m;
  };
  TaskState &task(const kernel::task_struct *p);
  TaskState &first_seen(const kernel::task_struct *p);
  void enter(TaskState &t, State s, Time now);
  std::vector<TaskState> tasks_;  // indexed by pid
  std::vector<CpuMetrics> cpus_;
  enum class CpuState : unsigned char { Busy, Idle, ForcedIdle };
  void cpu_enter(int cpu, CpuState s, Time now);
  std::vector<Time> cpu_since_;
  std::vector<CpuState> cpu_state_;
  Histogram wakeup_latency_;
  Time completion_ = 0;
};

}  // namespace schedlab::observe
