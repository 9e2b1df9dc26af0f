// SPDX-License-Identifier: GPL-2.0-only
// EEVDF in hand-built queues: who is picked, where a waking task is placed, when the tick
// preempts.
#include <gtest/gtest.h>

#include "kernel_fixture.h"

using namespace schedlab;
using namespace schedlab::kernel;
using schedlab::testing::KernelFixture;

TEST(Eevdf, PicksTheEligibleTaskWithTheEarliestDeadline) {
  KernelFixture f;
  task_struct *a = f.task("a"), *b = f.task("b"), *c = f.task("c");
  f.k.test_enqueue(a, 0);  // placed at V with a full slice
  b->se.vlag = 300000;     // owed 0.3 ms: placed left of V, earlier deadline
  f.k.test_enqueue(b, 0);
  c->se.vlag = -300000;       // in debt: right of V, not eligible
  c->se.custom_slice = true;  // ... even with the earliest deadline of all
  c->se.slice = 100000;
  f.k.test_enqueue(c, 0);
  struct cfs_rq *cfs = &f.k.cpu_rq(0)->cfs;
  ASSERT_LT(static_cast<s64>(c->se.deadline - b->se.deadline), 0);
  EXPECT_FALSE(f.k.entity_eligible(cfs, &c->se));
  EXPECT_TRUE(f.k.entity_eligible(cfs, &b->se));
  EXPECT_EQ(f.k.pick_eevdf(cfs), &b->se);
}

TEST(Eevdf, EqualDeadlinesGoToTheEarlierEnqueued) {
  KernelFixture f;
  task_struct *a = f.task("a"), *b = f.task("b");
  f.k.test_enqueue(a, 0);
  f.k.test_enqueue(b, 0);
  ASSERT_EQ(a->se.deadline, b->se.deadline);
  EXPECT_EQ(f.k.pick_eevdf(&f.k.cpu_rq(0)->cfs), &a->se);
}

TEST(Eevdf, PlacementPreservesLag) {
  KernelFixture f;
  for (int i = 0; i < 3; i++) f.k.test_enqueue(f.task("q"), 0);
  struct cfs_rq *cfs = &f.k.cpu_rq(0)->cfs;
  for (s64 lag : {s64{700000}, s64{-300000}}) {
    task_struct *p = f.task("p");
    p->se.vlag = lag;
    f.k.test_enqueue(p, 0);
    const s64 after = static_cast<s64>(f.k.avg_vruntime(cfs) - p->se.vruntime);
    EXPECT_NEAR(static_cast<double>(after), static_cast<double>(lag), 2.0) << "lag " << lag;
  }
}

TEST(Eevdf, NewTaskGetsHalfASliceOfDeadline) {
  KernelFixture f;
  f.hog(0);
  task_struct *p = f.task("child");
  f.k.wake_up_new_task(p, 0);
  const u64 half = f.k.sysctl_sched_base_slice() / 2;
  EXPECT_EQ(p->se.deadline - p->se.vruntime, half);
}

TEST(Eevdf, NiceChangesTheVirtualClockRate) {
  KernelFixture f;
  task_struct *a = f.task("nice5", 5);
  EXPECT_EQ(a->se.weight, 335u);
  // 1 ms of a nice-5 task is 1024/335 ms of virtual time, as the kernel's fixed point rounds it.
  EXPECT_NEAR(static_cast<double>(f.k.calc_delta_fair(1000000, &a->se)), 1000000.0 * 1024 / 335,
              2.0);
  EXPECT_EQ(f.k.calc_delta_fair(12345, &f.task("n0")->se), 12345u);
}

// Two CPU hogs on one CPU: the tick lets the current one finish its slice (2.8 ms on 8 CPUs,
// so 3 ticks at HZ=1000), then switches.
TEST(Eevdf, TickPreemptsAtTheEndOfTheSlice) {
  KernelFixture f;
  task_struct *a = f.task("a"), *b = f.task("b");
  CpuMask only0(8);
  only0.set(0);  // pinned, so that idle balancing does not spread them
  a->cpus_mask = b->cpus_mask = only0;
  a->nr_cpus_allowed = b->nr_cpus_allowed = 1;
  f.k.test_run(a, 0);
  f.k.test_enqueue(b, 0);
  struct rq *rq = f.k.cpu_rq(0);
  for (int ms = 1; ms <= 3; ms++) {
    f.k.set_clock(static_cast<Time>(ms) * 1000000);
    f.k.handle_event(EV_TICK, 0);
    f.k.run_preempt_points();
    if (ms < 3)
      EXPECT_EQ(rq->curr, a) << "tick " << ms;
    else
      EXPECT_EQ(rq->curr, b) << "tick " << ms;
  }
}

