// SPDX-License-Identifier: GPL-2.0-only
// Wakeup and fork placement in hand-built states (8 CPUs, 4 cores x 2 threads; CPU n and n+4
// are siblings). A sleeper's hrtimer fires on its previous CPU, which therefore is the waker.
#include <gtest/gtest.h>

#include "kernel_fixture.h"

using namespace schedlab;
using namespace schedlab::kernel;
using schedlab::testing::KernelFixture;

namespace {

struct Wakeup : ::testing::Test {
  KernelFixture f;
  void SetUp() override {
    // As after a periodic balance of an LLC that is not overloaded: scan the whole LLC.
    f.k.sd_llc_shared(0)->nr_idle_scan = 8;
  }
  int wake(task_struct *p) {
    f.k.try_to_wake_up(p, 0, p->timer_cpu);
    return p->cpu;
  }
};

}  // namespace

TEST_F(Wakeup, IdleTargetIsTaken) {
  task_struct *p = f.sleeper(2);
  EXPECT_EQ(wake(p), 2);
}

TEST_F(Wakeup, BusyPrevWithIdleSiblingGoesToTheSibling) {
  for (int c : {0, 1, 2, 3, 4, 6, 7}) f.hog(c);  // only CPU 5, sibling of 1, is idle
  task_struct *p = f.sleeper(1);
  EXPECT_EQ(wake(p), 5);
}

TEST_F(Wakeup, IdleCoreIsPreferredOverAHalfIdleCore) {
  for (int c : {1, 5, 2, 7}) f.hog(c);  // core 1 busy, cores 2 and 3 half busy, core 0 idle
  task_struct *p = f.sleeper(1);
  f.k.set_idle_cores(1, 1);
  EXPECT_EQ(wake(p), 4);  // the scan from CPU 2 passes half-idle CPUs 3 and 6 to reach core 0
  EXPECT_TRUE(f.k.test_idle_cores(1));
}

TEST_F(Wakeup, WithoutTheIdleCoreHintTheFirstIdleCpuWins) {
  for (int c : {1, 5, 2, 7}) f.hog(c);
  task_struct *p = f.sleeper(1);
  f.k.set_idle_cores(1, 0);
  EXPECT_EQ(wake(p), 3);
}

TEST_F(Wakeup, StaleIdleCoreHintIsClearedByAFullScan) {
  for (int c : {0, 1, 5, 2, 7, 3}) f.hog(c);  // no idle core left; 4 and 6 idle
  task_struct *p = f.sleeper(1);
  f.k.set_idle_cores(1, 1);
  const int cpu = wake(p);
  EXPECT_EQ(cpu, 6);  // the scan from CPU 2 meets idle thread 6 (core {2, 6}) first
  EXPECT_FALSE(f.k.test_idle_cores(1));
}

TEST_F(Wakeup, AffinityLimitsTheSearch) {
  task_struct *hog6 = f.hog(6);
  (void)hog6;
  task_struct *p = f.k.create_task("pinned", 0, SCHED_NORMAL, [] {
    CpuMask m(8);
    m.set(6);
    m.set(7);
    return m;
  }());
  p->cpu = p->wake_cpu = p->recent_used_cpu = p->timer_cpu = 6;
  p->__state = TASK_INTERRUPTIBLE;
  EXPECT_EQ(wake(p), 7);  // CPUs 0-5 are idle but not allowed
}

TEST_F(Wakeup, RecentlyUsedCpuIsTriedBeforeTheScan) {
  for (int c : {1, 5}) f.hog(c);
  task_struct *p = f.sleeper(1);
  p->recent_used_cpu = 3;
  EXPECT_EQ(wake(p), 3);             // a scan from CPU 2 would have found CPU 2 first
  EXPECT_EQ(p->recent_used_cpu, 1);  // and prev becomes the new recent CPU
}

TEST_F(Wakeup, SisUtilStopsTheScanOnABusyLlc) {
  for (int c : {1, 5, 2, 7}) f.hog(c);
  task_struct *p = f.sleeper(1);
  f.k.set_idle_cores(1, 0);
  f.k.sd_llc_shared(0)->nr_idle_scan = 0;  // as computed for an LLC at >= 85 % utilisation
  EXPECT_EQ(wake(p), 1);                   // nothing scanned: the task stays on its busy prev CPU
}

TEST_F(Wakeup, RemoteIdleTargetIsWokenThroughTheWakelist) {
  task_struct *p = f.sleeper(2);
  f.hog(0);
  f.k.try_to_wake_up(p, 0, 0);  // woken by a task on CPU 0; affine target CPU 0 is busy
  // wake_affine_idle: CPU 0 busy, prev 2 idle -> prev; select_idle_sibling keeps it.
  EXPECT_EQ(p->cpu, 2);
  EXPECT_EQ(f.k.cpu_rq(2)->ttwu_pending, 1);  // TTWU_QUEUE: the target activates it itself
  EXPECT_FALSE(f.k.idle_cpu(2));              // and is not idle meanwhile
  const auto ipi = f.events.pop();            // the IPI, before CPU 0's first tick
  EXPECT_EQ(ipi.kind, EV_IPI);
  EXPECT_EQ(ipi.arg, 2u);
}

TEST(Fork, NewTasksSpreadOverCoresFirstThenThreads) {
  KernelFixture f;
  std::vector<int> placed;
  for (int i = 0; i < 8; i++) {
    task_struct *p = f.task("child");
    f.k.wake_up_new_task(p, 0);
    placed.push_back(p->cpu);
  }
  EXPECT_EQ(placed, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}
