// SPDX-License-Identifier: GPL-2.0-only
// rt-app's events between tasks in whole runs: periodic timers, barriers, suspend/resume,
// mutexes, condition variables and sched_yield(), each in a small hand-built situation on a
// machine whose switches, IPIs and timer slack cost nothing, so the times are exact.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "checked_run.h"
#include "engine/simulation.h"
#include "kernel/trace.h"
#include "kernel_fixture.h"
#include "scenario/config.h"

using namespace schedlab;

namespace {

// When each task woke up and exited, by comm.
struct Recorder : kernel::TraceSink {
  std::map<std::string, std::vector<Time>> wakeups;
  std::map<std::string, Time> exits;
  void sched_wakeup(Time t, const kernel::task_struct *p, int) override {
    wakeups[p->comm].push_back(t);
  }
  void sched_process_exit(Time t, const kernel::task_struct *p) override { exits[p->comm] = t; }
};

const std::string kHead = R"toml(
[scenario]
name = "phases"
duration = "1s"
[machine]
cores_per_llc = 4
threads_per_core = 1
[machine.costs]
context_switch = "0"
wakeup_ipi = "0"
migration_penalty = "0"
cross_llc_migration_penalty = "0"
newidle_balance_base = "0"
newidle_balance_per_cpu = "0"
[kernel.tunables]
timer_slack_ns = 0
)toml";

struct Outcome {
  Recorder rec;
  engine::RunResult result;
};

Outcome run(const std::string &groups) {
  const auto s = scenario::parse_scenario(kHead + groups, "phases.toml");
  auto c = scenario::choose_config(s, "", {}, {});
  engine::Simulation sim(s, c.name, c.kernel, 1);
  Outcome r;
  sim.add_tracer(&r.rec);
  r.result = schedlab::testing::checked_run(sim);
  return r;
}

constexpr Time ms = NSEC_PER_MSEC;

TEST(Phases, PeriodicTimerWakesAtEveryBoundaryFromTheTaskStart) {
  Outcome r = run(R"toml(
[[group]]
name = "tick"
start = "2ms"
loops = 3
phases = [ { run = "1ms" }, { timer = "10ms", ref = "t" } ]
)toml");
  // t_first is the task's start (2 ms): boundaries at 12, 22, 32 ms, whatever the run costs.
  EXPECT_EQ(r.rec.wakeups["tick"], (std::vector<Time>{12 * ms, 22 * ms, 32 * ms}));
  EXPECT_EQ(r.rec.exits["tick"], 32 * ms);
}

// A 25 ms run overruns a 10 ms timer twice; then runs of 1 ms.
const char *kOverrun = R"toml(
[[group]]
name = "late"
phases = [ { run = "25ms" }, { timer = "10ms", ref = "t", mode = "MODE" },
           { run = "1ms" }, { timer = "10ms", ref = "t", mode = "MODE" },
           { run = "1ms" }, { timer = "10ms", ref = "t", mode = "MODE" } ]
)toml";

std::string with_mode(const char *mode) {
  std::string s = kOverrun;
  for (auto p = s.find("MODE"); p != std::string::npos; p = s.find("MODE")) s.replace(p, 4, mode);
  return s;
}

TEST(Phases, AbsoluteTimerKeepsItsGridAfterAnOverrun) {
  Outcome r = run(with_mode("absolute"));
  // Boundaries 10 and 20 are missed (at 25 and 26 ms: no sleep); 30 is still on the grid.
  EXPECT_EQ(r.rec.wakeups["late"], (std::vector<Time>{30 * ms}));
  EXPECT_EQ(r.rec.exits["late"], 30 * ms);
}

TEST(Phases, RelativeTimerRestartsFromTheOverrun) {
  Outcome r = run(with_mode("relative"));
  // Missed at 25 ms: the grid restarts there, so 35 ms, then 45 ms.
  EXPECT_EQ(r.rec.wakeups["late"], (std::vector<Time>{35 * ms, 45 * ms}));
  EXPECT_EQ(r.rec.exits["late"], 45 * ms);
}

