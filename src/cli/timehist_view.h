// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// --timehist, --timehist-wakeups, --timehist-migrations (run, replay): perf sched timehist's
// view of a run (observe/timehist.h), gathered in a temporary file while the run goes on and
// printed after the summary, so that memory does not grow with the run and a run that fails
// prints none of it.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "engine/simulation.h"
#include "observe/timehist.h"

namespace schedlab::cli {

struct TimehistArgs {
  bool on = false, wakeups = false, migrations = false;
};
void add_timehist_options(CLI::App *c, TimehistArgs &a);

class TimehistView {
 public:
  TimehistView() = default;
  TimehistView(const TimehistView &) = delete;
  TimehistView &operator=(const TimehistView &) = delete;
  ~TimehistView();
  // Checks the flags and, with --timehist, attaches the view to `sim` for the window and CPUs
  // given. 0, or the exit status after printing why (a flag without --timehist, no temporary
  // file).
  int start(const char *cmd, const TimehistArgs &a, engine::Simulation &sim,
            observe::Timehist::Options opt);
  // Copies the view to `out` (nothing without --timehist): 0, or kExitError after printing
  // the reason.
  int print(const char *cmd, std::FILE *out);

 private:
  std::FILE *spool_ = nullptr;
  std::unique_ptr<observe::Timehist> th_;
};

}  // namespace schedlab::cli
