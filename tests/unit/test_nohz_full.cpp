// SPDX-License-Identifier: GPL-2.0-only
// NO_HZ_FULL (nohz_full= CPUs) in hand-built states: 8 CPUs, 4 cores x 2 threads, HZ=1000;
// CPUs 1-7 are nohz_full, CPU 0 does the housekeeping.
#include <gtest/gtest.h>

#include "kernel_fixture.h"

using namespace schedlab;
using namespace schedlab::kernel;
using schedlab::testing::KernelFixture;

namespace {

constexpr Time kMs = NSEC_PER_MSEC;

KernelConfig nohz_full_1_7() {
  KernelConfig cfg;
  cfg.nohz_full = {1, 2, 3, 4, 5, 6, 7};
  return cfg;
}

struct NohzFull : ::testing::Test {
  KernelFixture f{KernelFixture::default_spec(), nohz_full_1_7()};
};

}  // namespace

TEST_F(NohzFull, ALoneTaskRunsWithoutTicksAHousekeepingCpuTicks) {
  f.hog(0);
  f.hog(1);
  EXPECT_TRUE(f.k.tick_running(0));
  EXPECT_FALSE(f.k.tick_running(1));
  f.settle(10 * kMs);
  EXPECT_EQ(f.k.nr_ticks(0), 10u);
  EXPECT_EQ(f.k.nr_ticks(1), 0u);
}

TEST_F(NohzFull, ASecondTaskStartsTheTickWhichStopsAtTheFirstTickAfterItLeaves) {
  // Both pinned, or the idle balancer (CPU 0, kicked by CPU 1's first tick) takes one away.
  auto pinned = [&](const char *comm) {
    task_struct *p = f.task(comm);
    CpuMask only1(8);
    only1.set(1);
    p->cpus_mask = only1;
    p->nr_cpus_allowed = 1;
    return p;
  };
  task_struct *a = pinned("a");
  f.k.test_run(a, 1);
  EXPECT_FALSE(f.k.tick_running(1));
  f.settle(5 * kMs);
  task_struct *b = pinned("b");
  f.k.test_enqueue(b, 1);  // add_nr_running(): the tick dependency kicks the tick on
  EXPECT_TRUE(f.k.tick_running(1));
  f.settle(10 * kMs);
  EXPECT_EQ(f.k.nr_ticks(1), 5u);  // 6..10 ms
  EXPECT_EQ(f.k.cpu_rq(1)->nr_running, 2u);
  // Whichever runs now goes to sleep: one task is left, and the tick still runs until its
  // next interrupt finds nothing that needs it.
  task_struct *left = f.k.cpu_rq(1)->curr == a ? b : a;
  f.k.set_clock(10 * kMs + kMs / 2);
  f.k.cpu_rq(1)->curr->__state = TASK_INTERRUPTIBLE;
  f.k.block_current(1);
  f.k.run_preempt_points();
  EXPECT_EQ(f.k.cpu_rq(1)->curr, left);
  EXPECT_TRUE(f.k.tick_running(1));
  f.settle(20 * kMs);
  EXPECT_EQ(f.k.nr_ticks(1), 6u);  // 11 ms, then no more
  EXPECT_FALSE(f.k.tick_running(1));
}

TEST_F(NohzFull, TheRemoteTickKeepsTheStatisticsLessThanASecondOld) {
  task_struct *p = f.hog(1);
  f.settle(3500 * kMs);
  EXPECT_EQ(f.k.nr_ticks(1), 0u);
  EXPECT_EQ(f.k.nr_remote_ticks(1), 3u);  // at 1 s, 2 s and 3 s
  EXPECT_EQ(f.k.nr_remote_ticks(2), 0u);  // idle: nothing to tick
  // update_curr() and the PELT update ran at 3 s, not since.
  EXPECT_EQ(p->se.sum_exec_runtime, 3000 * kMs);
  const sched_avg &avg = f.k.cpu_rq(1)->cfs.avg;
  EXPECT_LE(avg.last_update_time, 3000 * kMs);
  EXPECT_GT(avg.last_update_time, 3000 * kMs - 1024);
  EXPECT_GT(avg.util_avg, 1000u);  // PELT saw three seconds of running
}

// The idle load balancer is a housekeeping CPU (find_new_ilb()); nohz_full CPUs take no tick
// while idle, so none of them balances on its own. With the only housekeeping CPU busy, an
// overloaded CPU 0 stays overloaded, where a kernel without nohz_full spreads it at once.
TEST(NohzFullBalance, NoIdleHousekeepingCpuNoIdleBalancing) {
  for (const bool nohz : {false, true}) {
    KernelFixture f(KernelFixture::default_spec(), nohz ? nohz_full_1_7() : KernelConfig{});
    task_struct *h = f.hog(0);
    task_struct *q = f.task("queued");
    f.k.test_enqueue(q, 0);
    f.settle(100 * kMs);
    if (nohz) {
      EXPECT_EQ(f.k.cpu_rq(0)->nr_running, 2u);
      EXPECT_EQ(q->cpu, 0);
    } else {
      // Each on a CPU of its own (and, after active balancing, a core of its own).
      EXPECT_NE(q->cpu, h->cpu);
      EXPECT_EQ(f.k.cpu_rq(q->cpu)->nr_running, 1u);
      EXPECT_EQ(f.k.cpu_rq(h->cpu)->nr_running, 1u);
      EXPECT_NE(f.k.cpu_smt_cpus(q->cpu)[0], f.k.cpu_smt_cpus(h->cpu)[0]);
    }
  }
}

TEST(NohzFullBalance, IdleNohzFullCpusAreBalancedForByTheHousekeeper) {
  // CPU 0 is idle housekeeping; CPU 1 (nohz_full) has two tasks and ticks: it kicks CPU 0,
  // which balances on behalf of every idle CPU, nohz_full ones included.
  KernelFixture f(KernelFixture::default_spec(), nohz_full_1_7());
  f.hog(1);
  task_struct *q = f.task("queued");
  f.k.test_enqueue(q, 1);
  EXPECT_TRUE(f.k.tick_running(1));
  f.settle(100 * kMs);
  EXPECT_EQ(f.k.cpu_rq(1)->nr_running, 1u);
  EXPECT_NE(q->cpu, 1);
}
