// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Writes the model's tracepoints as /sys/kernel/tracing/trace text, byte for byte as Linux
// 6.12 (or 6.18, as the scenario's kernel version says) prints the nop tracer's buffer: the
// header with the entry counts and the five latency-flag columns, then one line per event in
// the print format of its tracepoint. Events stream to the output (or, when that cannot seek,
// to an unnamed temporary file) so memory does not grow with the trace; finish() puts the
// header, whose counts are known only then, in front of them.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "kernel/kernel.h"
#include "kernel/trace.h"

namespace schedlab::observe {

class FtraceWriter : public kernel::TraceSink {
 public:
  // Events in [from, to) on `cpus` (empty = all) only. The caller keeps `out` open until
  // finish(). With `pelt`, also the load-tracking tracepoints, as LISA's kernel module prints
  // them (lisa__sched_pelt_cfs, lisa__sched_pelt_se, lisa__sched_util_est_cfs_unified,
  // lisa__sched_util_est_se_unified).
  FtraceWriter(const kernel::Kernel &k, std::FILE *out, Time from, Time to,
               std::vector<int> cpus = {}, bool pelt = false);
  ~FtraceWriter() override;
  // 0 once the writer can write, else the errno of what failed (no temporary file).
  int error() const { return err_; }
  // Writes the header in front of the events and flushes: 0, or the errno of a failed write.
  // Once: later events are not written.
  int finish();

  void sched_switch(Time, int, const kernel::task_struct *, unsigned int,
                    const kernel::task_struct *) override;
  void sched_waking(Time, int, const kernel::task_struct *) override;
  void sched_wakeup(Time, const kernel::task_struct *, int) override;
  void sched_wakeup_new(Time, const kernel::task_struct *, int) override;
  void sched_migrate_task(Time, const kernel::task_struct *, int, int) override;
  void sched_process_fork(Time, const kernel::task_struct *) override;
  void sched_process_exit(Time, const kernel::task_struct *) override;
  void sched_forceidle(Time, int, bool) override;
  void sched_core_cookie(Time, const kernel::task_struct *, unsigned long, unsigned long) override;
  void sched_core_pick(Time, int, const kernel::task_struct *, unsigned long,
                       unsigned int) override;
  bool traces_pelt() const override { return pelt_; }
  void pelt_cfs(Time, int, int, const kernel::sched_avg &) override;
  void pelt_se(Time, int, const kernel::task_struct *) override;
  void util_est_cfs(Time, int, int, const kernel::sched_avg &) override;
  void util_est_se(Time, int, const kernel::task_struct *) override;
  // Lines user space writes to trace_marker (rt-app's markers).
  bool traces_print() const override { return true; }
  void print(Time, int, const kernel::task_struct *, std::string_view) override;

 private:
  std::string header() const;
  int prepend_header();  // the events are in out_ from start_: move them up, header first
  int copy_spool();      // header, then the spooled events, to out_
  bool in_window(Time t) const { return t >= from_ && t < to_; }
  bool traced(int cpu) const { return cpus_[static_cast<std::size_t>(cpu)]; }
  // "comm-pid [cpu] d... sec.usec: " for the task current on cpu.
  // Returns false (printing nothing) outside the window or the traced CPUs.
  // `in_schedule`: fired from inside __schedule() (need_resched already cleared);
  // `irqs_off`: false for a system call's event (interrupts on).
  bool prefix(Time t, int cpu, const kernel::task_struct *current, bool in_schedule = false,
              bool irqs_off = true);
  // ... for the task the CPU runs now.
  bool prefix(Time t, int cpu) { return prefix(t, cpu, k_.cpu_rq(cpu)->curr); }
  const kernel::Kernel &k_;
  std::FILE *out_;
  std::FILE *body_;  // where event lines go: out_, or the spool
  std::FILE *spool_ = nullptr;
  long start_ = 0;  // out_'s offset where the trace begins, when out_ is seekable
  int err_ = 0;
  bool finished_ = false;
  bool v618_;  // the 6.18 print formats (sched_process_exit's group_dead)
  Time from_, to_;
  std::vector<char> cpus_;  // by CPU: traced or not
  unsigned long long entries_ = 0;
  bool pelt_;
};

// Which CPUs a trace covers, by CPU id: every CPU when `cpus` is empty.
std::vector<char> traced_cpus(int nr_cpus, const std::vector<int> &cpus);
// Appends all of `spool` (an unnamed temporary file a trace was streamed to) to `out`: 0, or
// the errno of the first read or write that failed.
int copy_spool(std::FILE *spool, std::FILE *out);

// The comm as ftrace prints it: idle tasks are "<idle>" in the prefix; spaces become '_'.
std::string trace_comm(const kernel::task_struct *p, bool prefix);
// The flags byte of a trace entry (common_flags; the kernel's TRACE_FLAG_* bits) for an event
// the kernel `k` traces on behalf of `current` (see FtraceWriter::prefix()).
enum TraceEntryFlag : std::uint8_t {
  kTraceIrqsOff = 0x01,
  kTraceNeedResched = 0x04,
  kTraceHardirq = 0x08,
  kTraceSoftirq = 0x10,
  kTracePreemptResched = 0x20,
};
std::uint8_t trace_entry_flags(const kernel::Kernel &k, const kernel::task_struct *current,
                               bool in_schedule = false);
// The five latency-format flag characters ftrace prints for those flags.
std::string trace_flags(const kernel::Kernel &k, const kernel::task_struct *current,
                        bool in_schedule = false);
// sched_switch's prev_state as 6.12 and 6.18 print it for a task that switches out in
// `state` (its __state; TASK_RUNNING = preempted at a user-mode preemption point).
const char *trace_prev_state(const kernel::task_struct *prev, unsigned int state);
// The same as the value of the event's prev_state field: 0 (R), TASK_INTERRUPTIBLE (S),
// EXIT_DEAD (X), EXIT_ZOMBIE (Z).
long trace_prev_state_value(const kernel::task_struct *prev, unsigned int state);
int trace_prio(const kernel::task_struct *p);
// sched_process_exit's group_dead (6.18): `p` is the last live thread of its thread group.
bool trace_group_dead(const kernel::Kernel &k, const kernel::task_struct *p);

}  // namespace schedlab::observe
