// SPDX-License-Identifier: GPL-2.0-only
#include "observe/ftrace_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

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

// The latency format (trace_print_lat_fmt()): irqs-off, need-resched, hardirq/softirq,
// preempt-depth, migrate-disable.
//  - irqs-off: every scheduler tracepoint fires with interrupts off (the runqueue lock and
//    p->pi_lock are taken with irqsave, __schedule() disables them): 'd'.
//  - need-resched: 'N' while current's TIF_NEED_RESCHED is set, but not from inside
//    __schedule(), which clears it before it picks (a local resched_curr() sets
//    the preempt-count bit with it; the model does not tell the short remote-set 'n' window
//    apart).
//  - 'h' in a hardirq (an hrtimer, the tick, the wakeup IPI), 's' in the balancing softirq, 'H'
//    for both.
//  - preempt-depth: '.', what a kernel without CONFIG_PREEMPT_COUNT (PREEMPT_NONE or
//    VOLUNTARY, no PREEMPT_DYNAMIC) records, as in the real 6.12 trace the tests compare
//    against (tests/data/traces/golden-pairs-4t.trace: "rcu_sched", d.... on every
//    sched_switch). A PREEMPT_DYNAMIC kernel would show 2 on sched_switch (schedule()'s
//    preempt_disable() plus the runqueue lock; the tracepoint's own guard is subtracted).
//  - migrate-disable: '.': scheduler paths do not run under migrate_disable().
// In the entry's flags byte, 'N' is need-resched with the preempt-resched bit.
std::uint8_t trace_entry_flags(const kernel::Kernel &k, const task_struct *current,
                               bool in_schedule) {
  std::uint8_t f = kTraceIrqsOff;
  if (current->need_resched && !in_schedule) f |= kTraceNeedResched | kTracePreemptResched;
  if (k.in_hardirq()) f |= kTraceHardirq;
  if (k.in_serving_softirq()) f |= kTraceSoftirq;
  return f;
}

std::string trace_flags(const kernel::Kernel &k, const task_struct *current, bool in_schedule) {
  const std::uint8_t e = trace_entry_flags(k, current, in_schedule);
  std::string f = "d....";
  if (e & kTraceNeedResched) f[1] = 'N';
  if (e & kTraceHardirq)
    f[2] = e & kTraceSoftirq ? 'H' : 'h';
  else if (e & kTraceSoftirq)
    f[2] = 's';
  return f;
}

// __trace_sched_switch_state(): a task that sleeps is S; one that exits is X (a thread, reaped
// at once) or Z (a process leader, a zombie until its parent waits); a task switched out while
// runnable is R. The tasks modelled run in user mode, where preemption goes through
// schedule() on the way back to user space (not preempt_schedule_irq()), so it is R, never
// R+.
const char *trace_prev_state(const task_struct *prev, unsigned int state) {
  if (prev->is_idle_task) return "R";
  if (state & kernel::TASK_DEAD) return prev->pid == prev->tgid ? "Z" : "X";
  if (state & kernel::TASK_INTERRUPTIBLE) return "S";
  return "R";
}

long trace_prev_state_value(const task_struct *prev, unsigned int state) {
  switch (trace_prev_state(prev, state)[0]) {
    case 'S':
      return 0x01;  // TASK_INTERRUPTIBLE
    case 'X':
      return 0x10;  // EXIT_DEAD
    case 'Z':
      return 0x20;  // EXIT_ZOMBIE
    default:
      return 0;
  }
}

bool trace_group_dead(const kernel::Kernel &k, const task_struct *p) {
  for (const auto &q : k.tasks())
    if (q.get() != p && q->tgid == p->tgid && !q->is_idle_task && !(q->__state & kernel::TASK_DEAD))
      return false;
  return true;
}

