// SPDX-License-Identifier: GPL-2.0-only
// Load balancing in hand-built states (8 CPUs, 4 cores x 2 threads; CPU n and n + 4 are
// siblings; the LLC is the root domain).
#include <gtest/gtest.h>

#include "kernel_fixture.h"

using namespace schedlab;
using namespace schedlab::kernel;
using schedlab::testing::KernelFixture;

namespace {

sched_domain *mc(KernelFixture &f, int cpu) {
  return f.k.cpu_rq(cpu)->sd->parent;
}

// The periodic balance of an idle cpu's MC domain.
int idle_balance_mc(KernelFixture &f, int cpu) {
  bool cont = true;
  return f.k.sched_balance_rq(cpu, f.k.cpu_rq(cpu), mc(f, cpu), Kernel::CPU_IDLE, &cont);
}

// n balances of CPU 1's MC domain in a row that move nothing and kick no stopper on CPU 0,
// each a counted failure.
void balance_fails(KernelFixture &f, unsigned n) {
  for (unsigned i = 1; i <= n; i++) {
    EXPECT_EQ(idle_balance_mc(f, 1), 0);
    EXPECT_EQ(mc(f, 1)->nr_balance_failed, i);
    EXPECT_FALSE(f.k.cpu_rq(0)->active_balance);
  }
}

// p may run on cpu only.
void pin(task_struct *p, int cpu) {
  CpuMask only(8);
  only.set(cpu);
  p->cpus_mask = only;
  p->nr_cpus_allowed = 1;
}

// At 10.5 ms CPU 0 runs r, and q, which ran ahead of r before it slept, stays queued for its
// negative lag (DELAY_DEQUEUE): two tasks queued on CPU 0, one of them runnable.
struct DelayedSleeper {
  task_struct *q, *r;
};
DelayedSleeper delayed_sleeper_on_cpu0(KernelFixture &f) {
  f.k.set_clock(10 * NSEC_PER_MSEC);
  task_struct *q = f.hog(0);
  task_struct *r = f.task("r");
  f.k.test_enqueue(r, 0);  // placed at the queue's average, q running
  f.k.set_clock(10 * NSEC_PER_MSEC + NSEC_PER_MSEC / 2);
  q->__state = TASK_INTERRUPTIBLE;
  f.k.block_current(0);  // q ran ahead of r: negative lag, so it stays queued as delayed
  return {q, r};
}

// Three tasks on CPU 0 (one running, two queued); everything else idle. The clock is at 10 ms
// and the queued tasks last ran long ago, so they are cache cold.
struct Overloaded : ::testing::Test {
  KernelFixture f;
  task_struct *run0 = nullptr, *q1 = nullptr, *q2 = nullptr;
  void SetUp() override {
    run0 = f.hog(0);
    q1 = f.task("q1");
    q2 = f.task("q2");
    f.k.test_enqueue(q1, 0);
    f.k.test_enqueue(q2, 0);
    f.k.set_clock(10000000);
  }
  int balance(int cpu, Kernel::cpu_idle_type idle = Kernel::CPU_IDLE) {
    bool cont = true;
    return f.k.sched_balance_rq(cpu, f.k.cpu_rq(cpu), mc(f, cpu), idle, &cont);
  }
};

}  // namespace

TEST_F(Overloaded, PeriodicBalanceMovesATaskToAnIdleCore) {
  ASSERT_EQ(f.k.cpu_rq(0)->nr_running, 3u);
  EXPECT_EQ(balance(1), 1);
  EXPECT_EQ(f.k.cpu_rq(0)->nr_running, 2u);
  EXPECT_EQ(f.k.cpu_rq(1)->nr_running, 1u);
  // detach_tasks() starts from the tail of cfs_tasks, the least recently queued: q1.
  EXPECT_EQ(q1->cpu, 1);
  EXPECT_EQ(q2->cpu, 0);
  EXPECT_EQ(run0->cpu, 0);  // the running task is never pulled by regular balancing
}

TEST_F(Overloaded, OnlyTheFirstIdleCpuOfTheGroupBalances) {
  // CPU 5 is the sibling of 1 in the local core {1,5}; CPU 1 comes first.
  EXPECT_EQ(balance(5), 0);
  EXPECT_EQ(f.k.cpu_rq(0)->nr_running, 3u);
}

TEST_F(Overloaded, CacheHotTasksStayUntilBalancingHasFailedEnough) {
  // Both queued tasks ran 100 us ago: hot for migration_cost = 0.5 ms.
  q1->se.exec_start = q2->se.exec_start = 10000000 - 100000;
  sched_domain *sd = mc(f, 1);
  ASSERT_EQ(sd->cache_nice_tries, 1u);
  EXPECT_EQ(balance(1), 0);
  EXPECT_EQ(sd->nr_balance_failed, 1u);
  EXPECT_EQ(balance(1), 0);
  EXPECT_EQ(sd->nr_balance_failed, 2u);
  EXPECT_EQ(balance(1), 1);  // nr_balance_failed > cache_nice_tries: hot no longer protects
  EXPECT_EQ(sd->nr_balance_failed, 0u);
}

TEST_F(Overloaded, AffinityIsRespected) {
  CpuMask only0(8);
  only0.set(0);
  q1->cpus_mask = q2->cpus_mask = only0;
  q1->nr_cpus_allowed = q2->nr_cpus_allowed = 1;
  EXPECT_EQ(balance(1), 0);
  EXPECT_EQ(q1->cpu, 0);
  EXPECT_EQ(q2->cpu, 0);
  EXPECT_EQ(mc(f, 1)->nr_balance_failed, 1u);  // the running task could have moved: a failure
}

TEST_F(Overloaded, WhenEverythingIsPinnedBalancingBacksOff) {
  CpuMask only0(8);
  only0.set(0);
  for (task_struct *p : {run0, q1, q2}) p->cpus_mask = only0, p->nr_cpus_allowed = 1;
  const unsigned long before = mc(f, 1)->balance_interval;
  EXPECT_EQ(balance(1), 0);
  EXPECT_EQ(f.k.cpu_rq(0)->nr_running, 3u);
  EXPECT_EQ(mc(f, 1)->balance_interval, 2 * before);
}

TEST_F(Overloaded, ACookieMismatchIsCacheHotAboveTheSmtLevel) {
  f.cookie(q1);
  f.cookie(q2, q1);
  task_struct *other = f.task("other");
  f.cookie(other);
  f.k.test_run(other, 5);  // core {1,5} runs another cookie
  EXPECT_TRUE(f.k.task_hot(q1, mc(f, 1), 1, 0));
  EXPECT_EQ(balance(1), 0);
  // At the SMT level siblings share caches: the cookie is not checked there.
  EXPECT_FALSE(f.k.task_hot(q1, f.k.cpu_rq(4)->sd, 4, 0));
}

// ---------------------------------------------------------------------------------------------
// avg_idle and newidle balance

