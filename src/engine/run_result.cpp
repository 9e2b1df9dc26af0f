// SPDX-License-Identifier: GPL-2.0-only
#include "engine/run_result.h"

namespace schedlab::engine {

double RunResult::mean_avg_idle_ns() const {
  double sum = 0;
  u64 n = 0;
  for (const auto &cs : sched) {
    sum += cs.mean_avg_idle_ns * static_cast<double>(cs.avg_idle_updates);
    n += cs.avg_idle_updates;
  }
  return n ? sum / static_cast<double>(n) : 0.0;
}

}  // namespace schedlab::engine