FtraceWriter::FtraceWriter(const kernel::Kernel &k, std::FILE *out, Time from, Time to,
                           std::vector<int> cpus, bool pelt)
    : k_(k),
      out_(out),
      body_(out),
      v618_(k.config().version == kernel::KernelVersion::V6_18),
      from_(from),
      to_(to),
      cpus_(traced_cpus(k.nr_cpu_ids(), cpus)),
      pelt_(pelt) {
  // The header, first in the file, holds counts known only at the end. A regular file open
  // for reading and writing is written from its start and the events moved up by the header's
  // length at the end; anything else (a pipe, a terminal) gets them through an unnamed
  // temporary file.
  struct stat st {};
  start_ = std::ftell(out_);
  const int mode = fcntl(fileno(out_), F_GETFL);
  if (start_ < 0 || fstat(fileno(out_), &st) != 0 || !S_ISREG(st.st_mode) || mode < 0 ||
      (mode & O_ACCMODE) != O_RDWR) {
    spool_ = std::tmpfile();
    if (!spool_) err_ = errno ? errno : EIO;
    body_ = spool_ ? spool_ : out_;
  }
}

FtraceWriter::~FtraceWriter() {
  if (spool_) std::fclose(spool_);
}

// print_event_info() and print_func_help_header_irq() (no tgid column).
std::string FtraceWriter::header() const {
  char counts[96];
  std::snprintf(counts, sizeof counts, "# entries-in-buffer/entries-written: %llu/%llu   #P:%d\n",
                entries_, entries_, k_.nr_cpu_ids());
  return std::string("# tracer: nop\n#\n") + counts +
         "#\n"
         "#                                _-----=> irqs-off/BH-disabled\n"
         "#                               / _----=> need-resched\n"
         "#                              | / _---=> hardirq/softirq\n"
         "#                              || / _--=> preempt-depth\n"
         "#                              ||| / _-=> migrate-disable\n"
         "#                              |||| /     delay\n"
         "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
         "#              | |         |   |||||     |         |\n";
}

int FtraceWriter::finish() {
  if (err_) return err_;
  if (finished_) return 0;
  finished_ = true;
  const int rc = spool_ ? copy_spool() : prepend_header();
  if (rc) return rc;
  if (std::fflush(out_) != 0 || std::ferror(out_)) return errno ? errno : EIO;
  return 0;
}

int copy_spool(std::FILE *spool, std::FILE *out) {
  if (std::fflush(spool) != 0 || std::ferror(spool) || std::fseek(spool, 0, SEEK_SET) != 0)
    return errno ? errno : EIO;
  std::vector<char> buf(1 << 16);
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), spool)) > 0;)
    if (std::fwrite(buf.data(), 1, n, out) != n) return errno ? errno : EIO;
  return std::ferror(spool) ? (errno ? errno : EIO) : 0;
}

int FtraceWriter::copy_spool() {
  const std::string h = header();
  if (std::fwrite(h.data(), 1, h.size(), out_) != h.size()) return errno ? errno : EIO;
  return observe::copy_spool(spool_, out_);
}

// Moves [start_, end) up by the header's length, a bounded chunk at a time from the end, then
// writes the header at start_.
int FtraceWriter::prepend_header() {
  if (std::fflush(out_) != 0) return errno ? errno : EIO;
  const int fd = fileno(out_);
  const off_t end = lseek(fd, 0, SEEK_END);
  if (end < 0) return errno;
  const std::string h = header();
  const auto shift = static_cast<off_t>(h.size());
  std::vector<char> buf(1 << 20);
  for (off_t pos = end; pos > start_;) {
    const off_t n = std::min<off_t>(static_cast<off_t>(buf.size()), pos - start_);
    pos -= n;
    if (pread(fd, buf.data(), static_cast<std::size_t>(n), pos) != n) return errno ? errno : EIO;
    if (pwrite(fd, buf.data(), static_cast<std::size_t>(n), pos + shift) != n)
      return errno ? errno : EIO;
  }
  if (pwrite(fd, h.data(), h.size(), start_) != static_cast<ssize_t>(h.size()))
    return errno ? errno : EIO;
  if (std::fseek(out_, 0, SEEK_END) != 0) return errno ? errno : EIO;
  return 0;
}

