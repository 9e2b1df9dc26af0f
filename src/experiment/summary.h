// SPDX-License-Identifier: GPL-2.0-only
#pragma once
#include <string>

#include "experiment/run_stats.h"
#include "scenario/scenario.h"

namespace schedlab::experiment {

// A readable summary of one run, for the terminal.
std::string run_summary(const RunResult &r, const scenario::Scenario &s);

// Per task, as `perf sched latency` prints it: runtime, how many times the task waited to run
// (wakeups, forks and preemptions), its average and longest wait, and when the longest began and
// ended (s from the run's start); sorted by average then longest wait, then a total line.
std::string latency_table(const RunResult &r);

}  // namespace schedlab::experiment
