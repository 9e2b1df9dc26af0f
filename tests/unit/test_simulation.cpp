// SPDX-License-Identifier: GPL-2.0-only
// Whole runs: time conservation, determinism, and the flagship baseline.
#include <gtest/gtest.h>

#include <numeric>

#include "checked_run.h"
#include "engine/simulation.h"
#include "experiment/result_json.h"
#include "scenario/config.h"
#include "stuck_scenario.h"

using namespace schedlab;

namespace {

const char *kSmall = R"toml(
[scenario]
name = "small"
seed = 3
[machine]
cores_per_llc = 2
threads_per_core = 2
[[group]]
name = "w"
count = 6
loops = 200
phases = [ { run = "uniform(0ms, 4ms)" }, { sleep = "exp(3ms)" } ]
[[group]]
name = "rt"
count = 2
nice = -5
loops = 100
phases = [ { runtime = "normal(1ms, 300us)" }, { sleep = "uniform(0us, 500us)" } ]
)toml";

engine::RunResult run(const scenario::Scenario &s, u64 seed, const std::string &config = "") {
  auto c = scenario::choose_config(s, config, {}, {});
  engine::Simulation sim(s, c.name, c.kernel, seed);
  return schedlab::testing::checked_run(sim);
}

}  // namespace

TEST(Simulation, EveryNanosecondOfEveryCpuIsBusyOrIdle) {
  const auto s = scenario::parse_scenario(kSmall, "small.toml");
  const auto r = run(s, 1);
  ASSERT_GT(r.metrics.end_ns, 0u);
  Time busy = 0;
  for (const auto &c : r.metrics.cpus) {
    EXPECT_EQ(c.busy_ns + c.idle_ns, r.metrics.end_ns) << "cpu " << c.cpu;
    busy += c.busy_ns;
  }
  // A busy CPU is running exactly one task: the tasks' runtimes add up to the busy time.
  Time runtime = 0, wait = 0, run_delay = 0;
  for (const auto &t : r.metrics.tasks) runtime += t.runtime_ns, wait += t.wait_ns;
  EXPECT_EQ(runtime, busy);
  // schedstat's run_delay, counted where each wait ended, adds up to the tasks' waits.
  for (const auto &c : r.metrics.cpus) run_delay += c.run_delay_ns;
  EXPECT_EQ(run_delay, wait);
}

TEST(Simulation, EveryTaskIsRunningWaitingOrSleepingFromForkToExit) {
  const auto s = scenario::parse_scenario(kSmall, "small.toml");
  const auto r = run(s, 2);
  for (const auto &t : r.metrics.tasks) {
    ASSERT_TRUE(t.exited) << t.comm;
    EXPECT_EQ(t.runtime_ns + t.wait_ns + t.sleep_ns, t.exit_ns - t.start_ns) << t.comm;
  }
}

TEST(Simulation, SameSeedGivesIdenticalJsonOutsideHost) {
  const auto s = scenario::parse_scenario(kSmall, "small.toml");
  auto a = experiment::run_to_json(run(s, 5), s);
  auto b = experiment::run_to_json(run(s, 5), s);
  a.erase("host");
  b.erase("host");
  EXPECT_EQ(a.dump(), b.dump());
  auto c = experiment::run_to_json(run(s, 6), s);
  EXPECT_NE(a["completion_time_ns"], c["completion_time_ns"]);
}

// A task's demands depend only on its seed: a configuration that changes the scheduler (here
// the tick rate) leaves the work each task does unchanged (common random numbers).
TEST(Simulation, ConfigurationsSeeTheSameDemands) {
  auto s = scenario::parse_scenario(kSmall, "small.toml");
  auto c1 = scenario::choose_config(s, "", {}, {});
  auto c2 = scenario::choose_config(s, "", {"WA_IDLE=false"}, {"hz=250"});
  engine::Simulation a(s, c1.name, c1.kernel, 9), b(s, c2.name, c2.kernel, 9);
  const auto ra = schedlab::testing::checked_run(a), rb = schedlab::testing::checked_run(b);
  ASSERT_EQ(ra.metrics.tasks.size(), rb.metrics.tasks.size());
  bool any_diff = false;
  for (std::size_t i = 0; i < ra.metrics.tasks.size(); i++) {
    // Sleep requests are identical, so total sleep differs only through timer placement:
    // equal within the wakeup latencies; runtime differs only by switch and cache costs.
    any_diff |= ra.metrics.tasks[i].wait_ns != rb.metrics.tasks[i].wait_ns;
    EXPECT_NEAR(static_cast<double>(ra.metrics.tasks[i].sleep_ns),
                static_cast<double>(rb.metrics.tasks[i].sleep_ns),
                0.01 * static_cast<double>(ra.metrics.tasks[i].sleep_ns));
  }
  EXPECT_TRUE(any_diff);  // but the schedule itself did change
}

