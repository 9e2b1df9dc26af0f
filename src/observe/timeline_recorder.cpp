// SPDX-License-Identifier: GPL-2.0-only
#include "observe/timeline_recorder.h"

#include <algorithm>

#include "observe/ftrace_writer.h"

namespace schedlab::observe {

using kernel::task_struct;

TimelineRecorder::TimelineRecorder(const Topology &topo, Time from, Time to, std::vector<int> cpus,
                                   std::size_t limit, bool util)
    : traced_(traced_cpus(topo.nr_cpus(), cpus)),
      lanes_(static_cast<std::size_t>(topo.nr_cpus())),
      limit_(limit),
      util_(util),
      util_before_(static_cast<std::size_t>(topo.nr_cpus()), TimelineUtil{0, kTimeNever, 0, 0}),
      util_started_(static_cast<std::size_t>(topo.nr_cpus()), 0) {
  t_.from = from;
  t_.to = to;
  for (int c = 0; c < topo.nr_cpus(); c++) {
    if (!traced_[static_cast<std::size_t>(c)]) continue;
    const auto &info = topo.cpu(c);
    t_.cpus.push_back({c, info.core, info.thread});
  }
  std::stable_sort(t_.cpus.begin(), t_.cpus.end(), [](const auto &a, const auto &b) {
    return a.core != b.core ? a.core < b.core : a.thread < b.thread;
  });
}

bool TimelineRecorder::full() {
  if (t_.slices.size() + t_.wakeups.size() + t_.util.size() < limit_) return false;
  t_.overflow = true;
  return true;
}

void TimelineRecorder::add_slice(TimelineSlice::Kind kind, int cpu, Time start, Time end,
                                 const task_struct *p) {
  if (!traced_[static_cast<std::size_t>(cpu)]) return;
  start = std::max(start, t_.from);
  end = std::min(end, t_.to);
  if (end <= start || full()) return;
  TimelineSlice s;
  s.kind = kind;
  s.cpu = cpu;
  s.start = start;
  s.end = end;
  if (p) {
    s.pid = p->pid;
    s.comm = trace_comm(p, false);
    s.cookie = p->core_cookie;
  }
  t_.slices.push_back(std::move(s));
}

void TimelineRecorder::add_wakeup(Time now, const task_struct *p, int cpu, bool is_new) {
  if (now < t_.from || now >= t_.to || !traced_[static_cast<std::size_t>(cpu)] || full()) return;
  t_.wakeups.push_back({cpu, now, p->pid, trace_comm(p, false), is_new});
}

void TimelineRecorder::sched_switch(Time now, int cpu, const task_struct *prev, unsigned int,
                                    const task_struct *next) {
  Lane &l = lanes_[static_cast<std::size_t>(cpu)];
  if (l.task && !prev->is_idle_task) add_slice(TimelineSlice::Task, cpu, l.since, now, prev);
  l.task = next->is_idle_task ? nullptr : next;
  l.since = now;
}

void TimelineRecorder::sched_wakeup(Time now, const task_struct *p, int cpu) {
  add_wakeup(now, p, cpu, false);
}

void TimelineRecorder::sched_wakeup_new(Time now, const task_struct *p, int cpu) {
  add_wakeup(now, p, cpu, true);
}

void TimelineRecorder::sched_forceidle(Time now, int cpu, bool on) {
  Lane &l = lanes_[static_cast<std::size_t>(cpu)];
  if (on) {
    l.forceidle_since = now;
  } else if (l.forceidle_since != kTimeNever) {
    add_slice(TimelineSlice::ForcedIdle, cpu, l.forceidle_since, now, nullptr);
    l.forceidle_since = kTimeNever;
  }
}

void TimelineRecorder::add_util(Time now, int cpu, const kernel::sched_avg &avg) {
  const auto c = static_cast<std::size_t>(cpu);
  if (!traced_[c] || now >= t_.to) return;
  const TimelineUtil u{cpu, now, avg.util_avg, avg.util_est};
  if (now < t_.from) {
    util_before_[c] = u;
    return;
  }
  if (!util_started_[c] && now > t_.from) add_util_at_from(c);
  util_started_[c] = 1;
  if (!full()) t_.util.push_back(u);
}

// What the CPU's figures were when the window opened, if any were known.
void TimelineRecorder::add_util_at_from(std::size_t c) {
  if (util_before_[c].at == kTimeNever || full()) return;
  util_before_[c].at = t_.from;
  t_.util.push_back(util_before_[c]);
}

Timeline TimelineRecorder::finish(Time end) {
  t_.end = end;
  for (std::size_t c = 0; c < lanes_.size(); c++) {
    Lane &l = lanes_[c];
    if (l.task) add_slice(TimelineSlice::Task, static_cast<int>(c), l.since, end, l.task);
    if (l.forceidle_since != kTimeNever)
      add_slice(TimelineSlice::ForcedIdle, static_cast<int>(c), l.forceidle_since, end, nullptr);
    l = Lane{};
  }
  // A CPU whose figures did not change in the window keeps those from before it.
  for (std::size_t c = 0; c < util_before_.size(); c++)
    if (!util_started_[c]) add_util_at_from(c);
  std::stable_sort(t_.util.begin(), t_.util.end(), [](const auto &a, const auto &b) {
    return a.cpu != b.cpu ? a.cpu < b.cpu : a.at < b.at;
  });
  // Slices are recorded as they end; draw and compare them in time order.
  std::stable_sort(t_.slices.begin(), t_.slices.end(), [](const auto &a, const auto &b) {
    return a.start != b.start ? a.start < b.start : a.cpu < b.cpu;
  });
  return std::move(t_);
}

}  // namespace schedlab::observe
