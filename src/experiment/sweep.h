// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// A sweep: the grid of scenario key values (any key of the file, scenario/overrides.h) ×
// configurations × seeds. Every grid point is an experiment on the same seeds, so points are
// compared with common random numbers too. Points run in grid order (the first parameter
// varies slowest); each point's runs use the experiment's worker pool. A kernel switch
// (kernel.features.NAME, kernel.tunables.NAME) is set in every configuration, over its own value,
// as --feature and --tunable set it.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "experiment/experiment.h"
#include "experiment/experiment_report.h"
#include "scenario/overrides.h"

namespace schedlab::experiment {

struct SweepParam {
  std::string path;                 // dotted scenario key, e.g. machine.cores_per_llc
  std::vector<std::string> values;  // as written, each a TOML value
};

// "PATH=V1,V2,..." (commas inside [...] or quotes do not split). Throws std::invalid_argument.
SweepParam parse_sweep_param(const std::string &text);

struct SweepPoint {
  std::vector<std::string> values;  // one per parameter
  ExperimentResult result;
  ExperimentStats stats;
};

struct SweepResult {
  std::string scenario_file;
  std::vector<SweepParam> params;
  std::vector<SweepPoint> points;  // grid order
  double wall_s = 0;
  unsigned jobs = 1;
  // Stopped early (ExperimentOptions::stop): `points` holds the points that ran, the last one
  // perhaps with fewer seeds (keep_finished_seeds()).
  bool partial = false;
  std::size_t planned_points = 0;
  u64 planned_runs = 0;         // over all points
  std::string scenario_source;  // the file's text (scenario::Scenario::source)
};

// Loads and checks every point's scenario and configurations first (a bad value fails before
// any run), then runs them. Throws scenario::ScenarioError or std::invalid_argument.
constexpr std::size_t kMaxSweepPoints = 10000;
// `gather` (MPI) is called after each point's runs with this process's share and whether it
// failed; it returns false when any process failed.
using GatherFn = std::function<bool(ExperimentResult &, bool failed)>;
SweepResult run_sweep(const std::string &file, const std::vector<SweepParam> &params,
                      const ExperimentOptions &o, const GatherFn &gather = {});

// One row per run: the parameters' values, then experiment_csv's columns.
std::string sweep_csv(const SweepResult &r);
nlohmann::ordered_json sweep_to_json(const SweepResult &r);
// Per point and configuration: mean completion ± CI95, overhead against the point's first
// configuration, forced idle, the benchmark metrics' means with their change against the first
// configuration and its sign test, newidle balancing and task moves where the configurations or the
// points differ in what acts on them, and, where core scheduling was at work, the share of wakeups
// onto another cookie's core.
std::string sweep_table(const SweepResult &r);

}  // namespace schedlab::experiment
