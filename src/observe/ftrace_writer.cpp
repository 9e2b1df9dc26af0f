// SPDX-License-Identifier: GPL-2.0-only
#include "observe/ftrace_writer.h"

namespace schedlab::observe {

using kernel::task_struct;

std::vector<char> traced_cpus(int nr_cpus, const std::vector<int> &cpus) {
  std::vector<char> on(static_cast<std::size_t>(nr_cpus), cpus.empty() ? 1 : 0);
  for (int c : cpus)
    if (c >= 0 && c < nr_cpus) on[static_cast<std::size_t>(c)] = 1;
  return on;
}

std::string trace_comm(const task_struct *p, bool prefix) {
  if (p->is_idle_task && prefix) return "<idle>";
  std::string c = p->comm.substr(0, 15);  // TASK_COMM_LEN - 1
  for (char &ch : c)
    if (ch == ' ') ch = '_';
  return c;
}

// The kernel's prio field: 120 + nice for normal tasks; the idle task shows 120.
int trace_prio(const task_struct *p) {
  return p->is_idle_task ? 120 : 120 + p->static_nice;
}

FtraceWriter::FtraceWriter(const kernel::Kernel &k, std::FILE *out, Time from, Time to,
                           std::vector<int> cpus, bool pelt)
    : k_(k),
      out_(out),
      from_(from),
      to_(to),
      cpus_(traced_cpus(k.nr_cpu_ids(), cpus)),
      pelt_(pelt) {
  std::fprintf(out_,
               "# tracer: nop\n#\n# entries-in-buffer/entries-written: see below   #P:%d\n#\n"
               "#                                _-----=> irqs-off/BH-disabled\n"
               "#                               / _----=> need-resched\n"
               "#                              | / _---=> hardirq/softirq\n"
               "#                              || / _--=> preempt-depth\n"
               "#                              ||| /     delay\n"
               "#           TASK-PID     CPU#  ||||   TIMESTAMP  FUNCTION\n"
               "#              | |         |   ||||      |         |\n",
               k.nr_cpu_ids());
}

void FtraceWriter::finish() {
  std::fprintf(out_, "# schedlab: %llu entries\n", entries_);
  std::fflush(out_);
}

bool FtraceWriter::prefix(Time t, int cpu, const task_struct *current) {
  if (!in_window(t) || !traced(cpu)) return false;
  entries_++;
  // Flags: irqs off; in the hardirq/softirq column 'h' for what a timer interrupt does, 's'
  // for the balancing softirq.
  const char *flags = k_.in_hardirq() ? (k_.in_serving_softirq() ? "d.H." : "d.h.")
                                      : (k_.in_serving_softirq() ? "d.s." : "d...");
  std::fprintf(out_, "%16s-%-7d [%03d] %s %6llu.%06llu: ", trace_comm(current, true).c_str(),
               current->pid, cpu, flags, static_cast<unsigned long long>(t / NSEC_PER_SEC),
               static_cast<unsigned long long>((t % NSEC_PER_SEC) / NSEC_PER_USEC));
  return true;
}

static const char *state_str(unsigned int state) {
  if (state & kernel::TASK_DEAD) return "X";
  if (state & kernel::TASK_INTERRUPTIBLE) return "S";
  return "R";
}

void FtraceWriter::sched_switch(Time t, int cpu, const task_struct *prev, unsigned int prev_state,
                                const task_struct *next) {
  if (!prefix(t, cpu, prev)) return;
  std::fprintf(out_,
               "sched_switch: prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> "
               "next_comm=%s next_pid=%d next_prio=%d\n",
               trace_comm(prev, false).c_str(), prev->pid, trace_prio(prev),
               prev->is_idle_task ? "R" : state_str(prev_state), trace_comm(next, false).c_str(),
               next->pid, trace_prio(next));
}

void FtraceWriter::sched_waking(Time t, int this_cpu, const task_struct *p) {
  if (!prefix(t, this_cpu)) return;
  std::fprintf(out_, "sched_waking: comm=%s pid=%d prio=%d target_cpu=%03d\n",
               trace_comm(p, false).c_str(), p->pid, trace_prio(p), p->cpu);
}

// ttwu_do_activate() fires it where it runs: on the target after a wakelist IPI, else on the
// waker.
void FtraceWriter::sched_wakeup(Time t, const task_struct *p, int cpu) {
  if (!prefix(t, k_.this_cpu())) return;
  std::fprintf(out_, "sched_wakeup: comm=%s pid=%d prio=%d target_cpu=%03d\n",
               trace_comm(p, false).c_str(), p->pid, trace_prio(p), cpu);
}

// On the parent's CPU, which runs wake_up_new_task().
void FtraceWriter::sched_wakeup_new(Time t, const task_struct *p, int cpu) {
  if (!prefix(t, k_.this_cpu())) return;
  std::fprintf(out_, "sched_wakeup_new: comm=%s pid=%d prio=%d target_cpu=%03d\n",
               trace_comm(p, false).c_str(), p->pid, trace_prio(p), cpu);
}

// set_task_cpu() fires it on the CPU that moves the task: the waker, the balancing CPU (the
// NOHZ balancer for an idle CPU), the stopper's CPU, a CPU stealing a cookie's task.
void FtraceWriter::sched_migrate_task(Time t, const task_struct *p, int orig, int dest) {
  if (!prefix(t, k_.this_cpu())) return;
  std::fprintf(out_, "sched_migrate_task: comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d\n",
               trace_comm(p, false).c_str(), p->pid, trace_prio(p), orig, dest);
}

void FtraceWriter::sched_process_fork(Time t, const task_struct *child) {
  const int cpu = child->cpu;
  const task_struct *parent = k_.cpu_rq(cpu)->curr;
  if (!prefix(t, cpu, parent)) return;
  std::fprintf(out_, "sched_process_fork: comm=%s pid=%d child_comm=%s child_pid=%d\n",
               trace_comm(parent, false).c_str(), parent->pid, trace_comm(child, false).c_str(),
               child->pid);
}

void FtraceWriter::sched_process_exit(Time t, const task_struct *p) {
  if (!prefix(t, p->cpu, p)) return;
  std::fprintf(out_, "sched_process_exit: comm=%s pid=%d prio=%d\n", trace_comm(p, false).c_str(),
               p->pid, trace_prio(p));
}

// Counters go through the trace marker, as user space would write them: C|pid|name|value.
void FtraceWriter::sched_forceidle(Time t, int cpu, bool on) {
  if (!prefix(t, cpu)) return;
  std::fprintf(out_, "tracing_mark_write: C|0|forceidle_cpu%d|%d\n", cpu, on ? 1 : 0);
}

void FtraceWriter::sched_core_cookie(Time t, const task_struct *p, unsigned long old,
                                     unsigned long cookie) {
  if (!prefix(t, p->cpu)) return;
  std::fprintf(out_, "tracing_mark_write: sched_core_cookie: comm=%s pid=%d old=%lu cookie=%lu\n",
               trace_comm(p, false).c_str(), p->pid, old, cookie);
}

void FtraceWriter::sched_core_pick(Time t, int cpu, const task_struct *max, unsigned long cookie,
                                   unsigned int forceidle) {
  if (!prefix(t, cpu)) return;
  std::fprintf(out_,
               "tracing_mark_write: sched_core_pick: core=%d max_comm=%s max_pid=%d cookie=%lu "
               "forceidle=%u\n",
               k_.topology().cpu(cpu).core, trace_comm(max, false).c_str(), max->pid, cookie,
               forceidle);
}

// The load-tracking events, in the fields and order of LISA's module for kernels since 6.9
// (one util_est field). Tasks and queues are in the root task group: a queue's path is "/",
// and a task's entity has no group queue, which the module prints as "(null)".
void FtraceWriter::pelt_cfs(Time t, int this_cpu, int cpu, const kernel::sched_avg &avg) {
  if (!prefix(t, this_cpu)) return;
  std::fprintf(out_,
               "lisa__sched_pelt_cfs: cpu=%d path=/ load=%lu util=%lu update_time=%llu "
               "runnable=%lu\n",
               cpu, avg.load_avg, avg.util_avg,
               static_cast<unsigned long long>(avg.last_update_time), avg.runnable_avg);
}

void FtraceWriter::pelt_se(Time t, int this_cpu, const task_struct *p) {
  if (!prefix(t, this_cpu)) return;
  const kernel::sched_avg &avg = p->se.avg;
  std::fprintf(out_,
               "lisa__sched_pelt_se: cpu=%d path=(null) comm=%s pid=%d load=%lu util=%lu "
               "update_time=%llu runnable=%lu\n",
               p->cpu, trace_comm(p, false).c_str(), p->pid, avg.load_avg, avg.util_avg,
               static_cast<unsigned long long>(avg.last_update_time), avg.runnable_avg);
}

void FtraceWriter::util_est_cfs(Time t, int this_cpu, int cpu, const kernel::sched_avg &avg) {
  if (!prefix(t, this_cpu)) return;
  std::fprintf(out_, "lisa__sched_util_est_cfs: cpu=%d path=/ util=%lu util_est=%u\n", cpu,
               avg.util_avg, avg.util_est);
}

void FtraceWriter::util_est_se(Time t, int this_cpu, const task_struct *p) {
  if (!prefix(t, this_cpu)) return;
  std::fprintf(out_,
               "lisa__sched_util_est_se: cpu=%d path=(null) comm=%s pid=%d util=%lu "
               "util_est=%u\n",
               p->cpu, trace_comm(p, false).c_str(), p->pid, p->se.avg.util_avg,
               p->se.avg.util_est & ~kernel::UTIL_AVG_UNCHANGED);
}

}  // namespace schedlab::observe
