#pragma once
// One run: a machine, a kernel and a workload on one event queue, for one configuration and
// one seed. The simulation also plays the hardware: it knows how fast each CPU's current
// task progresses (SMT co-running, context switch and cache-refill costs) and tells the
// workload when an action is done.
#include <memory>
#include <string>
#include <vector>

#include "kernel/kernel.h"
#include "observe/metrics.h"
#include "scenario/scenario.h"
#include "sim/event_queue.h"
#include "sim/random.h"
#include "workload/program.h"

namespace schedlab::experiment {

struct RunResult {
  std::string scenario;
  std::string config;
  u64 seed = 0;
  kernel::KernelConfig kernel;
  observe::RunMetrics metrics;
  u64 events = 0;
  kernel::Kernel::SisStats sis;
  double wall_s = 0;  // host time, never part of the deterministic result
};

class Simulation : public kernel::CpuHooks {
 public:
  Simulation(const scenario::Scenario &s, const std::string &config_name,
             const kernel::KernelConfig &cfg, u64 seed);
  ~Simulation() override;
  RunResult run();

  kernel::Kernel &kernel() { return *kernel_; }
  // Another observer (a checker, a trace writer) for this run; attach before run().
  void add_tracer(kernel::TraceSink *t) { kernel_->add_tracer(t); }
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

  const scenario::Scenario &s_;
  std::string config_name_;
  u64 seed_;
  kernel::KernelConfig cfg_;
  Topology topo_;
  sim::EventQueue events_;
  std::unique_ptr<kernel::Kernel> kernel_;
  std::unique_ptr<observe::Metrics> metrics_;
  std::vector<TaskWork> work_;  // by pid - 1
  std::vector<CpuExec> exec_;
  Time now_ = 0;
  int finite_left_ = 0;
};

// Resolves a configuration by name ("" = the first, or the implicit default), applying
// command-line feature/tunable overrides ("NAME=VALUE"). Throws std::invalid_argument with a
// one-line message on an unknown name or bad value.
struct ConfigChoice {
  std::string name;
  kernel::KernelConfig kernel;
};
ConfigChoice choose_config(const scenario::Scenario &s, const std::string &name,
                           const std::vector<std::string> &feature_overrides,
                           const std::vector<std::string> &tunable_overrides);

}  // namespace schedlab::experiment