// A sleeper that still owes service stays queued (DELAY_DEQUEUE) until it is picked.
TEST(Eevdf, IneligibleSleeperIsDelayedNotDequeued) {
  KernelFixture f;
  task_struct *a = f.task("a"), *b = f.task("b");
  f.k.test_run(a, 0);
  f.k.test_enqueue(b, 0);
  f.k.set_clock(2000000);  // a ran 2 ms: ahead of V, not eligible
  a->__state = TASK_INTERRUPTIBLE;
  f.k.block_current(0);
  struct rq *rq = f.k.cpu_rq(0);
  EXPECT_EQ(rq->curr, b);
  EXPECT_TRUE(a->se.sched_delayed);
  EXPECT_EQ(a->on_rq, TASK_ON_RQ_QUEUED);
  EXPECT_EQ(rq->nr_running, 2u);
  EXPECT_EQ(rq->cfs.h_nr_runnable, 1u);
  // Woken before it was picked: it wakes in place without going through select_task_rq.
  f.k.try_to_wake_up(a, 0, 3);
  EXPECT_FALSE(a->se.sched_delayed);
  EXPECT_EQ(a->cpu, 0);
  EXPECT_EQ(rq->cfs.h_nr_runnable, 2u);
}

TEST(Eevdf, EligibleSleeperLeavesTheQueue) {
  KernelFixture f;
  task_struct *a = f.task("a"), *b = f.task("b");
  f.k.test_run(a, 0);
  f.k.test_enqueue(b, 0);
  a->__state = TASK_INTERRUPTIBLE;  // blocks at once: lag 0, eligible
  f.k.block_current(0);
  EXPECT_FALSE(a->se.sched_delayed);
  EXPECT_EQ(a->on_rq, 0);
  EXPECT_EQ(f.k.cpu_rq(0)->nr_running, 1u);
}

// A waking task with an earlier deadline preempts a task that has used up its protection.
TEST(Eevdf, WakeupPreemptsWhenTheWakeeIsPicked) {
  KernelFixture f;
  task_struct *a = f.task("a");
  f.k.test_run(a, 0);
  f.k.set_clock(10000000);  // a ran 10 ms
  f.k.handle_event(EV_TICK, 0);
  task_struct *b = f.k.create_task("b", 0, SCHED_NORMAL, [] {
    CpuMask m(8);
    m.set(0);  // pinned, so that it wakes here and not on an idle CPU
    return m;
  }());
  b->__state = TASK_INTERRUPTIBLE;
  b->se.vlag = 1000000;  // owed 1 ms: its deadline is earlier than a's
  f.k.try_to_wake_up(b, 0, 0);
  EXPECT_TRUE(a->need_resched);
  f.k.run_preempt_points();
  EXPECT_EQ(f.k.cpu_rq(0)->curr, b);
}

// A normal task waking onto a CPU that runs a SCHED_IDLE task preempts it at once, even in the
// protected start of its slice: check_preempt_wakeup_fair() cancels curr's protection before
// it reschedules (fair.c, cancel_protect_slice()). On 6.12-6.16 the protection is the deadline
// stashed in vlag at pick, and cancelling sets vlag to deadline + 1; on 6.17+ it is vprot. Had
// the stash survived, the pick after the reschedule would keep the SCHED_IDLE task.
TEST(Eevdf, ANormalWakeePreemptsASchedIdleTaskInItsProtectedSlice) {
  for (const bool v612 : {true, false}) {
    KernelConfig cfg;
    if (v612) cfg.version = KernelVersion::V6_12;
    KernelFixture f(KernelFixture::default_spec(), cfg);
    CpuMask only0(8);
    only0.set(0);  // pinned, so that the wakee comes here and not to an idle CPU
    task_struct *idle = f.k.create_task("background", 0, SCHED_IDLE, only0);
    f.k.test_run(idle, 0);
    ASSERT_TRUE(v612 ? idle->se.vlag == static_cast<s64>(idle->se.deadline)
                     : static_cast<s64>(idle->se.vprot - idle->se.vruntime) > 0);
    task_struct *b = f.k.create_task("b", 0, SCHED_NORMAL, only0);
    b->__state = TASK_INTERRUPTIBLE;
    f.k.try_to_wake_up(b, 0, 0);
    EXPECT_TRUE(idle->need_resched) << (v612 ? "6.12" : "6.18");
    f.k.run_preempt_points();
    EXPECT_EQ(f.k.cpu_rq(0)->curr, b) << (v612 ? "6.12" : "6.18");
  }
}

// The lag a dequeued entity keeps is clamped. 6.12.y: to twice its slice (at least a tick);
// 6.18.y ("sched/fair: Fix lag clamp", 6.18.17): to the queue's longest slice plus a tick
// (cfs_rq_max_slice(), from the tree's max_slice). a runs 20 ms while b waits, so it is 10 ms
// ahead of V; the slice is 2.8 ms (0.7 ms scaled for 8 CPUs), the tick 1 ms.
TEST(Eevdf, TheLagClampFollowsTheKernelVersion) {
  for (const bool v612 : {true, false}) {
    KernelConfig cfg;
    if (v612) cfg.version = KernelVersion::V6_12;
    cfg.features.on[__SCHED_FEAT_DELAY_DEQUEUE] = false;  // dequeued at once, lag and all
    KernelFixture f(KernelFixture::default_spec(), cfg);
    task_struct *a = f.task("a"), *b = f.task("b");
    f.k.test_run(a, 0);
    f.k.test_enqueue(b, 0);
    ASSERT_EQ(f.k.sysctl_sched_base_slice(), 2800000u);
    f.k.set_clock(20000000);
    a->__state = TASK_INTERRUPTIBLE;
    f.k.block_current(0);
    EXPECT_EQ(a->se.vlag, v612 ? -5600000 : -3800000) << (v612 ? "6.12" : "6.18");
  }
}

