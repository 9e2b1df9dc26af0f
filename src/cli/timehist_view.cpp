// SPDX-License-Identifier: GPL-2.0-only
#include "cli/timehist_view.h"

#include <cerrno>
#include <cstring>

#include "cli/commands.h"
#include "observe/ftrace_writer.h"

namespace schedlab::cli {

void add_timehist_options(CLI::App *c, TimehistArgs &a) {
  c->add_flag("--timehist", a.on,
              "After the summary, print a line per context switch as perf sched timehist does: "
              "the task switched out, its wait time, scheduling delay and run time (ms)");
  c->add_flag("--timehist-wakeups", a.wakeups,
              "With --timehist: also a line per wakeup (perf sched timehist -w)");
  c->add_flag("--timehist-migrations", a.migrations,
              "With --timehist: also a line per migration (perf sched timehist -M)");
}

TimehistView::~TimehistView() {
  if (spool_) std::fclose(spool_);
}

int TimehistView::start(const char *cmd, const TimehistArgs &a, engine::Simulation &sim,
                        observe::Timehist::Options opt) {
  for (auto [set, flag] : {std::pair{a.wakeups, "--timehist-wakeups"},
                           std::pair{a.migrations, "--timehist-migrations"}})
    if (set && !a.on) {
      std::fprintf(stderr, "schedlab %s: %s needs --timehist\n", cmd, flag);
      return kExitBadInput;
    }
  if (!a.on) return 0;
  spool_ = std::tmpfile();
  if (!spool_) {
    std::fprintf(stderr, "schedlab %s: --timehist: cannot create a temporary file: %s\n", cmd,
                 std::strerror(errno));
    return kExitError;
  }
  opt.wakeups = a.wakeups;
  opt.migrations = a.migrations;
  th_ = std::make_unique<observe::Timehist>(sim.kernel(), spool_, std::move(opt));
  sim.add_tracer(th_.get());
  return 0;
}

int TimehistView::print(const char *cmd, std::FILE *out) {
  if (!spool_) return 0;
  if (const int err = observe::copy_spool(spool_, out)) {
    std::fprintf(stderr, "schedlab %s: --timehist: write failed: %s\n", cmd, std::strerror(err));
    return kExitError;
  }
  return 0;
}

}  // namespace schedlab::cli
