// SPDX-License-Identifier: GPL-2.0-only
// util_est (UTIL_EST): a task's utilisation as sampled at its sleeps, and a run queue's sum of
// its queued tasks' samples, which cpu_util_cfs() takes when it exceeds util_avg.
#include <gtest/gtest.h>

#include "kernel_fixture.h"

using namespace schedlab;
using namespace schedlab::kernel;
using schedlab::testing::KernelFixture;

namespace {

// A task on CPU 1 whose PELT figures and estimate are set by hand.
struct Sample {
  KernelFixture f;
  task_struct *p = f.task("p");
  Sample() { p->cpu = 1; }
  u32 update(u32 est, unsigned long util, unsigned long runnable, bool sleep = true) {
    p->se.avg.util_est = est;
    p->se.avg.util_avg = util;
    p->se.avg.runnable_avg = runnable;
    f.k.util_est_update(&f.k.cpu_rq(1)->cfs, p, sleep);
    return p->se.avg.util_est;
  }
};

}  // namespace

// The rules of a sleep's sample, one by one (UTIL_EST_MARGIN is 10, capacity 1024).
TEST(UtilEst, ASleepTakesARiseAtOnceAndAFallByAQuarter) {
  Sample s;
  // Rises are taken whole.
  EXPECT_EQ(s.update(100, 400, 400), 400 | UTIL_AVG_UNCHANGED);
  // Falls move a quarter of the way: 600 - (600 - 100) / 4.
  EXPECT_EQ(s.update(600, 100, 100), 475 | UTIL_AVG_UNCHANGED);
  // Within 1 % of the estimate: kept.
  EXPECT_EQ(s.update(109, 100, 100), 109 | UTIL_AVG_UNCHANGED);
  // The task waited for the CPU (runnable well above util): the low sample is not trusted.
  EXPECT_EQ(s.update(600, 100, 111), 600 | UTIL_AVG_UNCHANGED);
  EXPECT_EQ(s.update(600, 100, 110), 475 | UTIL_AVG_UNCHANGED);
  // No idle time on the CPU: no sample, and the flag stays clear for the next sleep.
  EXPECT_EQ(s.update(1200, 1100, 1100), 1200u);
}

TEST(UtilEst, OnlyASleepWithFreshPeltSamples) {
  Sample s;
  // util_avg has not moved since the last sample: nothing to learn.
  EXPECT_EQ(s.update(600 | UTIL_AVG_UNCHANGED, 100, 100), 600 | UTIL_AVG_UNCHANGED);
  // A migration or a requeue is not the end of an activation.
  EXPECT_EQ(s.update(600, 100, 100, /*sleep=*/false), 600u);
}

// A task runs 40 ms on CPU 1 and sleeps 100 ms: its util_avg decays to about a tenth, but the
// CPU it wakes on counts it at its estimate from the moment it is queued. A short second run
// then pulls the estimate down by a quarter of the difference.
TEST(UtilEst, AWokenTaskCountsForWhatItUsedBeforeItSlept) {
  KernelFixture f;
  f.k.set_clock(1 * NSEC_PER_MSEC);
  task_struct *p = f.hog(1);
  f.settle(41 * NSEC_PER_MSEC);
  f.k.set_clock(41 * NSEC_PER_MSEC + NSEC_PER_MSEC / 2);
  const unsigned long ran = task_util(p);  // as of the last tick: the dequeue updates after
  ASSERT_GT(ran, 400u);
  EXPECT_EQ(f.k.cpu_rq(1)->cfs.avg.util_est, _task_util_est(p));
  p->__state = TASK_INTERRUPTIBLE;
  f.k.block_current(1);
  EXPECT_EQ(p->se.avg.util_est, ran | UTIL_AVG_UNCHANGED);
  EXPECT_EQ(f.k.cpu_rq(1)->cfs.avg.util_est, 0u);  // gone from the queue's sum
  EXPECT_EQ(f.k.cpu_util_cfs(1), f.k.cpu_rq(1)->cfs.avg.util_avg);

  f.settle(141 * NSEC_PER_MSEC);
  f.k.try_to_wake_up(p, 0, 1);
  f.k.run_preempt_points();
  ASSERT_EQ(f.k.cpu_rq(p->cpu)->curr, p);
  const int cpu = p->cpu;
  EXPECT_LT(f.k.cpu_rq(cpu)->cfs.avg.util_avg, ran / 4);
  EXPECT_EQ(f.k.cpu_rq(cpu)->cfs.avg.util_est, ran);
  EXPECT_EQ(f.k.cpu_util_cfs(cpu), ran);
  // Taken out again for p's own fork/exec-time view of its CPU.
  const unsigned long rq_util = f.k.cpu_rq(cpu)->cfs.avg.util_avg;
  EXPECT_EQ(f.k.cpu_util_without(cpu, p), rq_util > task_util(p) ? rq_util - task_util(p) : 0);

  f.settle(144 * NSEC_PER_MSEC);
  f.k.set_clock(144 * NSEC_PER_MSEC + NSEC_PER_MSEC / 2);
  const unsigned long short_run = task_util(p);
  ASSERT_GE(ran - short_run, 10u);
  ASSERT_FALSE(p->se.avg.util_est & UTIL_AVG_UNCHANGED);  // the ticks moved util_avg
  p->__state = TASK_INTERRUPTIBLE;
  f.k.block_current(cpu);
  EXPECT_EQ(p->se.avg.util_est, (3 * ran + short_run) / 4 | UTIL_AVG_UNCHANGED);
}