// trace_print_context(): "%16s-%-7d [%03d] FLAGS %5lu.%06lu: ", the time in microseconds
// rounded to the nearest (ns2usecs()).
bool FtraceWriter::prefix(Time t, int cpu, const task_struct *current, bool in_schedule,
                          bool irqs_off) {
  if (finished_ || !in_window(t) || !traced(cpu)) return false;
  entries_++;
  const unsigned long long usecs = (static_cast<unsigned long long>(t) + 500) / 1000;
  std::string flags = trace_flags(k_, current, in_schedule);
  if (!irqs_off) flags[0] = '.';
  std::fprintf(body_, "%16s-%-7d [%03d] %s %5llu.%06llu: ", trace_comm(current, true).c_str(),
               current->pid, cpu, flags.c_str(), usecs / 1000000, usecs % 1000000);
  return true;
}

void FtraceWriter::sched_switch(Time t, int cpu, const task_struct *prev, unsigned int prev_state,
                                const task_struct *next) {
  if (!prefix(t, cpu, prev)) return;
  std::fprintf(body_,
               "sched_switch: prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> "
               "next_comm=%s next_pid=%d next_prio=%d\n",
               trace_comm(prev, false).c_str(), prev->pid, trace_prio(prev),
               trace_prev_state(prev, prev_state), trace_comm(next, false).c_str(), next->pid,
               trace_prio(next));
}

void FtraceWriter::sched_waking(Time t, int this_cpu, const task_struct *p) {
  if (!prefix(t, this_cpu)) return;
  std::fprintf(body_, "sched_waking: comm=%s pid=%d prio=%d target_cpu=%03d\n",
               trace_comm(p, false).c_str(), p->pid, trace_prio(p), p->cpu);
}

// ttwu_do_activate() fires it where it runs: on the target after a wakelist IPI, else on the
// waker.
void FtraceWriter::sched_wakeup(Time t, const task_struct *p, int cpu) {
  if (!prefix(t, k_.this_cpu())) return;
  std::fprintf(body_, "sched_wakeup: comm=%s pid=%d prio=%d target_cpu=%03d\n",
               trace_comm(p, false).c_str(), p->pid, trace_prio(p), cpu);
}

// On the parent's CPU, which runs wake_up_new_task().
void FtraceWriter::sched_wakeup_new(Time t, const task_struct *p, int cpu) {
  if (!prefix(t, k_.this_cpu())) return;
  std::fprintf(body_, "sched_wakeup_new: comm=%s pid=%d prio=%d target_cpu=%03d\n",
               trace_comm(p, false).c_str(), p->pid, trace_prio(p), cpu);
}

// set_task_cpu() fires it on the CPU that moves the task: the waker, the balancing CPU (the
// NOHZ balancer for an idle CPU), the stopper's CPU, a CPU stealing a cookie's task.
void FtraceWriter::sched_migrate_task(Time t, const task_struct *p, int orig, int dest) {
  if (!prefix(t, k_.this_cpu())) return;
  std::fprintf(body_, "sched_migrate_task: comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d\n",
               trace_comm(p, false).c_str(), p->pid, trace_prio(p), orig, dest);
}

void FtraceWriter::sched_process_fork(Time t, const task_struct *child) {
  const int cpu = child->cpu;
  const task_struct *parent = k_.cpu_rq(cpu)->curr;
  if (!prefix(t, cpu, parent)) return;
  std::fprintf(body_, "sched_process_fork: comm=%s pid=%d child_comm=%s child_pid=%d\n",
               trace_comm(parent, false).c_str(), parent->pid, trace_comm(child, false).c_str(),
               child->pid);
}

