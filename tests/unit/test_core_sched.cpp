// SPDX-License-Identifier: GPL-2.0-only
// Core scheduling: cookies set the way users set them (prctl PR_SCHED_CORE), the core-wide pick,
// forced idle, cookie stealing, and the wakeup fast-path cookie patch with its variants.
#include <gtest/gtest.h>

#include <cerrno>

#include "checked_run.h"
#include "engine/simulation.h"
#include "kernel_fixture.h"
#include "observe/checkers.h"
#include "scenario/config.h"

using namespace schedlab;
using namespace schedlab::kernel;
using schedlab::testing::KernelFixture;
using K = schedlab::kernel::Kernel;

// ---------------------------------------------------------------------------------------------
// prctl(PR_SCHED_CORE) semantics, the cases of tools/testing/selftests/sched/cs_prctl_test.c

namespace {
struct Prctl : ::testing::Test {
  KernelFixture f;
  // Two processes of two threads each in one process group, and a third process elsewhere.
  task_struct *a0, *a1, *b0, *b1, *c0;
  void SetUp() override {
    a0 = f.task("a0"), a1 = f.task("a1"), b0 = f.task("b0"), b1 = f.task("b1"), c0 = f.task("c0");
    a1->tgid = a0->tgid = a0->pid;
    b1->tgid = b0->tgid = b0->pid;
    a0->pgid = a1->pgid = b0->pgid = b1->pgid = a0->pid;
    c0->pgid = c0->pid;
  }
};
}  // namespace

TEST_F(Prctl, CreateOnAThreadTagsOnlyThatThread) {
  ASSERT_EQ(f.k.sched_core_share_pid(K::PR_SCHED_CORE_CREATE, a1, K::PIDTYPE_PID, a0), 0);
  EXPECT_NE(a1->core_cookie, 0u);
  EXPECT_EQ(a0->core_cookie, 0u);
  EXPECT_TRUE(f.k.sched_core_enabled(f.k.cpu_rq(0)));
}

TEST_F(Prctl, CreateOnAThreadGroupTagsEveryThreadOfTheProcess) {
  ASSERT_EQ(f.k.sched_core_share_pid(K::PR_SCHED_CORE_CREATE, a0, K::PIDTYPE_TGID, c0), 0);
  EXPECT_NE(a0->core_cookie, 0u);
  EXPECT_EQ(a0->core_cookie, a1->core_cookie);
  EXPECT_EQ(b0->core_cookie, 0u);
  EXPECT_EQ(c0->core_cookie, 0u);  // the caller itself is not tagged
}

TEST_F(Prctl, CreateOnAProcessGroupTagsEveryTaskOfTheGroup) {
  ASSERT_EQ(f.k.sched_core_share_pid(K::PR_SCHED_CORE_CREATE, b1, K::PIDTYPE_PGID, c0), 0);
  for (task_struct *p : {a0, a1, b0, b1}) EXPECT_EQ(p->core_cookie, a0->core_cookie);
  EXPECT_NE(a0->core_cookie, 0u);
  EXPECT_EQ(c0->core_cookie, 0u);
}

TEST_F(Prctl, ShareToGivesTheCallersCookieAndAnUntaggedCallerClearsIt) {
  f.cookie(a0);
  ASSERT_EQ(f.k.sched_core_share_pid(K::PR_SCHED_CORE_SHARE_TO, c0, K::PIDTYPE_PID, a0), 0);
  EXPECT_EQ(c0->core_cookie, a0->core_cookie);
  ASSERT_EQ(f.k.sched_core_share_pid(K::PR_SCHED_CORE_SHARE_TO, c0, K::PIDTYPE_PID, b0), 0);
  EXPECT_EQ(c0->core_cookie, 0u);
}

TEST_F(Prctl, ShareFromCopiesTheTargetsCookieToTheCaller) {
  f.cookie(b1);
  ASSERT_EQ(f.k.sched_core_share_pid(K::PR_SCHED_CORE_SHARE_FROM, b1, K::PIDTYPE_PID, c0), 0);
  EXPECT_EQ(c0->core_cookie, b1->core_cookie);
  EXPECT_EQ(f.k.sched_core_share_pid(K::PR_SCHED_CORE_SHARE_FROM, b1, K::PIDTYPE_TGID, c0),
            -EINVAL);
  EXPECT_EQ(f.k.sched_core_share_pid(K::PR_SCHED_CORE_SHARE_FROM, b1, K::PIDTYPE_PGID, c0),
            -EINVAL);
}

