// SPDX-License-Identifier: GPL-2.0-only
#include "workload/rtapp_log.h"

#include <fmt/format.h>
#include <strings.h>

namespace schedlab::workload {

bool parse_rtapp_categories(const std::string &list, unsigned *categories, std::string *bad) {
  // rt-app splits at commas (empty names are skipped) and compares whole names, ignoring case.
  unsigned cats = 0;
  std::size_t pos = 0;
  while (pos <= list.size()) {
    std::size_t comma = list.find(',', pos);
    if (comma == std::string::npos) comma = list.size();
    const std::string name = list.substr(pos, comma - pos);
    pos = comma + 1;
    if (name.empty()) continue;
    const auto is = [&](const char *n) { return strcasecmp(name.c_str(), n) == 0; };
    if (is("main")) {
      cats |= kRtappMain;
    } else if (is("task")) {
      cats |= kRtappTask;
    } else if (is("loop")) {
      cats |= kRtappLoop;
    } else if (is("event")) {
      cats |= kRtappEvent;
    } else if (is("stats")) {
      cats |= kRtappStats;
    } else if (is("none")) {
      cats = 0;
    } else {
      *bad = name;
      return false;
    }
  }
  *categories = cats;
  return true;
}

std::string rtapp_main_line(const char *event) {
  return fmt::format("rtapp_main: event={}", event);
}

namespace {

// rt-app's conversions to microseconds round to the nearest (lround), halves away from 0.
std::int64_t usec(Time ns) {
  return static_cast<std::int64_t>((ns + 500) / 1000);
}
std::int64_t usec_signed(Time to, Time from) {
  return to >= from ? usec(to - from) : -usec(from - to);
}
// rt-app prints its statistics with %d: the low 32 bits, as a signed int.
int as_int(std::int64_t v) {
  return static_cast<int>(static_cast<std::uint32_t>(v));
}

}  // namespace

void RtappLog::settle(Time now) {
  if (run_from_ != kTimeNever) {
    run_us_ += usec(now - run_from_);
    run_from_ = kTimeNever;
  }
  if (wake_target_ != kTimeNever) {
    // Woken from the timer: the latency is counted from the boundary to running again.
    wu_lat_us_ += usec_signed(now, wake_target_);
    wake_target_ = kTimeNever;
  }
}

void RtappLog::task_start(Time now, bool first_thread, std::vector<std::string> &out) {
  started_ = true;
  if (first_thread && on(kRtappTask))
    out.push_back(fmt::format("rtapp_main: event=clock_ref data={}", now / 1000));
  if (on(kRtappTask)) out.emplace_back("rtapp_task: event=start");
}

void RtappLog::mark(Time now, const RtappMark &m, std::vector<std::string> &out) {
  settle(now);
  switch (m.kind) {
    case RtappMark::Kind::LoopStart:
      loop_start_ = now;
      run_us_ = c_run_us_ = c_period_us_ = slack_us_ = wu_lat_us_ = 0;
      if (on(kRtappLoop))
        out.push_back(fmt::format("rtapp_loop: event=start thread_loop={} phase={} phase_loop={}",
                                  as_int(thread_loop_), phase_, as_int(phase_loop_)));
      return;
    case RtappMark::Kind::Event:
      if (on(kRtappEvent))
        out.push_back(fmt::format("rtapp_event: id={} type={} desc={}", m.id, m.type, m.desc));
      if (m.stat == RtappMark::Stat::Run) {
        c_run_us_ += m.usec;
        run_from_ = now;
      } else if (m.stat == RtappMark::Stat::Timer) {
        c_period_us_ += m.usec;
        // MODEL: a timer the simulation leaves out (period 0) counts as an overrun with no
        // slack.
        if (!m.modelled) {
          if (!cfg_.cumulative_slack) slack_us_ = 0;
          wu_lat_us_ = 0;
        }
      }
      return;
    case RtappMark::Kind::LoopEnd:
      if (on(kRtappLoop))
        out.push_back(fmt::format("rtapp_loop: event=end thread_loop={} phase={} phase_loop={}",
                                  as_int(thread_loop_), phase_, as_int(phase_loop_)));
      if (on(kRtappStats))
        out.push_back(
            fmt::format("rtapp_stats: period={} run={} wu_lat={} slack={} c_period={} c_run={}",
                        as_int(usec(now - loop_start_)), as_int(run_us_), as_int(wu_lat_us_),
                        as_int(slack_us_), as_int(c_period_us_), as_int(c_run_us_)));
      // The next phase_loop, phase, thread_loop, as rt-app counts them: a phase looping
      // forever (-1) never moves on.
      if (++phase_loop_ == m.phase_loops) {
        phase_loop_ = 0;
        if (++phase_ == m.nr_phases) {
          phase_ = 0;
          thread_loop_++;
        }
      }
      return;
  }
}

void RtappLog::timer(Time now, Time next, bool sleeps) {
  const std::int64_t slack = usec_signed(next, now);
  slack_us_ = cfg_.cumulative_slack ? slack_us_ + slack : slack;
  if (sleeps)
    wake_target_ = next;
  else
    wu_lat_us_ = 0;  // rt-app resets it on an overrun
}

void RtappLog::task_end(Time now, std::vector<std::string> &out) {
  settle(now);
  if (on(kRtappTask)) out.emplace_back("rtapp_task: event=end");
}

}  // namespace schedlab::workload
