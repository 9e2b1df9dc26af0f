// SPDX-License-Identifier: GPL-2.0-only
#include <gtest/gtest.h>

#include <string>

#include "scenario/scenario.h"

namespace schedlab::scenario {
namespace {

using Kind = Phase::Kind;

std::string error_of(const std::string &text, const std::string &file = "t.json") {
  try {
    parse_rtapp(text, file);
  } catch (const ScenarioError &e) {
    return e.what();
  }
  return "(no error)";
}

TEST(RtApp, SinglePhaseTaskWithLoopRunsItsEventsThatManyTimes) {
  const Scenario s = parse_rtapp(R"({
    "tasks": { "thread0": { "instance": 3, "loop": 5, "priority": -5, "cpus": [2, 0],
                            "delay": 1500, "run": 2000, "sleep": 8000, "runtime0": 100 } }
  })",
                                 "x/one.json");
  EXPECT_EQ(s.name, "one");
  EXPECT_EQ(s.duration_ns, 0u);
  ASSERT_EQ(s.groups.size(), 1u);
  const TaskGroupSpec &g = s.groups[0];
  EXPECT_EQ(g.name, "thread0");
  EXPECT_EQ(g.count, 3);
  EXPECT_EQ(g.loops, 5u);
  EXPECT_EQ(g.nice, -5);
  EXPECT_EQ(g.cpus, (std::vector<int>{0, 2}));
  EXPECT_EQ(g.start.a, 1500000u);
  ASSERT_EQ(g.phases.size(), 3u);
  EXPECT_EQ(g.phases[0].kind, Kind::Run);
  EXPECT_EQ(g.phases[0].dist.a, 2000000u);
  EXPECT_EQ(g.phases[1].kind, Kind::Sleep);
  EXPECT_EQ(g.phases[1].dist.a, 8000000u);
  EXPECT_EQ(g.phases[2].kind, Kind::Runtime);
  EXPECT_EQ(g.phases[2].dist.a, 100000u);
  // The default machine: 1 socket x 4 cores x SMT2.
  EXPECT_EQ(s.topology.cores_per_llc, 4);
  EXPECT_EQ(s.topology.threads_per_core, 2);
}

TEST(RtApp, PhasesBecomeLoopsAndRepeatedKeysKeepFileOrder) {
  // The workgen dialect: comments, a repeated key, trailing commas.
  const Scenario s = parse_rtapp(R"({
    /* two phases */
    "tasks": { "t": { "loop": 2, "phases": {
        "p1": { "run": 10, "sleep": 20, "run": 30, },
        "p2": { "loop": 4, "sleep": 40 },
    } } },
    "global": { "duration": 3, "calibration": "CPU0", "default_policy": "SCHED_BATCH" },
  })",
                                 "t.json");
  EXPECT_EQ(s.duration_ns, 3000000000u);
  const TaskGroupSpec &g = s.groups.at(0);
  EXPECT_EQ(g.loops, 2u);
  EXPECT_EQ(g.policy, Policy::Batch);
  ASSERT_EQ(g.phases.size(), 4u);
  EXPECT_EQ(g.phases[0].dist.a, 10000u);
  EXPECT_EQ(g.phases[1].kind, Kind::Sleep);
  EXPECT_EQ(g.phases[2].dist.a, 30000u);
  EXPECT_EQ(g.phases[3].kind, Kind::Loop);
  EXPECT_EQ(g.phases[3].count, 4u);
  ASSERT_EQ(g.phases[3].body.size(), 1u);
  EXPECT_EQ(g.phases[3].body[0].dist.a, 40000u);
}

TEST(RtApp, LoopMinusOneRunsForeverAndNeedsADuration) {
  const Scenario s = parse_rtapp(
      R"({"tasks": {"a": {"loop": -1, "run": 1}}, "global": {"duration": 2}})", "t.json");
  EXPECT_EQ(s.groups[0].loops, 0u);  // schedlab's "forever"
  EXPECT_EQ(s.duration_ns, 2000000000u);
  // Without "loop" a phaseless task also repeats forever.
  EXPECT_EQ(parse_rtapp(R"({"tasks": {"a": {"run": 1}}, "global": {"duration": 2}})", "t.json")
                .groups[0]
                .loops,
            0u);
  EXPECT_NE(error_of(R"({"tasks": {"a": {"loop": -1, "run": 1}}})").find("global.duration"),
            std::string::npos);
}

TEST(RtApp, InstanceZeroCreatesNoTask) {
  const Scenario s = parse_rtapp(
      R"({"tasks": {"a": {"instance": 0, "loop": 1, "run": 1}, "b": {"loop": 1, "run": 1}}})",
      "t.json");
  ASSERT_EQ(s.groups.size(), 1u);
  EXPECT_EQ(s.groups[0].name, "b");
}

