// SPDX-License-Identifier: GPL-2.0-only
#include "observe/metrics.h"

namespace schedlab::observe {

using kernel::task_struct;

Metrics::Metrics(int nr_cpus)
    : cpus_(static_cast<std::size_t>(nr_cpus)),
      cpu_since_(static_cast<std::size_t>(nr_cpus), 0),
      cpu_state_(static_cast<std::size_t>(nr_cpus), CpuState::Idle) {
  for (int c = 0; c < nr_cpus; c++) cpus_[static_cast<std::size_t>(c)].cpu = c;
}

// Every tracepoint looks its task up: the first sight of a task is the rare case.
inline Metrics::TaskState &Metrics::task(const task_struct *p) {
  const auto pid = static_cast<std::size_t>(p->pid);
  if (pid < tasks_.size() && tasks_[pid].m.pid != 0) [[likely]]
    return tasks_[pid];
  return first_seen(p);
}

Metrics::TaskState &Metrics::first_seen(const task_struct *p) {
  const auto pid = static_cast<std::size_t>(p->pid);
  if (tasks_.size() <= pid) tasks_.resize(pid + 1);
  TaskState &t = tasks_[pid];
  t.m.pid = p->pid;
  t.m.comm = p->comm;
  t.m.kthread = p->kthread;
  return t;
}

void Metrics::enter(TaskState &t, State s, Time now) {
  const Time d = now - t.since;
  switch (t.state) {
    case State::Runnable:
      t.m.wait_ns += d;
      break;
    case State::Running:
      t.m.runtime_ns += d;
      break;
    case State::Sleeping:
      t.m.sleep_ns += d;
      break;
    case State::New:
    case State::Dead:
      break;
  }
  t.state = s;
  t.since = now;
}

void Metrics::sched_switch(Time now, int cpu, const task_struct *prev, unsigned int prev_state,
                           const task_struct *next) {
  cpu_enter(cpu, next->is_idle_task ? CpuState::Idle : CpuState::Busy, now);
  cpus_[static_cast<std::size_t>(cpu)].nr_switches++;

  if (!prev->is_idle_task) {
    TaskState &t = task(prev);
    t.m.nr_switches++;
    if (prev_state == kernel::TASK_RUNNING) {
      t.m.nr_involuntary_switches++;
      enter(t, State::Runnable, now);
    } else {
      t.m.nr_voluntary_switches++;
      enter(t, (prev_state & kernel::TASK_DEAD) ? State::Dead : State::Sleeping, now);
    }
  }
  if (!next->is_idle_task) {
    TaskState &t = task(next);
    if (t.state == State::Runnable) {
      const Time d = now - t.since;
      cpus_[static_cast<std::size_t>(cpu)].run_delay_ns += d;
      t.m.nr_delays++;
      t.m.delay_sum_ns += d;
      if (d > t.m.max_delay_ns || t.m.nr_delays == 1) {
        t.m.max_delay_ns = d;
        t.m.max_delay_start_ns = t.since;
        t.m.max_delay_end_ns = now;
      }
    }
    cpus_[static_cast<std::size_t>(cpu)].pcount++;
    enter(t, State::Running, now);
    if (t.waking) {
      // The workload's wakeups: a kernel thread's are the kernel's own activity.
      if (!t.m.kthread) wakeup_latency_.add(now - t.waking_at);
      t.waking = false;
    }
  }
}

void Metrics::cpu_enter(int cpu, CpuState s, Time now) {
  const auto c = static_cast<std::size_t>(cpu);
  const Time d = now - cpu_since_[c];
  switch (cpu_state_[c]) {
    case CpuState::Busy:
      cpus_[c].busy_ns += d;
      break;
    case CpuState::Idle:
      cpus_[c].idle_ns += d;
      break;
    case CpuState::ForcedIdle:
      cpus_[c].forceidle_ns += d;
      break;
  }
  cpu_since_[c] = now;
  cpu_state_[c] = s;
}

// Forced idle is a state of an idle CPU: it starts after the switch to idle and ends at the
// switch away from it (or when the CPU's runnable tasks are gone).
void Metrics::sched_forceidle(Time now, int cpu, bool on) {
  const CpuState s = cpu_state_[static_cast<std::size_t>(cpu)];
  if (on && s == CpuState::Idle) cpu_enter(cpu, CpuState::ForcedIdle, now);
  if (!on && s == CpuState::ForcedIdle) cpu_enter(cpu, CpuState::Idle, now);
}

void Metrics::sched_waking(Time now, int, const task_struct *p) {
  TaskState &t = task(p);
  t.waking = true;
  t.waking_at = now;
}

void Metrics::sched_wakeup(Time now, const task_struct *p, int) {
  TaskState &t = task(p);
  t.m.nr_wakeups++;
  enter(t, State::Runnable, now);
}

void Metrics::sched_wakeup_new(Time now, const task_struct *p, int) {
  TaskState &t = task(p);
  t.m.start_ns = now;
  enter(t, State::Runnable, now);
}

void Metrics::sched_migrate_task(Time, const task_struct *p, int, int) {
  task(p).m.nr_migrations++;
}

void Metrics::sched_process_exit(Time now, const task_struct *p) {
  TaskState &t = task(p);
  t.m.exited = true;
  t.m.exit_ns = now;
  if (now > completion_ && !p->kthread) completion_ = now;
}

RunMetrics Metrics::finish(Time end, const std::vector<const task_struct *> &tasks) {
  RunMetrics r;
  r.end_ns = end;
  r.completion_ns = completion_;
  for (std::size_t c = 0; c < cpus_.size(); c++) {
    cpu_enter(static_cast<int>(c), cpu_state_[c], end);  // close the open interval
    r.cpus.push_back(cpus_[c]);
    r.forceidle_ns += cpus_[c].forceidle_ns;
  }
  for (const task_struct *p : tasks) {
    TaskState t = task(p);
    enter(t, t.state, end);  // close the open interval
    t.m.core_forceidle_sum_ns = p->core_forceidle_sum;
    if (p->kthread) r.kthread_forceidle_ns += p->core_forceidle_sum;
    r.tasks.push_back(t.m);
  }
  r.wakeup_latency = wakeup_latency_;
  return r;
}

}  // namespace schedlab::observe
