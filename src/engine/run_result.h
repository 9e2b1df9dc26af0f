// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// What one run leaves behind: its metrics, the kernel's counters per CPU and the benchmark
// models' reports. Everything but wall_s is a function of (scenario, configuration, seed).
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "engine/run_stats.h"
#include "kernel/kernel.h"
#include "observe/invariant_checker.h"
#include "observe/metrics.h"
#include "workload/benchmarks.h"

namespace schedlab::engine {

struct RunResult {
  std::string scenario;
  std::string config;
  u64 seed = 0;
  kernel::KernelConfig kernel;
  observe::RunMetrics metrics;
  u64 events = 0;
  // Why the run ended before its scenario did (Simulation::set_stop()): it then ends at the
  // simulated time of its last event, a partial run.
  enum class Stop { None, Interrupted, EventLimit };
  Stop stop = Stop::None;
  // Tasks that were to finish but were asleep for good when nothing was left to happen (the
  // event queue ran dry): a deadlock in the workload, or a lost wakeup. By comm.
  std::vector<std::string> stuck_tasks;
  kernel::Kernel::SisStats sis;
  // Per CPU counters (rq fields), in CPU order.
  struct CpuSched {
    // The CPU statistics of kernel/stats.h, by run_stat_id (0 for RUN statistics).
    std::array<u64, NR_RUN_STATS> stat{};
    // schedstat's lb_count[] and lb_gained[] over the CPU's domains, by idle type.
    std::array<u64, 3> lb_count_by_idle{}, lb_gained_by_idle{};
    u64 ticks = 0, remote_ticks = 0;  // sched_tick() here; sched_tick_remote() for here
    u64 avg_idle_ns = 0;              // at the end of the run
    double mean_avg_idle_ns = 0;      // mean of avg_idle over its updates (0 if none)
    u64 avg_idle_updates = 0;
  };
  std::vector<CpuSched> sched;
  // avg_idle over all its updates on all CPUs (0 if none).
  double mean_avg_idle_ns() const;
  workload::BenchReport bench;  // hackbench / schbench / fork results, when the scenario has them
  std::optional<observe::CheckReport> check;  // with enable_check()
  double wall_s = 0;                          // host time, never part of the deterministic result
};

}  // namespace schedlab::engine