namespace {
// CPU 1 runs a task that then sleeps: CPU 1 goes idle through newidle balance (idle_stamp set).
// Then periodic balance pulls a task onto it and it runs.
Time idle_then_pulled(KernelFixture &f, u64 *avg_idle_before, u64 *avg_idle_after) {
  task_struct *s = f.task("sleeper");
  f.k.test_run(s, 1);
  f.k.set_clock(5000000);
  s->__state = TASK_INTERRUPTIBLE;
  f.k.block_current(1);
  struct rq *rq1 = f.k.cpu_rq(1);
  EXPECT_EQ(rq1->idle_stamp, 5000000u);
  *avg_idle_before = rq1->avg_idle;
  f.hog(0);
  f.k.test_enqueue(f.task("q1"), 0);
  f.k.test_enqueue(f.task("q2"), 0);
  f.k.set_clock(5300000);  // idle for 300 us, then a task is migrated in
  bool cont = true;
  EXPECT_EQ(f.k.sched_balance_rq(1, rq1, rq1->sd->parent, Kernel::CPU_IDLE, &cont), 1);
  f.settle(5300000 + 10000);  // CPU 1 acts on the reschedule IPI and runs the pulled task
  EXPECT_FALSE(rq1->curr->is_idle_task);
  *avg_idle_after = rq1->avg_idle;
  return rq1->idle_stamp;
}
}  // namespace

TEST(AvgIdle, OnlyAWakeupUpdatesItWithoutThePatch) {
  KernelFixture f;
  u64 before, after;
  const Time stamp = idle_then_pulled(f, &before, &after);
  EXPECT_EQ(after, before);    // a balance pull is not a wakeup: no sample
  EXPECT_EQ(stamp, 5000000u);  // and the stale stamp stays for the next wakeup
}

TEST(AvgIdle, ThePatchSamplesEveryExitFromIdle) {
  KernelConfig cfg;
  cfg.features.on[__SCHED_FEAT_AVG_IDLE_ON_IDLE_EXIT] = true;
  KernelFixture f(KernelFixture::default_spec(), cfg);
  u64 before, after;
  const Time stamp = idle_then_pulled(f, &before, &after);
  EXPECT_EQ(stamp, 0u);
  // avg += (sample - avg) / 8; the idle period is 300 us plus the 2 us reschedule IPI
  EXPECT_EQ(after, before - (before - 302000) / 8);
}

TEST(AvgIdle, WithoutAStampThePatchSaturatesAndTheFollowUpSkips) {
  for (bool guard : {false, true}) {
    KernelConfig cfg;
    cfg.features.on[__SCHED_FEAT_AVG_IDLE_ON_IDLE_EXIT] = true;
    cfg.features.on[__SCHED_FEAT_AVG_IDLE_STAMP_GUARD] = guard;
    KernelFixture f(KernelFixture::default_spec(), cfg);
    f.k.set_clock(50000000);
    struct rq *rq2 = f.k.cpu_rq(2);
    ASSERT_EQ(rq2->idle_stamp, 0u);  // idle since boot: newidle never ran here
    const u64 before = rq2->avg_idle;
    f.k.test_run(f.task("t"), 2);
    if (guard)
      EXPECT_EQ(rq2->avg_idle, before);
    else
      EXPECT_EQ(rq2->avg_idle, 2 * rq2->max_idle_balance_cost);  // a 50 ms "idle period"
  }
}

TEST(NewidleBalance, SkippedWhenTheCpuExpectsAShortIdle) {
  KernelConfig cfg;
  cfg.features.on[__SCHED_FEAT_NI_RANDOM] = false;  // every domain that passes the gate
  KernelFixture f(KernelFixture::default_spec(), cfg);
  f.hog(0);
  f.k.test_enqueue(f.task("q1"), 0);
  f.k.test_enqueue(f.task("q2"), 0);
  f.k.set_clock(10000000);
  ASSERT_TRUE(f.k.rd_overloaded());
  struct rq *rq1 = f.k.cpu_rq(1);
  rq1->sd->max_newidle_lb_cost = 20000;
  rq1->avg_idle = 5000;  // expects 5 us of idle, balancing costs 20 us
  EXPECT_EQ(f.k.sched_balance_newidle(rq1), 0);
  EXPECT_EQ(rq1->newidle_skipped_avg_idle, 1u);
  EXPECT_EQ(rq1->nr_running, 0u);
  rq1->avg_idle = 1000000;
  EXPECT_EQ(f.k.sched_balance_newidle(rq1), 1);
  EXPECT_EQ(rq1->nr_running, 1u);
  EXPECT_GT(rq1->newidle_cost_ns, 0u);
  EXPECT_GT(rq1->sd->max_newidle_lb_cost, 0u);
}

// A periodic balance that finds nothing to pull still sets SIS_UTIL's scan depth at the LLC
// level, from the LLC's utilisation; the SMT level below leaves it alone.
TEST(PeriodicBalance, NothingToPullStillSetsTheLlcScanDepth) {
  KernelFixture f;
  f.k.set_clock(10 * NSEC_PER_MSEC);
  sched_domain_shared *llc = f.k.sd_llc_shared(1);
  llc->nr_idle_scan = 0;
  bool cont = true;
  EXPECT_EQ(f.k.sched_balance_rq(1, f.k.cpu_rq(1), f.k.cpu_rq(1)->sd, Kernel::CPU_IDLE, &cont), 0);
  EXPECT_EQ(llc->nr_idle_scan, 0);  // the SMT level is not the LLC
  EXPECT_EQ(idle_balance_mc(f, 1), 0);
  EXPECT_EQ(llc->nr_idle_scan, 8);  // an idle LLC: scan all of it
}

// NI_RANDOM: a domain whose newidle balancing never pulls is tried less and less often.
TEST(NewidleBalance, NiRandomBacksOffFromAFruitlessDomain) {
  u64 attempts[2];
  for (bool ni_random : {false, true}) {
    KernelConfig cfg;
    cfg.features.on[__SCHED_FEAT_NI_RANDOM] = ni_random;
    KernelFixture f(KernelFixture::default_spec(), cfg);
    f.k.seed_random(1);
    task_struct *a = f.task("a"), *b = f.task("b");
    f.k.test_run(a, 0);
    f.k.test_enqueue(b, 0);  // overloaded, but b just ran (the clock stays at 0): cache hot
    struct rq *rq1 = f.k.cpu_rq(1);
    for (int i = 0; i < 4000; i++) {
      rq1->avg_idle = 1000000;
      f.k.sched_balance_newidle(rq1);
    }
    attempts[ni_random] = rq1->lb_count;
  }
  EXPECT_EQ(attempts[0], 2u * 4000);  // SMT and MC, every time
  EXPECT_LT(attempts[1], attempts[0] / 4);
}

