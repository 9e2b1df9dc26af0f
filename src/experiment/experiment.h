// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// An experiment: every chosen configuration of a scenario on the same seeds (common random
// numbers: a task's random stream depends only on (seed, task index), so every configuration
// sees the same demands), simulated on a pool of worker threads. Each run owns its Simulation;
// the workers share only the const Scenario. Results land in a vector indexed by
// (configuration, run), so they are identical whatever the thread count.
#include <array>
#include <atomic>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/simulation.h"
#include "experiment/run_stats.h"
#include "scenario/config.h"

namespace schedlab::experiment {

struct ExperimentOptions {
  std::vector<std::string> configs;  // by name; empty = every configuration of the scenario
  u64 runs = 3;                      // seeds seed_base .. seed_base + runs - 1
  std::optional<u64> seed_base;      // default: the scenario's seed
  unsigned jobs = 1;                 // worker threads (at most one per run is started)
  // kernel.features.NAME / kernel.tunables.NAME keys set in every configuration, over its own
  std::vector<scenario::KeyOverride> kernel_params;
  bool check = false;  // attach an invariant checker to every run (--check)
  Time wasted_threshold = observe::InvariantChecker::kDefaultWastedThreshold;
  // Called after each run with (runs done, runs in all), from the worker threads, one call at a
  // time. Never part of the result.
  std::function<void(std::size_t, std::size_t)> progress;
  // Run only the work items k (configuration k / runs, seed index k % runs) with
  // k % shards == shard, leaving the other runs empty: a share of an MPI job (cli/mpi.cpp
  // gathers the shares).
  unsigned shard = 0, shards = 1;
  // Stops the experiment early once *stop is true (SIGINT, --max-wall): no new run starts and
  // the runs under way stop within a few thousand events; they are dropped, the finished ones
  // kept (ExperimentRun::done).
  const std::atomic<bool> *stop = nullptr;
  // A run that handles more events than this (0: no limit) fails the experiment with a
  // RunLimitError (--max-events).
  u64 max_events = 0;
};

// A run reached ExperimentOptions::max_events; what() names the run, the limit and the flag.
class RunLimitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Work item k: seed index k / configurations, configuration k % configurations. Seed-major, so
// that an experiment stopped early has its first seeds in every configuration.
struct WorkItem {
  std::size_t config, seed;
};
inline WorkItem work_item(std::size_t k, std::size_t nconfigs) {
  return {k % nconfigs, k / nconfigs};
}

// The benchmark metrics an experiment summarises (run JSON key, label, unit).
struct BenchMetric {
  const char *key;
  const char *label;
};
inline constexpr BenchMetric kBenchMetrics[] = {
    {"hackbench_time_s", "hackbench time (s)"},
    {"schbench_wakeup_p999_us", "schbench wakeup latency p99.9 (us)"},
    {"schbench_request_p999_us", "schbench request latency p99.9 (us)"},
    {"schbench_rps", "schbench requests per second"},
    {"noise_pct", "hwlat noise (%)"},
    {"lost_time_pct", "hwlat lost sampling time (%)"},
};
inline constexpr std::size_t kNrBenchMetrics = sizeof(kBenchMetrics) / sizeof(kBenchMetrics[0]);
// What an experiment keeps of one run.
struct ExperimentRun {
  u64 seed = 0;
  Time completion_ns = 0;  // RunMetrics::completion_ns
  Time forceidle_ns = 0;   // RunMetrics::forceidle_ns, summed over CPUs
  u64 events = 0;
  u64 stuck_tasks = 0;  // RunResult::stuck_tasks.size()
  // Benchmark results, in the order of kBenchMetrics; NaN where the scenario has none, or where
  // the run has no value for it (a hackbench that did not finish).
  std::vector<double> bench;
  u64 bench_expected = 0;  // bit m: the scenario has metric m (bench_metrics())
  // Forced idle charged to each VM's tasks (core_forceidle_sum), by VM in scenario order.
  std::vector<std::pair<std::string, Time>> vm_forceidle_ns;
  // Where select_idle_sibling() placed wakeups, and how often onto another cookie's core.
  kernel::Kernel::SisStats sis;
  // The run statistics of kernel/stats.h, by run_stat_id (run_stats()).
  RunStats stat{};
  std::optional<observe::CheckReport> check;  // with ExperimentOptions::check
  double wall_s = 0;                          // host time, never part of the deterministic result
  bool done = false;  // the run finished (not stopped early, not another MPI process's share)
};

// The metrics of one run (NaN where absent). `expected` gets which metrics the run's scenario
// has (bit m for kBenchMetrics[m]), with a value or not.
std::vector<double> bench_metrics(const RunResult &r, u64 *expected = nullptr);
std::vector<double> bench_metrics(const workload::BenchReport &b, u64 *expected = nullptr);

struct ExperimentConfig {
  std::string name;
  kernel::KernelConfig kernel;
  std::vector<ExperimentRun> runs;  // by seed index
};

struct ExperimentResult {
  std::string scenario;
  std::string scenario_file;  // Scenario::file, as loaded
  std::vector<u64> seeds;
  std::vector<ExperimentConfig> configs;           // scenario order
  std::vector<scenario::CompareSpec> comparisons;  // the declared ones whose configs all ran
  unsigned jobs = 1;                               // requested
  unsigned threads = 1;                            // started
  double wall_s = 0;
  // Stopped early (ExperimentOptions::stop): `seeds` and every configuration's runs were cut to
  // the seeds that finished in every configuration (keep_finished_seeds()); planned_runs is
  // what was asked for.
  bool partial = false;
  u64 planned_runs = 0;
};

// After a stop: cuts the seeds to the longest prefix whose runs finished in every configuration
// (so that the statistics stay paired by seed) and marks the result partial if any run was
// missing. Returns the number of finished runs dropped because a configuration lacked their seed.
std::size_t keep_finished_seeds(ExperimentResult &r);

// Resolves the configurations (scenario order, duplicates dropped) with choose_config().
// Throws std::invalid_argument with a one-line message on an unknown configuration, a bad
// override, runs outside 1..kMaxRuns, jobs == 0, or seeds that would overflow 2^64 - 1.
constexpr u64 kMaxRuns = 100000;
std::vector<scenario::ConfigChoice> experiment_configs(const scenario::Scenario &s,
                                                       const ExperimentOptions &o);

// Validates (as above), then simulates every (configuration, seed).
ExperimentResult run_experiment(const scenario::Scenario &s, const ExperimentOptions &o);

}  // namespace schedlab::experiment
