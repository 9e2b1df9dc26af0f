// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// What a task wants, as a tree of phases, and the per-task cursor that walks it. Workloads
// talk to the kernel only through the actions a cursor yields.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/random.h"
#include "sim/time.h"

namespace schedlab::workload {

// A duration drawn per use from a task's own random stream.
struct Dist {
  enum class Kind { Const, Uniform, Exponential, Normal };
  Kind kind = Kind::Const;
  Time a = 0;  // Const: the value; Uniform: low; Exponential: mean; Normal: mean
  Time b = 0;  // Uniform: high (inclusive); Normal: standard deviation (clipped at 0)
};

// Draws one value. Uniform is exact integer arithmetic; the others round to whole ns.
Time draw(const Dist &d, sim::Stream &rng);

struct Phase {
  enum class Kind {
    Run,      // an amount of CPU work in ns at full speed (slowed by SMT co-running)
    Runtime,  // CPU time in ns (the thread's CPU clock), whatever the speed
    Sleep,    // block, then wake after the duration (plus the kernel's timer slack)
    Loop,     // repeat `body` `count` times
    // rt-app's events between tasks; `res` (and `res2`) index the scenario's resources.
    Timer,      // sleep until the timer `res`'s next boundary; dist.a is the period
    Yield,      // sched_yield()
    Barrier,    // wait until every user of barrier `res` has reached it
    Suspend,    // wait on condition `res` until a Resume of it (a wakeup is not remembered)
    Resume,     // wake every task waiting in Suspend on condition `res`
    Lock,       // take mutex `res`, waiting while another task holds it
    Unlock,     // release mutex `res`, waking one waiter
    Wait,       // pthread_cond_wait(condition res, mutex res2)
    Signal,     // pthread_cond_signal(condition res)
    Broadcast,  // pthread_cond_broadcast(condition res)
    Sync,       // Signal then Wait, atomically (rt-app's "sync")
    // A line the task writes to the trace marker (rt-app's ftrace log): `res` indexes the
    // scenario's marks. MODEL: it takes no CPU time.
    Mark,
  };
  Kind kind = Kind::Run;
  Dist dist;
  std::uint64_t count = 0;
  std::vector<Phase> body;
  std::uint32_t res = 0, res2 = 0;
  bool absolute = false;  // Timer: boundaries stay at start + k * period after an overrun
};

// What the scenario's synchronisation phases name: timers, barriers, condition variables and
// mutexes live in separate namespaces (as in rt-app), so one name may be a mutex and a
// condition at once.
struct Resource {
  enum class Kind { Timer, Barrier, Cond, Mutex };
  Kind kind = Kind::Cond;
  std::string name;
  bool per_task = false;  // a timer whose name starts with "unique": one per task (rt-app)
};

struct Action {
  // Block: wait, without a timer, until another task wakes this one (benchmark models only).
  // Sync: one of the synchronisation phases (Timer .. Sync), carried out by the executor.
  // Mark: a Mark phase, for the executor to write if it traces.
  enum class Kind { Run, Runtime, Sleep, Forever, Exit, Block, Sync, Mark };
  Kind kind = Kind::Exit;
  Time amount = 0;
  const Phase *phase = nullptr;  // Sync, Mark: the phase
};

// Walks a phase list `loops` times, or forever when loops is 0 (a stress task yields Forever).
class Cursor {
 public:
  Cursor() = default;
  Cursor(const std::vector<Phase> *phases, std::uint64_t loops, bool stress);
  Action next(sim::Stream &rng);

 private:
  struct Frame {
    const std::vector<Phase> *body;
    std::size_t idx;
    std::uint64_t remaining;
  };
  std::vector<Frame> stack_;
  bool stress_ = false;
};

}  // namespace schedlab::workload