// update_newidle_cost() keeps a domain's success statistics whenever a balance had a cost,
// whether or not NI_RANDOM reads them: with it off, 1024 fruitless newidle balances of a domain
// bring its success ratio (which starts at 512/1024) down to nothing, so a later switch to
// NI_RANDOM starts from what happened.
TEST(NewidleBalance, TheSuccessRatioIsKeptWithNiRandomOff) {
  KernelConfig cfg;
  EXPECT_TRUE(cfg.features.on[__SCHED_FEAT_NI_RANDOM]);  // on in 6.12.y and 6.18.y
  cfg.features.on[__SCHED_FEAT_NI_RANDOM] = false;
  KernelFixture f(KernelFixture::default_spec(), cfg);
  task_struct *a = f.task("a"), *b = f.task("b");
  f.k.test_run(a, 0);
  f.k.test_enqueue(b, 0);  // overloaded, but b just ran: cache hot, nothing moves
  struct rq *rq1 = f.k.cpu_rq(1);
  sched_domain *smt = rq1->sd;
  ASSERT_EQ(smt->newidle_ratio, 512u);
  for (int i = 0; i < 1024; i++) {
    rq1->avg_idle = 1000000;
    f.k.sched_balance_newidle(rq1);
  }
  EXPECT_EQ(rq1->lb_count, 2u * 1024);  // every domain, every time
  EXPECT_LT(smt->newidle_ratio, 512u);
  EXPECT_LT(smt->newidle_success, 256u);
}

// dequeue_entities(): a dequeue that leaves a CPU with only SCHED_IDLE tasks sets its
// next_balance to now, so that the next tick balances and pulls more important work.
TEST(PeriodicBalance, ACpuLeftWithOnlySchedIdleTasksBalancesAtTheNextTick) {
  KernelFixture f;
  f.k.set_clock(10 * NSEC_PER_MSEC);
  task_struct *n = f.hog(0);
  f.k.test_enqueue(f.k.create_task("background", 0, SCHED_IDLE, f.topo.all()), 0);
  struct rq *rq0 = f.k.cpu_rq(0);
  rq0->next_balance = 100;
  n->__state = TASK_INTERRUPTIBLE;  // blocks at once: lag 0, eligible, so really dequeued
  f.k.block_current(0);
  ASSERT_FALSE(n->on_rq);
  EXPECT_EQ(rq0->next_balance, 10u);
}

// Active balance: when regular balancing keeps failing (here only the running task could go),
// the stopper on the busiest CPU preempts it and pushes it to the idle CPU.
TEST(ActiveBalance, TheStopperPushesTheRunningTask) {
  KernelFixture f;
  task_struct *r = f.hog(0);
  task_struct *q = f.task("pinned");
  pin(q, 0);
  f.k.test_enqueue(q, 0);
  f.k.set_clock(10000000);
  sched_domain *sd = mc(f, 1);
  balance_fails(f, 3);
  idle_balance_mc(f, 1);  // 4 > cache_nice_tries + 2
  EXPECT_TRUE(f.k.cpu_rq(0)->active_balance);
  // Kicking the stopper leaves the failure count alone (since 5.10); its push resets it.
  EXPECT_EQ(sd->nr_balance_failed, 4u);
  EXPECT_EQ(sd->balance_interval, sd->min_interval);
  // The stopper's IPI, then both CPUs reschedule. Ticks are dropped: their idle balancing
  // would act on the same state and muddle what this test looks at.
  while (!f.events.empty() && f.events.next_time() <= 10010000) {
    const auto ev = f.events.pop();
    if (ev.kind == EV_TICK) continue;
    f.k.set_clock(ev.time);
    f.k.handle_event(ev.kind, ev.arg);
    f.k.run_preempt_points();
  }
  EXPECT_EQ(r->cpu, 1);
  EXPECT_EQ(f.k.cpu_rq(1)->curr, r);
  EXPECT_EQ(f.k.cpu_rq(0)->curr, q);
  EXPECT_EQ(f.k.cpu_rq(0)->lb_active, 1u);
  EXPECT_EQ(sd->nr_balance_failed, 0u);
}

// Two hogs on the siblings of core {0,4}, cores 1-3 idle. Regular balancing cannot detach a
// lone running task, so CPU 1's MC balance fails (group_smt_balance, migrate_task) until
// imbalanced_active_balance() kicks the stopper on CPU 0. The kernel queues the stopper as a
// task (stop_task.c: enqueue_task_stop() -> add_nr_running()), so in
// active_load_balance_cpu_stop() "nr_running <= 1" means "only the stopper": here CPU 0 has
// the stopper and the preempted hog, and detach_one_task() moves the hog. The two hogs end up
// on two cores, as on a real SMT machine.
TEST(ActiveBalance, TwoHogsOnOneCoreAreSpreadByTheStopper) {
  KernelFixture f;
  task_struct *a = f.hog(0), *b = f.hog(4);
  f.k.set_clock(10000000);
  sched_domain *sd = mc(f, 1);
  balance_fails(f, 3);
  EXPECT_EQ(idle_balance_mc(f, 1), 0);  // 4 > cache_nice_tries + 2
  ASSERT_TRUE(f.k.cpu_rq(0)->active_balance);
  f.k.active_load_balance_cpu_stop(f.k.cpu_rq(0));
  f.k.run_preempt_points();
  EXPECT_EQ(a->cpu, 1);
  EXPECT_EQ(b->cpu, 4);
  EXPECT_EQ(f.k.cpu_rq(1)->nr_running, 1u);  // it runs there once CPU 1 takes the IPI
  EXPECT_EQ(f.k.cpu_rq(0)->nr_running, 0u);
  EXPECT_TRUE(f.k.cpu_rq(0)->curr->is_idle_task);
  EXPECT_EQ(f.k.cpu_rq(0)->lb_active, 1u);
  EXPECT_EQ(sd->nr_balance_failed, 0u);
}

// The same spread from the whole machine's timers: the idle CPUs' periodic (NOHZ) balancing
// separates the hogs within a few balance intervals, and they stay apart.
TEST(ActiveBalance, TwoHogsOnOneCoreDoNotShareItForLong) {
  KernelFixture f;
  task_struct *a = f.hog(0), *b = f.hog(4);
  f.settle(200 * NSEC_PER_MSEC);
  EXPECT_NE(f.k.cpu_smt_cpus(a->cpu)[0], f.k.cpu_smt_cpus(b->cpu)[0]);
  u64 pushes = 0;
  for (int cpu = 0; cpu < 8; cpu++) pushes += f.k.cpu_rq(cpu)->lb_active;
  EXPECT_GE(pushes, 1u);
}

// The stopper does not check that the CPU it pushes to is still idle: balancing asked for the
// push, and by the time the stopper runs a task may have woken there. The push goes ahead.
TEST(ActiveBalance, TheStopperPushesEvenIfTheTargetIsNoLongerIdle) {
  KernelFixture f;
  task_struct *a = f.hog(0);
  task_struct *b = f.task("b");
  f.k.test_enqueue(b, 0);
  f.k.set_clock(10000000);
  f.hog(1);  // the target is busy by now
  struct rq *rq0 = f.k.cpu_rq(0);
  rq0->active_balance = true;
  rq0->push_cpu = 1;
  rq0->active_balance_sd = mc(f, 1);
  f.k.active_load_balance_cpu_stop(rq0);
  f.k.run_preempt_points();
  EXPECT_EQ(rq0->lb_active, 1u);
  EXPECT_EQ(f.k.cpu_rq(1)->nr_running, 2u);
  EXPECT_EQ(rq0->nr_running, 1u);
  EXPECT_EQ(a->cpu + b->cpu, 1);  // one of them moved (the least recently run)
}