// DELAY_DEQUEUE keeps a sleeper that owes service queued, but it leaves the queue's estimate
// when it goes to sleep, and joins it again when woken in place.
TEST(UtilEst, ADelayedSleeperLeavesTheSumWhenItSleeps) {
  KernelFixture f;
  f.k.set_clock(10 * NSEC_PER_MSEC);
  task_struct *q = f.hog(0);
  q->se.avg.util_est = 300;
  f.k.cpu_rq(0)->cfs.avg.util_est = 300;
  task_struct *r = f.task("r");
  r->se.avg.util_est = 200;
  f.k.test_enqueue(r, 0);
  EXPECT_EQ(f.k.cpu_rq(0)->cfs.avg.util_est, 500u);
  f.k.set_clock(12 * NSEC_PER_MSEC);
  q->__state = TASK_INTERRUPTIBLE;
  f.k.block_current(0);
  ASSERT_TRUE(q->se.sched_delayed);
  EXPECT_EQ(f.k.cpu_rq(0)->cfs.avg.util_est, 200u);
  f.k.try_to_wake_up(q, 0, 0);
  ASSERT_FALSE(q->se.sched_delayed);
  EXPECT_EQ(f.k.cpu_rq(0)->cfs.avg.util_est, 200u + _task_util_est(q));
}

// cpu_util_cfs() is the larger of util_avg and the estimate, capped at the capacity. With
// UTIL_EST off no estimate is kept, so it is util_avg.
TEST(UtilEst, TheCpuUtilisationIsTheLargerOfTheTwo) {
  KernelFixture f;
  struct rq *rq = f.k.cpu_rq(2);
  rq->cfs.avg.util_avg = 300;
  rq->cfs.avg.runnable_avg = 500;
  rq->cfs.avg.util_est = 400;
  EXPECT_EQ(f.k.cpu_util_cfs(2), 400u);
  EXPECT_EQ(f.k.cpu_util_cfs_boost(2), 500u);
  rq->cfs.avg.util_est = 2000;
  EXPECT_EQ(f.k.cpu_util_cfs(2), SCHED_CAPACITY_SCALE);

  kernel::KernelConfig cfg;
  cfg.features.on[__SCHED_FEAT_UTIL_EST] = false;
  KernelFixture off(KernelFixture::default_spec(), cfg);
  off.k.set_clock(1 * NSEC_PER_MSEC);
  task_struct *p = off.hog(1);
  off.settle(20 * NSEC_PER_MSEC);
  p->__state = TASK_INTERRUPTIBLE;
  off.k.block_current(1);
  EXPECT_EQ(p->se.avg.util_est, 0u);
  off.k.try_to_wake_up(p, 0, 1);
  EXPECT_EQ(off.k.cpu_rq(p->cpu)->cfs.avg.util_est, 0u);
  EXPECT_EQ(off.k.cpu_util_cfs(p->cpu), off.k.cpu_rq(p->cpu)->cfs.avg.util_avg);
}