TEST(Simulation, StressTasksRunUntilTheDuration) {
  const auto s = scenario::parse_scenario(R"toml(
[scenario]
name = "stress"
duration = "50ms"
[machine]
cores_per_llc = 1
threads_per_core = 2
[[group]]
name = "hog"
count = 3
stress = true
)toml",
                                          "stress.toml");
  const auto r = run(s, 1);
  EXPECT_EQ(r.metrics.end_ns, 50000000u);
  Time runtime = 0;
  for (const auto &t : r.metrics.tasks) {
    EXPECT_GT(t.runtime_ns, 20000000u) << t.comm;  // three hogs fairly share two CPUs
    runtime += t.runtime_ns;
  }
  // Both CPUs are busy from the moment the forked tasks arrive (one IPI after t = 0) to the end.
  EXPECT_GE(runtime, 2 * (50000000u - 10000u));
  EXPECT_LE(runtime, 2 * 50000000u);
}

// A task that was to finish but sleeps for good (a suspend nobody resumes) is named once
// nothing is left to happen; a run cut short by its duration, or one that finishes, has none.
TEST(Simulation, TasksAsleepForGoodAreNamed) {
  const char *kStuck = schedlab::testing::kStuckScenario;
  const auto stuck = scenario::parse_scenario(kStuck, "stuck.toml");
  const auto r = run(stuck, 1);
  EXPECT_EQ(r.stuck_tasks, std::vector<std::string>{"waiter"});
  EXPECT_EQ(experiment::run_to_json(r, stuck)["stuck_tasks"][0], "waiter");
  const auto cut = scenario::parse_scenario(
      std::string(kStuck).replace(std::string(kStuck).find("[machine]"), 0, "duration = \"3ms\"\n"),
      "cut.toml");
  EXPECT_TRUE(run(cut, 1).stuck_tasks.empty());  // the worker still had work when time ran out
  EXPECT_TRUE(run(scenario::parse_scenario(kSmall, "small.toml"), 1).stuck_tasks.empty());
}

// The issue's acceptance check: 10 seeds of "No cookie" average within 2 % of the seed
// mail's 24.564 s.
TEST(Flagship, NoCookieCompletionTimeMatchesTheSeedMail) {
  const auto s =
      scenario::load_scenario(std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios/wakeup-fastpath.toml");
  double sum = 0;
  for (u64 seed = 1; seed <= 10; seed++)
    sum += static_cast<double>(run(s, seed, "No cookie").metrics.completion_ns) / 1e9;
  const double mean = sum / 10;
  EXPECT_NEAR(mean, 24.564, 0.02 * 24.564) << "mean completion " << mean << " s";
}

// Kernel threads ([[group]] kthread = true): one bound to each CPU with per_cpu, left out of
// the workload's statistics, and drawing from streams of their own, so that adding them leaves
// every workload task's demands as they were (the twin, which does not start them, runs the
// same demands).
TEST(Simulation, KernelThreadsAreBoundPerCpuAndLeaveTheWorkloadsDemandsAlone) {
  const std::string workload = R"toml(
[scenario]
name = "kt"
seed = 5
[machine]
cores_per_llc = 2
threads_per_core = 2
# No switch or migration costs: a task's CPU time is then exactly what its phases drew.
[machine.costs]
context_switch = "0"
migration_penalty = "0"
cross_llc_migration_penalty = "0"
newidle_balance_base = "0"
newidle_balance_per_cpu = "0"
[[group]]
name = "w"
count = 5
loops = 100
phases = [ { runtime = "uniform(0ms, 4ms)" }, { sleep = "uniform(0ms, 6ms)" } ]
[[config]]
name = "cookie"
cookies = [ { group = "w", per = 2 } ]
)toml";
  const std::string noise = R"toml(
[[group]]
name = "kworker"
kthread = true
per_cpu = true
loops = 0
phases = [ { sleep = "exp(1ms)" }, { runtime = "exp(100us)" } ]
)toml";
  const auto bare = scenario::parse_scenario(workload, "kt.toml");
  const auto with = scenario::parse_scenario(workload + noise, "kt.toml");
  const auto a = run(bare, 1, "cookie");
  const auto b = run(with, 1, "cookie");

  Time work_a = 0, work_b = 0;
  int kthreads = 0;
  for (const auto &t : a.metrics.tasks) work_a += t.runtime_ns;
  for (const auto &t : b.metrics.tasks) {
    if (!t.kthread) {
      work_b += t.runtime_ns;
      continue;
    }
    EXPECT_EQ(t.comm, "kworker/" + std::to_string(kthreads));
    EXPECT_EQ(t.nr_migrations, 0u) << t.comm;  // bound to its CPU
    EXPECT_GT(t.nr_switches, 100u) << t.comm;  // it ran, about once a millisecond
    kthreads++;
  }
  EXPECT_EQ(kthreads, 4);
  // The workers' CPU time is what their streams drew: the same with and without kthreads.
  EXPECT_EQ(work_a, work_b);
  // The kthreads disturb the workload: it ends later.
  EXPECT_GT(b.metrics.completion_ns, a.metrics.completion_ns);
  // Forced idle charged to a kthread (no cookie: its sibling's cookied task cannot run) is the
  // kernel's: the run keeps it apart.
  EXPECT_GT(b.metrics.kthread_forceidle_ns, 0u);
}