TEST_F(Prctl, BadScopeOrCommandIsEinval) {
  EXPECT_EQ(f.k.sched_core_share_pid(K::PR_SCHED_CORE_CREATE, a0, 3, a0), -EINVAL);
  EXPECT_EQ(f.k.sched_core_share_pid(9, a0, K::PIDTYPE_PID, a0), -EINVAL);
}

TEST(PrctlNoSmt, WithoutSmtCoreSchedulingIsEnodev) {
  TopologySpec s;
  s.cores_per_llc = 4;  // threads_per_core = 1
  KernelFixture f(s);
  task_struct *p = f.task("p");
  EXPECT_EQ(f.k.sched_core_share_pid(K::PR_SCHED_CORE_CREATE, p, K::PIDTYPE_PID, p), -ENODEV);
  EXPECT_EQ(p->core_cookie, 0u);
}

TEST_F(Prctl, ForkInheritsAndTheLastReferenceTurnsCoreSchedulingOff) {
  f.cookie(a0);
  task_struct *child = f.task("child");
  f.k.sched_core_fork(child, a0);
  EXPECT_EQ(child->core_cookie, a0->core_cookie);
  EXPECT_EQ(f.k.nr_core_cookies(), 1);
  f.k.sched_core_free(a0);
  EXPECT_TRUE(f.k.sched_core_enabled(f.k.cpu_rq(0)));  // the child still holds it
  f.k.sched_core_free(child);
  EXPECT_EQ(f.k.nr_core_cookies(), 0);
  EXPECT_FALSE(f.k.sched_core_enabled(f.k.cpu_rq(0)));
}

// ---------------------------------------------------------------------------------------------
// The core-wide pick (8 CPUs, 4 cores x 2 threads: CPU n and n + 4 are siblings)

TEST(CorePick, AnUntaggedTaskForcesATaggedSiblingIdle) {
  KernelFixture f;
  task_struct *u = f.task("untagged"), *t = f.task("tagged");
  f.cookie(t);
  f.k.test_run(u, 0);
  f.settle(3000000);   // u runs 3 ms: its vruntime is ahead, but relative to its own queue
  f.k.test_run(t, 4);  // the core-wide pick on CPU 4: t ties with u and wins (current CPU first)
  EXPECT_EQ(f.k.cpu_rq(4)->curr, t);
  EXPECT_EQ(f.k.cpu_rq(0)->core_cookie, t->core_cookie);
  EXPECT_TRUE(u->need_resched);  // CPU 0 is told through an IPI
  f.settle(3010000);
  EXPECT_TRUE(f.k.cpu_rq(0)->curr->is_idle_task);
  EXPECT_TRUE(f.k.sched_core_forceidle(0));  // u is runnable but forced idle
  EXPECT_EQ(f.k.cpu_rq(0)->core_forceidle_count, 1u);
}

TEST(CorePick, MatchingCookiesShareTheCore) {
  KernelFixture f;
  task_struct *a = f.task("a"), *b = f.task("b");
  f.cookie(a);
  f.cookie(b, a);
  f.k.test_run(a, 0);
  f.k.test_run(b, 4);
  f.settle(1000000);
  EXPECT_EQ(f.k.cpu_rq(0)->curr, a);
  EXPECT_EQ(f.k.cpu_rq(4)->curr, b);
  EXPECT_FALSE(f.k.sched_core_forceidle(0));
  EXPECT_FALSE(f.k.sched_core_forceidle(4));
}

