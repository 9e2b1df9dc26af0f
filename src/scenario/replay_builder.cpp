// SPDX-License-Identifier: GPL-2.0-only
// From a parsed trace to each task's replay sequence, and the scenario that replays it.
#include <fmt/format.h>

#include <map>
#include <set>

#include "scenario/ftrace_reader.h"
#include "scenario/limits.h"

namespace schedlab::scenario {

namespace {

using workload::ReplaySpec;
using workload::ReplayStep;
using workload::ReplayTask;

class Builder {
 public:
  explicit Builder(const ParsedTrace &t) : t0_(t.events.front().ts) {}
  void event(const TraceEvent &e);
  std::shared_ptr<ReplaySpec> finish(const ParsedTrace &t);

 private:
  enum class State { Running, Runnable, Blocked, Dead };
  struct Task {
    std::size_t idx;  // into spec_->tasks
    State state = State::Runnable;
    Time run_start = 0;  // while Running
    Time acc = 0;        // CPU time since the last step boundary
    Time blocked_since = 0;
  };
  // The live task of `pid`, created on first sight in `initial` state (a pid seen again after
  // its task exited is a new task).
  Task &task(int pid, const std::string &comm, State initial);
  void flush_run(Task &t);
  void push(Task &t, ReplayStep s) { spec_->tasks[t.idx].steps.push_back(s); }

