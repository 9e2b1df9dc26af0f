// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// An experiment's statistics and its three renderings: the terminal table (in the style of the
// "core cookie check in wake up fast path" mail), JSON and CSV. Everything here is a function of
// the ExperimentResult's deterministic part, except the JSON "host" object and the table's last
// line (wall time and threads).
#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "experiment/experiment.h"
#include "experiment/stats.h"

namespace schedlab::experiment {

struct ConfigStats {
  std::string name;
  std::vector<double> completion_s;  // by seed index
  double mean = 0, stddev = 0, median = 0, ci95 = 0;
  // Against the first configuration, paired by seed: mean(x) - mean(x_0) and its 95 % CI.
  double overhead = 0, overhead_ci95 = 0;
  double mean_forceidle_s = 0;  // forced idle summed over CPUs, mean over runs
  // Per VM (scenario order): forced idle charged to its tasks, mean over runs, seconds.
  std::vector<std::pair<std::string, double>> vm_forceidle_s;
};

struct ComparisonStats {
  scenario::CompareSpec spec;
  stats::Cut cut;
};

// A benchmark metric across configurations: mean, CI95 and the change against the first
// configuration, paired by seed, in percent of the first's mean.
struct MetricStats {
  std::size_t index = 0;  // into kBenchMetrics, or a run_stat_id (the tables of run statistics)
  struct PerConfig {
    double mean = 0, ci95 = 0, change_pct = 0, change_ci95_pct = 0;
    stats::SignTest sign;  // against the first configuration, seed by seed
  };
  std::vector<PerConfig> configs;
};

// A benchmark metric some runs have and others do not (a hackbench that did not finish, a
// schbench without samples): it is not summarised, and the runs without it are named.
struct IncompleteMetric {
  std::size_t index = 0;                             // into kBenchMetrics
  std::size_t runs = 0;                              // runs in all
  std::vector<std::pair<std::string, u64>> missing;  // configuration, seed
};

// A run that ended with tasks asleep for good (ExperimentRun::stuck_tasks).
struct StuckRun {
  std::string config;
  u64 seed = 0, tasks = 0;
};

// A sign test as the tables print it, "48/46 (p 0.92)": lower/higher runs, and the p-value to
// two significant digits ("< 0.001" below that; "n/a" for a NaN read from an older JSON).
std::string format_sign_test(const stats::SignTest &s);

// A run statistic's value as the tables print it (its scale and decimals); "n/a" for NaN.
std::string run_stat_value(const Statistic &m, double v);

// "hackbench time (s): not summarised, 1 of 40 runs have no value", for the experiment and sweep
// tables.
std::string not_summarised(const IncompleteMetric &im);

// Where select_idle_sibling() placed the wakeups (ExperimentRun::sis): the share of its calls
// whose chosen CPU's core then ran another cookie, in all and by the step that chose the CPU,
// and how each of the scenario's comparisons changes it. The quantity the wake-up fast-path
// cookie checks act on.
struct PlacementStats {
  struct PerConfig {
    double mean_calls = 0;
    double pct = 0, ci95 = 0;  // mean of the runs' percentages; NaN if a run had no call
    std::array<double, kernel::Kernel::NR_SIS_STEPS> by_step_pct{};
  };
  struct Change {
    std::string base, patched;
    stats::Paired points;  // patched - base, in percentage points, paired by seed
    stats::SignTest sign;
  };
  std::vector<PerConfig> configs;
  std::vector<Change> changes;  // one per scenario comparison
};

struct ExperimentStats {
  std::vector<MetricStats> metrics;  // the benchmark metrics every run has
  // The tables of run statistics (kernel/stats.h), by StatTable: each of its statistics, where
  // the configurations differ in something that acts on them (table_acted_on()); empty
  // otherwise.
  std::array<std::vector<MetricStats>, kNrStatTables> tables;
  // Only where core scheduling was at work in some run (forced idle, or a wakeup placed onto
  // another cookie's core).
  std::optional<PlacementStats> placement;
  std::vector<IncompleteMetric> incomplete;
  std::vector<StuckRun> stuck;
  std::vector<ConfigStats> configs;
  std::vector<ComparisonStats> comparisons;
};

// The tables of run statistics experiment_stats() gives however alike the configurations are
// (by StatTable): a sweep whose points differ in what acts on them shows them at every point.
using RunStatTables = std::array<bool, kNrStatTables>;
ExperimentStats experiment_stats(const ExperimentResult &r, RunStatTables force = {});

// The setup an experiment's configurations compare (their kernels; one machine).
ComparedSetup compared_setup(const ExperimentResult &r);

// The table: with at most 5 runs, one column per run, then Average and Overhead; with more,
// Mean ± CI95, Median and Overhead ± its paired CI95. Then forced idle, one line per
// comparison, and "N runs in X s on J threads".
std::string experiment_table(const ExperimentResult &r, const ExperimentStats &st);

// Keys carry their unit. Everything outside "host" is identical for every --jobs and rerun.
nlohmann::ordered_json experiment_to_json(const ExperimentResult &r, const ExperimentStats &st);
// The "host" object of experiment and sweep JSON: wall time, jobs, peak RSS (never compared).
nlohmann::ordered_json host_json(double wall_s, unsigned jobs);

// config,seed,completion_time_s,forceidle_ns,events,sis_calls,sis_cookie_mismatch; one row per run,
// configurations in scenario order, seeds ascending; configuration names quoted. Then one column
// per benchmark metric that any run has (kBenchMetrics keys; empty = NaN).
std::string experiment_csv(const ExperimentResult &r);
// The same in parts, with leading columns (a sweep's parameters) before "config".
std::vector<std::size_t> present_bench_metrics(const std::vector<const ExperimentResult *> &rs);
std::string experiment_csv_header(const std::vector<std::string> &lead,
                                  const std::vector<std::size_t> &metrics);
std::string experiment_csv_rows(const ExperimentResult &r, const std::vector<std::string> &lead,
                                const std::vector<std::size_t> &metrics);

}  // namespace schedlab::experiment