// Across siblings, priority is vruntime relative to each task's own queue (not the EEVDF
// deadline); during forced idle the queues' baselines are frozen at the episode's start.
TEST(CorePick, CrossSiblingPriorityComparesNormalisedVruntime) {
  KernelFixture f;
  task_struct *a = f.task("a"), *b = f.task("b");
  f.k.test_enqueue(a, 0);
  f.k.test_enqueue(b, 4);
  struct cfs_rq *c0 = &f.k.cpu_rq(0)->cfs, *c4 = &f.k.cpu_rq(4)->cfs;
  a->se.vruntime = 5000000, c0->zero_vruntime = 1000000;   // a: 4 ms ahead of its queue
  b->se.vruntime = 10000000, c4->zero_vruntime = 9000000;  // b: 1 ms ahead of its queue
  EXPECT_TRUE(f.k.prio_less(a, b, false));                 // a got more service: less important
  EXPECT_FALSE(f.k.prio_less(b, a, false));
  // In a forced-idle episode the first comparison snapshots the baselines ...
  f.k.cpu_rq(0)->core_forceidle_seq = 1;
  EXPECT_TRUE(f.k.prio_less(a, b, true));
  // ... and later ones keep them even though b's queue moved on.
  c4->zero_vruntime = 9900000;
  EXPECT_TRUE(f.k.prio_less(a, b, true));
  b->se.vruntime = 13500000;  // b ran 3.5 ms more: 4.5 ms over the frozen baseline, behind a
  EXPECT_TRUE(f.k.prio_less(b, a, true));
  EXPECT_FALSE(f.k.prio_less(b, a, false));  // but only 3.6 ms over the fresh one
}

// cfs_prio_less() measures each task from its queue's zero_vruntime (6.12.y and 6.18.y stable,
// "sched/eevdf: Fix min_vruntime vs avg_vruntime"), which moves to V only when avg_vruntime()
// runs: at placement, at a dequeue's lag update and at a slice boundary (update_deadline()).
// So a lone task's key is the service it has had since its last slice boundary, and two lone
// tasks on sibling CPUs do not tie: the one further into its slice is the less important. (A
// min_vruntime that follows curr would give both 0.) a runs on CPU 0 from 0, b on CPU 4 from
// 0.5 ms, one cookie; the slice is 2.8 ms and the ticks update both every millisecond.
TEST(CorePick, LoneTasksOnSiblingsCompareTheirServiceSinceTheSliceBoundary) {
  KernelFixture f;
  task_struct *a = f.task("a"), *b = f.task("b");
  f.cookie(a);
  f.cookie(b, a);
  f.k.test_run(a, 0);
  f.settle(500000);
  f.k.test_run(b, 4);
  f.settle(2000000);
  ASSERT_EQ(f.k.cpu_rq(0)->curr, a);
  ASSERT_EQ(f.k.cpu_rq(4)->curr, b);
  // At 2 ms: a is 2 ms past its queue's 0-lag point, b 1.5 ms.
  EXPECT_EQ(static_cast<s64>(a->se.vruntime - f.k.cpu_rq(0)->cfs.zero_vruntime), 2000000);
  EXPECT_EQ(static_cast<s64>(b->se.vruntime - f.k.cpu_rq(4)->cfs.zero_vruntime), 1500000);
  EXPECT_TRUE(f.k.prio_less(a, b, false));
  EXPECT_FALSE(f.k.prio_less(b, a, false));
  // The 3 ms tick takes a past its deadline (2.8 ms): a new slice, and zero_vruntime moves up
  // to a's vruntime. Now b, 2.5 ms into its slice, is the less important.
  f.settle(3000000);
  EXPECT_EQ(a->se.vruntime, f.k.cpu_rq(0)->cfs.zero_vruntime);
  EXPECT_TRUE(f.k.prio_less(b, a, false));
  EXPECT_FALSE(f.k.prio_less(a, b, false));
}

// prev_balance() lets the classes from prev's down to, not including, the idle class balance
// (core.c): a pick whose prev is the idle task runs no newidle balance. CPU 4 is forced idle
// behind u, of another cookie than CPU 0's t; u is then migrated away, and sched_core_dequeue()
// reschedules CPU 4 (the last task left a forced-idle CPU). Its core-wide pick runs from the
// idle task, so it does not balance, although CPU 2 is overloaded and CPU 4 expects to stay
// idle long enough.
TEST(CorePick, APickFromTheIdleTaskRunsNoNewidleBalance) {
  KernelFixture f;
  task_struct *t = f.task("t"), *u = f.task("u");
  f.cookie(t);
  f.cookie(u);
  f.k.test_run(u, 4);
  f.k.test_run(t, 0);  // lone tasks tie; the picking CPU 0 wins: CPU 4 is forced idle
  f.settle(100000);    // once it takes the IPI
  ASSERT_TRUE(f.k.sched_core_forceidle(4));
  f.hog(2);
  f.k.test_enqueue(f.task("queued"), 2);
  struct rq *rq4 = f.k.cpu_rq(4);
  rq4->avg_idle = 10000000;
  const u64 attempts = rq4->newidle_attempts;
  f.k.deactivate_task(rq4, u, 0);
  f.k.set_task_cpu(u, 1);
  f.k.activate_task(f.k.cpu_rq(1), u, 0);
  ASSERT_TRUE(rq4->curr->need_resched);
  f.k.run_preempt_points();
  EXPECT_TRUE(rq4->curr->is_idle_task);
  EXPECT_EQ(rq4->newidle_attempts, attempts);
  // A task going to sleep is a fair prev: that pick balances.
  t->__state = TASK_INTERRUPTIBLE;
  f.k.cpu_rq(0)->avg_idle = 10000000;
  const u64 attempts0 = f.k.cpu_rq(0)->newidle_attempts;
  f.k.block_current(0);
  EXPECT_EQ(f.k.cpu_rq(0)->newidle_attempts, attempts0 + 1);
}

