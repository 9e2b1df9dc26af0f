// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Metric-by-metric differences between two results of `schedlab run --json` (or of `schedlab
// measure --json`, the same schema plus "measured": true), or between two experiment results.
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "experiment/stats.h"

namespace schedlab::experiment {

struct CompareRow {
  std::string metric;
  std::optional<double> a, b;  // nullopt: the metric is missing on that side
};

// Whether a per-run quantity differs between A and B beyond chance, where both sides have runs
// (experiments): a paired t test when a configuration ran the same seeds on both sides (common
// random numbers), else Welch's t test.
struct CompareTest {
  std::string config, metric;  // metric: the per-run key, e.g. completion_time_s
  std::string test;            // "paired t" or "Welch t"
  std::size_t n_a = 0, n_b = 0;
  stats::TTest t;  // diff = B - A, in the key's unit
};

struct Comparison {
  std::string kind;                // "run" or "experiment"
  std::vector<std::string> notes;  // what could not be matched, which side was measured
  std::vector<CompareRow> rows;
  std::vector<CompareTest> tests;
};

// Throws std::invalid_argument (one line) when a document is neither kind, or the kinds differ.
Comparison compare_results(const nlohmann::ordered_json &a, const nlohmann::ordered_json &b);

// "metric  A  B  B-A  rel" rows, the notes, then how many metrics differ, then the tests. Every
// time is printed in ms (the JSON keeps each key's own unit, named in the metric).
std::string comparison_table(const Comparison &c, const std::string &a_name,
                             const std::string &b_name);
nlohmann::ordered_json comparison_to_json(const Comparison &c, const std::string &a_name,
                                          const std::string &b_name);

// (b - a) / a in percent; nullopt when either is missing, or a is 0 and b is not.
std::optional<double> relative_pct(const CompareRow &r);

}  // namespace schedlab::experiment
