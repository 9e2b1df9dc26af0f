// SPDX-License-Identifier: GPL-2.0-only
// Where a waking or forked task goes, each case with the one CPU the kernel would pick:
// wake_affine() and its sync variant, wake_wide(), the SIS_UTIL scan budget, the steps of
// select_idle_sibling() that need a second LLC or an SMT sibling of prev, and the core
// scheduling checks of the placement paths (the released ones and the patches under study).
// 8 CPUs, 4 cores x 2 threads, CPU n and n + 4 siblings, unless a test says otherwise.
#include <gtest/gtest.h>

#include "kernel_fixture.h"

using namespace schedlab;
using namespace schedlab::kernel;
using schedlab::testing::KernelFixture;

namespace {

// Two LLCs of 2 cores x 2 threads: LLC 0 is CPUs {0, 1, 4, 5}, LLC 1 is {2, 3, 6, 7}.
TopologySpec two_llcs() {
  TopologySpec s;
  s.llcs_per_socket = 2;
  s.cores_per_llc = 2;
  s.threads_per_core = 2;
  return s;
}

KernelConfig with(sched_feat_id id, bool on) {
  KernelConfig cfg;
  cfg.features.on[id] = on;
  return cfg;
}

// Every CPU of cpus busy with a task of its own.
void hogs(KernelFixture &f, std::initializer_list<int> cpus) {
  for (int c : cpus) f.hog(c);
}

void set_load(KernelFixture &f, int cpu, unsigned long load) {
  f.k.cpu_rq(cpu)->cfs.avg.load_avg = load;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// wake_affine(): wake_affine_idle() first, then wake_affine_weight()

// An idle waker CPU that shares the LLC with a busy prev takes the task: the waker's cache is
// as good as prev's and the CPU is free now.
TEST(WakeAffine, AnIdleWakerCpuSharingTheLlcBeatsABusyPrev) {
  KernelFixture f;
  f.hog(2);
  task_struct *p = f.sleeper(2);
  EXPECT_EQ(f.k.wake_affine(f.k.sd_llc(0), p, 0, 2, false), 0);
  EXPECT_EQ(f.k.cpu_rq(0)->ttwu_move_affine, 1u);  // schedstat counts the move on the waker's CPU
}

// Both idle and sharing the LLC: prev keeps the task, its cache may still be warm.
TEST(WakeAffine, WithBothIdleInOneLlcPrevWins) {
  KernelFixture f;
  task_struct *p = f.sleeper(2);
  EXPECT_EQ(f.k.wake_affine(f.k.sd_llc(0), p, 0, 2, false), 2);
  EXPECT_EQ(f.k.cpu_rq(0)->ttwu_move_affine, 0u);
}

// An idle waker CPU in another LLC is no reason to move: the choice falls to the weights, and
// the waker's CPU still carries the blocked load of what ran there, four times prev's.
TEST(WakeAffine, AnIdleWakerCpuInAnotherLlcGoesByLoad) {
  KernelFixture f(two_llcs());
  f.hog(2);
  task_struct *p = f.sleeper(2);
  set_load(f, 0, 4096);
  set_load(f, 2, 1024);
  p->se.avg.load_avg = 0;
  sched_domain *pkg = f.k.cpu_rq(0)->sd->parent->parent;  // spans both LLCs
  ASSERT_TRUE(pkg->span.test(2));
  EXPECT_EQ(f.k.wake_affine(pkg, p, 0, 2, false), 2);
  // With no blocked load left on the waker's CPU, it is the lighter one.
  set_load(f, 0, 0);
  EXPECT_EQ(f.k.wake_affine(pkg, p, 0, 2, false), 0);
}

// WF_SYNC: the waker is about to sleep, so a CPU running only the waker counts as free, even
// when its load would say otherwise. Without sync the loads decide, and prev is lighter here:
// waker CPU 4096 - waker 1024 = 3072 (x100) against prev 1024 (x108, half imbalance_pct).
TEST(WakeAffine, ASyncWakerAloneOnItsCpuPullsTheWakee) {
  KernelFixture f;
  task_struct *w = f.hog(0);
  f.hog(2);
  task_struct *p = f.sleeper(2);
  set_load(f, 0, 4096);
  set_load(f, 2, 1024);
  w->se.avg.load_avg = 1024;
  p->se.avg.load_avg = 0;
  EXPECT_EQ(f.k.wake_affine(f.k.sd_llc(0), p, 0, 2, true), 0);
  EXPECT_EQ(f.k.wake_affine(f.k.sd_llc(0), p, 0, 2, false), 2);
}

// With a second task queued the waker's CPU is not free; wake_affine_weight() then compares
// effective loads, a sync wakeup leaving the waker's own load out:
//   sync:  (2048 - 1024 + 0) x 100 = 102400 < 1536 x 108 + 1 = 165889: the waker's CPU;
//   plain: (2048 + 0) x 100 = 204800 >= 1536 x 108 = 165888: prev.
TEST(WakeAffine, WeightsLeaveASyncWakersLoadOut) {
  KernelFixture f;
  task_struct *w = f.hog(0);
  f.k.test_enqueue(f.task("queued"), 0);
  f.hog(2);
  task_struct *p = f.sleeper(2);
  set_load(f, 0, 2048);
  set_load(f, 2, 1536);
  w->se.avg.load_avg = 1024;
  p->se.avg.load_avg = 0;
  ASSERT_EQ(f.k.cpu_rq(0)->nr_running, 2u);
  ASSERT_EQ(f.k.sd_llc(0)->imbalance_pct, 117u);
  EXPECT_EQ(f.k.wake_affine(f.k.sd_llc(0), p, 0, 2, true), 0);
  EXPECT_EQ(f.k.wake_affine(f.k.sd_llc(0), p, 0, 2, false), 2);
  // A lighter waker CPU wins without sync too: 1024 x 100 < 1536 x 108.
  set_load(f, 0, 1024);
  EXPECT_EQ(f.k.wake_affine(f.k.sd_llc(0), p, 0, 2, false), 0);
}

// ---------------------------------------------------------------------------------------------
// wake_wide() and record_wakee()

// A waker flips once per change of wakee; the count halves once a second.
TEST(WakeWide, FlipsCountChangesOfWakeeAndDecay) {
  KernelFixture f;
  task_struct *w = f.task("waker"), *a = f.task("a"), *b = f.task("b");
  f.k.record_wakee(a, w);
  f.k.record_wakee(a, w);
  EXPECT_EQ(w->wakee_flips, 1u);
  f.k.record_wakee(b, w);
  f.k.record_wakee(a, w);
  EXPECT_EQ(w->wakee_flips, 3u);
  f.k.set_clock(1001000000);  // 1001 jiffies later: halved, then the flip to b counts
  f.k.record_wakee(b, w);
  EXPECT_EQ(w->wakee_flips, 2u);
}

// Wide when the smaller flip count reaches the LLC size (8) and the larger is at least that
// many times the smaller.
TEST(WakeWide, NeedsBothFlipCountsAboveTheLlcSize) {
  KernelFixture f;
  task_struct *w = f.task("waker"), *p = f.task("wakee");
  ASSERT_EQ(f.k.sd_llc_size(0), 8);
  auto wide = [&](unsigned waker, unsigned wakee) {
    w->wakee_flips = waker;
    p->wakee_flips = wakee;
    return f.k.wake_wide(p, w, 0);
  };
  EXPECT_TRUE(wide(64, 8));
  EXPECT_TRUE(wide(8, 64));  // either way round
  EXPECT_FALSE(wide(63, 8));
  EXPECT_FALSE(wide(64, 7));
  EXPECT_FALSE(wide(0, 0));
}

// The whole wakeup: a sync waker alone on CPU 0 on a machine with no idle CPU pulls the wakee
// to its CPU (select_idle_sibling() finds nothing idle and keeps the target). A many-to-many
// waker does not: the task goes back to prev.
TEST(WakeWide, AWideWakeupIsNotPulledToTheWaker) {
  for (bool wide : {false, true}) {
    KernelFixture f;
    f.k.sd_llc_shared(0)->nr_idle_scan = 8;
    task_struct *w = f.hog(0);
    hogs(f, {1, 2, 3, 4, 5, 6, 7});
    task_struct *p = f.sleeper(2);
    if (wide) {
      w->wakee_flips = 100;
      p->wakee_flips = 8;
    }
    f.k.try_to_wake_up(p, WF_SYNC, 0);
    EXPECT_EQ(p->cpu, wide ? 2 : 0) << "wide " << wide;
  }
}

// The whole wakeup from an idle CPU (an interrupt there): the idle waker CPU 0 shares the LLC
// with the busy prev 2 and gets the task, idle itself for select_idle_sibling() to keep.
TEST(WakeAffine, AWakeupFromAnIdleCpuLandsThere) {
  KernelFixture f;
  f.k.sd_llc_shared(0)->nr_idle_scan = 8;
  f.hog(2);
  task_struct *p = f.sleeper(2);
  f.k.try_to_wake_up(p, 0, 0);
  EXPECT_EQ(p->cpu, 0);
}

// ---------------------------------------------------------------------------------------------
// select_idle_sibling(): the steps that need another LLC or an SMT sibling of prev

// An idle prev in another LLC is not taken: the scan stays in the target's LLC.
TEST(SelectIdleSibling, AnIdlePrevInAnotherLlcIsNotTaken) {
  KernelFixture f(two_llcs());
  f.k.sd_llc_shared(0)->nr_idle_scan = 4;
  hogs(f, {0, 4, 5});  // only CPU 1 idle in LLC 0
  task_struct *p = f.sleeper(2);
  EXPECT_EQ(f.k.select_idle_sibling(p, 2, 0), 1);
}

// No idle core: an idle SMT sibling of prev comes before the scan of the LLC (which would
// have met idle CPU 1 first).
TEST(SelectIdleSibling, WithoutAnIdleCoreAnIdleSiblingOfPrevComesFirst) {
  KernelFixture f;
  f.k.sd_llc_shared(0)->nr_idle_scan = 8;
  hogs(f, {0, 2, 3, 4, 5, 7});  // idle: 1 and 6, sibling of prev 2
  f.k.set_idle_cores(0, 0);
  task_struct *p = f.sleeper(2);
  EXPECT_EQ(f.k.select_idle_sibling(p, 2, 0), 6);
}

// ---------------------------------------------------------------------------------------------
// SIS_UTIL: update_idle_cpu_scan() sets the scan budget from the LLC's utilisation x (of 1024
// per CPU): nr = llc_weight * (1024 - min(1024, x^2 pct^2 / (10000 * 1024))) / 1024, pct the
// LLC domain's imbalance_pct (117); select_idle_cpu() then tests at most nr CPUs.

// At 50 %: 512^2 x 117^2 / 10240000 = 350, 8 x (1024 - 350) / 1024 = 5 CPUs. At 90 % the
// squared term passes 1024 and nothing is scanned; at 25 %, 87 and 7 CPUs.
TEST(SisUtil, TheScanBudgetFollowsTheLlcUtilisation) {
  KernelFixture f;
  sched_domain *llc = f.k.sd_llc(0);
  ASSERT_EQ(llc->imbalance_pct, 117u);
  auto budget = [&](unsigned long per_cpu_util) {
    f.k.update_idle_cpu_scan(llc, 0, 8 * per_cpu_util);
    return f.k.sd_llc_shared(0)->nr_idle_scan;
  };
  EXPECT_EQ(budget(0), 8);
  EXPECT_EQ(budget(256), 7);
  EXPECT_EQ(budget(512), 5);
  EXPECT_EQ(budget(922), 0);
  EXPECT_EQ(budget(1024), 0);
}

// With the 50 % budget of 5, the scan from CPU 1 (after target 0) tests CPUs 1-5: an idle CPU
// 5 is found, an idle CPU 6 is not, and the task stays on its busy target.
TEST(SisUtil, AtHalfUtilisationTheScanTestsFiveCpus) {
  for (int idle : {5, 6}) {
    KernelFixture f;
    f.k.update_idle_cpu_scan(f.k.sd_llc(0), 0, 8 * 512);
    ASSERT_EQ(f.k.sd_llc_shared(0)->nr_idle_scan, 5);
    for (int c = 0; c < 8; c++)
      if (c != idle) f.hog(c);
    f.k.set_idle_cores(0, 0);
    task_struct *p = f.sleeper(0);
    EXPECT_EQ(f.k.select_idle_sibling(p, 0, 0), idle == 5 ? 5 : 0) << "idle CPU " << idle;
  }
}

// At 90 % the budget is 0: no CPU is scanned even with one idle.
TEST(SisUtil, AtNinetyPercentNothingIsScanned) {
  KernelFixture f;
  f.k.update_idle_cpu_scan(f.k.sd_llc(0), 0, 8 * 922);
  for (int c : {0, 2, 3, 4, 5, 6, 7}) f.hog(c);
  f.k.set_idle_cores(0, 0);
  task_struct *p = f.sleeper(0);
  EXPECT_EQ(f.k.select_idle_sibling(p, 0, 0), 0);
}

// ---------------------------------------------------------------------------------------------
// Core scheduling in wake_affine(): CORE_COOKIE_WAKE_AFFINE ("sched/fair: Core sched wake up
// path improvements", 3/4). An idle or sync-free CPU counts only if p could run there without
// forcing a sibling idle: its core runs p's cookie or is wholly idle, the sync waker's own
// CPU counting as idle.

// Core {0, 4} runs cookie A (the sync waker on 0, another A task on 4); p has cookie B; prev 2
// is on an idle core. Released kernel: the sync rule takes CPU 0. With the patch, CPU 0 would
// force p's sibling idle, so the idle prev wins.
TEST(CoreCookieWakeAffine, ASyncWakerCpuOnACoreOfAnotherCookieIsPassedOver) {
  for (bool patch : {false, true}) {
    KernelFixture f(KernelFixture::default_spec(),
                    with(__SCHED_FEAT_CORE_COOKIE_WAKE_AFFINE, patch));
    task_struct *w = f.task("waker"), *x = f.task("x"), *p = f.sleeper(2);
    f.cookie(w);
    f.cookie(x, w);
    f.cookie(p);
    f.k.test_run(w, 0);
    f.k.test_run(x, 4);
    ASSERT_EQ(f.k.cpu_rq(0)->core->core_cookie, w->core_cookie);
    EXPECT_EQ(f.k.wake_affine(f.k.sd_llc(0), p, 0, 2, true), patch ? 2 : 0) << "patch " << patch;
  }
}

// With CPU 4 idle the waker's core is idle but for the waker, who is about to sleep: with the
// patch the sync rule still takes CPU 0.
TEST(CoreCookieWakeAffine, ASyncWakersOwnCpuCountsAsIdle) {
  KernelFixture f(KernelFixture::default_spec(), with(__SCHED_FEAT_CORE_COOKIE_WAKE_AFFINE, true));
  task_struct *w = f.task("waker"), *p = f.sleeper(2);
  f.cookie(w);
  f.cookie(p);
  f.k.test_run(w, 0);
  EXPECT_EQ(f.k.wake_affine(f.k.sd_llc(0), p, 0, 2, true), 0);
  // Not sync: CPU 0 runs the waker, so the core is not idle and prev (idle) wins.
  EXPECT_EQ(f.k.wake_affine(f.k.sd_llc(0), p, 0, 2, false), 2);
}

// ---------------------------------------------------------------------------------------------
// Fork placement with cookies: sched_balance_find_dst_group() considers only groups with a CPU
// whose core runs the task's cookie or is wholly idle, and sched_balance_find_dst_group_cpu()
// only such CPUs.

// Parent (cookie A) on CPU 0 and another A task on 4; core {1, 5} runs B on 1, {2, 6} runs A
// on 2, {3, 7} runs B on both. The child inherits A. Cores 1 and 2 tie (one idle CPU each, the
// same utilisation); only core 2 can take an A task, on its idle CPU 6.
TEST(ForkWithCookies, TheChildGoesToAnIdleCpuOfACoreRunningItsCookie) {
  KernelFixture f;
  task_struct *parent = f.task("parent"), *a4 = f.task("a4"), *a2 = f.task("a2");
  task_struct *b1 = f.task("b1"), *b3 = f.task("b3"), *b7 = f.task("b7");
  f.cookie(parent);
  f.cookie(b1);
  for (task_struct *t : {a4, a2}) f.cookie(t, parent);
  for (task_struct *t : {b3, b7}) f.cookie(t, b1);
  f.k.test_run(parent, 0);
  f.k.test_run(a4, 4);
  f.k.test_run(b1, 1);
  f.k.test_run(a2, 2);
  f.k.test_run(b3, 3);
  f.k.test_run(b7, 7);
  ASSERT_EQ(f.k.cpu_rq(5)->core->core_cookie, b1->core_cookie);
  task_struct *child = f.task("child");
  f.cookie(child, parent);
  f.k.wake_up_new_task(child, 0);
  EXPECT_EQ(child->cpu, 6);
}

// CORE_COOKIE_FIND_DST_FALLBACK (2/4): in a group with no CPU p could run on without forcing
// idle, the released kernel answers this_cpu (no CPU passed the filter); the patch takes the
// group's best CPU regardless of cookies, here its idle CPU 5.
TEST(ForkWithCookies, FindDstFallbackTakesTheIdlestCpuWithoutAMatch) {
  for (bool patch : {false, true}) {
    KernelFixture f(KernelFixture::default_spec(),
                    with(__SCHED_FEAT_CORE_COOKIE_FIND_DST_FALLBACK, patch));
    task_struct *y = f.task("y"), *p = f.task("p");
    f.cookie(y);
    f.cookie(p);
    f.k.test_run(y, 1);  // core {1, 5}: cookie of y on 1, 5 idle
    const sched_group *core1 = nullptr;
    for (const sched_group &g : f.k.sd_llc(0)->groups)
      if (g.contains(1)) core1 = &g;
    ASSERT_NE(core1, nullptr);
    ASSERT_EQ(core1->weight, 2);
    EXPECT_EQ(f.k.sched_balance_find_dst_group_cpu(core1, p, 0), patch ? 5 : 0) << patch;
  }
}