TEST(RtApp, SchedlabAnnotationsGiveMachineAndCookieConfigs) {
  const Scenario s = parse_rtapp(R"({
    "tasks": { "w": { "instance": 4, "loop": 1, "run": 100 } },
    "schedlab": {
      "name": "annotated", "seed": 7, "duration": "5ms",
      "machine": { "sockets": 1, "cores_per_llc": 2, "threads_per_core": 2 },
      "configs": [ { "name": "No cookie" },
                   { "name": "Cookie", "cookies": [ { "group": "w", "per": 2 } ] } ]
    }
  })",
                                 "t.json");
  EXPECT_EQ(s.name, "annotated");
  EXPECT_EQ(s.seed, 7u);
  EXPECT_EQ(s.duration_ns, 5000000u);
  EXPECT_EQ(s.topology.cores_per_llc, 2);
  ASSERT_EQ(s.configs.size(), 2u);
  EXPECT_EQ(s.configs[1].name, "Cookie");
  ASSERT_EQ(s.configs[1].cookies.size(), 1u);
  EXPECT_EQ(s.configs[1].cookies[0].group, "w");
  EXPECT_EQ(s.configs[1].cookies[0].per, 2);
}

TEST(RtApp, UnsupportedEventNamesFileTaskPhaseAndEvent) {
  const std::string e = error_of(R"({"tasks": {"t0": {"phases": {
      "p1": {"run": 10, "sem_wait": "s"}}}}})",
                                 "dir/f.json");
  EXPECT_EQ(e.rfind("dir/f.json:2:", 0), 0u) << e;
  EXPECT_NE(e.find("t0:p1:sem_wait: sem_wait event: semaphores are not modelled"),
            std::string::npos)
      << e;
  for (const char *ev : {"fork", "mem", "iorun", "sem_post"}) {
    const std::string m =
        error_of(std::string(R"({"tasks": {"t": {"run": 1, ")") + ev + R"(": "x"}}})");
    EXPECT_NE(m.find(std::string("t:-:") + ev + ": " + ev + " event: "), std::string::npos) << m;
  }
  // A malformed synchronisation event names its field.
  const std::string mode = error_of(
      R"({"global": {"duration": 1}, "tasks": {"t": {"timer": {"ref": "a", "period": 10, "mode": "x"}}}})");
  EXPECT_NE(mode.find("t:-:timer.mode: expected \"absolute\" or \"relative\", got \"x\""),
            std::string::npos)
      << mode;
  const std::string wait =
      error_of(R"({"global": {"duration": 1}, "tasks": {"t": {"run": 1, "wait": {"ref": "c"}}}})");
  EXPECT_NE(wait.find("t:-:wait: missing required key \"mutex\""), std::string::npos) << wait;
}

TEST(RtApp, TimersYieldAndSynchronisationBecomePhasesOnNamedResources) {
  const Scenario s = parse_rtapp(R"({
    "tasks": {
      "a": { "instance": 2, "loop": 1,
             "lock": "m", "wait": { "ref": "c", "mutex": "m" }, "unlock": "m",
             "timer": { "ref": "unique", "period": 100 },
             "timer1": { "ref": "shared", "period": 200, "mode": "absolute" },
             "timer2": { "ref": "off", "period": 0 },
             "barrier": "B", "yield": "", "suspend", "resume": "b" },
      "b": { "loop": 1, "run": 1, "suspend": "b", "signal": "c", "broad": "c", "lock": "m",
             "sync": { "ref": "m", "mutex": "m" }, "unlock": "m", "barrier": "B" }
    }
  })",
                                 "t.json");
  using RK = workload::Resource::Kind;
  auto res = [&](std::uint32_t i) {
    return std::make_pair(s.resources.at(i).kind, s.resources.at(i).name);
  };
  const auto &a = s.groups.at(0).phases;
  ASSERT_EQ(a.size(), 9u);  // the 0 us timer does nothing and is left out
  EXPECT_EQ(a[0].kind, Kind::Lock);
  EXPECT_EQ(res(a[0].res), std::make_pair(RK::Mutex, std::string("m")));
  EXPECT_EQ(a[1].kind, Kind::Wait);
  EXPECT_EQ(res(a[1].res), std::make_pair(RK::Cond, std::string("c")));
  EXPECT_EQ(a[1].res2, a[0].res);
  EXPECT_EQ(a[2].kind, Kind::Unlock);
  EXPECT_EQ(a[3].kind, Kind::Timer);
  EXPECT_EQ(a[3].dist.a, 100000u);
  EXPECT_FALSE(a[3].absolute);                     // rt-app's default mode is relative
  EXPECT_TRUE(s.resources.at(a[3].res).per_task);  // "unique...": one timer per thread
  EXPECT_EQ(a[4].kind, Kind::Timer);
  EXPECT_TRUE(a[4].absolute);
  EXPECT_FALSE(s.resources.at(a[4].res).per_task);
  EXPECT_EQ(a[5].kind, Kind::Barrier);
  EXPECT_EQ(a[6].kind, Kind::Yield);
  // A bare "suspend" waits on the thread's own name.
  EXPECT_EQ(a[7].kind, Kind::Suspend);
  EXPECT_EQ(res(a[7].res), std::make_pair(RK::Cond, std::string("a")));
  EXPECT_EQ(a[8].kind, Kind::Resume);
  const auto &b = s.groups.at(1).phases;
  ASSERT_EQ(b.size(), 8u);
  EXPECT_EQ(b[1].kind, Kind::Suspend);
  EXPECT_EQ(res(b[1].res), std::make_pair(RK::Cond, std::string("b")));
  EXPECT_EQ(a[8].res, b[1].res);
  EXPECT_EQ(b[2].kind, Kind::Signal);
  EXPECT_EQ(b[3].kind, Kind::Broadcast);
  EXPECT_EQ(b[3].res, a[1].res);
  // A mutex and a condition may share a name: they are different resources.
  EXPECT_EQ(b[5].kind, Kind::Sync);
  EXPECT_EQ(res(b[5].res), std::make_pair(RK::Cond, std::string("m")));
  EXPECT_EQ(b[5].res2, a[0].res);
  EXPECT_EQ(b[7].res, a[5].res);
}

