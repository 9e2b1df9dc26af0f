// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// rt-app's ftrace log: the lines rt-app writes to the trace marker when its global "ftrace"
// option names categories (docs/rt-app.md). The rt-app reader puts Mark phases where rt-app
// writes in a thread's loop; the simulation keeps one RtappLog per thread, which turns the
// marks into rt-app's lines at the simulated times, counting loops and timing runs and timers
// as rt-app does for its statistics.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/time.h"

namespace schedlab::workload {

// rt-app's categories, as its ftrace option sets them ("attrs" only through "ftrace": true).
enum RtappCategory : unsigned {
  kRtappMain = 1,
  kRtappTask = 2,
  kRtappLoop = 4,
  kRtappEvent = 8,
  kRtappStats = 16,
  kRtappAttrs = 32,
};

// Parses rt-app's category list ("main,task,loop"; case does not matter; "none" clears what
// came before). Returns false, with *bad the first unknown name, as rt-app refuses the file.
bool parse_rtapp_categories(const std::string &list, unsigned *categories, std::string *bad);

// What a Mark phase stands for (Phase::res indexes Scenario::marks).
struct RtappMark {
  enum class Kind { LoopStart, Event, LoopEnd };
  Kind kind = Kind::Event;
  // LoopEnd: the rt-app phase's loop count (-1: forever) and the thread's number of phases,
  // which move rt-app's thread_loop / phase / phase_loop counters on.
  std::uint32_t nr_phases = 1;
  std::int64_t phase_loops = 1;
  // Event: its index among its phase's events, rt-app's type number and description.
  int id = 0, type = 0;
  std::string desc;
  // What the statistics take from the event: the time of a run, the period of a timer (us, as
  // configured). `modelled`: the simulation carries the event out (a timer of period 0 is
  // left out, see docs/rt-app.md).
  enum class Stat { None, Run, Timer };
  Stat stat = Stat::None;
  std::int64_t usec = 0;
  bool modelled = true;
};

struct RtappLogConfig {
  unsigned categories = 0;        // RtappCategory bits; 0: rt-app writes nothing
  bool cumulative_slack = false;  // global.cumulative_slack: slack sums over a loop's timers
};

// rt-app's main thread's line for `event` (start, shutdown, end).
std::string rtapp_main_line(const char *event);

class RtappLog {
 public:
  explicit RtappLog(const RtappLogConfig &cfg) : cfg_(cfg) {}
  bool started() const { return started_; }
  // Each appends the lines rt-app writes at that point, in order (none when their category
  // is off). The first thread (rt-app's thread 0) also writes the clock reference.
  void task_start(Time now, bool first_thread, std::vector<std::string> &out);
  void mark(Time now, const RtappMark &m, std::vector<std::string> &out);
  void task_end(Time now, std::vector<std::string> &out);
  // The timer event just marked: its boundary, and whether the thread sleeps until it (false:
  // an overrun).
  void timer(Time now, Time next, bool sleeps);

 private:
  void settle(Time now);  // a run being timed, or a timer sleep, ends at `now`
  bool on(unsigned cat) const { return (cfg_.categories & cat) != 0; }

  RtappLogConfig cfg_;
  bool started_ = false;
  // rt-app's counters (all int in rt-app).
  std::int64_t thread_loop_ = 0, phase_loop_ = 0;
  std::uint32_t phase_ = 0;
  // The loop being run: its start, and rt-app's log_data for it (us).
  Time loop_start_ = 0;
  std::int64_t run_us_ = 0, c_run_us_ = 0, c_period_us_ = 0, slack_us_ = 0, wu_lat_us_ = 0;
  Time run_from_ = kTimeNever;     // a run event being timed began here
  Time wake_target_ = kTimeNever;  // a timer sleep until this boundary
};

}  // namespace schedlab::workload
