// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// The run statistics of kernel/stats.h as the experiment layer uses them: an id per statistic,
// its description, the value of every statistic for a run, and which tables the compared
// configurations call for.
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/sched.h"
#include "kernel/stats.h"
#include "kernel/tunables.h"
#include "machine/costs.h"

namespace schedlab::experiment {

struct RunResult;

enum run_stat_id : std::size_t {
#define SCHEDLAB_STAT_ENUM(name, ...) STAT_##name,
  SCHEDLAB_SCHED_STATS(SCHEDLAB_STAT_ENUM)
#undef SCHEDLAB_STAT_ENUM
      NR_RUN_STATS
};

enum class StatOver { CPU, RUN };
enum class StatSection { none, cpu, schedstat };
enum class StatTable {
#define SCHEDLAB_TABLE_ENUM(id, ...) id,
  SCHEDLAB_SCHED_STAT_TABLES(SCHEDLAB_TABLE_ENUM)
#undef SCHEDLAB_TABLE_ENUM
      NONE
};
inline constexpr std::size_t kNrStatTables = static_cast<std::size_t>(StatTable::NONE);

struct Statistic {
  const char *name;
  StatOver over;
  StatSection section;
  StatTable table;
  const char *unit;
  double scale;  // the tables print value * scale
  int decimals;
  const char *label;
  const char *acts_on;  // names, space-separated; "*": always
  const char *meaning;
  u64 kernel::rq::*field;  // the rq counter of a CPU statistic; nullptr for RUN
};

inline constexpr Statistic kStatistics[] = {
#define SCHEDLAB_STAT_FIELD_CPU(name) &kernel::rq::name
#define SCHEDLAB_STAT_FIELD_RUN(name) nullptr
#define SCHEDLAB_STAT_INFO(name, over, section, table, unit, scale, decimals, label, acts_on, \
                           meaning)                                                           \
  {#name,                                                                                     \
   StatOver::over,                                                                            \
   StatSection::section,                                                                      \
   StatTable::table,                                                                          \
   #unit,                                                                                     \
   scale,                                                                                     \
   decimals,                                                                                  \
   label,                                                                                     \
   acts_on,                                                                                   \
   meaning,                                                                                   \
   SCHEDLAB_STAT_FIELD_##over(name)},
    SCHEDLAB_SCHED_STATS(SCHEDLAB_STAT_INFO)
#undef SCHEDLAB_STAT_INFO
#undef SCHEDLAB_STAT_FIELD_CPU
#undef SCHEDLAB_STAT_FIELD_RUN
};
static_assert(sizeof(kStatistics) / sizeof(kStatistics[0]) == NR_RUN_STATS);

struct StatTableInfo {
  const char *short_name;
  const char *title;
  const char *note;
};
inline constexpr StatTableInfo kStatTables[] = {
#define SCHEDLAB_TABLE_INFO(id, short_name, title, note) {short_name, title, note},
    SCHEDLAB_SCHED_STAT_TABLES(SCHEDLAB_TABLE_INFO)
#undef SCHEDLAB_TABLE_INFO
};

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