// 6.18.33+ check_preempt_wakeup_fair(): a forked task does not preempt (exec often follows
// fork, so little data is shared), unless a shorter slice overrides curr's protection. 6.12.y
// lets it preempt whenever the pick would take it. a has run 10 ms alone on CPU 0 (its
// protection long over); the child, placed at V with half a slice, has the earlier deadline.
TEST(Eevdf, OnlyOlderKernelsLetAForkedTaskPreempt) {
  for (const bool v612 : {true, false}) {
    KernelConfig cfg;
    if (v612) cfg.version = KernelVersion::V6_12;
    KernelFixture f(KernelFixture::default_spec(), cfg);
    CpuMask only0(8);
    only0.set(0);
    task_struct *a = f.k.create_task("a", 0, SCHED_NORMAL, only0);
    f.k.test_run(a, 0);
    f.k.set_clock(10000000);
    f.k.handle_event(EV_TICK, 0);
    ASSERT_FALSE(a->need_resched);
    task_struct *child = f.k.create_task("child", 0, SCHED_NORMAL, only0);
    f.k.wake_up_new_task(child, 0);
    ASSERT_EQ(child->cpu, 0);
    EXPECT_EQ(a->need_resched, v612) << (v612 ? "6.12" : "6.18");
  }
}

// 6.17+ wakeup preemption of a task in its protected slice, with the feature switches: a
// wakee with a 0.1 ms slice wakes 1 ms into a's run (a's first deadline is 1.4 ms away, half
// the 2.8 ms base slice). PREEMPT_SHORT lets the shorter slice through the protection; without
// it RUN_TO_PARITY protects a up to its deadline, and with neither only the normalised base
// slice (0.7 ms) is protected, which has run out.
TEST(Eevdf, ShortSliceWakeupAgainstTheProtectedSlice) {
  struct Case {
    bool preempt_short, run_to_parity, preempts;
  };
  for (const Case c : {Case{true, true, true}, Case{false, true, false}, Case{false, false, true},
                       Case{true, false, true}}) {
    KernelConfig cfg;
    cfg.features.on[__SCHED_FEAT_PREEMPT_SHORT] = c.preempt_short;
    cfg.features.on[__SCHED_FEAT_RUN_TO_PARITY] = c.run_to_parity;
    KernelFixture f(KernelFixture::default_spec(), cfg);
    ASSERT_EQ(f.k.sysctl_sched_base_slice(), 2800000u);
    task_struct *a = f.task("a");
    f.k.test_run(a, 0);
    f.k.set_clock(1000000);
    task_struct *b = f.k.create_task("b", 0, SCHED_NORMAL, [] {
      CpuMask m(8);
      m.set(0);
      return m;
    }());
    b->__state = TASK_INTERRUPTIBLE;
    b->se.custom_slice = true;
    b->se.slice = 100000;
    f.k.try_to_wake_up(b, 0, 0);
    EXPECT_EQ(a->need_resched, c.preempts)
        << "PREEMPT_SHORT " << c.preempt_short << " RUN_TO_PARITY " << c.run_to_parity;
  }
}

// DELAY_ZERO: a delayed sleeper that is woken before it is picked keeps a negative lag (it
// still owes service), but one whose lag turned positive meanwhile is placed afresh at V,
// with no credit. a sleeps 2 ms ahead of V (delayed), then b runs 5 ms, so a is owed.
TEST(Eevdf, DelayZeroDropsTheCreditOfADelayedSleeper) {
  for (bool delay_zero : {false, true}) {
    KernelConfig cfg;
    cfg.features.on[__SCHED_FEAT_DELAY_ZERO] = delay_zero;
    KernelFixture f(KernelFixture::default_spec(), cfg);
    task_struct *a = f.task("a"), *b = f.task("b");
    f.k.test_run(a, 0);
    f.k.test_enqueue(b, 0);
    f.k.set_clock(2000000);
    a->__state = TASK_INTERRUPTIBLE;
    f.k.block_current(0);
    ASSERT_TRUE(a->se.sched_delayed);
    f.k.set_clock(7000000);
    struct cfs_rq *cfs = &f.k.cpu_rq(0)->cfs;
    f.k.update_curr(cfs);
    const u64 v = f.k.avg_vruntime(cfs);
    ASSERT_LT(static_cast<s64>(a->se.vruntime - v), 0);  // owed service now
    const u64 before = a->se.vruntime;
    f.k.try_to_wake_up(a, 0, 3);
    EXPECT_FALSE(a->se.sched_delayed);
    // Re-placed at V of the queue without a: b's vruntime, b being all that is left.
    if (delay_zero)
      EXPECT_EQ(a->se.vruntime, b->se.vruntime);
    else
      EXPECT_EQ(a->se.vruntime, before);
  }
}
