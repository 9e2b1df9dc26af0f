// SPDX-License-Identifier: GPL-2.0-only
#include "observe/invariant_checker.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace schedlab::observe {

using kernel::task_struct;

const char *violation_kind_name(Violation::Kind k) {
  switch (k) {
    case Violation::Kind::Time:
      return "time";
    case Violation::Kind::Cookie:
      return "cookie";
    case Violation::Kind::Affinity:
      return "affinity";
    case Violation::Kind::Task:
      return "task";
  }
  return "?";
}

std::string format_violation(const Violation &v) {
  char head[96];
  int n = std::snprintf(head, sizeof head, "%" PRIu64 ".%09" PRIu64 "s: ", v.time / NSEC_PER_SEC,
                        v.time % NSEC_PER_SEC);
  if (v.cpu >= 0)
    n += std::snprintf(head + n, sizeof head - static_cast<std::size_t>(n), "cpu %d: ", v.cpu);
  else if (v.core >= 0)
    n += std::snprintf(head + n, sizeof head - static_cast<std::size_t>(n), "core %d: ", v.core);
  return head + v.what;
}

u64 CheckReport::count(Violation::Kind k) const {
  return static_cast<u64>(
      std::count_if(first.begin(), first.end(), [k](const Violation &v) { return v.kind == k; }));
}

static std::string task_name(const task_struct *p) {
  return "task " + std::to_string(p->pid) + " (" + p->comm + ")";
}

InvariantChecker::InvariantChecker(const kernel::Kernel &k, const MachineCosts &costs,
                                   Time wasted_threshold)
    : k_(k),
      topo_(k.topology()),
      tolerance_(cookie_tolerance(costs)),
      threshold_(wasted_threshold),
      core_(k.topology()),
      cpus_(static_cast<std::size_t>(k.nr_cpu_ids())) {
  for (int cpu = 0; cpu < k.nr_cpu_ids(); cpu++) {
    const auto llc = static_cast<std::size_t>(topo_.cpu(cpu).llc);
    if (llc_cpu_.size() <= llc) llc_cpu_.resize(llc + 1, -1);
    if (llc_cpu_[llc] < 0) llc_cpu_[llc] = cpu;
  }
  waiting_.resize(llc_cpu_.size());
  core_.set_report(
      [this](Time t, int core, const char *what, Time overlap) {
        std::string s = what;
        if (overlap)
          s += ": " + std::to_string(overlap) + " ns > " + std::to_string(tolerance_) + " ns";
        violate(Violation::Kind::Cookie, t, -1, -1, std::move(s), core);
      },
      tolerance_);
}

void InvariantChecker::violate(Violation::Kind kind, Time t, int cpu, int pid, std::string what,
                               int core) {
  nr_violations_++;
  if (kept_.size() >= kMaxKept) return;
  Violation v;
  v.kind = kind;
  v.time = t;
  v.cpu = cpu;
  v.core = cpu >= 0 ? topo_.cpu(cpu).core : core;
  v.pid = pid;
  v.what = std::move(what);
  kept_.push_back(std::move(v));
}

InvariantChecker::Task &InvariantChecker::task(const task_struct *p) {
  const auto pid = static_cast<std::size_t>(p->pid);
  if (tasks_.size() <= pid) tasks_.resize(pid + 1);
  return tasks_[pid];
}

void InvariantChecker::cpu_enter(int cpu, CpuState s, Time now) {
  Cpu &c = cpus_[static_cast<std::size_t>(cpu)];
  if (now < c.since) {
    violate(Violation::Kind::Time, now, cpu, -1,
            "time went backwards (last event at " + std::to_string(c.since) + " ns)");
    now = c.since;
  }
  const Time d = now - c.since;
  switch (c.state) {
    case CpuState::Busy:
      c.busy += d;
      break;
    case CpuState::Idle:
      c.idle += d;
      break;
    case CpuState::ForcedIdle:
      c.forced += d;
      break;
  }
  c.since = now;
  c.state = s;
}

void InvariantChecker::start_waiting(const task_struct *p, Task &t, Time now) {
  if (t.wait_llc >= 0) return;  // already waiting: keep the earlier start
  t.p = p;
  t.wait_since = now;
  t.wait_llc = topo_.cpu(p->cpu).llc;
  waiting_[static_cast<std::size_t>(t.wait_llc)].emplace(now, p->pid);
  nr_waiting_++;
}

