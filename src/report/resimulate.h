// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Pictures are drawn from a re-simulation: a run is a function of (scenario, configuration,
// seed), so a result JSON that names its scenario file can be re-run exactly (not to be
// confused with trace replay, workload/replay.h). This file reads result JSONs and re-runs
// them with the observers the pictures need.
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/simulation.h"
#include "observe/histogram.h"
#include "observe/timeline.h"
#include "scenario/config.h"

namespace schedlab::report {

// Bad input (file, flag, JSON field); what() is one line naming it.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A result JSON of `schedlab run --json`, `schedlab experiment --json` or `schedlab sweep
// --json` (which the report draws without a re-run, so its scenario file need not exist).
struct ResultFile {
  std::string path;
  nlohmann::json json;
  bool experiment = false;    // has "configs" and "seeds"
  bool sweep = false;         // has "params" and "points"
  std::string scenario_file;  // resolved: as written, or relative to the JSON's directory
  // A result that embeds its scenario ("scenario_source": path, format, sha256, text) is re-run
  // from that copy, whatever the file on disk holds now; scenario_file is then the embedded
  // path resolved against the JSON's directory (for messages and the format).
  bool embedded = false;
  std::string scenario_text;
  // One line for stderr, or empty: the file on disk differs from the embedded copy.
  std::string warning;
};
ResultFile read_result(const std::string &path);

// Which run of a result to re-run. A run JSON gives its configuration, seed and kernel settings
// (as overrides, so command-line --feature/--tunable runs replay too); an experiment JSON its
// first configuration and seed. `config` and `seed` override.
struct RunChoice {
  std::string config;
  u64 seed = 0;
  std::vector<std::string> features, tunables;  // "NAME=VALUE"
};
RunChoice choose_run(const ResultFile &r, const std::optional<std::string> &config,
                     const std::optional<u64> &seed);

// Loads the scenario (ScenarioError -> InputError) and resolves the configuration.
struct Rerun {
  scenario::Scenario scenario;
  scenario::ConfigChoice config;
  u64 seed = 0;
};
Rerun prepare_rerun(const std::string &scenario_file, const RunChoice &c);
// The same for a result's scenario: its embedded copy if it has one, else its file.
Rerun prepare_rerun(const ResultFile &r, const RunChoice &c);

// The schedule in [from, to) on `cpus` (empty = all; InputError for a CPU the machine lacks),
// with the CPUs' utilisation if `util`. The run stops at `to`: nothing later can change what
// came before.
observe::Timeline rerun_timeline(const Rerun &r, Time from, Time to, const std::vector<int> &cpus,
                                 std::size_t limit, bool util = false);

// A whole run's wakeup latency histogram, and when forced idle first starts at or after
// `forceidle_after` (kTimeNever if it never does).
struct LatencyRerun {
  observe::Histogram wakeup_latency;
  Time first_forceidle = kTimeNever;
  Time end = 0;
};
LatencyRerun rerun_latency(const Rerun &r, Time forceidle_after);

// The window report's excerpt and timeline draw by default: `length` from 2 ms before the
// first forced idle after 1 s (on a whole millisecond) when the run goes on that long after
// it; else from 1 s when the run lasts longer than 1 s + length; else from 0.
struct Window {
  Time from = 0, to = 0;
  bool at_forceidle = false;
};
Window representative_window(Time first_forceidle, Time end, Time length);
inline constexpr Time kRepresentativeAfter = NSEC_PER_SEC;  // rerun_latency's forceidle_after

}  // namespace schedlab::report
