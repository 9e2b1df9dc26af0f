// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Writes the model's tracepoints as /sys/kernel/tracing/trace text (the nop tracer's format),
// streaming to a file so memory does not grow with the trace. Perfetto's ftrace text importer
// reads it (sched_waking present, four flag characters, comms without spaces).
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
  // them (lisa__sched_pelt_cfs, lisa__sched_pelt_se, lisa__sched_util_est_cfs,
  // lisa__sched_util_est_se).
  FtraceWriter(const kernel::Kernel &k, std::FILE *out, Time from, Time to,
               std::vector<int> cpus = {}, bool pelt = false);
  void finish();  // flushes; the header counts the entries written

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

 private:
  bool in_window(Time t) const { return t >= from_ && t < to_; }
  bool traced(int cpu) const { return cpus_[static_cast<std::size_t>(cpu)]; }
  // "comm-pid [cpu] d... sec.usec: " for the task current on cpu.
  // Returns false (printing nothing) outside the window or the traced CPUs.
  bool prefix(Time t, int cpu, const kernel::task_struct *current);
  // ... for the task the CPU runs now.
  bool prefix(Time t, int cpu) { return prefix(t, cpu, k_.cpu_rq(cpu)->curr); }
  const kernel::Kernel &k_;
  std::FILE *out_;
  Time from_, to_;
  std::vector<char> cpus_;  // by CPU: traced or not
  unsigned long long entries_ = 0;
  bool pelt_;
};

// Which CPUs a trace covers, by CPU id: every CPU when `cpus` is empty.
std::vector<char> traced_cpus(int nr_cpus, const std::vector<int> &cpus);

// The comm as ftrace prints it: idle tasks are "<idle>" in the prefix; spaces become '_'.
std::string trace_comm(const kernel::task_struct *p, bool prefix);
int trace_prio(const kernel::task_struct *p);

}  // namespace schedlab::observe