  Time t0_;
  std::shared_ptr<ReplaySpec> spec_ = std::make_shared<ReplaySpec>();
  std::map<int, Task> live_;
};

Builder::Task &Builder::task(int pid, const std::string &comm, State initial) {
  auto it = live_.find(pid);
  if (it != live_.end() && it->second.state != State::Dead) {
    if (!comm.empty()) spec_->tasks[it->second.idx].comm = comm;  // the latest name (prctl)
    return it->second;
  }
  Task t;
  t.idx = spec_->tasks.size();
  t.state = initial;
  // A task first seen running has run since the trace began; one first seen waking up has
  // slept since then.
  t.run_start = t0_;
  t.blocked_since = t0_;
  ReplayTask rt;
  rt.comm = comm;
  rt.trace_pid = pid;
  spec_->tasks.push_back(std::move(rt));
  return live_.insert_or_assign(pid, t).first->second;
}

void Builder::flush_run(Task &t) {
  if (t.acc) {
    push(t, {ReplayStep::Kind::Run, t.acc, -1});
    spec_->tasks[t.idx].trace_runtime_ns += t.acc;
  }
  t.acc = 0;
}

void Builder::event(const TraceEvent &e) {
  switch (e.type) {
    case TraceEvent::Type::Switch: {
      // The switch away from a task that exited is its last (prev_state X): nothing to replay.
      const auto dead = live_.find(e.a_pid);
      if (e.a_pid != 0 && !(dead != live_.end() && dead->second.state == State::Dead)) {
        Task &p = task(e.a_pid, e.a_comm, State::Running);
        if (p.state == State::Running) p.acc += e.ts - p.run_start;
        if (e.blocked) {
          flush_run(p);
          p.state = State::Blocked;
          p.blocked_since = e.ts;
        } else {
          p.state = State::Runnable;
        }
      }
      if (e.b_pid != 0) {
        Task &n = task(e.b_pid, e.b_comm, State::Runnable);
        // Switched in without a traced wakeup (lost, or on a CPU the trace left out): a sleep.
        if (n.state == State::Blocked) {
          push(n, {ReplayStep::Kind::Sleep, e.ts - n.blocked_since, -1});
          spec_->tasks[n.idx].woken_by_timer++;
        }
        n.state = State::Running;
        n.run_start = e.ts;
      }
      break;
    }
    case TraceEvent::Type::Waking: {
      if (e.a_pid == 0) break;
      Task &x = task(e.a_pid, e.a_comm, State::Blocked);
      if (x.state != State::Blocked) break;  // not asleep: the wakeup changes nothing
      // MODEL: a wakeup raised in interrupt context, or by the idle task, is a timer's or a
      // device's: the woken task sleeps as long as it did. Only a task's own wakeups (futex,
      // pipe, signal) become Wake/Block pairs.
      if (e.pid != 0 && e.pid != e.a_pid && !e.irq) {
        // The line's task is the one current on that CPU, whatever the trace showed before.
        Task &waker = task(e.pid, "", State::Running);
        if (waker.state != State::Running) {
          waker.state = State::Running;
          waker.run_start = e.ts;
        }
        waker.acc += e.ts - waker.run_start;
        waker.run_start = e.ts;
        flush_run(waker);
        push(waker, {ReplayStep::Kind::Wake, 0, static_cast<int>(x.idx)});
        push(x, {ReplayStep::Kind::Block, 0, -1});
        spec_->tasks[x.idx].woken_by_task++;
      } else {
        push(x, {ReplayStep::Kind::Sleep, e.ts - x.blocked_since, -1});
        spec_->tasks[x.idx].woken_by_timer++;
      }
      x.state = State::Runnable;
      break;
    }
    case TraceEvent::Type::Fork: {
      // MODEL: a forked child starts at its fork time in the replay, by a timer, rather than by
      // its parent's fork(): the trace has the time, not the parent's progress.
      Task &c = task(e.b_pid, e.b_comm, State::Runnable);
      if (e.ts > t0_ && spec_->tasks[c.idx].steps.empty())
        push(c, {ReplayStep::Kind::Sleep, e.ts - t0_, -1});
      break;
    }
    case TraceEvent::Type::WakeupNew:
      if (e.a_pid != 0) task(e.a_pid, e.a_comm, State::Runnable);
      break;
    case TraceEvent::Type::Exit: {
      if (e.a_pid == 0) break;
      Task &p = task(e.a_pid, e.a_comm, State::Running);
      if (p.state == State::Running) {
        p.acc += e.ts - p.run_start;
        p.run_start = e.ts;
      }
      flush_run(p);
      p.state = State::Dead;
      break;
    }
  }
}

std::shared_ptr<ReplaySpec> Builder::finish(const ParsedTrace &t) {
  const Time end = t.events.back().ts;
  for (auto &[pid, task] : live_) {
    if (task.state == State::Running) task.acc += end - task.run_start;
    flush_run(task);
  }
  spec_->source = t.file;
  spec_->nr_cpus = t.nr_cpus;
  spec_->span_ns = end - t0_;
  // Comms name tasks in cookie settings and results: make them unique ("comm#pid").
  std::map<std::string, int> uses;
  for (const auto &rt : spec_->tasks) uses[rt.comm]++;
  std::set<std::string> taken;
  for (auto &rt : spec_->tasks) {
    if (rt.comm.empty()) rt.comm = fmt::format("pid{}", rt.trace_pid);
    std::string c = rt.comm;
    for (char &ch : c)
      if (ch == ' ') ch = '_';
    if (uses[rt.comm] > 1 || taken.count(c)) c = fmt::format("{}#{}", c, rt.trace_pid);
    for (int k = 2; taken.count(c); k++) c = fmt::format("{}#{}.{}", rt.comm, rt.trace_pid, k);
    taken.insert(c);
    rt.comm = c;
  }
  return spec_;
}

}  // namespace

std::shared_ptr<const workload::ReplaySpec> derive_replay(const ParsedTrace &t) {
  // A simulated run is at most max_duration_ns() long (30 days unless raised): a longer trace
  // has a corrupt timestamp, and replaying a task running for that long would not end.
  const Time span = t.events.back().ts - t.events.front().ts;
  if (span > max_duration_ns())
    throw ScenarioError(fmt::format(
        "{}: error: the trace spans {:.0f} s, more than the {:.0f} s a simulated run may last "
        "(docs/limits.md): a corrupt timestamp?",
        t.file, static_cast<double>(span) / 1e9, static_cast<double>(max_duration_ns()) / 1e9));
  Builder b(t);
  for (const auto &e : t.events) b.event(e);
  return b.finish(t);
}

Scenario replay_scenario(std::shared_ptr<const workload::ReplaySpec> spec, const Scenario *base,
                         const std::vector<std::vector<std::string>> &cookies) {
  Scenario s;
  if (base) {
    s.topology = base->topology;
    s.host_machine = base->host_machine;
    s.costs = base->costs;
    s.kernel = base->kernel;
    s.seed = base->seed;
    for (ConfigSpec c : base->configs) {
      c.cookies.clear();
      c.prctl.clear();
      s.configs.push_back(std::move(c));
    }
  } else {
    s.topology.cores_per_llc = spec->nr_cpus;
  }
  s.file = spec->source;
  s.name = "replay";
  s.description = fmt::format("replay of {} ({} tasks)", spec->source, spec->tasks.size());
  if (spec->tasks.empty()) throw ScenarioError(spec->source + ": error: no task to replay");
  TaskGroupSpec g;
  g.name = "replay";
  g.count = static_cast<int>(spec->tasks.size());
  g.bench.kind = workload::Benchmark::Kind::Replay;
  g.bench.replay = spec;
  s.groups.push_back(std::move(g));
  std::set<std::string> comms;
  for (const auto &t : spec->tasks) comms.insert(t.comm);
  std::vector<PrctlOp> ops;
  for (const auto &list : cookies) {
    for (const auto &c : list)
      if (!comms.count(c))
        throw ScenarioError(fmt::format(
            "{}: error: --cookie: no task named '{}' in the trace (names are the tasks' comms, "
            "'comm#pid' where a comm repeats)",
            spec->source, c));
    if (list.empty()) continue;
    PrctlOp create;
    create.cmd = PrctlOp::Cmd::Create;
    create.by = list[0];
    ops.push_back(create);
    for (std::size_t i = 1; i < list.size(); i++) {
      PrctlOp share;
      share.cmd = PrctlOp::Cmd::ShareTo;
      share.by = list[0];
      share.pid = list[i];
      ops.push_back(share);
    }
  }
  if (s.configs.empty()) {
    ConfigSpec c;
    c.name = cookies.empty() ? "default" : "cookies";
    s.configs.push_back(std::move(c));
  }
  for (auto &c : s.configs) c.prctl = ops;
  return s;
}

}  // namespace schedlab::scenario