// A lone task whose sibling is forced idle gives way after half a slice (task_tick_core).
TEST(CorePick, TaskTickCoreEndsALongForcedIdle) {
  KernelFixture f;
  task_struct *u = f.task("untagged"), *t = f.task("tagged");
  f.cookie(t);
  f.k.test_run(t, 4);
  f.settle(500000);
  // Lone tasks compare equal (each against its own queue's min_vruntime): the CPU making the
  // pick wins the tie, so u takes the core and t is forced idle.
  f.k.test_run(u, 0);
  f.settle(510000);
  EXPECT_EQ(f.k.cpu_rq(0)->curr, u);
  EXPECT_TRUE(f.k.sched_core_forceidle(4));
  // Slice 2.8 ms: once u has run > 1.4 ms, a tick reschedules CPU 0; against the baselines
  // frozen when the forced idle began, t is now owed service and takes the core.
  f.settle(2600000);
  EXPECT_EQ(f.k.cpu_rq(4)->curr, t);
  EXPECT_TRUE(f.k.sched_core_forceidle(0));
  EXPECT_GE(u->core_forceidle_sum, 1400000u);  // t's forced idle was charged to the running u
}

// __sched_core_account_forceidle() charges forced idle to every sibling's pick that is not the
// idle task, scaled by count / occupation when either is above one. An occupation of zero
// ("forced idle without a running task") only warns in the kernel, and the time is charged
// unscaled. Hand-set core state: two forced-idle siblings, occupation 0, 1 ms since the start.
TEST(CoreAccounting, AnOccupationOfZeroChargesUnscaled) {
  KernelFixture f;
  task_struct *t = f.task("t");
  f.k.test_run(t, 0);
  struct rq *core = f.k.cpu_rq(0)->core;
  f.k.set_clock(1000000);
  core->core_forceidle_start = 1;
  core->core_forceidle_count = 2;
  core->core_forceidle_occupation = 0;
  const u64 before = t->core_forceidle_sum;
  f.k.sched_core_account_forceidle(f.k.cpu_rq(0));
  EXPECT_EQ(t->core_forceidle_sum - before, 1000000u - 1);
  EXPECT_EQ(core->core_forceidle_start, 1000000u);
}

TEST(CorePick, StealTakesTheCoresCookieFromAnotherCore) {
  KernelFixture f;
  task_struct *x1 = f.task("x1"), *x3 = f.task("x3"), *x2 = f.task("x2"), *y = f.task("y");
  f.cookie(x1);
  f.cookie(x2, x1);
  f.cookie(x3, x1);
  f.cookie(y);
  CpuMask m(8);
  m.set(1);
  m.set(4);  // x3 may only run on CPU 1 or 4: idle balancing cannot take it elsewhere
  x3->cpus_mask = m;
  x3->nr_cpus_allowed = 2;
  f.k.test_run(x2, 1);
  f.k.test_enqueue(x3, 1);
  f.k.test_run(y, 4);   // core {0,4} runs y's cookie...
  f.settle(2000000);    // ... for 2 ms
  f.k.test_run(x1, 0);  // x1 (no service) beats y (2 ms): the core switches to cookie x
  f.settle(2100000);
  EXPECT_EQ(f.k.cpu_rq(0)->curr, x1);
  EXPECT_EQ(f.k.cpu_rq(0)->core_cookie, x1->core_cookie);
  // CPU 4 is forced idle with y queued; it steals x3 (cookie x) from CPU 1.
  EXPECT_EQ(x3->cpu, 4);
  EXPECT_EQ(f.k.cpu_rq(4)->curr, x3);
  EXPECT_GE(x3->se.nr_migrations, 1u);
  EXPECT_EQ(f.k.cpu_rq(4)->core_stolen, 1u);  // counted on the stealing CPU
  EXPECT_EQ(f.k.cpu_rq(1)->core_stolen, 0u);
}

