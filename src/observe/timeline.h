// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// A window of a run's schedule as plain data: who ran where and when, forced-idle intervals
// and wakeups, per CPU. Built by TimelineRecorder, drawn by report/timeline_svg.h; it holds no
// pointers into the model, so it outlives the simulation.
#include <string>
#include <vector>

#include "sim/time.h"

namespace schedlab::observe {

struct TimelineCpu {
  int cpu = 0, core = 0, thread = 0;
};

struct TimelineSlice {
  enum Kind { Task, ForcedIdle };
  Kind kind = Task;
  int cpu = 0;
  Time start = 0, end = 0;  // clipped to the window
  int pid = 0;              // 0 for forced idle
  std::string comm;
  unsigned long cookie = 0;  // 0 = untagged
};

struct TimelineWakeup {
  int cpu = 0;  // the target CPU
  Time at = 0;
  int pid = 0;
  std::string comm;
  bool is_new = false;  // sched_wakeup_new (a fork) rather than sched_wakeup
};

// A CPU's fair-queue utilisation (PELT, 0..1024) as the load-tracking tracepoints report it;
// it holds until the next sample of the CPU.
struct TimelineUtil {
  int cpu = 0;
  Time at = 0;
  unsigned long util_avg = 0;
  unsigned int util_est = 0;
};

struct Timeline {
  Time from = 0, to = 0;
  Time end = 0;  // when the run stopped: its end, or `to` if it went on past the window
  std::vector<TimelineCpu> cpus;  // the traced CPUs, by core then thread
  std::vector<TimelineSlice> slices;
  std::vector<TimelineWakeup> wakeups;
  // Only when asked for (TimelineRecorder's `util`): by CPU, then time; each traced CPU's first
  // sample is its value at `from` when one was known then.
  std::vector<TimelineUtil> util;
  // More than the recorder's limit of slices, wakeups and util samples fell in the window: the
  // lists stop there.
  bool overflow = false;
};

}  // namespace schedlab::observe
