// SPDX-License-Identifier: GPL-2.0-only
#include "observe/timehist.h"

#include "observe/ftrace_writer.h"

namespace schedlab::observe {

using kernel::task_struct;

namespace {

// perf prints times as "msec.usec", truncated, right-aligned in `width` + 4 characters and a
// blank.
void put_ms(std::FILE *out, Time ns) {
  std::fprintf(out, "%6llu.%03llu ", static_cast<unsigned long long>(ns / 1000000),
               static_cast<unsigned long long>(ns % 1000000 / 1000));
}

const char kDashes[] = "------------------------------------------------------------";

// "time [cpu] " as perf prints it: seconds and microseconds (truncated) in 15 columns.
void put_time_cpu(std::FILE *out, Time t, int cpu) {
  char ts[32];
  std::snprintf(ts, sizeof ts, "%llu.%06llu", static_cast<unsigned long long>(t / 1000000000),
                static_cast<unsigned long long>(t % 1000000000 / 1000));
  std::fprintf(out, "%15s [%04d] ", ts, cpu);
}

}  // namespace

Timehist::Timehist(const kernel::Kernel &k, std::FILE *out, Options opt)
    : k_(k),
      out_(out),
      opt_(std::move(opt)),
      cpus_(traced_cpus(k.nr_cpu_ids(), opt_.cpus)),
      idle_(static_cast<std::size_t>(k.nr_cpu_ids())),
      last_switch_(static_cast<std::size_t>(k.nr_cpu_ids()), kTimeNever) {
  std::fputs(header().c_str(), out_);
}

std::string Timehist::header() {
  // timehist_header() without the optional columns: names, units, then dashes as wide as each
  // column. The task column is 30 wide until a longer name widens it.
  char buf[512];
  std::string h;
  std::snprintf(buf, sizeof buf, "%15s %6s  %-30s  %9s  %9s  %9s\n", "time", "cpu", "task name",
                "wait time", "sch delay", "run time");
  h += buf;
  std::snprintf(buf, sizeof buf, "%15s %-6s  %-30s  %9s  %9s  %9s\n", "", "", "[tid/pid]", "(msec)",
                "(msec)", "(msec)");
  h += buf;
  std::snprintf(buf, sizeof buf, "%.15s %.6s  %.30s  %.9s  %.9s  %.9s\n", kDashes, kDashes, kDashes,
                kDashes, kDashes, kDashes);
  h += buf;
  return h;
}

// perf's thread name: the comm, then [tid] for a process's main thread and [tid/pid] for the
// others. The idle task is "<idle>" in switch lines (perf's own per-CPU idle thread) and
// "swapper" where it wakes or moves a task (the sample's pid 0).
std::string Timehist::commstr(const task_struct *p, bool idle_as_swapper) {
  std::string s;
  if (p->is_idle_task) {
    s = idle_as_swapper ? "swapper" : "<idle>";
  } else {
    char ids[48];
    if (p->pid == p->tgid)
      std::snprintf(ids, sizeof ids, "[%d]", p->pid);
    else
      std::snprintf(ids, sizeof ids, "[%d/%d]", p->pid, p->tgid);
    s = p->comm.substr(0, 15);  // TASK_COMM_LEN - 1
    s += ids;
  }
  if (static_cast<int>(s.size()) > comm_width_) comm_width_ = static_cast<int>(s.size());
  return s;
}

Timehist::Runtime &Timehist::runtime(const task_struct *p, int cpu) {
  if (p->is_idle_task) return idle_[static_cast<std::size_t>(cpu)];
  const auto pid = static_cast<std::size_t>(p->pid);
  if (pid >= tasks_.size()) tasks_.resize(pid + 1);
  return tasks_[pid];
}

bool Timehist::event_prefix(Time t, int cpu, const task_struct *current) {
  if (t < opt_.from || (opt_.to != kTimeNever && t > opt_.to)) return false;
  if (!cpus_[static_cast<std::size_t>(cpu)]) return false;
  const std::string who = commstr(current, true);
  put_time_cpu(out_, t, cpu);
  std::fprintf(out_, " %-*s   %9s  %9s  %9s ", comm_width_, who.c_str(), "", "", "");
  return true;
}

// timehist_sched_change_event(): the task switched out is charged the time since the CPU's
// previous switch (its run), the time from its last switch-out to that (its wait: sleep,
// or preemption when it left in state R), and the time from its wakeup, or preemption, to it
// (its scheduling delay).
void Timehist::sched_switch(Time now, int cpu, const task_struct *prev, unsigned int prev_state,
                            const task_struct *) {
  Runtime &r = runtime(prev, cpu);
  const char state = trace_prev_state(prev, prev_state)[0];
  const auto c = static_cast<std::size_t>(cpu);
  Time tprev = last_switch_[c];
  Time t = now;
  bool show = t >= opt_.from;
  if (show && tprev != kTimeNever && tprev < opt_.from) tprev = opt_.from;
  if (show && opt_.to != kTimeNever) {
    if (tprev == kTimeNever || tprev > opt_.to)
      show = false;
    else if (t > opt_.to)
      t = opt_.to;
  }
  if (show && cpus_[c]) {
    Time run = 0, delay = 0, wait = 0;
    if (tprev != kTimeNever) {
      run = t - tprev;
      if (r.ready_to_run != kTimeNever && r.ready_to_run <= tprev) delay = tprev - r.ready_to_run;
      if (r.last_time != kTimeNever && r.last_time <= tprev) wait = tprev - r.last_time;
    }
    const std::string who = commstr(prev, false);
    put_time_cpu(out_, t, cpu);
    std::fprintf(out_, " %-*s ", comm_width_, who.c_str());
    put_ms(out_, wait);
    put_ms(out_, delay);
    put_ms(out_, run);
    if (opt_.wakeups) std::fprintf(out_, "  %-*s", comm_width_, "");
    std::fputc('\n', out_);
  }
  r.last_time = now;
  r.ready_to_run = state == 'R' ? t : kTimeNever;
  last_switch_[c] = now;
}

// A wakeup makes the task ready to run (perf takes sched_waking when the trace has it, and
// sched_wakeup_new); a preempted task stays ready from its preemption.
void Timehist::woken(Time t, int cpu, const task_struct *p) {
  Runtime &r = runtime(p, cpu);
  if (r.ready_to_run == kTimeNever) r.ready_to_run = t;
  if (opt_.wakeups && event_prefix(t, cpu, k_.cpu_rq(cpu)->curr))
    std::fprintf(out_, "awakened: %s\n", commstr(p, true).c_str());
}

void Timehist::sched_waking(Time t, int this_cpu, const task_struct *p) {
  woken(t, this_cpu, p);
}

void Timehist::sched_wakeup_new(Time t, const task_struct *p, int) {
  woken(t, k_.this_cpu(), p);
}

void Timehist::sched_migrate_task(Time t, const task_struct *p, int orig, int dest) {
  const int cpu = k_.this_cpu();
  if (opt_.migrations && event_prefix(t, cpu, k_.cpu_rq(cpu)->curr))
    std::fprintf(out_, "migrated: %s cpu %d => %d\n", commstr(p, true).c_str(), orig, dest);
}

}  // namespace schedlab::observe
