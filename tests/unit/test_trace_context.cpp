// SPDX-License-Identifier: GPL-2.0-only
// Where and in what context ftrace lines are printed: tracepoints fire on the CPU whose code
// runs them, and the flags column says hardirq or softirq, as a real trace does, so that a
// simulated trace reads like one taken on the machine.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "kernel_fixture.h"
#include "observe/ftrace_writer.h"

using namespace schedlab;
using namespace schedlab::kernel;
using schedlab::testing::KernelFixture;

namespace {

// An FtraceWriter into memory; lines() ends the trace and returns its event lines.
struct Traced {
  KernelFixture f;
  char *buf = nullptr;
  std::size_t size = 0;
  std::FILE *out = open_memstream(&buf, &size);
  observe::FtraceWriter w{f.k, out, 0, kTimeNever, {}, /*pelt=*/true};
  Traced() { f.k.add_tracer(&w); }
  ~Traced() {
    if (out) std::fclose(out);
    std::free(buf);
  }
  std::vector<std::string> lines(const std::string &event) {
    EXPECT_EQ(w.finish(), 0);
    std::fflush(out);
    std::vector<std::string> r;
    std::istringstream in(std::string(buf, size));
    for (std::string l; std::getline(in, l);)
      if (l[0] != '#' && l.find(" " + event + ": ") != std::string::npos) r.push_back(l);
    return r;
  }
};

}  // namespace

// Core {0,4} runs two hogs with a third task queued on CPU 0. CPU 0's tick kicks CPU 1, the
// first idle CPU, to balance for the idle CPUs, and CPU 2 gets the task: the move is printed
// on CPU 1, in its balancing softirq. The tick's PELT updates are printed in the timer
// interrupt of the CPU that ticks.
TEST(TraceContext, ABalancingMoveIsPrintedOnTheBalancerInSoftirq) {
  Traced t;
  t.f.k.set_clock(10 * NSEC_PER_MSEC);
  t.f.hog(0);
  t.f.hog(4);
  task_struct *q = t.f.task("queued");
  t.f.k.test_enqueue(q, 0);
  t.f.settle(12 * NSEC_PER_MSEC);
  ASSERT_EQ(q->cpu, 2);
  const auto moves = t.lines("sched_migrate_task");
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_NE(moves[0].find("<idle>-0       [001] d.s.. "), std::string::npos) << moves[0];
  EXPECT_NE(moves[0].find("orig_cpu=0 dest_cpu=2"), std::string::npos) << moves[0];
  bool tick_pelt = false;
  for (const std::string &l : t.lines("lisa__sched_pelt_se"))
    if (l.find("[000] d.h.. ") != std::string::npos && l.find("cpu=0 ") != std::string::npos)
      tick_pelt = true;
  EXPECT_TRUE(tick_pelt);
}

// A wakeup that moves its task is printed on the waker's CPU, outside any interrupt.
TEST(TraceContext, AWakeupMoveIsPrintedOnTheWaker) {
  Traced t;
  t.f.k.set_clock(10 * NSEC_PER_MSEC);
  t.f.hog(0);
  task_struct *s = t.f.sleeper(0);
  t.f.k.try_to_wake_up(s, 0, 3);
  ASSERT_NE(s->cpu, 0);
  const auto moves = t.lines("sched_migrate_task");
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_NE(moves[0].find("<idle>-0       [003] d.... "), std::string::npos) << moves[0];
}

// wake_up_new_task() runs on the parent's CPU: its sched_wakeup_new is printed there, whichever
// CPU the child is placed on.
TEST(TraceContext, AForkIsPrintedOnTheParentsCpu) {
  Traced t;
  t.f.k.set_clock(10 * NSEC_PER_MSEC);
  task_struct *parent = t.f.hog(0);
  task_struct *child = t.f.task("child");
  t.f.k.wake_up_new_task(child, 0);
  ASSERT_NE(child->cpu, 0);
  const auto forks = t.lines("sched_wakeup_new");
  ASSERT_EQ(forks.size(), 1u);
  const std::string who = "hog-" + std::to_string(parent->pid);
  EXPECT_NE(forks[0].find(who), std::string::npos) << forks[0];
  EXPECT_NE(forks[0].find(" [000] d.... "), std::string::npos) << forks[0];
}
