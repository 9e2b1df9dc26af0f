// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// The run statistics (engine/run_stats.h) as the experiment layer uses them: the value of every
// statistic for a run, lookups by table and name, and which tables the compared configurations
// call for.
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "engine/run_result.h"
#include "engine/run_stats.h"
#include "kernel/tunables.h"
#include "machine/costs.h"

namespace schedlab::experiment {

// The engine's names for a run and its statistics, used throughout this layer's tables.
using engine::run_stat_id;
using engine::RunResult;
using enum engine::run_stat_id;
using engine::kNrStatTables;
using engine::kStatistics;
using engine::kStatTables;
using engine::Statistic;
using engine::StatOver;
using engine::StatSection;
using engine::StatTable;
using engine::StatTableInfo;

// The statistics of a table, in list order.
std::vector<run_stat_id> table_stats(StatTable t);
// By name; NR_RUN_STATS if none.
run_stat_id find_stat(std::string_view name);

// Every statistic of one run (NaN where the run has no value: no wakeups for a percentile).
using RunStats = std::array<double, NR_RUN_STATS>;
RunStats run_stats(const RunResult &r);

// The kernels (and machine costs, for a sweep over them) being compared.
struct ComparedSetup {
  std::vector<const kernel::KernelConfig *> kernels;
  std::vector<const MachineCosts *> costs;  // empty: the same machine
};
// Whether the compared setups differ in something that acts on a statistic of table t (or t's
// statistics are shown always).
bool table_acted_on(StatTable t, const ComparedSetup &s);

// The acts_on names that are no feature, tunable or machine cost: empty when the list is sound
// (a unit test checks it).
std::vector<std::string> unknown_acts_on();

}  // namespace schedlab::experiment