TEST(Phases, BarrierReleasesEveryUserOnlyWhenTheLastArrives) {
  Outcome r = run(R"toml(
[[group]]
name = "a"
cpus = "0"
phases = [ { sleep = "2ms" }, { barrier = "b" }, { run = "1ms" } ]
[[group]]
name = "b"
cpus = "1"
phases = [ { sleep = "4ms" }, { barrier = "b" }, { run = "1ms" } ]
[[group]]
name = "c"
cpus = "2"
phases = [ { sleep = "6ms" }, { barrier = "b" }, { run = "1ms" } ]
)toml");
  // a and b wait at the barrier; c, the last, wakes them at 6 ms.
  EXPECT_EQ(r.rec.wakeups["a"], (std::vector<Time>{2 * ms, 6 * ms}));
  EXPECT_EQ(r.rec.wakeups["b"], (std::vector<Time>{4 * ms, 6 * ms}));
  for (const char *t : {"a", "b", "c"}) EXPECT_EQ(r.rec.exits[t], 7 * ms) << t;
}

TEST(Phases, SuspendBlocksUntilAResumeAndAnEarlierResumeIsLost) {
  Outcome r = run(R"toml(
[[group]]
name = "s"
cpus = "0"
phases = [ { suspend = "x" }, { run = "1ms" }, { suspend = "x" }, { run = "1ms" } ]
[[group]]
name = "r"
cpus = "1"
phases = [ { sleep = "5ms" }, { resume = "x" }, { run = "3ms" }, { resume = "x" } ]
)toml");
  // Woken at 5 ms; it suspends again at 6 ms and the resume at 8 ms wakes it.
  EXPECT_EQ(r.rec.exits["s"], 9 * ms);

  Outcome lost = run(R"toml(
[[group]]
name = "s"
cpus = "0"
phases = [ { sleep = "5ms" }, { suspend = "x" }, { run = "1ms" } ]
[[group]]
name = "r"
cpus = "1"
phases = [ { sleep = "1ms" }, { resume = "x" } ]
)toml");
  // The resume came before anyone waited: s waits until the end of the run.
  EXPECT_EQ(lost.rec.exits.count("s"), 0u);
  EXPECT_EQ(lost.rec.exits.count("r"), 1u);
}

TEST(Phases, MutexSerialisesItsHolders) {
  Outcome r = run(R"toml(
[[group]]
name = "m"
count = 3
phases = [ { lock = "m" }, { run = "2ms" }, { unlock = "m" } ]
)toml");
  // Three CPUs, but one holder at a time: they leave at 2, 4 and 6 ms.
  std::vector<Time> exits;
  for (const auto &[comm, t] : r.rec.exits) exits.push_back(t);
  std::sort(exits.begin(), exits.end());
  EXPECT_EQ(exits, (std::vector<Time>{2 * ms, 4 * ms, 6 * ms}));
}

TEST(Phases, ConditionWaitReleasesTheMutexAndRetakesItWhenSignalled) {
  Outcome r = run(R"toml(
[[group]]
name = "w"
cpus = "0"
phases = [ { lock = "m" }, { wait = "c", mutex = "m" }, { run = "1ms" }, { unlock = "m" } ]
[[group]]
name = "s"
cpus = "1"
start = "1ms"
phases = [ { lock = "m" }, { signal = "c" }, { run = "3ms" }, { unlock = "m" } ]
)toml");
  // s can lock at 1 ms only because w's wait released m; w is signalled at 1 ms but needs m,
  // which s holds until 4 ms.
  EXPECT_EQ(r.rec.exits["s"], 4 * ms);
  EXPECT_EQ(r.rec.exits["w"], 5 * ms);
}

// a runs 1 ms, then 0.5 ms; b (batch: it does not preempt on wakeup) is queued from 0.5 ms.
std::string yield_case(const char *middle) {
  return std::string(R"toml(
[[group]]
name = "a"
cpus = "0"
phases = [ { run = "1ms" }, )toml") +
         middle + R"toml(, { run = "500us" } ]
[[group]]
name = "b"
cpus = "0"
policy = "batch"
start = "500us"
phases = [ { run = "1ms" } ]
)toml";
}

TEST(Phases, YieldLetsTheOtherTaskOnTheCpuRunFirst) {
  Outcome y = run(yield_case("{ yield = true }"));
  EXPECT_EQ(y.rec.exits["b"], 2 * ms);
  EXPECT_EQ(y.rec.exits["a"], 2 * ms + 500 * NSEC_PER_USEC);
  EXPECT_EQ(y.result.sched[0].stat[engine::STAT_yld_count], 1u);
  // Without the yield a keeps the CPU for its slice and finishes first.
  Outcome n = run(yield_case("{ run = \"0\" }"));
  EXPECT_EQ(n.rec.exits["a"], 1 * ms + 500 * NSEC_PER_USEC);
  EXPECT_EQ(n.rec.exits["b"], 2 * ms + 500 * NSEC_PER_USEC);
  EXPECT_EQ(n.result.sched[0].stat[engine::STAT_yld_count], 0u);
}