// do_exit()'s tracepoint. 6.18 adds group_dead: whether the task is the last live thread
// of its thread group.
void FtraceWriter::sched_process_exit(Time t, const task_struct *p) {
  if (!prefix(t, p->cpu, p)) return;
  std::fprintf(body_, "sched_process_exit: comm=%s pid=%d prio=%d", trace_comm(p, false).c_str(),
               p->pid, trace_prio(p));
  if (v618_) std::fprintf(body_, " group_dead=%s", trace_group_dead(k_, p) ? "true" : "false");
  std::fputc('\n', body_);
}

// Counters go through the trace marker, as user space would write them: C|pid|name|value.
void FtraceWriter::sched_forceidle(Time t, int cpu, bool on) {
  if (!prefix(t, cpu)) return;
  std::fprintf(body_, "tracing_mark_write: C|0|forceidle_cpu%d|%d\n", cpu, on ? 1 : 0);
}

void FtraceWriter::sched_core_cookie(Time t, const task_struct *p, unsigned long old,
                                     unsigned long cookie) {
  if (!prefix(t, p->cpu)) return;
  std::fprintf(body_, "tracing_mark_write: sched_core_cookie: comm=%s pid=%d old=%lu cookie=%lu\n",
               trace_comm(p, false).c_str(), p->pid, old, cookie);
}

// The core-wide pick runs in __schedule(), after it cleared need_resched.
void FtraceWriter::sched_core_pick(Time t, int cpu, const task_struct *max, unsigned long cookie,
                                   unsigned int forceidle) {
  if (!prefix(t, cpu, k_.cpu_rq(cpu)->curr, /*in_schedule=*/true)) return;
  std::fprintf(body_,
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
  std::fprintf(body_,
               "lisa__sched_pelt_cfs: cpu=%d path=/ load=%lu util=%lu update_time=%llu "
               "runnable=%lu\n",
               cpu, avg.load_avg, avg.util_avg,
               static_cast<unsigned long long>(avg.last_update_time), avg.runnable_avg);
}

void FtraceWriter::pelt_se(Time t, int this_cpu, const task_struct *p) {
  if (!prefix(t, this_cpu)) return;
  const kernel::sched_avg &avg = p->se.avg;
  std::fprintf(body_,
               "lisa__sched_pelt_se: cpu=%d path=(null) comm=%s pid=%d load=%lu util=%lu "
               "update_time=%llu runnable=%lu\n",
               p->cpu, trace_comm(p, false).c_str(), p->pid, avg.load_avg, avg.util_avg,
               static_cast<unsigned long long>(avg.last_update_time), avg.runnable_avg);
}

// LISA names the events of kernels with the single util_est field (6.9 on) "_unified":
// lisa__sched_util_est_{cfs,se}_unified, util_est first.
void FtraceWriter::util_est_cfs(Time t, int this_cpu, int cpu, const kernel::sched_avg &avg) {
  if (!prefix(t, this_cpu)) return;
  std::fprintf(body_, "lisa__sched_util_est_cfs_unified: cpu=%d path=/ util_est=%u util=%lu\n", cpu,
               avg.util_est, avg.util_avg);
}

void FtraceWriter::util_est_se(Time t, int this_cpu, const task_struct *p) {
  if (!prefix(t, this_cpu)) return;
  std::fprintf(body_,
               "lisa__sched_util_est_se_unified: cpu=%d path=(null) comm=%s pid=%d util_est=%u "
               "util=%lu\n",
               p->cpu, trace_comm(p, false).c_str(), p->pid,
               p->se.avg.util_est & ~kernel::UTIL_AVG_UNCHANGED, p->se.avg.util_avg);
}

// print, from tracing_mark_write(): a system call, so interrupts are on; trace_print_print()
// shows the function that recorded it, then the text, which the kernel ends with a newline.
void FtraceWriter::print(Time t, int cpu, const task_struct *current, std::string_view buf) {
  if (!prefix(t, cpu, current, false, /*irqs_off=*/false)) return;
  std::fprintf(body_, "tracing_mark_write: %.*s\n", static_cast<int>(buf.size()), buf.data());
}

}  // namespace schedlab::observe