// ---------------------------------------------------------------------------------------------
// "Add more core cookie check in wake up fast path": each fast path skips an idle CPU whose
// sibling runs a foreign cookie with the patch, and takes it without.

namespace {
struct FastPath : ::testing::TestWithParam<const char *> {
  std::unique_ptr<KernelFixture> f;
  task_struct *foreign = nullptr, *p = nullptr;
  void make(bool patched) {
    KernelConfig cfg;
    if (patched) cfg.features.on[*find_feature(GetParam())] = true;
    f = std::make_unique<KernelFixture>(KernelFixture::default_spec(), cfg);
    f->k.sd_llc_shared(0)->nr_idle_scan = 8;
    foreign = f->task("foreign");
    f->cookie(foreign);
    f->k.test_run(foreign, 1);  // CPU 5 is idle, but its core runs `foreign`'s cookie
    p = f->sleeper(5);
    f->cookie(p);
  }
  // The core's cookie is p's, or the whole core is idle.
  bool compatible(int cpu) { return f->k.sched_core_cookie_match(f->k.cpu_rq(cpu), p); }
  // The select_idle_sibling() counters tell which step chose, and whether the core it chose ran
  // another cookie: `step` and a mismatch without the patch, neither with it.
  void expect_counted(bool patched, Kernel::SisStep step) {
    const Kernel::SisStats s = f->k.sis_stats();
    EXPECT_EQ(s.calls, 1u);
    EXPECT_EQ(s.by_step[step], patched ? 0u : 1u);
    EXPECT_EQ(s.cookie_mismatch, patched ? 0u : 1u);
  }
};
}  // namespace

TEST_P(FastPath, TargetStep) {
  for (bool patched : {false, true}) {
    make(patched);
    f->k.set_idle_cores(5, 1);
    const int cpu = f->k.select_idle_sibling(p, 5, 5);
    if (patched)
      EXPECT_TRUE(compatible(cpu) && cpu != 5) << cpu;
    else
      EXPECT_EQ(cpu, 5);
    expect_counted(patched, Kernel::SIS_TARGET);
  }
}

TEST_P(FastPath, PrevStep) {
  for (bool patched : {false, true}) {
    make(patched);
    f->hog(2);  // the waker's CPU, the affine target, is busy
    f->k.set_idle_cores(5, 1);
    p->recent_used_cpu = 2;
    const int cpu = f->k.select_idle_sibling(p, 5, 2);
    if (patched)
      EXPECT_TRUE(compatible(cpu) && cpu != 5) << cpu;
    else
      EXPECT_EQ(cpu, 5);
    expect_counted(patched, Kernel::SIS_PREV);
  }
}

TEST_P(FastPath, RecentUsedCpuStep) {
  for (bool patched : {false, true}) {
    make(patched);
    for (int c : {0, 4, 2}) f->hog(c);  // prev 0's core is full, target 2 busy
    f->k.set_idle_cores(5, 1);
    p->recent_used_cpu = 5;
    const int cpu = f->k.select_idle_sibling(p, 0, 2);
    if (patched)
      EXPECT_TRUE(compatible(cpu) && cpu != 5) << cpu;
    else
      EXPECT_EQ(cpu, 5);
    expect_counted(patched, Kernel::SIS_RECENT);
  }
}

