// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// One run: a machine, a kernel and a workload on one event queue, for one configuration and
// one seed. The simulation also plays the hardware: it knows how fast each CPU's current
// task progresses (SMT co-running, context switch and cache-refill costs) and tells the
// workload when an action is done.
#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/run_result.h"
#include "kernel/kernel.h"
#include "observe/invariant_checker.h"
#include "observe/metrics.h"
#include "scenario/scenario.h"
#include "sim/event_queue.h"
#include "sim/random.h"
#include "workload/benchmarks.h"
#include "workload/program.h"
#include "workload/rtapp_log.h"

namespace schedlab::engine {

class Simulation : public kernel::CpuHooks {
 public:
  Simulation(const scenario::Scenario &s, const std::string &config_name,
             const kernel::KernelConfig &cfg, u64 seed);
  ~Simulation() override;
  RunResult run();

  kernel::Kernel &kernel() { return *kernel_; }
  // Another observer (a checker, a trace writer) for this run; attach before run().
  void add_tracer(kernel::TraceSink *t) { kernel_->add_tracer(t); }
  // Called after every event with the model settled (checkers in tests).
  void set_after_event(std::function<void(const kernel::Kernel &, Time)> f) {
    after_event_ = std::move(f);
  }
  // Attaches an invariant checker (`--check`) to this run; its report lands in RunResult::check.
  // Without it no checking work is done.
  void enable_check(Time wasted_threshold = observe::InvariantChecker::kDefaultWastedThreshold);
  // Lets the run stop early: once *stop is true (polled every kStopPollEvents events: SIGINT,
  // a wall-clock limit) or after `max_events` events (0: no limit). The result then ends at the
  // last event handled, with RunResult::stop saying why. Without it the loop pays one compare.
  static constexpr u64 kStopPollEvents = 4096;
  void set_stop(const std::atomic<bool> *stop, u64 max_events = 0) {
    stop_ = stop;
    max_events_ = max_events;
  }
  void cpu_switched(int cpu, kernel::task_struct *prev, kernel::task_struct *next) override;

 private:
  enum SimEvent : u32 { EV_TASK_START = 16, EV_TASK_WAKE = 17, EV_WORK_DONE = 18 };
  struct TaskWork {
    kernel::task_struct *p = nullptr;
    const scenario::TaskGroupSpec *group = nullptr;
    workload::Cursor cursor;
    sim::Stream rng;
    workload::Action act;  // what the task is doing while on a CPU
    Time remaining = 0;    // of act, in ns of work (Run) or CPU time (Runtime)
    sim::EventQueue::TimerId wake_timer = 0, start_timer = 0;
    bool finite = true;
    workload::Model *model = nullptr;        // a benchmark model drives the task instead of cursor
    int member = 0;                          // the task's index in its model
    std::size_t model_idx = 0;               // index in models_
    std::ptrdiff_t parent = -1;              // a forked child: its parent's index in work_
    Time first = 0;                          // start time: rt-app's t_first, where timers begin
    std::vector<Time> timer_next;            // per-task timers' next boundary, by resource
    const workload::Phase *retry = nullptr;  // a Lock to retake once woken (futex semantics)
    std::unique_ptr<workload::RtappLog> rtlog;  // rt-app's ftrace log, while a trace takes it
  };
  // A named resource of the scenario's synchronisation phases (workload::Resource).
  struct SyncState {
    std::vector<std::size_t> waiters;  // work_ indices, in arrival order
    std::ptrdiff_t holder = -1;        // mutex: the holder's work_ index
    u64 users = 0, arrived = 0;        // barrier
    Time next = kTimeNever;            // shared timer: next boundary; kTimeNever: not armed
  };
  // A model instance and the Env through which it acts on its member tasks.
  class ModelEnv : public workload::Env {
   public:
    ModelEnv(Simulation *sim, std::size_t base) : sim_(sim), base_(base) {}
    Time now() const override { return sim_->now_; }
    void wake(int member, int wake_flags, int cpu) override;
    void fork_child(int member, Time child_run, int cpu) override;

   private:
    Simulation *sim_;
    std::size_t base_;  // work_ index of member 0
  };
  struct ModelInst {
    std::unique_ptr<workload::Model> model;
    std::unique_ptr<ModelEnv> env;
    const scenario::TaskGroupSpec *group = nullptr;
    std::size_t base = 0;  // work_ index of member 0
  };
  struct CpuExec {
    TaskWork *w = nullptr;  // running task, nullptr when idle
    Time seg_start = 0;     // progress accrues from here (after switch costs)
    u32 speed = kSpeedOne;
    sim::EventQueue::TimerId done_timer = 0;
  };

  void assign_processes();
  void apply_cookies();
  void handle(const sim::EventQueue::Fired &f);
  void work_done(int cpu);
  void settle(int cpu);
  u32 speed_of(int cpu) const;
  void arm_done(int cpu);
  void init_sync();
  bool do_sync(TaskWork &w, int cpu, const workload::Phase &ph);
  void sync_block(TaskWork &w, int cpu, std::vector<std::size_t> *queue);
  void sync_wake(std::size_t idx, int cpu);
  void mutex_release(SyncState &m, int cpu);
  // Writes the lines in marks_ to trace_marker from the task running on cpu, and clears them.
  void write_marks(int cpu);

  const scenario::Scenario &s_;
  std::string config_name_;
  u64 seed_;
  kernel::KernelConfig cfg_;
  Topology topo_;
  sim::EventQueue events_;
  std::unique_ptr<kernel::Kernel> kernel_;
  std::unique_ptr<observe::Metrics> metrics_;
  // By pid - 1; a deque, so forked children can be added while CpuExec points at tasks.
  std::deque<TaskWork> work_;
  std::vector<ModelInst> models_;
  std::deque<std::vector<workload::Phase>> child_programs_;  // forked children's phases
  u64 forks_ = 0;
  std::vector<CpuExec> exec_;
  std::vector<SyncState> sync_;          // by resource index (scenario::Scenario::resources)
  std::vector<workload::Phase> relock_;  // by resource: a Lock of it (a woken cond waiter)
  std::function<void(const kernel::Kernel &, Time)> after_event_;
  std::unique_ptr<observe::InvariantChecker> checker_;
  std::vector<std::string> marks_;  // rt-app's lines to write now
  Time now_ = 0;
  int finite_left_ = 0;
  const std::atomic<bool> *stop_ = nullptr;
  u64 max_events_ = 0;
};

}  // namespace schedlab::engine
