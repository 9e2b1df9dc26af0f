// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// The run statistics of kernel/stats.h, declared once for every layer: an id per statistic, its
// description and the rq counter a CPU statistic reads (RunResult::CpuSched keeps them by id),
// and the tables they are shown in (experiment/run_stats.h computes and compares them).
#include <cstddef>

#include "kernel/sched.h"
#include "kernel/stats.h"

namespace schedlab::engine {

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

}  // namespace schedlab::engine