void InvariantChecker::stop_waiting(Task &t) {
  if (t.wait_llc < 0) return;
  waiting_[static_cast<std::size_t>(t.wait_llc)].erase({t.wait_since, t.p->pid});
  nr_waiting_--;
  t.wait_llc = -1;
  t.wait_since = kTimeNever;
}

// A waiting task moved to another LLC keeps its wait start.
void InvariantChecker::sched_migrate_task(Time, const task_struct *p, int, int dest_cpu) {
  Task &t = task(p);
  const int llc = topo_.cpu(dest_cpu).llc;
  if (t.wait_llc < 0 || t.wait_llc == llc) return;
  waiting_[static_cast<std::size_t>(t.wait_llc)].erase({t.wait_since, p->pid});
  waiting_[static_cast<std::size_t>(llc)].emplace(t.wait_since, p->pid);
  t.wait_llc = llc;
}

void InvariantChecker::sched_switch(Time now, int cpu, const task_struct *prev,
                                    unsigned int prev_state, const task_struct *next) {
  core_.sched_switch(now, cpu, prev, prev_state, next);
  cpu_enter(cpu, next->is_idle_task ? CpuState::Idle : CpuState::Busy, now);
  if (!prev->is_idle_task) {
    Task &t = task(prev);
    if (t.running_on != cpu)
      violate(Violation::Kind::Task, now, cpu, prev->pid,
              task_name(prev) + " switched out but it was running on cpu " +
                  std::to_string(t.running_on));
    t.running_on = -1;
    if (prev_state == kernel::TASK_RUNNING) start_waiting(prev, t, now);
    if (prev_state & kernel::TASK_DEAD) t.exited = true;
  }
  if (!next->is_idle_task) {
    Task &t = task(next);
    if (t.exited)
      violate(Violation::Kind::Task, now, cpu, next->pid, task_name(next) + " runs after exiting");
    if (t.running_on >= 0 && t.running_on != cpu)
      violate(Violation::Kind::Task, now, cpu, next->pid,
              task_name(next) + " runs here while running on cpu " + std::to_string(t.running_on));
    t.running_on = cpu;
    stop_waiting(t);
    if (!next->cpus_mask.test(cpu))
      violate(Violation::Kind::Affinity, now, cpu, next->pid,
              task_name(next) + " runs outside its affinity");
  }
}

void InvariantChecker::sched_wakeup(Time now, const task_struct *p, int cpu) {
  Task &t = task(p);
  if (t.exited)
    violate(Violation::Kind::Task, now, cpu, p->pid, task_name(p) + " woken after exiting");
  if (t.running_on < 0) start_waiting(p, t, now);
}

void InvariantChecker::sched_wakeup_new(Time now, const task_struct *p, int cpu) {
  sched_wakeup(now, p, cpu);
}

void InvariantChecker::sched_process_exit(Time, const task_struct *p) {
  task(p).exited = true;
}

// power:cpu_idle follows the switch to or from the idle task.
void InvariantChecker::cpu_idle(Time now, int cpu, bool enter) {
  const bool busy = cpus_[static_cast<std::size_t>(cpu)].state == CpuState::Busy;
  if (enter == busy)
    violate(Violation::Kind::Time, now, cpu, -1,
            enter ? "cpu_idle enter while running a task" : "cpu_idle exit while idle");
}

void InvariantChecker::sched_forceidle(Time now, int cpu, bool on) {
  const CpuState s = cpus_[static_cast<std::size_t>(cpu)].state;
  if (on && s == CpuState::Busy)
    violate(Violation::Kind::Time, now, cpu, -1, "forced idle while running a task");
  if (on && s == CpuState::Idle) cpu_enter(cpu, CpuState::ForcedIdle, now);
  if (!on && s == CpuState::ForcedIdle) cpu_enter(cpu, CpuState::Idle, now);
}

void InvariantChecker::sched_core_cookie(Time now, const task_struct *p, unsigned long old,
                                         unsigned long cookie) {
  core_.sched_core_cookie(now, p, old, cookie);
}

// ---------------------------------------------------------------------------------------------
// Wasted cores. Between two events the model's state is constant, so the wasted time of an idle
// CPU over [last_, now) is now - max(last_, wasted_from) when positive, where wasted_from (set
// after the previous event) is the earliest time one of its eligible waiting tasks had waited
// longer than the threshold.