// detach_tasks() takes a batch off the busiest CPU and attach_tasks() queues it on the
// destination only after detach_tasks() returns (fair.c: list_add() to env->tasks, then
// attach_tasks() pops the list from its head). So every can_migrate_task() of the batch sees
// the destination as it was: here an idle core, which matches any cookie (task_hot()'s
// sched_core_cookie_match()). CPU 0 runs x0 and has x1-x5 queued, all of one cookie and cache
// cold, and has been busy (an overloaded group); CPU 1 balances the MC domain for its idle
// core, where the imbalance is half of the six tasks (calculate_imbalance(), SD_PREFER_SIBLING),
// and pulls all three in one batch. Attached one by one, the second task would have met a core
// that is no longer idle and runs no cookie, and stayed (cache hot by the cookie test).
TEST(DetachTasks, ABatchWithACookieMovesTheWholeImbalance) {
  KernelFixture f;
  task_struct *x[6];
  for (int i = 0; i < 6; i++) {
    x[i] = f.task("x");
    f.cookie(x[i], i ? x[0] : nullptr);
  }
  f.k.test_run(x[0], 0);
  for (int i = 1; i < 6; i++) f.k.test_enqueue(x[i], 0);
  f.k.set_clock(10000000);
  sched_avg &avg = f.k.cpu_rq(0)->cfs.avg;
  avg.load_avg = avg.runnable_avg = 6 * 1024;
  avg.util_avg = 1024;
  EXPECT_EQ(idle_balance_mc(f, 1), 3);
  EXPECT_EQ(f.k.cpu_rq(1)->nr_running, 3u);
  EXPECT_EQ(f.k.cpu_rq(0)->nr_running, 3u);
  // attach_tasks() queued the last one detached first: the batch left cfs_tasks' tail (the
  // least recently run, x1 first) and arrives in reverse, each new arrival at the head.
  EXPECT_EQ(f.k.cpu_rq(1)->cfs_tasks.front(), x[1]);
}

// A domain found balanced starts counting failures again (out_balanced): old failures must not
// make a later, unrelated balance migrate cache-hot tasks or kick the stopper.
TEST(ActiveBalance, ABalancedDomainForgetsEarlierFailures) {
  KernelFixture f;
  f.k.set_clock(10000000);
  sched_domain *sd = mc(f, 1);
  sd->nr_balance_failed = 5;
  EXPECT_EQ(idle_balance_mc(f, 1), 0);
  EXPECT_EQ(sd->nr_balance_failed, 0u);
}

// Two lone tasks on the core {0,4}, the core {1,5} idle: the MC balance picks CPU 0, whose only
// task cannot be detached by regular balancing. When the stopper is due but that task may not
// run on CPU 1, no stopper is kicked (out_one_pinned): the interval backs off as far as an
// all-pinned domain may, and the failures are kept.
TEST(ActiveBalance, NoStopperForARunningTaskPinnedToItsCpu) {
  KernelFixture f;
  task_struct *r = f.hog(0);
  f.hog(4);
  pin(r, 0);
  f.k.set_clock(10000000);
  sched_domain *sd = mc(f, 1);
  balance_fails(f, 4);
  EXPECT_EQ(sd->balance_interval, 2 * sd->min_interval);
  // Pinned, the interval may grow past max_interval, up to 512 ms.
  sd->balance_interval = sd->max_interval;
  idle_balance_mc(f, 1);
  EXPECT_EQ(sd->balance_interval, 2 * sd->max_interval);
  EXPECT_EQ(sd->nr_balance_failed, 5u);
}

// Above the LLC an overloaded group is relieved by utilisation (migrate_util), and the CPU to
// pull from is the one with the most boosted utilisation: util_avg or runnable_avg, whichever is
// larger (cpu_util_cfs_boost()), so a CPU whose tasks wait more is picked before one whose tasks
// merely ran more. Two sockets of two CPUs; socket 0 has two tasks on each CPU, socket 1 is
// idle and CPU 2 balances the NUMA level.
TEST(FindSrcRq, MigrateUtilPullsFromTheCpuWithTheMostRunnableUtilisation) {
  TopologySpec spec;
  spec.sockets = 2;
  spec.cores_per_llc = 2;
  KernelFixture f(spec);
  task_struct *queued[2];
  for (int cpu : {0, 1}) {
    f.hog(cpu);
    queued[cpu] = f.task("q");
    f.k.test_enqueue(queued[cpu], cpu);
  }
  f.k.set_clock(10 * NSEC_PER_MSEC);
  // CPU 0: its tasks ran less but waited more.
  f.k.cpu_rq(0)->cfs.avg.util_avg = 900;
  f.k.cpu_rq(0)->cfs.avg.runnable_avg = 1000;
  f.k.cpu_rq(1)->cfs.avg.util_avg = 950;
  f.k.cpu_rq(1)->cfs.avg.runnable_avg = 950;
  sched_domain *numa = f.k.cpu_rq(2)->sd->parent;
  ASSERT_NE(numa, nullptr);
  ASSERT_TRUE(numa->flags & SD_NUMA);
  bool cont = true;
  EXPECT_EQ(f.k.sched_balance_rq(2, f.k.cpu_rq(2), numa, Kernel::CPU_IDLE, &cont), 1);
  EXPECT_EQ(queued[0]->cpu, 2);
  EXPECT_EQ(queued[1]->cpu, 1);
}

// sched_balance_domains() decays each level's max_newidle_lb_cost once a second, and pulls the
// run queue's max_idle_balance_cost (which caps avg_idle) down to the levels' sum only when the
// last level it visits decayed: need_decay is that level's result, not an "any level" flag.
TEST(NewidleCost, TheRunQueueFollowsOnlyWhenTheLastLevelDecays) {
  for (bool top_decays : {false, true}) {
    KernelFixture f;
    f.k.set_clock(5000000000);  // jiffy 5000
    struct rq *rq = f.k.cpu_rq(1);
    sched_domain *smt = rq->sd, *llc = smt->parent;
    ASSERT_EQ(llc->parent, nullptr);
    rq->max_idle_balance_cost = 10000000;  // raised by an expensive newidle balance
    smt->max_newidle_lb_cost = llc->max_newidle_lb_cost = 256000;
    // A level decays when its last decay is more than a second (HZ jiffies) old.
    smt->last_decay_max_lb_cost = top_decays ? 4500 : 0;
    llc->last_decay_max_lb_cost = top_decays ? 0 : 4500;
    f.k.sched_balance_domains(rq, Kernel::CPU_IDLE);
    EXPECT_EQ(smt->max_newidle_lb_cost, top_decays ? 256000u : 253000u);
    EXPECT_EQ(llc->max_newidle_lb_cost, top_decays ? 253000u : 256000u);
    // max(migration_cost, 256 us + 253 us) when the top level decayed; untouched otherwise.
    EXPECT_EQ(rq->max_idle_balance_cost, top_decays ? 509000u : 10000000u);
  }
}

