// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Trace replay (the idea of `perf sched replay`): every task of a recorded trace runs its own
// sequence again: CPU time as it ran, sleeps it slept, and the wakeups it did to other tasks.
// A task that a replayed task woke blocks until that task wakes it again (counted like a
// semaphore, so a wakeup that comes before the block is not lost); a task woken by a timer or an
// interrupt sleeps for as long as it slept in the trace. scenario/ftrace_reader.cpp derives the
// sequences from an ftrace text trace.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workload/benchmarks.h"

namespace schedlab::workload {

struct ReplayStep {
  enum class Kind : std::uint8_t {
    Run,    // `amount` ns of CPU time (the thread's CPU clock, whatever the SMT speed)
    Sleep,  // block and wake after `amount` ns (a timer, an interrupt or an untraced waker)
    Wake,   // wake member `target`
    Block,  // block until another member wakes this one
  };
  Kind kind = Kind::Run;
  Time amount = 0;
  int target = -1;
};

struct ReplayTask {
  std::string comm;  // unique within the replay
  int trace_pid = 0;
  std::vector<ReplayStep> steps;  // then it exits
  Time trace_runtime_ns = 0;      // CPU time in the trace (the sum of its Run steps)
  std::uint64_t woken_by_task = 0, woken_by_timer = 0;
};

struct ReplaySpec {
  std::string source;  // the trace file
  int nr_cpus = 0;     // of the traced machine
  Time span_ns = 0;    // first to last event
  std::vector<ReplayTask> tasks;
};

class Replay : public Model {
 public:
  explicit Replay(std::shared_ptr<const ReplaySpec> spec);
  Action next(int member, int cpu, sim::Stream &rng, Env &env) override;
  void report(BenchReport &) const override {}
  int members() const override { return static_cast<int>(spec_->tasks.size()); }
  // Each traced thread is a process of its own: the trace does not say which share one.
  bool one_process_per_task() const override { return true; }
  std::string comm(int member) const override;

 private:
  void wake(int target, int cpu, Env &env);
  std::shared_ptr<const ReplaySpec> spec_;
  struct State {
    std::size_t step = 0;
    std::uint64_t pending = 0;  // wakeups that came before the Block they answer
    bool blocked = false;
  };
  std::vector<State> state_;
};

}  // namespace schedlab::workload