TEST_P(FastPath, SelectIdleSmtStep) {
  for (bool patched : {false, true}) {
    make(patched);
    f->k.set_idle_cores(1, 0);  // no idle core advertised: the siblings of prev are tried
    sched_domain *sd = f->k.sd_llc(1);
    const int cpu = f->k.select_idle_smt(p, sd, 1);
    if (patched)
      EXPECT_EQ(cpu, -1);
    else
      EXPECT_EQ(cpu, 5);
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, FastPath,
                         ::testing::Values("CORE_COOKIE_FASTPATH", "CORE_COOKIE_FASTPATH_CPU_MATCH",
                                           "CORE_COOKIE_FASTPATH_IDLE_CORES"));

TEST(FastPathFeatures, TheThreeVariantsAreExclusive) {
  Features fs;
  fs.on[__SCHED_FEAT_CORE_COOKIE_FASTPATH] = true;
  EXPECT_EQ(validate_features(fs), "");
  fs.on[__SCHED_FEAT_CORE_COOKIE_FASTPATH_CPU_MATCH] = true;
  EXPECT_NE(validate_features(fs), "");
}

// [PATCH 1/4]: a tagged task may use a fully idle core whose stale core cookie differs.
TEST(SelectIdleCpuPatch, IdleCoreWithAStaleCookieIsAccepted) {
  for (bool patched : {false, true}) {
    KernelConfig cfg;
    cfg.features.on[__SCHED_FEAT_CORE_COOKIE_SELECT_IDLE_CPU] = patched;
    KernelFixture f(KernelFixture::default_spec(), cfg);
    task_struct *p = f.task("p");
    f.cookie(p);
    EXPECT_EQ(f.k.__select_idle_cpu(3, p), patched ? 3 : -1);  // core {3,7}: idle, cookie 0
  }
}

// ---------------------------------------------------------------------------------------------
// Whole runs with cookies: accounting and safety

namespace {
const char *kPairs = R"toml(
[scenario]
name = "pairs"
[machine]
cores_per_llc = 2
threads_per_core = 2
[[group]]
name = "w"
count = 6
loops = 300
phases = [ { run = "uniform(0ms, 4ms)" }, { sleep = "uniform(0ms, 6ms)" } ]
[[config]]
name = "Cookie"
cookies = [ { group = "w", per = 2 } ]
[[config]]
name = "Cookie + patch"
cookies = [ { group = "w", per = 2 } ]
features = { CORE_COOKIE_FASTPATH = true }
)toml";
}  // namespace

TEST(CoreSchedRun, EveryNanosecondIsBusyIdleOrForcedIdle) {
  const auto s = scenario::parse_scenario(kPairs, "pairs.toml");
  for (const char *config : {"Cookie", "Cookie + patch"}) {
    const auto c = scenario::choose_config(s, config, {}, {});
    engine::Simulation sim(s, c.name, c.kernel, 7);
    const auto r = schedlab::testing::checked_run(sim);
    Time busy = 0, forced = 0, runtime = 0, charged = 0;
    for (const auto &cpu : r.metrics.cpus) {
      EXPECT_EQ(cpu.busy_ns + cpu.idle_ns + cpu.forceidle_ns, r.metrics.end_ns) << config;
      busy += cpu.busy_ns;
      forced += cpu.forceidle_ns;
    }
    for (const auto &t : r.metrics.tasks) {
      runtime += t.runtime_ns;
      charged += t.core_forceidle_sum_ns;
    }
    EXPECT_EQ(runtime, busy);
    EXPECT_GT(forced, 0u) << config;
    // On SMT2 the forced idle of a CPU is charged, tick by tick, to the task on its sibling.
    EXPECT_NEAR(static_cast<double>(charged), static_cast<double>(forced),
                0.01 * static_cast<double>(forced));
  }
}

// Two cookies share a core only while the reschedule IPI of a core-wide pick is on its way:
// checked after every event. A sibling that re-picks before the other acted (an enqueue
// invalidated the pick) can chain two such windows, as in the kernel.
TEST(CoreSchedRun, DifferentCookiesShareACoreOnlyWhileAnIpiIsPending) {
  const auto s = scenario::parse_scenario(kPairs, "pairs.toml");
  for (const char *config : {"Cookie", "Cookie + patch"}) {
    const auto c = scenario::choose_config(s, config, {}, {});
    engine::Simulation sim(s, c.name, c.kernel, 3);
    Topology topo(s.topology);
    observe::CoreSafetyChecker check(topo);
    sim.add_tracer(&check);
    sim.set_after_event([&](const Kernel &k, Time now) { check.check_pending(k, now); });
    const auto r = schedlab::testing::checked_run(sim);
    check.finish(r.metrics.end_ns);
    EXPECT_GT(check.overlaps(), 0u) << "the IPI window exists, so overlaps must be seen";
    EXPECT_EQ(check.violations(), 0u) << config;
    EXPECT_LE(check.max_overlap_ns(), 4 * s.costs.wakeup_ipi_ns) << config;
  }
}

