// SPDX-License-Identifier: GPL-2.0-only
// Idle states ([machine.idle]): the menu governor's choice when a CPU goes idle, the exit
// latency a wakeup IPI then pays, and the scenario syntax. 8 CPUs, 4 cores x 2 threads, with
// intel_idle's Ice Lake-SP table (C1 1/1 us, C1E 4/4 us, C6 170/600 us).
#include <gtest/gtest.h>

#include "kernel_fixture.h"
#include "machine/idle_states.h"

using namespace schedlab;
using namespace schedlab::kernel;
using schedlab::testing::KernelFixture;

namespace {

constexpr Time kUs = NSEC_PER_USEC;

MachineCosts icx() {
  MachineCosts c;
  const IdlePreset *p = find_idle_preset("icx");
  c.nr_idle_states = static_cast<int>(p->states.size());
  for (std::size_t i = 0; i < p->states.size(); i++) {
    c.idle_exit_latency_ns[i] = p->states[i].exit_latency_ns;
    c.idle_target_residency_ns[i] = p->states[i].target_residency_ns;
  }
  return c;
}

// CPU 1 runs a task that blocks, leaving it idle through __schedule() (which picks a state);
// the task is returned asleep, with CPU 1 as its previous CPU.
task_struct *idle_cpu1_by_blocking(KernelFixture &f) {
  task_struct *p = f.task("sleeper");
  f.k.test_run(p, 1);
  p->__state = TASK_INTERRUPTIBLE;
  f.k.block_current(1);
  return p;
}

// CPU 0 (busy) wakes p onto idle CPU 1; returns how long until p ran there.
Time wake_onto_cpu1(KernelFixture &f, task_struct *p) {
  const Time t0 = f.k.clock();
  f.k.try_to_wake_up(p, 0, 0);
  f.k.run_preempt_points();
  for (Time t = t0; t <= t0 + 1000 * kUs; t += kUs) {
    f.settle(t);
    if (f.k.cpu_rq(1)->curr == p) return t - t0;
  }
  return ~Time{0};
}

}  // namespace

TEST(Cpuidle, WithoutStatesAWakeupTakesTheIpiAlone) {
  KernelFixture f;
  f.hog(0);
  task_struct *p = idle_cpu1_by_blocking(f);
  EXPECT_EQ(f.k.idle_exit_latency(1), kNotInIdleState);
  EXPECT_EQ(wake_onto_cpu1(f, p), MachineCosts{}.wakeup_ipi_ns);
}

// No history (menu's intervals start at 0: "no pattern") and no timer: the deepest state, whose
// exit latency the wakeup pays on top of the IPI.
TEST(Cpuidle, AFreshIdleCpuGoesDeepAndItsWakeupPaysTheExitLatency) {
  KernelFixture f(KernelFixture::default_spec(), {}, icx());
  f.hog(0);
  task_struct *p = idle_cpu1_by_blocking(f);
  EXPECT_EQ(f.k.idle_exit_latency(1), 170 * kUs);
  EXPECT_EQ(wake_onto_cpu1(f, p), MachineCosts{}.wakeup_ipi_ns + 170 * kUs);
  EXPECT_EQ(f.k.cpu_rq(1)->idle_exit_ns, 170 * kUs);
  EXPECT_EQ(f.k.idle_exit_latency(1), kNotInIdleState);  // running, in no state
}

// Eight idle periods of about 20 us make a typical interval: C1E (target 4 us) fits, C6
// (600 us) does not.
TEST(Cpuidle, ARegularShortIdlePatternSelectsAShallowState) {
  KernelFixture f(KernelFixture::default_spec(), {}, icx());
  f.hog(0);
  task_struct *p = idle_cpu1_by_blocking(f);
  for (int i = 0; i < 9; i++) {
    wake_onto_cpu1(f, p);
    p->__state = TASK_INTERRUPTIBLE;
    f.k.block_current(1);
    f.settle(f.k.clock() + 20 * kUs);
  }
  EXPECT_EQ(f.k.idle_exit_latency(1), 4 * kUs);
  EXPECT_EQ(wake_onto_cpu1(f, p), MachineCosts{}.wakeup_ipi_ns + 4 * kUs);
}

// A sleep timer armed on the CPU due in 100 us caps the prediction: C1E, not C6.
TEST(Cpuidle, TheNextTimerOnTheCpuCapsThePrediction) {
  KernelFixture f(KernelFixture::default_spec(), {}, icx());
  f.hog(0);
  task_struct *p = f.task("sleeper");
  f.k.test_run(p, 1);
  p->__state = TASK_INTERRUPTIBLE;
  f.k.hrtimer_start(1, f.k.clock() + 100 * kUs);
  f.k.block_current(1);
  EXPECT_EQ(f.k.idle_exit_latency(1), 4 * kUs);
  // Once it fired, nothing bounds the next idle period: C6 again.
  f.k.hrtimer_expired(1, f.k.clock() + 100 * kUs);
  idle_cpu1_by_blocking(f);
  EXPECT_EQ(f.k.idle_exit_latency(1), 170 * kUs);
}

TEST(Cpuidle, PresetsAreIntelIdleTablesShallowestFirst) {
  for (const IdlePreset &p : idle_presets()) {
    ASSERT_EQ(p.states.size(), 3u) << p.name;
    for (std::size_t i = 1; i < p.states.size(); i++) {
      EXPECT_GE(p.states[i].exit_latency_ns, p.states[i - 1].exit_latency_ns) << p.name;
      EXPECT_GE(p.states[i].target_residency_ns, p.states[i - 1].target_residency_ns) << p.name;
    }
  }
  const IdlePreset *spr = find_idle_preset("spr");
  ASSERT_NE(spr, nullptr);
  EXPECT_EQ(spr->states[2].exit_latency_ns, 290 * kUs);
  EXPECT_EQ(spr->states[2].target_residency_ns, 800 * kUs);
  EXPECT_EQ(find_idle_preset("C6"), nullptr);
}