TEST(RtApp, RealTimePoliciesAndPerPhaseChangesAreRefused) {
  EXPECT_NE(error_of(R"({"tasks": {"t": {"policy": "SCHED_FIFO", "run": 1}}})")
                .find("t:policy: SCHED_FIFO is not modelled"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"tasks": {"t": {"run": 1}}, "global": {"default_policy": "SCHED_RR"}})")
                .find("global.default_policy: SCHED_RR is not modelled"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"tasks": {"t": {"cpus": [0], "phases": {"a": {"cpus": [1], "run": 1}}}}})")
                .find("t:a:cpus: changing the affinity per phase"),
            std::string::npos);
}

TEST(RtApp, BadInputNamesWhatIsWrong) {
  EXPECT_NE(error_of(R"({"tasks": {"t": {"run": 1,}})").find("t.json:1:"), std::string::npos);
  EXPECT_NE(error_of(R"({"global": {}})").find("missing required object \"tasks\""),
            std::string::npos);
  EXPECT_NE(error_of(R"({"tasks": {"t": {"exec": 5000, "run": 1}}})").find("t:exec: unknown key"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"tasks": {"t": {"run": -1}}})").find("t:-:run: must be between"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"tasks": {"t": {"loop": 1}}})").find("no events"), std::string::npos);
  // A CPU the machine lacks: the TOML reader's check, reworded to name the rt-app task and
  // placed at it.
  const std::string cpu = error_of(R"({"tasks": {"t": {"cpus": [9], "loop": 1, "run": 1}}})");
  EXPECT_EQ(cpu, "t.json:1:12: error: t:cpus: cpu 9 does not exist (the machine has 8 CPUs: 0-7)");
  // So is the mutex discipline the TOML reader checks, at the rt-app event.
  EXPECT_EQ(
      error_of(R"({"tasks": {"t": {"loop": 2, "run": 1, "unlock": "m"}}})"),
      "t.json:1:39: error: t:-:unlock: the task does not hold mutex 'm' here (lock it first)");
  EXPECT_NE(error_of(R"({"tasks": {"t": {"run": 1}}, "schedlab": {"machin": {}}})")
                .find("schedlab.machin: unknown key"),
            std::string::npos);
  EXPECT_NE(error_of("[1, 2]").find("expected an object"), std::string::npos);
  EXPECT_NE(error_of(std::string(100, '[')).find("nesting deeper"), std::string::npos);
}

TEST(RtApp, DetectedByExtensionOrContent) {
  EXPECT_TRUE(is_rtapp_json("a.json", "anything"));
  EXPECT_TRUE(is_rtapp_json("a.rtapp", "  \n{ \"tasks\": {} }"));
  EXPECT_TRUE(is_rtapp_json("a", "/* c */ {}"));
  EXPECT_FALSE(is_rtapp_json("a.toml", "[scenario]\nname = \"x\""));
}

}  // namespace
}  // namespace schedlab::scenario