TEST(CoreSchedRun, ThePatchReducesForcedIdleOnTheFlagship) {
  const auto s =
      scenario::load_scenario(std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios/wakeup-fastpath.toml");
  Time fi[2] = {0, 0};
  int i = 0;
  for (const char *config : {"Cookie", "Cookie + patch"}) {
    const auto c = scenario::choose_config(s, config, {}, {});
    for (u64 seed = 1; seed <= 3; seed++) {
      engine::Simulation sim(s, c.name, c.kernel, seed);
      fi[i] += schedlab::testing::checked_run(sim).metrics.forceidle_ns;
    }
    i++;
  }
  EXPECT_LT(fi[1], fi[0]);
}

// The checker itself: a state the kernel would never leave standing (two cookies on one core,
// nothing rescheduling) is reported.
TEST(CoreSafetyChecker, ReportsTwoCookiesOnACoreWithNoReschedulePending) {
  KernelFixture f;
  task_struct *a = f.task("a"), *b = f.task("b");
  f.cookie(a);
  f.cookie(b, a);
  f.k.test_run(a, 0);
  f.k.test_run(b, 4);
  observe::CoreSafetyChecker check(f.topo);
  check.check_pending(f.k, 0);
  EXPECT_EQ(check.violations(), 0u);
  b->core_cookie = a->core_cookie + 1000;  // test-only: break the model behind its back
  check.check_pending(f.k, 0);
  EXPECT_EQ(check.violations(), 1u);
}

// ---------------------------------------------------------------------------------------------
// "Push tasks on force idle" (INFERRED design)

namespace {
// x runs on CPU 0; y (another cookie) arrives on sibling CPU 4 and wins the tie: x is stuck
// behind forced idle on CPU 0 while cores 1-3 are idle.
void stuck_behind_forced_idle(KernelFixture &f, task_struct *x, task_struct *y) {
  f.cookie(x);
  f.cookie(y);
  f.k.test_run(x, 0);
  f.k.test_run(y, 4);
  f.settle(20000);  // CPU 0 acts on the IPI of CPU 4's core-wide pick
}
}  // namespace

TEST(PushForceIdle, AStuckTaskGoesToAnIdleCore) {
  for (bool push : {false, true}) {
    KernelConfig cfg;
    cfg.features.on[__SCHED_FEAT_CORE_PUSH_FORCEIDLE] = push;
    KernelFixture f(KernelFixture::default_spec(), cfg);
    task_struct *x = f.task("x"), *y = f.task("y");
    stuck_behind_forced_idle(f, x, y);
    EXPECT_EQ(f.k.cpu_rq(4)->curr, y);
    if (push) {
      EXPECT_EQ(x->cpu, 1);  // the nearest CPU whose whole core is idle
      EXPECT_EQ(f.k.cpu_rq(1)->curr, x);
      EXPECT_FALSE(f.k.sched_core_forceidle(0));
      EXPECT_EQ(f.k.cpu_rq(0)->core_pushed, 1u);
    } else {
      EXPECT_EQ(x->cpu, 0);
      EXPECT_TRUE(f.k.sched_core_forceidle(0));
    }
  }
}

TEST(PushForceIdle, NeverBreaksAffinityOrCookies) {
  KernelConfig cfg;
  cfg.features.on[__SCHED_FEAT_CORE_PUSH_FORCEIDLE] = true;
  KernelFixture f(KernelFixture::default_spec(), cfg);
  task_struct *x = f.task("x"), *y = f.task("y");
  // Every other core runs a third cookie on one thread: no core could take x without mixing.
  for (int c : {1, 2, 3}) {
    task_struct *z = f.task("z");
    f.cookie(z);
    f.k.test_run(z, c);
  }
  stuck_behind_forced_idle(f, x, y);
  EXPECT_EQ(x->cpu, 0);  // CPUs 5-7 are idle, but their cores run other cookies
  // And a task pinned to its CPU stays there whatever is idle.
  KernelFixture g(KernelFixture::default_spec(), cfg);
  task_struct *px = g.task("x"), *py = g.task("y");
  CpuMask only0(8);
  only0.set(0);
  px->cpus_mask = only0;
  px->nr_cpus_allowed = 1;
  stuck_behind_forced_idle(g, px, py);
  EXPECT_EQ(px->cpu, 0);
  EXPECT_TRUE(g.k.sched_core_forceidle(0));
}

// FI_IDLE_FOR_LB: balancing counts a forced-idle CPU as idle.
TEST(ForceIdleAwareLb, AForcedIdleCpuCountsAsIdleForBalancing) {
  for (bool aware : {false, true}) {
    KernelConfig cfg;
    cfg.features.on[__SCHED_FEAT_FI_IDLE_FOR_LB] = aware;
    KernelFixture f(KernelFixture::default_spec(), cfg);
    task_struct *x = f.task("x"), *y = f.task("y");
    stuck_behind_forced_idle(f, x, y);
    ASSERT_TRUE(f.k.sched_core_forceidle(0));
    EXPECT_FALSE(f.k.idle_cpu(0));
    EXPECT_EQ(f.k.lb_idle_cpu(0), aware);
  }
}

// LB_COOKIE_SMT: at the SMT level a cookie mismatch makes a task cache hot too.
TEST(ForceIdleAwareLb, CookieCheckAtTheSmtLevel) {
  for (bool smt : {false, true}) {
    KernelConfig cfg;
    cfg.features.on[__SCHED_FEAT_LB_COOKIE_SMT] = smt;
    KernelFixture f(KernelFixture::default_spec(), cfg);
    task_struct *x = f.task("x"), *q = f.task("q");
    f.cookie(x);
    f.cookie(q);
    f.k.test_run(x, 4);  // core {0,4} runs x's cookie
    f.k.set_clock(10000000);
    EXPECT_EQ(f.k.task_hot(q, f.k.cpu_rq(0)->sd, 0, 1), smt);
  }
}

// core_push_forceidle_tick: a push that found no target retries from the sibling's ticks.
TEST(PushForceIdle, TheTickRetriesWhenACoreFreesUp) {
  for (int tick : {0, 1}) {
    KernelConfig cfg;
    cfg.features.on[__SCHED_FEAT_CORE_PUSH_FORCEIDLE] = true;
    cfg.tunables.v[TUNABLE_core_push_forceidle_tick] = tick;
    KernelFixture f(KernelFixture::default_spec(), cfg);
    task_struct *x = f.task("x"), *y = f.task("y");
    task_struct *z[4] = {};
    for (int c : {1, 2, 3}) {
      z[c] = f.task("z");
      f.cookie(z[c]);
      f.k.test_run(z[c], c);
    }
    stuck_behind_forced_idle(f, x, y);
    ASSERT_EQ(x->cpu, 0);  // no core could take it
    f.k.set_clock(30000);
    z[1]->__state = TASK_INTERRUPTIBLE;
    f.k.block_current(1);  // core {1,5} is now wholly idle
    f.settle(1500000);     // CPU 4 (running y) ticks at 1 ms
    if (tick)
      EXPECT_TRUE(x->cpu == 1 || x->cpu == 5) << x->cpu;
    else
      EXPECT_EQ(x->cpu, 0);
  }
}

// SMT4: forced idle is charged to each running task scaled by forced-idle siblings over
// running siblings (__sched_core_account_forceidle()), so that the sum over the core's tasks
// equals the forced-idle CPU time. Hand-set core state, 1 ms (less the start stamp of 1 ns)
// since the episode began, on core {0, 2, 4, 6}.
TEST(CoreAccounting, Smt4ScalesTheChargeByForcedIdleOverRunningSiblings) {
  struct Case {
    unsigned running, forced_idle;
    u64 charge;
  };
  const u64 d = 1000000 - 1;
  for (const Case c : {Case{1, 3, 3 * d}, Case{3, 1, d / 3}, Case{2, 2, d}, Case{1, 1, d}}) {
    TopologySpec s;
    s.cores_per_llc = 2;
    s.threads_per_core = 4;
    KernelFixture f(s);
    ASSERT_EQ(f.k.cpu_smt_cpus(0).size(), 4u);
    std::vector<task_struct *> tasks;
    for (unsigned i = 0; i < c.running; i++) {
      tasks.push_back(f.task("t"));
      f.k.test_run(tasks.back(), f.k.cpu_smt_cpus(0)[i]);
    }
    struct rq *core = f.k.cpu_rq(0)->core;
    f.k.set_clock(1000000);
    core->core_forceidle_start = 1;
    core->core_forceidle_count = c.forced_idle;
    core->core_forceidle_occupation = c.running;
    f.k.sched_core_account_forceidle(f.k.cpu_rq(0));
    for (task_struct *t : tasks)
      EXPECT_EQ(t->core_forceidle_sum, c.charge)
          << c.running << " running, " << c.forced_idle << " forced idle";
  }
}