// yield_task_fair() itself: the eligible yielder forfeits the rest of its request (vruntime to
// its deadline, then update_deadline(): deadline one slice on), so a task it was ahead of is
// picked instead.
TEST(Phases, YieldPushesTheDeadlineBackOneSlice) {
  schedlab::testing::KernelFixture f;
  kernel::task_struct *a = f.task("a"), *b = f.task("b");
  f.k.test_run(a, 0);
  f.k.test_enqueue(b, 0);  // at V with a full slice: the same deadline as a, enqueued later
  kernel::rq *rq = f.k.cpu_rq(0);
  ASSERT_EQ(a->se.deadline, b->se.deadline);
  ASSERT_EQ(f.k.pick_eevdf(&rq->cfs), &a->se);  // without the yield, a would run on
  const u64 before = a->se.deadline;
  f.k.sys_sched_yield(0);
  EXPECT_EQ(a->se.vruntime, before);
  EXPECT_EQ(a->se.deadline, before + f.k.calc_delta_fair(a->se.slice, &a->se));
  // update_deadline() moved zero_vruntime to V, the mean of the two equal-weight vruntimes.
  EXPECT_EQ(rq->cfs.zero_vruntime, b->se.vruntime + (before - b->se.vruntime) / 2);
  EXPECT_FALSE(f.k.entity_eligible(&rq->cfs, &a->se));
  EXPECT_EQ(rq->curr, b);
  EXPECT_EQ(a->__state, kernel::TASK_RUNNING);  // still runnable, just behind b
  EXPECT_EQ(rq->yld_count, 1u);
}

TEST(Phases, YieldAloneInTheQueueChangesNothing) {
  schedlab::testing::KernelFixture f;
  kernel::task_struct *a = f.task("a");
  f.k.test_run(a, 0);
  const u64 before = a->se.deadline;
  f.k.sys_sched_yield(0);
  EXPECT_EQ(a->se.deadline, before);
  EXPECT_EQ(f.k.cpu_rq(0)->curr, a);
  EXPECT_EQ(f.k.cpu_rq(0)->yld_count, 1u);
}

TEST(Phases, YieldAloneOnTheCpuCostsOneSwitch) {
  Outcome r = run(R"toml(
[[group]]
name = "a"
phases = [ { yield = true }, { run = "1ms" } ]
)toml");
  // Nothing else to run: the yield only costs its system call (context_switch, 0 here).
  EXPECT_EQ(r.rec.exits["a"], 1 * ms);
}

TEST(Phases, TomlRejectsBadSynchronisationPhases) {
  auto error_of = [](const std::string &phases) {
    try {
      scenario::parse_scenario(kHead + "[[group]]\nname = \"g\"\nphases = " + phases + "\n",
                               "p.toml");
    } catch (const scenario::ScenarioError &e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(error_of(R"([ { timer = "1ms", mode = "sometimes" } ])")
                .find("group[0].phases[0].mode: expected \"absolute\" or \"relative\""),
            std::string::npos);
  EXPECT_NE(error_of(R"([ { wait = "c" } ])").find("phases[0].mutex: missing required key"),
            std::string::npos);
  EXPECT_NE(error_of(R"([ { lock = "m", mutex = "n" } ])")
                .find("phases[0].mutex: not allowed in a 'lock' phase"),
            std::string::npos);
  EXPECT_NE(error_of(R"([ { lock = "m", run = "1ms" } ])")
                .find("a phase has exactly one of run, runtime"),
            std::string::npos);
  EXPECT_NE(error_of(R"([ { timer = "0" } ])").find("the period must be > 0"), std::string::npos);
  // loops = 0 (forever) with nothing that takes time would spin at one instant.
  const std::string spin =
      "[ { lock = \"m\" }, { resume = \"x\" }, { unlock = \"m\" } ]\nloops = 0";
  EXPECT_NE(error_of(spin).find("group[0].phases: the task loops forever and none of its phases "
                                "takes time or waits"),
            std::string::npos)
      << error_of(spin);
}

}  // namespace
