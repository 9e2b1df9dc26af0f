#pragma once
// What a task wants, as a tree of phases, and the per-task cursor that walks it. Workloads
// talk to the kernel only through the actions a cursor yields.
#include <cstdint>
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
  };
  Kind kind = Kind::Run;
  Dist dist;
  std::uint64_t count = 0;
  std::vector<Phase> body;
};

struct Action {
  // Block: wait, without a timer, until another task wakes this one (benchmark models only).
  enum class Kind { Run, Runtime, Sleep, Forever, Exit, Block };
  Kind kind = Kind::Exit;
  Time amount = 0;
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
