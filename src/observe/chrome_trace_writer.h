// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Writes the run as Chrome trace-event JSON (chrome://tracing, ui.perfetto.dev): one track per
// CPU, a slice per running task and per forced-idle interval, a counter of forced-idle CPUs,
// and process and thread names. Timestamps are microseconds with nanosecond fractions. Slices
// are written as they end, so memory does not grow with the trace.
#include <cstdio>
#include <vector>

#include "kernel/kernel.h"
#include "kernel/trace.h"

namespace schedlab::observe {

class ChromeTraceWriter : public kernel::TraceSink {
 public:
  // Slices are clipped to [from, to); only `cpus` (empty = all) get tracks. With `pelt`, each
  // of those CPUs also gets a counter of its fair queue's util_avg and util_est.
  ChromeTraceWriter(const kernel::Kernel &k, std::FILE *out, Time from, Time to,
                    std::vector<int> cpus = {}, bool pelt = false);
  void finish(Time end);  // closes open slices and the JSON

  void sched_switch(Time, int, const kernel::task_struct *, unsigned int,
                    const kernel::task_struct *) override;
  void sched_forceidle(Time, int, bool) override;
  bool traces_pelt() const override { return pelt_; }
  void pelt_cfs(Time t, int, int cpu, const kernel::sched_avg &avg) override {
    util_counter(t, cpu, avg);
  }
  void util_est_cfs(Time t, int, int cpu, const kernel::sched_avg &avg) override {
    util_counter(t, cpu, avg);
  }

 private:
  void util_counter(Time t, int cpu, const kernel::sched_avg &avg);
  void slice(int cpu, Time start, Time end, const char *name, int pid, unsigned long cookie);
  void event_prefix();
  const kernel::Kernel &k_;
  std::FILE *out_;
  Time from_, to_;
  std::vector<char> traced_;  // by CPU
  struct Track {
    const kernel::task_struct *task = nullptr;  // running task, nullptr when idle
    Time since = 0;
    Time forceidle_since = kTimeNever;
  };
  std::vector<Track> tracks_;
  int forceidle_cpus_ = 0;
  bool first_ = true;
  bool pelt_;
};

}  // namespace schedlab::observe