// get_sd_balance_interval(): msecs_to_jiffies() rounds up, a busy CPU's interval is one jiffy
// shorter, and max_load_balance_interval (HZ * CPUs / 10) caps it.
TEST(BalanceInterval, MillisecondsToJiffiesRoundUp) {
  auto interval = [](int hz, unsigned long ms, bool busy) {
    KernelConfig cfg;
    cfg.tunables.v[TUNABLE_hz] = hz;
    KernelFixture f(KernelFixture::default_spec(), cfg);
    sched_domain sd = *f.k.cpu_rq(0)->sd->parent;  // MC: busy_factor 16
    sd.balance_interval = ms;
    return f.k.get_sd_balance_interval(&sd, busy);
  };
  EXPECT_EQ(interval(1000, 4, false), 4u);
  EXPECT_EQ(interval(1000, 4, true), 63u);    // 64 ms, less one jiffy
  EXPECT_EQ(interval(100, 16, false), 2u);    // 1.6 jiffies
  EXPECT_EQ(interval(100, 16, true), 25u);    // 25.6, rounded up to 26, less one
  EXPECT_EQ(interval(300, 4, false), 2u);     // 1.2
  EXPECT_EQ(interval(250, 1, false), 1u);     // a quarter jiffy is still one
  EXPECT_EQ(interval(100, 1000, true), 80u);  // 1600 jiffies, capped at 100 * 8 / 10
}

// _nohz_idle_balance() walks the idle CPUs from the balancer's next CPU round to the balancer
// itself, so the others get the first chance to pull. Core {0,4} runs two hogs and has a task
// queued on CPU 0 (never run: cache cold); the first tick kicks CPU 1, the first idle CPU, to
// balance for all. CPU 2 balances first and takes the task; had the balancer gone first, CPU 1
// would have it.
TEST(NohzIdleBalance, TheBalancerGoesLastSoTheNextIdleCpuPullsFirst) {
  KernelFixture f;
  f.k.set_clock(10 * NSEC_PER_MSEC);
  f.hog(0);
  f.hog(4);
  task_struct *q = f.task("queued");
  f.k.test_enqueue(q, 0);
  f.settle(12 * NSEC_PER_MSEC);
  EXPECT_EQ(q->cpu, 2);
  EXPECT_EQ(f.k.cpu_rq(2)->lb_moved, 1u);
  EXPECT_EQ(f.k.cpu_rq(1)->lb_moved, 0u);
}

// nohz.next_balance collates the idle CPUs' next balance times. A CPU going idle sets
// nohz.needs_update, and the next busy tick asks for a pass that only collates
// (NOHZ_NEXT_KICK), even though no balance is due: without it, the idle balancer would come
// too late for the newcomer.
TEST(NohzIdleBalance, ACpuGoingIdleIsCollatedAtTheNextBusyTickWithoutBalancing) {
  KernelFixture f;
  f.k.set_clock(10 * NSEC_PER_MSEC);
  f.hog(0);
  f.hog(1);
  f.settle(11 * NSEC_PER_MSEC);  // two busy CPUs in the LLC: a balancing pass
  const u64 collated = f.k.nohz_next_balance();
  ASSERT_GT(collated, 12u);
  f.k.set_clock(11 * NSEC_PER_MSEC + NSEC_PER_MSEC / 2);
  f.k.cpu_rq(1)->curr->__state = TASK_INTERRUPTIBLE;
  f.k.block_current(1);
  ASSERT_TRUE(f.k.idle_cpu(1));
  f.k.cpu_rq(1)->next_balance = 12;  // due at the next tick
  const u64 lb_before = f.k.cpu_rq(1)->lb_count;
  EXPECT_EQ(f.k.nohz_next_balance(), collated);
  f.settle(12 * NSEC_PER_MSEC);  // CPU 0's tick: one busy CPU, no balance due
  EXPECT_EQ(f.k.nohz_next_balance(), 12u);
  EXPECT_EQ(f.k.cpu_rq(1)->lb_count, lb_before);
}

// The NOHZ kick's "more than one busy CPU in the LLC" reads nr_busy_cpus, which the ticks keep:
// a CPU leaves the count when it goes idle and joins it again at its first busy tick, not when
// a task arrives. The machine starts idle.
TEST(NohzIdleBalance, TheLlcBusyCountFollowsTheTicks) {
  KernelFixture f;
  auto busy = [&] { return f.k.sd_llc_shared(0)->nr_busy_cpus; };
  EXPECT_EQ(busy(), 0);
  f.k.set_clock(10 * NSEC_PER_MSEC);
  f.hog(0);
  task_struct *h1 = f.hog(1);
  EXPECT_EQ(busy(), 0);  // no tick yet
  f.settle(11 * NSEC_PER_MSEC);
  EXPECT_EQ(busy(), 2);
  f.k.set_clock(11 * NSEC_PER_MSEC + NSEC_PER_MSEC / 2);
  h1->__state = TASK_INTERRUPTIBLE;
  f.k.block_current(1);
  EXPECT_EQ(busy(), 1);
  f.hog(1);
  EXPECT_EQ(busy(), 1);  // until CPU 1's next tick
  f.settle(12 * NSEC_PER_MSEC);
  EXPECT_EQ(busy(), 2);
}

// Blocked load. CPU 0 runs throughout; CPU 1 runs a task from 10 to 40.5 ms, then sleeps with
// load that only decays when something updates its averages. With one busy CPU there are no
// balance kicks, so the only updates are the NOHZ stats passes (every LOAD_AVG_PERIOD = 32
// jiffies while idle CPUs have blocked load) and what CPU 1 does itself.
struct BlockedLoad : ::testing::Test {
  KernelFixture f;
  task_struct *h0 = nullptr;
  struct rq *rq1 = nullptr;
  u64 stamp = 0;
  unsigned long load = 0;
  void SetUp() override {
    f.k.set_clock(10 * NSEC_PER_MSEC);
    h0 = f.hog(0);
    task_struct *p = f.hog(1);
    f.settle(40 * NSEC_PER_MSEC);
    f.k.set_clock(40 * NSEC_PER_MSEC + NSEC_PER_MSEC / 2);
    p->__state = TASK_INTERRUPTIBLE;
    f.k.block_current(1);
    rq1 = f.k.cpu_rq(1);
    ASSERT_TRUE(f.k.idle_cpu(1));
    ASSERT_TRUE(rq1->has_blocked_load);
    stamp = rq1->cfs.avg.last_update_time;
    load = rq1->cfs.avg.load_avg;
    ASSERT_GT(load, 0u);
  }
};

