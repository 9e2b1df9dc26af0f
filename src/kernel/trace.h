#pragma once
// Tracepoints the model emits, named after the kernel's trace events. Observers implement
// TraceSink; they read but never change the model.
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
};

// What the machine needs to know from the kernel: which task a CPU runs, from when.
class CpuHooks {
 public:
  virtual ~CpuHooks() = default;
  virtual void cpu_switched(int cpu, task_struct *prev, task_struct *next) = 0;
};

}  // namespace schedlab::kernel