void InvariantChecker::account_wasted(Time now) {
  if (any_wasted_)
    for (const Cpu &c : cpus_) {
      if (c.wasted_from == kTimeNever) continue;
      const Time from = std::max(last_, c.wasted_from);
      if (now > from) wasted_ns_ += now - from;
    }
  if (now > last_) last_ = now;
}

// Whether an idle cpu may run p now: its affinity, and the cookie of what the other threads of
// its core run.
bool InvariantChecker::could_run(const task_struct *p, int cpu) const {
  if (!p->cpus_mask.test(cpu)) return false;
  if (!k_.sched_core_enabled(k_.cpu_rq(cpu))) return true;
  bool ok = true;
  topo_.smt_mask(cpu).for_each([&](int s) {
    const task_struct *curr = k_.cpu_rq(s)->curr;
    if (s != cpu && !curr->is_idle_task && curr->core_cookie != p->core_cookie) ok = false;
  });
  return ok;
}

void InvariantChecker::update_wasted() {
  if (any_wasted_) {
    for (Cpu &c : cpus_) c.wasted_from = kTimeNever;
    any_wasted_ = false;
  }
  if (nr_waiting_ == 0) return;
  for (std::size_t llc = 0; llc < waiting_.size(); llc++) {
    const auto &waiting = waiting_[llc];
    if (waiting.empty()) continue;
    topo_.llc_mask(llc_cpu_[llc]).for_each([&](int cpu) {
      Cpu &c = cpus_[static_cast<std::size_t>(cpu)];
      if (c.state != CpuState::Idle) return;
      for (const auto &[since, pid] : waiting) {  // oldest first: the first eligible one counts
        if (!could_run(tasks_[static_cast<std::size_t>(pid)].p, cpu)) continue;
        c.wasted_from = since + threshold_;
        any_wasted_ = true;
        break;
      }
    });
  }
}

// ---------------------------------------------------------------------------------------------

void InvariantChecker::after_event(Time now) {
  account_wasted(now);
  core_.check_pending(k_, now, /*only_overlapping=*/true);
  if (++events_ % kFullCheckEvery == 0) check_structure(now);
  update_wasted();
}

// Every task the kernel knows is where its state says: an on_rq task is queued on exactly one
// runqueue (its task_cpu()'s) or is that runqueue's current task; a runnable task is on a
// runqueue, a waking one on a wake list; an exited task is nowhere; no task is current twice.
void InvariantChecker::check_structure(Time now) {
  core_.check_pending(k_, now, /*only_overlapping=*/false);
  const auto &tasks = k_.tasks();
  std::size_t max_pid = 0;
  for (const auto &p : tasks) max_pid = std::max(max_pid, static_cast<std::size_t>(p->pid));
  queued_.assign(max_pid + 1, 0);
  current_.assign(max_pid + 1, 0);
  waking_.assign(max_pid + 1, 0);
  auto pid_of = [](const task_struct *p) { return static_cast<std::size_t>(p->pid); };
  for (int cpu = 0; cpu < k_.nr_cpu_ids(); cpu++) {
    const kernel::rq *rq = k_.cpu_rq(cpu);
    const task_struct *curr = rq->curr;
    // The forced-idle state the tracepoints reported is the kernel's: a missed sched_forceidle
    // event would misaccount forced idle without breaking any sum.
    const bool fi = k_.sched_core_forceidle(cpu);
    if (fi != (cpus_[static_cast<std::size_t>(cpu)].state == CpuState::ForcedIdle))
      violate(Violation::Kind::Time, now, cpu, -1,
              fi ? "forced idle, but not reported to the tracepoints"
                 : "reported forced idle, but the core has no forced idle here");
    if (!curr->is_idle_task && pid_of(curr) <= max_pid) {
      current_[pid_of(curr)]++;
      if (curr->cpu != cpu)
        violate(
            Violation::Kind::Task, now, cpu, curr->pid,
            task_name(curr) + " is current here but its task_cpu is " + std::to_string(curr->cpu));
      if (!curr->cpus_mask.test(cpu))
        violate(Violation::Kind::Affinity, now, cpu, curr->pid,
                task_name(curr) + " runs outside its affinity");
    }
    rq->cfs.tasks_timeline.for_each([&](const kernel::sched_entity *se) {
      const task_struct *p = se->task;
      if (pid_of(p) <= max_pid) queued_[pid_of(p)]++;
      if (p->cpu != cpu)
        violate(Violation::Kind::Task, now, cpu, p->pid,
                task_name(p) + " is queued here but its task_cpu is " + std::to_string(p->cpu));
    });
    for (const auto &[p, flags] : rq->wake_list)
      if (pid_of(p) <= max_pid) waking_[pid_of(p)]++;
  }
  for (const auto &up : tasks) {
    const task_struct *p = up.get();
    const std::size_t pid = pid_of(p);
    const int where = p->cpu;
    const unsigned present = queued_[pid] + current_[pid];
    if (current_[pid] > 1)
      violate(Violation::Kind::Task, now, where, p->pid,
              task_name(p) + " is current on " + std::to_string(current_[pid]) + " CPUs");
    if ((p->__state & kernel::TASK_DEAD) || (pid < tasks_.size() && tasks_[pid].exited)) {
      if (present)
        violate(Violation::Kind::Task, now, where, p->pid,
                task_name(p) + " exited but is still on a runqueue");
      continue;
    }
    if (p->on_rq) {
      if (present == 0)
        violate(Violation::Kind::Task, now, where, p->pid,
                task_name(p) + " is on_rq but on no runqueue (lost)");
      else if (present > 1)
        violate(Violation::Kind::Task, now, where, p->pid,
                task_name(p) + " is on " + std::to_string(present) + " runqueues");
    } else if (present) {
      violate(Violation::Kind::Task, now, where, p->pid,
              task_name(p) + " is on a runqueue but not on_rq");
    } else if (p->__state == kernel::TASK_RUNNING) {
      violate(Violation::Kind::Task, now, where, p->pid,
              task_name(p) + " is runnable but on no runqueue (lost)");
    } else if ((p->__state & kernel::TASK_WAKING) && waking_[pid] != 1) {
      violate(Violation::Kind::Task, now, where, p->pid,
              task_name(p) + " is waking but on " + std::to_string(waking_[pid]) + " wake lists");
    }
  }
}