// Balancing reads an idle CPU's load as of its last update (the kernel's cpu_load()); the stats
// pass, 32 jiffies after the last one, decays it. The last was at jiffy 33..40 (two busy CPUs
// kick a balance pass, which is also a stats pass, whenever nohz.next_balance is due).
TEST_F(BlockedLoad, BalancingReadsItAsItIsAndTheStatsPassDecaysIt) {
  f.settle(64 * NSEC_PER_MSEC);
  EXPECT_EQ(rq1->cfs.avg.last_update_time, stamp);
  idle_balance_mc(f, 2);  // CPU 0 has a task: the statistics of every CPU are read
  EXPECT_EQ(rq1->cfs.avg.last_update_time, stamp);
  EXPECT_EQ(rq1->cfs.avg.load_avg, load);
  f.settle(74 * NSEC_PER_MSEC);
  EXPECT_GE(rq1->last_blocked_load_update_tick, 65u);
  EXPECT_LE(rq1->last_blocked_load_update_tick, 73u);
  EXPECT_GT(rq1->cfs.avg.last_update_time, stamp);
  EXPECT_LT(rq1->cfs.avg.load_avg, load);
  EXPECT_TRUE(rq1->has_blocked_load);  // not decayed to nothing yet
}

// nohz_newidle_balance(): a CPU going idle for a while (avg_idle above migration_cost) when
// the stats are due asks do_idle() for a stats pass, a jiffy before a busy tick would.
TEST_F(BlockedLoad, ACpuGoingIdleRunsTheStatsPassWhenItIsDue) {
  f.settle(74 * NSEC_PER_MSEC);
  const u64 j = rq1->last_blocked_load_update_tick;  // the first stats pass: next due at j + 32
  ASSERT_GE(j, 65u);
  f.settle((j + 32) * NSEC_PER_MSEC + NSEC_PER_MSEC / 2);
  EXPECT_EQ(rq1->last_blocked_load_update_tick, j);  // time_after(): not at jiffy j + 32
  ASSERT_GE(f.k.cpu_rq(0)->avg_idle, 500000u);
  h0->__state = TASK_INTERRUPTIBLE;
  f.k.block_current(0);
  EXPECT_EQ(rq1->last_blocked_load_update_tick, j + 32);
}

// Load fades to nothing after about 350 ms of idle; then the CPU has no blocked load left, and
// the stats passes stop once no idle CPU has any.
TEST_F(BlockedLoad, ItFadesAndTheCpuIsDone) {
  f.settle(600 * NSEC_PER_MSEC);
  EXPECT_EQ(rq1->cfs.avg.load_avg, 0u);
  EXPECT_EQ(rq1->cfs.avg.util_avg, 0u);
  EXPECT_FALSE(rq1->has_blocked_load);
  const u64 last = rq1->last_blocked_load_update_tick;
  f.settle(700 * NSEC_PER_MSEC);
  EXPECT_EQ(rq1->last_blocked_load_update_tick, last);
}

// Cores {2,6} and {0,4} run one task each, and CPU 0 also keeps a delayed sleeper queued;
// core {1,5} is idle. At CPU 1's MC level all three are "has spare" groups; of the two with
// tasks and one idle CPU each, {0,4} is the busiest (more tasks, counting the sleeper), and
// with SD_PREFER_SIBLING its two queued tasks against none are worth one move. Nothing there
// may move (the sleeper stays, the task runs), so the failures mount and the stopper is kicked
// to push the running task. The kernel keeps an SMT group with one task from beating another
// group only when that one is of single CPUs (smt_vs_nonsmt_groups()); applied between cores,
// {2,6} (met first) would stay the busiest, the domain would count as balanced, and no failure.
TEST(ActiveBalance, ASingleTaskCoreWithADelayedSleeperIsTheBusiest) {
  KernelFixture f;
  const auto [q, r] = delayed_sleeper_on_cpu0(f);
  f.hog(2);
  struct rq *rq0 = f.k.cpu_rq(0);
  ASSERT_TRUE(q->se.sched_delayed);
  ASSERT_EQ(rq0->curr, r);
  ASSERT_EQ(rq0->nr_running, 2u);
  ASSERT_EQ(rq0->cfs.h_nr_runnable, 1u);
  f.k.set_clock(20 * NSEC_PER_MSEC);
  balance_fails(f, 3);
  EXPECT_EQ(idle_balance_mc(f, 1), 0);  // 4 > cache_nice_tries + 2
  EXPECT_TRUE(rq0->active_balance);
  EXPECT_EQ(rq0->push_cpu, 1);
}

// 6.12.y: the same state, but the balancer counts cfs.h_nr_queued (the sleeper included) and
// can_migrate_task() has no sched_delayed test: both came in 6.14. CPU 0 has two fair tasks,
// and CPU 1's first balance moves the sleeper, cache cold and still delayed, to CPU 1.
TEST(CanMigrateTask, On612ADelayedSleeperMovesLikeAnyQueuedTask) {
  kernel::KernelConfig cfg;
  cfg.version = KernelVersion::V6_12;
  KernelFixture f(KernelFixture::default_spec(), cfg);
  const auto [q, r] = delayed_sleeper_on_cpu0(f);
  f.hog(2);
  struct rq *rq0 = f.k.cpu_rq(0);
  ASSERT_TRUE(q->se.sched_delayed);
  ASSERT_EQ(rq0->curr, r);
  f.k.set_clock(20 * NSEC_PER_MSEC);
  EXPECT_EQ(idle_balance_mc(f, 1), 1);
  EXPECT_EQ(q->cpu, 1);
  EXPECT_TRUE(q->se.sched_delayed);
  EXPECT_EQ(f.k.cpu_rq(1)->cfs.h_nr_delayed, 1u);
  EXPECT_FALSE(rq0->active_balance);
  EXPECT_EQ(mc(f, 1)->nr_balance_failed, 0u);
}

// The stopper takes the running task off its CPU (the model switches to the idle task for it)
// and pushes it; the CPU it leaves with nothing to run picks the idle task again and goes idle
// as do_idle() would after the stopper: it joins nohz.idle_cpus_mask and leaves its LLC's busy
// count.
TEST(ActiveBalance, ACpuTheStopperLeavesIdleEntersNohzIdle) {
  for (const bool v612 : {false, true}) {
    kernel::KernelConfig cfg;
    if (v612) cfg.version = KernelVersion::V6_12;
    KernelFixture f(KernelFixture::default_spec(), cfg);
    f.k.set_clock(10 * NSEC_PER_MSEC);
    task_struct *r = f.hog(0);
    struct rq *rq0 = f.k.cpu_rq(0);
    f.settle(11 * NSEC_PER_MSEC);  // CPU 0's first busy tick: out of the NOHZ mask
    ASSERT_EQ(rq0->curr, r);
    ASSERT_FALSE(rq0->nohz_tick_stopped);
    const int busy = f.k.sd_llc_shared(0)->nr_busy_cpus;
    rq0->active_balance = true;
    rq0->push_cpu = 1;
    rq0->active_balance_sd = mc(f, 1);
    f.k.active_load_balance_cpu_stop(rq0);
    f.k.run_preempt_points();
    const char *v = v612 ? "6.12" : "6.18";
    EXPECT_EQ(r->cpu, 1) << v;
    EXPECT_TRUE(rq0->curr->is_idle_task) << v;
    EXPECT_TRUE(rq0->nohz_tick_stopped) << v;
    EXPECT_EQ(f.k.sd_llc_shared(0)->nr_busy_cpus, busy - 1) << v;
  }
}

