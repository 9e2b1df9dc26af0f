// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Tracepoints the model emits, named after the kernel's trace events. Observers implement
// TraceSink; they read but never change the model.
#include <string_view>

#include "kernel/sched.h"

namespace schedlab::kernel {

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  // prev_state is prev->__state at the switch (TASK_RUNNING = preempted).
  virtual void sched_switch(Time, int /*cpu*/, const task_struct * /*prev*/,
                            unsigned int /*prev_state*/, const task_struct * /*next*/) {}
  virtual void sched_waking(Time, int /*this_cpu*/, const task_struct *) {}
  virtual void sched_wakeup(Time, const task_struct *, int /*target_cpu*/) {}
  virtual void sched_wakeup_new(Time, const task_struct *, int /*target_cpu*/) {}
  virtual void sched_migrate_task(Time, const task_struct *, int /*orig_cpu*/, int /*dest_cpu*/) {}
  virtual void sched_process_fork(Time, const task_struct * /*child*/) {}
  virtual void sched_process_exit(Time, const task_struct *) {}
  // power:cpu_idle: a CPU enters (true) or leaves (false) its idle task.
  virtual void cpu_idle(Time, int /*cpu*/, bool /*enter*/) {}
  // Core scheduling: a CPU starts (true) or stops being forced idle: it runs its idle task
  // while it has runnable tasks, because its core runs another cookie.
  virtual void sched_forceidle(Time, int /*cpu*/, bool /*on*/) {}
  // A task's core cookie changed (prctl, fork, exit).
  virtual void sched_core_cookie(Time, const task_struct *, unsigned long /*old*/,
                                 unsigned long /*cookie*/) {}
  // A core-wide pick, made on `cpu`: the highest-priority task whose cookie the core now
  // runs, the cookie, and how many siblings were forced idle by it.
  virtual void sched_core_pick(Time, int /*cpu*/, const task_struct * /*max*/,
                               unsigned long /*cookie*/, unsigned int /*forceidle*/) {}
  // ftrace's print event: `current`, running on `cpu`, wrote `buf` (no newline) to
  // trace_marker. User space writes only while some sink's traces_print() is true, so that a
  // run that records no trace does not format the lines.
  virtual bool traces_print() const { return false; }
  virtual void print(Time, int /*cpu*/, const task_struct * /*current*/, std::string_view /*buf*/) {
  }

  // The kernel's bare tracepoints of load tracking (no trace event of their own: a module
  // such as LISA's turns them into events). They fire only for sinks whose traces_pelt() is
  // true when added, so that a run without them pays one flag test per PELT update.
  // `this_cpu` is the CPU whose code updates the averages (a NOHZ balancer decays idle CPUs'
  // queues); `cpu` is the queue's.
  virtual bool traces_pelt() const { return false; }
  // pelt_cfs_tp: a CPU's fair queue's averages moved (a PELT period ended, or an entity's
  // averages were attached to or detached from the queue).
  virtual void pelt_cfs(Time, int /*this_cpu*/, int /*cpu*/, const sched_avg &) {}
  // pelt_se_tp: a task's averages moved (a PELT period ended).
  virtual void pelt_se(Time, int /*this_cpu*/, const task_struct *) {}
  // sched_util_est_cfs_tp: a task's estimate was added to or taken from its queue's sum.
  virtual void util_est_cfs(Time, int /*this_cpu*/, int /*cpu*/, const sched_avg &) {}
  // sched_util_est_se_tp: a sleep sampled the task's estimate.
  virtual void util_est_se(Time, int /*this_cpu*/, const task_struct *) {}
};

// What the machine needs to know from the kernel: which task a CPU runs, from when.
class CpuHooks {
 public:
  virtual ~CpuHooks() = default;
  virtual void cpu_switched(int cpu, task_struct *prev, task_struct *next) = 0;
};

}  // namespace schedlab::kernel