void InvariantChecker::finish(Time end, const RunMetrics *m) {
  account_wasted(end);
  check_structure(end);
  core_.finish(end);
  for (int cpu = 0; cpu < static_cast<int>(cpus_.size()); cpu++) {
    Cpu &c = cpus_[static_cast<std::size_t>(cpu)];
    cpu_enter(cpu, c.state, end);
    if (c.busy + c.idle + c.forced != end)
      violate(Violation::Kind::Time, end, cpu, -1,
              "busy + idle + forced idle = " + std::to_string(c.busy + c.idle + c.forced) +
                  " ns, not the run's " + std::to_string(end) + " ns");
    if (!m) continue;
    if (static_cast<std::size_t>(cpu) >= m->cpus.size()) {
      violate(Violation::Kind::Time, end, cpu, -1, "missing from the metrics");
      continue;
    }
    const CpuMetrics &mc = m->cpus[static_cast<std::size_t>(cpu)];
    if (mc.busy_ns + mc.idle_ns + mc.forceidle_ns != m->end_ns)
      violate(Violation::Kind::Time, end, cpu, -1,
              "metrics: busy + idle + forced idle = " +
                  std::to_string(mc.busy_ns + mc.idle_ns + mc.forceidle_ns) +
                  " ns, not the run's " + std::to_string(m->end_ns) + " ns");
    else if (mc.busy_ns != c.busy || mc.idle_ns != c.idle || mc.forceidle_ns != c.forced)
      violate(Violation::Kind::Time, end, cpu, -1,
              "metrics disagree with the trace: busy/idle/forced idle " +
                  std::to_string(mc.busy_ns) + "/" + std::to_string(mc.idle_ns) + "/" +
                  std::to_string(mc.forceidle_ns) + " ns, trace " + std::to_string(c.busy) + "/" +
                  std::to_string(c.idle) + "/" + std::to_string(c.forced) + " ns");
  }
  end_ = end;
}

CheckReport InvariantChecker::report() const {
  CheckReport r;
  r.violations = nr_violations_;
  r.first = kept_;
  r.wasted_threshold_ns = threshold_;
  r.wasted_ns = wasted_ns_;
  const double capacity = static_cast<double>(end_) * static_cast<double>(cpus_.size());
  r.wasted_pct = capacity > 0 ? 100.0 * static_cast<double>(wasted_ns_) / capacity : 0.0;
  r.max_cookie_overlap_ns = core_.max_overlap_ns();
  r.cookie_tolerance_ns = tolerance_;
  return r;
}

}  // namespace schedlab::observe