// The stopper migrates as load (its migration_type is left at zero), and a delayed sleeper
// may move with load since 6.14 (6.12.y moves one in any case, see above): walking cfs_tasks
// from the least recently run end it finds the sleeper first and moves it, still delayed, to
// the idle CPU, while the task it preempted runs on where it was. The sleep then completes on
// the new CPU at its first pick.
TEST(ActiveBalance, TheStopperMovesADelayedSleeper) {
  {
    KernelFixture f;  // 6.18: on 6.12 idle balancing moves the sleeper before the stopper can
    const auto [q, r] = delayed_sleeper_on_cpu0(f);
    struct rq *rq0 = f.k.cpu_rq(0), *rq1 = f.k.cpu_rq(1);
    f.settle(11 * NSEC_PER_MSEC);
    ASSERT_TRUE(q->se.sched_delayed);
    ASSERT_EQ(rq0->curr, r);
    const u32 rq0_est = rq0->cfs.avg.util_est;
    rq0->active_balance = true;
    rq0->push_cpu = 1;
    rq0->active_balance_sd = mc(f, 1);
    f.k.active_load_balance_cpu_stop(rq0);
    // Moved, and still a delayed sleeper: queued on CPU 1 but not runnable there, and no part
    // of either queue's util_est.
    EXPECT_EQ(q->cpu, 1);
    EXPECT_TRUE(q->se.sched_delayed);
    EXPECT_EQ(q->on_rq, TASK_ON_RQ_QUEUED);
    EXPECT_EQ(rq0->nr_running, 1u);
    EXPECT_EQ(rq0->cfs.h_nr_runnable, 1u);
    EXPECT_EQ(rq0->cfs.h_nr_delayed, 0u);
    EXPECT_EQ(rq1->nr_running, 1u);
    EXPECT_EQ(rq1->cfs.h_nr_runnable, 0u);
    EXPECT_EQ(rq1->cfs.h_nr_delayed, 1u);
    EXPECT_EQ(rq0->cfs.avg.util_est, rq0_est);
    EXPECT_EQ(rq1->cfs.avg.util_est, 0u);
    f.k.run_preempt_points();
    f.settle(11 * NSEC_PER_MSEC + NSEC_PER_MSEC / 2);  // CPU 1 acts on the reschedule IPI
    EXPECT_EQ(rq0->curr, r);                           // the preempted task runs on
    EXPECT_TRUE(rq1->curr->is_idle_task);
    EXPECT_FALSE(q->on_rq);  // CPU 1's pick completed the sleep
    EXPECT_EQ(rq1->nr_running, 0u);
    EXPECT_EQ(rq1->cfs.h_nr_delayed, 0u);
    // It wakes as any sleeper does.
    f.k.try_to_wake_up(q, 0, 0);
    f.settle(11 * NSEC_PER_MSEC + 600'000);
    EXPECT_EQ(q->on_rq, TASK_ON_RQ_QUEUED);
    EXPECT_FALSE(q->se.sched_delayed);
  }
}

// Since 6.14 a task that is not eligible where it is queued stays there while the destination
// has tasks queued, until balancing at this level has failed once: it would take its negative
// lag along. CPU 0: q ran 3 ms ahead of two tasks queued after it, so it is the least recently
// run and not eligible; its sibling CPU 4 runs a task of its own and balances their SMT domain
// (where nothing is cache hot), by load: its group is fully busy, CPU 0's overloaded.
TEST(CanMigrateTask, AnIneligibleTaskWaitsForAFailedBalance) {
  for (const bool v612 : {false, true}) {
    kernel::KernelConfig cfg;
    if (v612) cfg.version = KernelVersion::V6_12;
    KernelFixture f(KernelFixture::default_spec(), cfg);
    f.k.set_clock(10 * NSEC_PER_MSEC);
    task_struct *q = f.hog(0);
    task_struct *a = f.task("a");
    f.k.test_enqueue(a, 0);
    f.k.set_clock(13 * NSEC_PER_MSEC);
    task_struct *b = f.task("b");
    f.k.test_run(b, 0);
    ASSERT_NE(f.k.cpu_rq(0)->curr, q);
    ASSERT_EQ(f.k.cpu_rq(0)->cfs_tasks.back(), q);
    ASSERT_FALSE(f.k.entity_eligible(&f.k.cpu_rq(0)->cfs, &q->se));
    f.hog(4);
    // Long-running figures: CPU 4 fully busy with one task, CPU 0 overloaded with three.
    auto set = [](struct rq *rq, unsigned long load, unsigned long util, unsigned long runnable) {
      rq->cfs.avg.load_avg = load, rq->cfs.avg.util_avg = util;
      rq->cfs.avg.runnable_avg = runnable;
    };
    set(f.k.cpu_rq(4), 1024, 1000, 1000);
    set(f.k.cpu_rq(0), 3072, 1024, 3072);
    for (task_struct *p : {q, a, b}) p->se.avg.load_avg = 1000;
    sched_domain *smt = f.k.cpu_rq(4)->sd;
    ASSERT_EQ(smt->nr_balance_failed, 0u);
    bool cont = true;
    EXPECT_EQ(f.k.sched_balance_rq(4, f.k.cpu_rq(4), smt, Kernel::__CPU_NOT_IDLE, &cont), 1);
    const char *v = v612 ? "6.12" : "6.18";
    EXPECT_EQ(q->cpu, v612 ? 4 : 0) << v;           // 6.12 takes the least recently run task
    EXPECT_EQ(a->cpu + b->cpu, v612 ? 0 : 4) << v;  // 6.18 the queued eligible one instead
  }
}

// ---------------------------------------------------------------------------------------------
// The gates of sched_balance_newidle(). NI_RANDOM off, so every domain that passes them is
// balanced; two tasks pinned to CPU 3 keep the root domain overloaded with nothing to pull.

namespace {

KernelConfig newidle_config(bool bump_on_fail = false) {
  KernelConfig cfg;
  cfg.features.on[__SCHED_FEAT_NI_RANDOM] = false;
  cfg.features.on[__SCHED_FEAT_NEWIDLE_BUMP_ON_FAIL] = bump_on_fail;
  return cfg;
}

void pinned_pair_on_cpu3(KernelFixture &f) {
  task_struct *a = f.task("pinned_a"), *b = f.task("pinned_b");
  pin(a, 3);
  pin(b, 3);
  f.k.test_run(a, 3);
  f.k.test_enqueue(b, 3);
  f.k.set_clock(10000000);
}

}  // namespace

// A wakeup already on its way to the CPU: it is not going idle, so no balancing and no stamp.
TEST(NewidleBalance, APendingWakeupSkipsItWithoutStampingIdle) {
  KernelFixture f(KernelFixture::default_spec(), newidle_config());
  pinned_pair_on_cpu3(f);
  struct rq *rq1 = f.k.cpu_rq(1);
  rq1->ttwu_pending = 1;
  const unsigned calls = rq1->sd->newidle_call;
  EXPECT_EQ(f.k.sched_balance_newidle(rq1), 0);
  EXPECT_EQ(rq1->idle_stamp, 0u);
  EXPECT_EQ(rq1->newidle_attempts, 0u);
  EXPECT_EQ(rq1->sd->newidle_call, calls);
}

// Nothing anywhere has two tasks (the root domain is not overloaded): no domain is balanced,
// however long the CPU expects to stay idle. Once CPU 3 holds two, the lowest domain is.
TEST(NewidleBalance, OnlyAnOverloadedRootDomainIsBalanced) {
  KernelFixture f(KernelFixture::default_spec(), newidle_config());
  f.hog(3);
  f.k.set_clock(10000000);
  struct rq *rq1 = f.k.cpu_rq(1);
  ASSERT_FALSE(f.k.rd_overloaded());
  rq1->avg_idle = 10000000;
  const unsigned calls = rq1->sd->newidle_call;
  EXPECT_EQ(f.k.sched_balance_newidle(rq1), 0);
  EXPECT_EQ(rq1->sd->newidle_call, calls);
  EXPECT_NE(rq1->idle_stamp, 0u);  // the idle period is stamped all the same
  task_struct *q = f.task("q");
  pin(q, 3);
  f.k.test_enqueue(q, 3);
  ASSERT_TRUE(f.k.rd_overloaded());
  EXPECT_EQ(f.k.sched_balance_newidle(rq1), 0);
  EXPECT_EQ(rq1->sd->newidle_call, calls + 1);
}

// The walk up the domains stops where the expected idle time no longer covers the cost so far
// plus the next domain's most expensive balance: avg_idle 1 ms, SMT free, MC 5 ms.
TEST(NewidleBalance, TheWalkStopsWhereAvgIdleNoLongerCoversTheCost) {
  KernelFixture f(KernelFixture::default_spec(), newidle_config());
  pinned_pair_on_cpu3(f);
  struct rq *rq1 = f.k.cpu_rq(1);
  rq1->avg_idle = 1000000;
  rq1->sd->max_newidle_lb_cost = 0;
  rq1->sd->parent->max_newidle_lb_cost = 5000000;
  const unsigned smt_calls = rq1->sd->newidle_call, mc_calls = rq1->sd->parent->newidle_call;
  EXPECT_EQ(f.k.sched_balance_newidle(rq1), 0);
  EXPECT_EQ(rq1->sd->newidle_call, smt_calls + 1);
  EXPECT_EQ(rq1->sd->parent->newidle_call, mc_calls);
  EXPECT_EQ(rq1->newidle_skipped_avg_idle, 1u);
}

// NEWIDLE_BUMP_ON_FAIL: a balance that pulls nothing raises the domain's cost by half (plus
// one), capped at migration_cost + 200 ns; without it the cost only follows what a balance
// cost (2.6 us here, below the costs already recorded). (A balance that finds everything
// pinned clears the root domain's overload flag, as in the kernel: one balance per fixture.)
TEST(NewidleBalance, BumpOnFailRaisesTheCostOfAFruitlessDomain) {
  struct Case {
    bool bump;
    u64 before, after;
  };
  for (const Case c : {Case{false, 100000, 100000}, Case{true, 100000, 150001},
                       Case{false, 400000, 400000}, Case{true, 400000, 500200}}) {
    KernelFixture f(KernelFixture::default_spec(), newidle_config(c.bump));
    pinned_pair_on_cpu3(f);
    struct rq *rq1 = f.k.cpu_rq(1);
    rq1->avg_idle = 10000000;
    rq1->sd->max_newidle_lb_cost = c.before;
    EXPECT_EQ(f.k.sched_balance_newidle(rq1), 0);
    EXPECT_EQ(rq1->sd->max_newidle_lb_cost, c.after) << "bump " << c.bump << " from " << c.before;
  }
}

// LB_MIN (default off, as in the kernel): balancing by load, detach_tasks() leaves a task of
// load below 16 where it is until balancing at the level has failed once. The state is the one
// above (CPU 4 balances its SMT domain against CPU 0's three tasks), with featherweight tasks.
TEST(DetachTasks, LbMinKeepsFeatherweightTasksUntilBalancingFails) {
  for (const bool lb_min : {false, true}) {
    kernel::KernelConfig cfg;
    cfg.version = KernelVersion::V6_12;
    cfg.features.on[__SCHED_FEAT_LB_MIN] = lb_min;
    KernelFixture f(KernelFixture::default_spec(), cfg);
    f.k.set_clock(10 * NSEC_PER_MSEC);
    task_struct *q = f.hog(0);
    task_struct *a = f.task("a");
    f.k.test_enqueue(a, 0);
    f.k.set_clock(13 * NSEC_PER_MSEC);
    task_struct *b = f.task("b");
    f.k.test_run(b, 0);
    f.hog(4);
    auto set = [](struct rq *rq, unsigned long load, unsigned long util, unsigned long runnable) {
      rq->cfs.avg.load_avg = load, rq->cfs.avg.util_avg = util;
      rq->cfs.avg.runnable_avg = runnable;
    };
    set(f.k.cpu_rq(4), 1024, 1000, 1000);
    set(f.k.cpu_rq(0), 3072, 1024, 3072);
    for (task_struct *p : {q, a, b}) p->se.avg.load_avg = 15;
    sched_domain *smt = f.k.cpu_rq(4)->sd;
    bool cont = true;
    auto balance = [&] {
      return f.k.sched_balance_rq(4, f.k.cpu_rq(4), smt, Kernel::__CPU_NOT_IDLE, &cont);
    };
    const char *on = lb_min ? "LB_MIN on" : "LB_MIN off";
    if (!lb_min) {
      EXPECT_EQ(balance(), 2) << on;  // both queued tasks: they barely dent the imbalance
      EXPECT_EQ(f.k.cpu_rq(0)->nr_running, 1u) << on;
      continue;
    }
    EXPECT_EQ(balance(), 0) << on;
    EXPECT_EQ(f.k.cpu_rq(0)->nr_running, 3u) << on;
    EXPECT_EQ(smt->nr_balance_failed, 1u) << on;
    EXPECT_EQ(balance(), 2) << on;  // a failed balance lets them go
    EXPECT_EQ(f.k.cpu_rq(0)->nr_running, 1u) << on;
    EXPECT_EQ(smt->nr_balance_failed, 0u) << on;
  }
}
