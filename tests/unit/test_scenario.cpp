// SPDX-License-Identifier: GPL-2.0-only
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "kernel/features.h"
#include "kernel/tunables.h"
#include "scenario/scenario.h"

namespace schedlab::scenario {
namespace {

using kernel::KernelVersion;

constexpr const char *kGood =
    R"toml(# Every key the format has, most of them away from their defaults.
[scenario]
name = "wakeup-fastpath"
description = "Wakeups of short sleepers"
seed = 42
duration = "1.5s"

[machine]
sockets = 2
llcs_per_socket = 2
clusters_per_llc = 2
cores_per_llc = 4
threads_per_core = 2
numbering = "adjacent"
numa_nodes = 2
numa_distances = [[10, 21], [21, 10]]

[machine.costs]
context_switch = "1.5us"
wakeup_ipi = 2500
migration_penalty = "5 us"
cross_llc_migration_penalty = "0.03ms"
smt_corun_speed = 0.625

[kernel]
version = "6.12"

[kernel.features]
TTWU_QUEUE = false
SIS_UTIL = false

[kernel.tunables]
hz = 250
migration_cost_ns = 100000

[[group]]
name = "worker"
count = 10
nice = -5
policy = "batch"
cpus = "0-3,8"
start = "exp(1ms)"
loops = 1200
phases = [
  { run = "uniform(0ms, 10ms)" },
  { sleep = "normal(10ms, 2ms)" },
  { loop = 3, phases = [ { runtime = "2ms" }, { sleep = 100 } ] },
]

[[group]]
name = "hog.1"
policy = "idle"
stress = true

[[config]]
name = "No cookie"
features = { TTWU_QUEUE = true, WA_BIAS = false }
tunables = { hz = 1000 }

[[config]]
name = "baseline"
)toml";

TEST(ParseScenario, EveryField) {
  const Scenario s = parse_scenario(kGood, "good.toml");
  EXPECT_EQ(s.file, "good.toml");
  EXPECT_EQ(s.name, "wakeup-fastpath");
  EXPECT_EQ(s.description, "Wakeups of short sleepers");
  EXPECT_EQ(s.seed, 42u);
  EXPECT_EQ(s.duration_ns, 1500 * NSEC_PER_MSEC);

  EXPECT_EQ(s.topology.sockets, 2);
  EXPECT_EQ(s.topology.llcs_per_socket, 2);
  EXPECT_EQ(s.topology.clusters_per_llc, 2);
  EXPECT_EQ(s.topology.cores_per_llc, 4);
  EXPECT_EQ(s.topology.threads_per_core, 2);
  EXPECT_EQ(s.topology.numbering, CpuNumbering::Adjacent);
  EXPECT_EQ(s.topology.numa_nodes, 2);
  EXPECT_EQ(s.topology.numa_distances, (std::vector<std::vector<int>>{{10, 21}, {21, 10}}));

  EXPECT_EQ(s.costs.context_switch_ns, 1500u);
  EXPECT_EQ(s.costs.wakeup_ipi_ns, 2500u);
  EXPECT_EQ(s.costs.migration_penalty_ns, 5000u);
  EXPECT_EQ(s.costs.cross_llc_migration_penalty_ns, 30000u);
  EXPECT_EQ(s.costs.smt_corun_speed, 40960u);  // 0.625 * 65536

  EXPECT_EQ(s.kernel.version, KernelVersion::V6_12);
  EXPECT_FALSE(s.kernel.features.on[kernel::__SCHED_FEAT_TTWU_QUEUE]);
  EXPECT_FALSE(s.kernel.features.on[kernel::__SCHED_FEAT_SIS_UTIL]);
  EXPECT_TRUE(s.kernel.features.on[kernel::__SCHED_FEAT_WA_BIAS]);  // untouched default
  EXPECT_EQ(s.kernel.tunables[kernel::TUNABLE_hz], 250);
  EXPECT_EQ(s.kernel.tunables[kernel::TUNABLE_migration_cost_ns], 100000);
  EXPECT_EQ(s.kernel.tunables[kernel::TUNABLE_nr_migrate], 32);  // untouched default

  ASSERT_EQ(s.groups.size(), 2u);
  const TaskGroupSpec &w = s.groups[0];
  EXPECT_EQ(w.name, "worker");
  EXPECT_EQ(w.line, 36);
  EXPECT_EQ(w.count, 10);
  EXPECT_EQ(w.nice, -5);
  EXPECT_EQ(w.policy, Policy::Batch);
  EXPECT_EQ(w.cpus, (std::vector<int>{0, 1, 2, 3, 8}));
  EXPECT_EQ(w.start.kind, Dist::Kind::Exponential);
  EXPECT_EQ(w.start.a, NSEC_PER_MSEC);
  EXPECT_FALSE(w.stress);
  EXPECT_EQ(w.loops, 1200u);
  ASSERT_EQ(w.phases.size(), 3u);
  EXPECT_EQ(w.phases[0].kind, Phase::Kind::Run);
  EXPECT_EQ(w.phases[0].dist.kind, Dist::Kind::Uniform);
  EXPECT_EQ(w.phases[0].dist.a, 0u);
  EXPECT_EQ(w.phases[0].dist.b, 10 * NSEC_PER_MSEC);
  EXPECT_EQ(w.phases[1].kind, Phase::Kind::Sleep);
  EXPECT_EQ(w.phases[1].dist.kind, Dist::Kind::Normal);
  EXPECT_EQ(w.phases[1].dist.a, 10 * NSEC_PER_MSEC);
  EXPECT_EQ(w.phases[1].dist.b, 2 * NSEC_PER_MSEC);
  const Phase &loop = w.phases[2];
  EXPECT_EQ(loop.kind, Phase::Kind::Loop);
  EXPECT_EQ(loop.count, 3u);
  ASSERT_EQ(loop.body.size(), 2u);
  EXPECT_EQ(loop.body[0].kind, Phase::Kind::Runtime);
  EXPECT_EQ(loop.body[0].dist.kind, Dist::Kind::Const);
  EXPECT_EQ(loop.body[0].dist.a, 2 * NSEC_PER_MSEC);
  EXPECT_EQ(loop.body[1].kind, Phase::Kind::Sleep);
  EXPECT_EQ(loop.body[1].dist.a, 100u);  // a bare integer is ns

  const TaskGroupSpec &h = s.groups[1];
  EXPECT_EQ(h.name, "hog.1");
  EXPECT_EQ(h.count, 1);
  EXPECT_EQ(h.nice, 0);
  EXPECT_EQ(h.policy, Policy::Idle);
  EXPECT_TRUE(h.cpus.empty());
  EXPECT_TRUE(h.stress);
  EXPECT_TRUE(h.phases.empty());
  EXPECT_EQ(h.start.kind, Dist::Kind::Const);
  EXPECT_EQ(h.start.a, 0u);

  ASSERT_EQ(s.configs.size(), 2u);
  EXPECT_EQ(s.configs[0].name, "No cookie");
  EXPECT_EQ(s.configs[0].line, 55);
  // In file order, not toml++'s alphabetical order.
  using FeatureSetting = std::pair<kernel::sched_feat_id, bool>;
  EXPECT_EQ(s.configs[0].features,
            (std::vector<FeatureSetting>{{kernel::__SCHED_FEAT_TTWU_QUEUE, true},
                                         {kernel::__SCHED_FEAT_WA_BIAS, false}}));
  using TunableSetting = std::pair<kernel::sched_tunable_id, std::int64_t>;
  EXPECT_EQ(s.configs[0].tunables, (std::vector<TunableSetting>{{kernel::TUNABLE_hz, 1000}}));
  EXPECT_EQ(s.configs[1].name, "baseline");
  EXPECT_TRUE(s.configs[1].features.empty());
}

TEST(ParseScenario, NohzFull) {
  const Scenario s = parse_scenario(R"(
[scenario]
name = "isolated"
duration = "1s"
[machine]
cores_per_llc = 4
threads_per_core = 2
[kernel]
nohz_full = "2-3,6-7"
[[group]]
name = "w"
phases = [ { run = "1ms" } ]
[[config]]
name = "as the kernel section"
[[config]]
name = "more"
nohz_full = "1-7"
[[config]]
name = "none"
nohz_full = ""
)",
                                    "nohz.toml");
  EXPECT_EQ(s.kernel.nohz_full, (std::vector<int>{2, 3, 6, 7}));
  EXPECT_EQ(apply_config(s, &s.configs[0]).nohz_full, (std::vector<int>{2, 3, 6, 7}));
  EXPECT_EQ(apply_config(s, &s.configs[1]).nohz_full, (std::vector<int>{1, 2, 3, 4, 5, 6, 7}));
  EXPECT_TRUE(apply_config(s, &s.configs[2]).nohz_full.empty());
}

TEST(ParseScenario, Defaults) {
  const Scenario s = parse_scenario(R"(
[scenario]
name = "min"
[machine]
[[group]]
name = "a"
phases = [ { run = "1ms" } ]
)",
                                    "min.toml");
  EXPECT_EQ(s.seed, 1u);
  EXPECT_EQ(s.duration_ns, 0u);
  EXPECT_EQ(s.topology.sockets, 1);
  EXPECT_EQ(s.topology.threads_per_core, 1);
  EXPECT_EQ(s.topology.numbering, CpuNumbering::X86);
  EXPECT_EQ(s.costs.context_switch_ns, MachineCosts{}.context_switch_ns);
  EXPECT_EQ(s.costs.smt_corun_speed, kSpeedOne);
  EXPECT_EQ(s.kernel.version, KernelVersion::V6_18);
  EXPECT_EQ(s.kernel.tunables[kernel::TUNABLE_hz], 1000);
  ASSERT_EQ(s.groups.size(), 1u);
  EXPECT_EQ(s.groups[0].loops, 1u);
  EXPECT_TRUE(s.configs.empty());
}

TEST(ParseScenario, ErrorsAreOneLineWithPosition) {
  try {
    parse_scenario("[scenario]\nname = \"x\"\n[machine]\n[[group]]\nname = \"a\"\ncount = 0\n",
                   "f.toml");
    FAIL() << "no error";
  } catch (const ScenarioError &e) {
    EXPECT_STREQ(e.what(),
                 "f.toml:6:9: error: group[0].count: must be between 1 and 1000000, got 0");
  }
  // A string holding a newline is quoted back escaped, still on one line.
  try {
    parse_scenario("[scenario]\nname = \"x\"\nduration = \"1\\nms\"\n", "f.toml");
    FAIL() << "no error";
  } catch (const ScenarioError &e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'1\\nms'"), std::string::npos) << e.what();
  }
}

TEST(ParseScenario, DurationRequiredWhenNothingEnds) {
  const char *text = R"([scenario]
name = "x"
[machine]
[[group]]
name = "hog"
stress = true
)";
  EXPECT_THROW(parse_scenario(text, "f.toml"), ScenarioError);
  EXPECT_NO_THROW(parse_scenario(std::string(text) + "[[group]]\nname = \"b\"\n"
                                                     "phases = [ { run = 1 } ]\n",
                                 "f.toml"));
}

// Processes, cookies and comparisons: a 4-core SMT2 machine, 4 workers in two processes of
// one process group, a single-task group and a 3-task group sharing the "bench" pgrp.
constexpr const char *kCookieBase = R"toml([scenario]
name = "cookies"
duration = "1s"
[machine]
cores_per_llc = 4
threads_per_core = 2
[[group]]
name = "worker"
count = 4
threads_per_process = 2
pgrp = "bench"
phases = [ { run = "1ms" } ]
[[group]]
name = "hog"
stress = true
[[group]]
name = "io"
count = 3
pgrp = "bench"
threads_per_process = 2
phases = [ { sleep = "1ms" } ]
)toml";

std::string cookie_scenario(const std::string &tail) {
  return kCookieBase + tail;
}

// The error a scenario fails with, or "" if it loads.
std::string error_of(const std::string &text) {
  try {
    parse_scenario(text, "c.toml");
  } catch (const ScenarioError &e) {
    return e.what();
  }
  return "";
}

TEST(ParseScenario, Processes) {
  const Scenario s = parse_scenario(cookie_scenario(""), "c.toml");
  ASSERT_EQ(s.groups.size(), 3u);
  EXPECT_EQ(s.groups[0].threads_per_process, 2);
  EXPECT_EQ(s.groups[0].pgrp, "bench");
  EXPECT_EQ(s.groups[1].threads_per_process, 0);  // default: the whole group is one process
  EXPECT_EQ(s.groups[1].pgrp, "hog");             // default: the group's name
  EXPECT_EQ(s.groups[2].threads_per_process, 2);  // need not divide count
  EXPECT_EQ(s.groups[2].pgrp, "bench");
  EXPECT_TRUE(s.compares.empty());

  // The first error in the default scenario: none of these.
  const Scenario d = parse_scenario(kGood, "good.toml");
  EXPECT_EQ(d.groups[0].threads_per_process, 0);
  EXPECT_EQ(d.groups[0].pgrp, "worker");
  EXPECT_TRUE(d.configs[0].cookies.empty());
  EXPECT_TRUE(d.configs[0].prctl.empty());
}

TEST(ParseScenario, ProcessErrors) {
  auto with_group = [](const std::string &keys) {
    return error_of(std::string(R"([scenario]
name = "x"
[machine]
[[group]]
name = "w"
count = 3
phases = [ { run = "1ms" } ]
)") + keys);
  };
  EXPECT_EQ(with_group("threads_per_process = 3\n"), "");
  EXPECT_EQ(with_group("threads_per_process = -1\n"),
            "c.toml:8:23: error: group[0].threads_per_process: must be at least 0, got -1");
  EXPECT_EQ(with_group("threads_per_process = 4\n"),
            "c.toml:8:23: error: group[0].threads_per_process: must be at most count (3), got 4 "
            "(0 = the whole group is one process)");
  EXPECT_EQ(with_group("threads_per_process = \"2\"\n"),
            "c.toml:8:23: error: group[0].threads_per_process: expected an integer, got a string");
  EXPECT_EQ(with_group("pgrp = \"a b\"\n"),
            "c.toml:8:8: error: group[0].pgrp: 'a b' is not a valid process group name: use "
            "letters, digits, '_', '.' and '-'");
  EXPECT_EQ(with_group("pgrp = \"\"\n"),
            "c.toml:8:8: error: group[0].pgrp: '' is not a valid process group name: use "
            "letters, digits, '_', '.' and '-'");
}

TEST(ParseScenario, CookiesAndPrctl) {
  const Scenario s = parse_scenario(cookie_scenario(R"(
[[config]]
name = "No cookie"

[[config]]
name = "Cookie"
cookies = [
  { group = "worker", per = 2 },
  { group = "io" },
  { group = "io", per = "task" },
  { group = "worker", per = "group" },
  { group = "hog", per = 1 },
]
prctl = [
  { cmd = "create", by = "worker-0" },
  { cmd = "share_to", by = "worker-0", pid = "worker-1", scope = "thread" },
  { cmd = "share_from", by = "worker-2", pid = "worker-3" },
  { cmd = "create", by = "hog", pid = 0, scope = "thread_group" },
  { cmd = "share_to", by = "io-2", pid = "hog", scope = "process_group" },
]

[[config]]
name = "Cookie + patch"
features = { TTWU_QUEUE = false }
[[config.prctl]]
cmd = "create"
by = "io-1"

[[compare]]
base = "Cookie"
patched = "Cookie + patch"
reference = "No cookie"

[[compare]]
reference = "Cookie"
patched = "No cookie"
base = "Cookie + patch"
)"),
                                    "c.toml");
  ASSERT_EQ(s.configs.size(), 3u);
  EXPECT_TRUE(s.configs[0].cookies.empty());
  EXPECT_TRUE(s.configs[0].prctl.empty());

  const ConfigSpec &c = s.configs[1];
  ASSERT_EQ(c.cookies.size(), 5u);
  EXPECT_EQ(c.cookies[0].group, "worker");
  EXPECT_EQ(c.cookies[0].per, 2);
  EXPECT_EQ(c.cookies[0].line, 29);
  EXPECT_EQ(c.cookies[1].group, "io");
  EXPECT_EQ(c.cookies[1].per, 0);  // default "group"
  EXPECT_EQ(c.cookies[2].per, 1);  // "task"
  EXPECT_EQ(c.cookies[3].per, 0);  // "group"
  EXPECT_EQ(c.cookies[4].group, "hog");
  EXPECT_EQ(c.cookies[4].per, 1);  // per = count

  ASSERT_EQ(c.prctl.size(), 5u);
  EXPECT_EQ(c.prctl[0].cmd, PrctlOp::Cmd::Create);
  EXPECT_EQ(c.prctl[0].by, "worker-0");
  EXPECT_EQ(c.prctl[0].pid, "");  // the caller itself
  EXPECT_EQ(c.prctl[0].scope, CookieScope::Thread);
  EXPECT_EQ(c.prctl[0].line, 36);
  EXPECT_EQ(c.prctl[1].cmd, PrctlOp::Cmd::ShareTo);
  EXPECT_EQ(c.prctl[1].by, "worker-0");
  EXPECT_EQ(c.prctl[1].pid, "worker-1");
  EXPECT_EQ(c.prctl[1].scope, CookieScope::Thread);
  EXPECT_EQ(c.prctl[2].cmd, PrctlOp::Cmd::ShareFrom);
  EXPECT_EQ(c.prctl[2].by, "worker-2");
  EXPECT_EQ(c.prctl[2].pid, "worker-3");
  EXPECT_EQ(c.prctl[3].pid, "");  // pid = 0 is the caller, as in the kernel
  EXPECT_EQ(c.prctl[3].scope, CookieScope::ThreadGroup);
  EXPECT_EQ(c.prctl[4].by, "io-2");
  EXPECT_EQ(c.prctl[4].pid, "hog");
  EXPECT_EQ(c.prctl[4].scope, CookieScope::ProcessGroup);

  // [[config.prctl]] headers are the same array of tables.
  const ConfigSpec &p = s.configs[2];
  ASSERT_EQ(p.prctl.size(), 1u);
  EXPECT_EQ(p.prctl[0].by, "io-1");
  EXPECT_EQ(p.prctl[0].line, 46);
  ASSERT_EQ(p.features.size(), 1u);

  ASSERT_EQ(s.compares.size(), 2u);
  EXPECT_EQ(s.compares[0].base, "Cookie");
  EXPECT_EQ(s.compares[0].patched, "Cookie + patch");
  EXPECT_EQ(s.compares[0].reference, "No cookie");
  EXPECT_EQ(s.compares[0].line, 50);
  EXPECT_EQ(s.compares[1].base, "Cookie + patch");
  EXPECT_EQ(s.compares[1].patched, "No cookie");
  EXPECT_EQ(s.compares[1].reference, "Cookie");

  // Empty lists are allowed, even without SMT.
  EXPECT_EQ(error_of(R"([scenario]
name = "x"
[machine]
[[group]]
name = "w"
phases = [ { run = "1ms" } ]
[[config]]
name = "a"
cookies = []
prctl = []
)"),
            "");
}

TEST(ParseScenario, CookieErrors) {
  auto config = [](const std::string &body) {
    return error_of(cookie_scenario("[[config]]\nname = \"c\"\n" + body));
  };
  // Line 24 is the first line of `body`.
  EXPECT_EQ(config("cookies = [ { group = \"worker\", per = 0 } ]\n"),
            "c.toml:24:39: error: config[0].cookies[0].per: must be at least 1 (or \"group\" for "
            "one cookie for the whole group), got 0");
  EXPECT_EQ(config("cookies = [ { group = \"worker\", per = 5 } ]\n"),
            "c.toml:24:39: error: config[0].cookies[0].per: must be at most the count of group "
            "'worker' (4), got 5");
  EXPECT_EQ(config("cookies = [ { group = \"worker\", per = \"pair\" } ]\n"),
            "c.toml:24:39: error: config[0].cookies[0].per: unknown per 'pair' (expected an "
            "integer >= 1, \"group\" or \"task\")");
  EXPECT_EQ(config("cookies = [ { group = \"worker\", per = 1.5 } ]\n"),
            "c.toml:24:39: error: config[0].cookies[0].per: expected an integer >= 1, \"group\" "
            "or \"task\", got a float");
  EXPECT_EQ(config("cookies = [ { group = \"workers\" } ]\n"),
            "c.toml:24:23: error: config[0].cookies[0].group: no group named 'workers' (groups: "
            "worker, hog, io)");
  EXPECT_EQ(config("cookies = [ { per = 2 } ]\n"),
            "c.toml:24:13: error: config[0].cookies[0].group: missing required key");
  EXPECT_EQ(config("cookies = [ \"worker\" ]\n"),
            "c.toml:24:13: error: config[0].cookies[0]: expected a table such as { group = "
            "\"worker\", per = 2 }, got a string");
  EXPECT_EQ(config("cookies = { group = \"worker\" }\n"),
            "c.toml:24:11: error: config[0].cookies: expected an array, got a table");
  EXPECT_EQ(config("cookies = [ { group = \"worker\", each = 2 } ]\n"),
            "c.toml:24:33: error: config[0].cookies[0].each: unknown key (expected one of: "
            "group, per)");
}

TEST(ParseScenario, PrctlErrors) {
  auto prctl = [](const std::string &op) {
    return error_of(cookie_scenario("[[config]]\nname = \"c\"\nprctl = [ " + op + " ]\n"));
  };
  EXPECT_EQ(
      prctl(R"({ cmd = "share_from", by = "worker-0", pid = "io-1", scope = "thread_group" })"),
      "c.toml:24:72: error: config[0].prctl[0].scope: EINVAL: share_from takes scope = "
      "\"thread\" (it copies the cookie of one task to the caller), got \"thread_group\"");
  EXPECT_EQ(prctl(R"({ cmd = "share_from", by = "worker-0", scope = "process_group" })"),
            "c.toml:24:58: error: config[0].prctl[0].scope: EINVAL: share_from takes scope = "
            "\"thread\" (it copies the cookie of one task to the caller), got \"process_group\"");
  EXPECT_EQ(prctl(R"({ cmd = "create", by = "worker-9" })"),
            "c.toml:24:34: error: config[0].prctl[0].by: ESRCH: no task named 'worker-9' "
            "(tasks: worker-0, worker-1, worker-2, worker-3, hog, io-0, ...)");
  EXPECT_EQ(prctl(R"({ cmd = "create", by = "worker-0", pid = "hog-0" })"),
            "c.toml:24:52: error: config[0].prctl[0].pid: ESRCH: no task named 'hog-0' "
            "(tasks: worker-0, worker-1, worker-2, worker-3, hog, io-0, ...)");
  // A group's name is not one of its tasks' when it has several.
  EXPECT_EQ(prctl(R"({ cmd = "create", by = "worker" })"),
            "c.toml:24:34: error: config[0].prctl[0].by: ESRCH: no task named 'worker' (the "
            "group's tasks are worker-0 to worker-3)");
  for (const char *not_a_task : {"worker-01", "worker-", "worker-4", "worker--1", "Worker-1"})
    EXPECT_NE(prctl(std::string("{ cmd = \"create\", by = \"") + not_a_task + "\" }")
                  .find("ESRCH: no task named"),
              std::string::npos)
        << not_a_task;
  EXPECT_EQ(prctl(R"({ cmd = "create", by = "worker-0", pid = 7 })"),
            "c.toml:24:52: error: config[0].prctl[0].pid: expected a task name, or 0 for the "
            "caller, got 7");
  EXPECT_EQ(prctl(R"({ cmd = "destroy", by = "worker-0" })"),
            "c.toml:24:19: error: config[0].prctl[0].cmd: unknown cmd 'destroy' (expected one "
            "of: create, share_to, share_from)");
  EXPECT_EQ(prctl(R"({ cmd = "get", by = "worker-0" })"),
            "c.toml:24:19: error: config[0].prctl[0].cmd: 'get' only reads a cookie, which a "
            "scenario has no use for (expected one of: create, share_to, share_from)");
  EXPECT_EQ(prctl(R"({ cmd = "create", by = "worker-0", scope = "process" })"),
            "c.toml:24:54: error: config[0].prctl[0].scope: unknown scope 'process' (expected "
            "one of: thread, thread_group, process_group)");
  EXPECT_EQ(prctl(R"({ by = "worker-0" })"),
            "c.toml:24:11: error: config[0].prctl[0].cmd: missing required key");
  EXPECT_EQ(prctl(R"({ cmd = "create" })"),
            "c.toml:24:11: error: config[0].prctl[0].by: missing required key");
  EXPECT_EQ(prctl(R"({ cmd = "create", by = "worker-0", type = "thread" })"),
            "c.toml:24:46: error: config[0].prctl[0].type: unknown key (expected one of: cmd, "
            "by, pid, scope)");

  // Two groups whose task names collide make the name ambiguous, not silently the first.
  EXPECT_EQ(error_of(cookie_scenario(R"([[group]]
name = "worker-1"
phases = [ { run = "1ms" } ]
[[config]]
name = "c"
prctl = [ { cmd = "create", by = "worker-1" } ]
)")),
            "c.toml:27:34: error: config[0].prctl[0].by: 'worker-1' names a task of group "
            "'worker' and one of group 'worker-1'; rename a group");
}

TEST(ParseScenario, CoreSchedulingNeedsSmt) {
  const std::string no_smt = R"([scenario]
name = "x"
[machine]
cores_per_llc = 4
[[group]]
name = "w"
count = 2
phases = [ { run = "1ms" } ]
[[config]]
name = "c"
)";
  EXPECT_EQ(error_of(no_smt + "prctl = [ { cmd = \"create\", by = \"nobody\" } ]\n"
                              "cookies = [ { group = \"w\" } ]\n"),
            "c.toml:11:9: error: config[0].prctl: ENODEV: core scheduling needs SMT, and the "
            "machine has threads_per_core = 1");
  EXPECT_EQ(error_of(no_smt + "cookies = [ { group = \"w\" } ]\n"),
            "c.toml:11:11: error: config[0].cookies: ENODEV: core scheduling needs SMT, and the "
            "machine has threads_per_core = 1");
  EXPECT_EQ(error_of(no_smt + "[[config.prctl]]\ncmd = \"create\"\nby = \"w-0\"\n"),
            "c.toml:11:1: error: config[0].prctl: ENODEV: core scheduling needs SMT, and the "
            "machine has threads_per_core = 1");
}

TEST(ParseScenario, CompareErrors) {
  const std::string configs = cookie_scenario(R"([[config]]
name = "a"
[[config]]
name = "b"
[[config]]
name = "c"
)");
  auto compare = [&](const std::string &body) {
    return error_of(configs + "[[compare]]\n" + body);
  };
  // Line 29 is the first line of `body`.
  EXPECT_EQ(compare("base = \"a\"\npatched = \"b\"\nreference = \"c\"\n"), "");
  EXPECT_EQ(compare("base = \"a\"\npatched = \"b\"\nreference = \"d\"\n"),
            "c.toml:31:13: error: compare[0].reference: no config named 'd' (configs: a, b, c)");
  EXPECT_EQ(compare("base = \"a\"\npatched = \"a\"\nreference = \"c\"\n"),
            "c.toml:30:11: error: compare[0].patched: must differ from base (both are 'a')");
  EXPECT_EQ(compare("base = \"a\"\npatched = \"b\"\nreference = \"b\"\n"),
            "c.toml:31:13: error: compare[0].reference: must differ from base and patched (it is "
            "'b'; the overheads are measured from it)");
  EXPECT_EQ(compare("base = \"a\"\nreference = \"c\"\n"),
            "c.toml:28:1: error: compare[0].patched: missing required key (it names a [[config]])");
  EXPECT_EQ(compare("base = \"a\"\npatched = \"b\"\nreference = \"c\"\nmetric = \"time\"\n"),
            "c.toml:32:1: error: compare[0].metric: unknown key (expected one of: base, patched, "
            "reference)");
  EXPECT_EQ(compare("base = 1\n"),
            "c.toml:29:8: error: compare[0].base: expected a string, got an integer");
  EXPECT_EQ(error_of(cookie_scenario("[[compare]]\nbase = \"a\"\n")),
            "c.toml:23:8: error: compare[0].base: no config named 'a' (the scenario has no "
            "[[config]])");
  EXPECT_EQ(error_of("compare = 1\n" + cookie_scenario("")),
            "c.toml:1:11: error: compare: expected an array of tables ([[compare]]), got an "
            "integer");
}

#ifdef SCHEDLAB_SOURCE_DIR
// The scenarios shipped in scenarios/ must always load; the benchmark one uses every part of
// the core-scheduling format.
TEST(LoadScenario, ShippedScenarios) {
  namespace fs = std::filesystem;
  int n = 0;
  for (const auto &e : fs::directory_iterator(fs::path(SCHEDLAB_SOURCE_DIR) / "scenarios")) {
    if (e.path().extension() != ".toml") continue;
    ++n;
    EXPECT_NO_THROW(load_scenario(e.path())) << e.path();
  }
  EXPECT_GE(n, 1);

  const Scenario s =
      load_scenario(fs::path(SCHEDLAB_SOURCE_DIR) / "scenarios" / "wakeup-fastpath.toml");
  ASSERT_GE(s.configs.size(), 3u);
  EXPECT_EQ(s.configs[0].name, "No cookie");
  EXPECT_TRUE(s.configs[0].cookies.empty());
  ASSERT_EQ(s.configs[1].cookies.size(), 1u);
  EXPECT_EQ(s.configs[1].cookies[0].group, "worker");
  EXPECT_EQ(s.configs[1].cookies[0].per, 2);  // the seed mail's 5 pairs of 10 threads
  ASSERT_GE(s.compares.size(), 1u);
  EXPECT_EQ(s.compares[0].base, "Cookie");
  EXPECT_EQ(s.compares[0].patched, "Cookie + patch");
  EXPECT_EQ(s.compares[0].reference, "No cookie");
}
#endif

TEST(LoadScenario, UnreadableFile) {
  try {
    load_scenario("/nonexistent/dir/x.toml");
    FAIL() << "no error";
  } catch (const ScenarioError &e) {
    EXPECT_STREQ(e.what(),
                 "/nonexistent/dir/x.toml: error: cannot read: No such file or directory");
  }
}

TEST(ParseDuration, Units) {
  EXPECT_EQ(parse_duration("0"), 0u);
  EXPECT_EQ(parse_duration("0ms"), 0u);
  EXPECT_EQ(parse_duration("250ns"), 250u);
  EXPECT_EQ(parse_duration("10us"), 10000u);
  EXPECT_EQ(parse_duration("10ms"), 10 * NSEC_PER_MSEC);
  EXPECT_EQ(parse_duration("3 s"), 3 * NSEC_PER_SEC);
  EXPECT_EQ(parse_duration(" 3s "), 3 * NSEC_PER_SEC);
  EXPECT_EQ(parse_duration("1.5us"), 1500u);
  EXPECT_EQ(parse_duration("0.000000001s"), 1u);
  EXPECT_EQ(parse_duration("1.2500ms"), 1250000u);  // trailing zeros do not count
  EXPECT_EQ(parse_duration("007ms"), 7 * NSEC_PER_MSEC);
  EXPECT_EQ(parse_duration("9223372036854775807ns"), 9223372036854775807u);
}

TEST(ParseDuration, Rejects) {
  for (const char *bad : {"",
                          " ",
                          "ms",
                          "10",
                          "1.5",
                          "ten ms",
                          "10 ms x",
                          "10m",
                          "10MS",
                          "-1ms",
                          "1e3ms",
                          ".5ms",
                          "5.ms",
                          "1..5ms",
                          "0.5ns",
                          "1.0001us",
                          "9223372036854775808ns",
                          "9223372037s",
                          "99999999999999999999999999s",
                          "+1ms",
                          "1_000ms"})
    EXPECT_FALSE(parse_duration(bad).has_value()) << "'" << bad << "'";
}

TEST(ParseDuration, Messages) {
  std::string why;
  EXPECT_FALSE(parse_duration("ten ms", &why));
  EXPECT_EQ(why, "bad duration 'ten ms': expected a number and a unit (ns, us, ms, s)");
  EXPECT_FALSE(parse_duration("0.5ns", &why));
  EXPECT_EQ(why, "bad duration '0.5ns': not a whole number of nanoseconds");
  EXPECT_FALSE(parse_duration("1000000000000s", &why));
  EXPECT_EQ(why,
            "bad duration '1000000000000s': too large (at most 9223372036.854775807s, 2^63-1 ns: "
            "about 292 years)");
  EXPECT_FALSE(parse_duration("-3ms", &why));
  EXPECT_EQ(why, "bad duration '-3ms': must not be negative");
}

TEST(ParseDist, Kinds) {
  std::string why;
  auto c = parse_dist("10ms", &why);
  ASSERT_TRUE(c) << why;
  EXPECT_EQ(c->kind, Dist::Kind::Const);
  EXPECT_EQ(c->a, 10 * NSEC_PER_MSEC);

  auto u = parse_dist("uniform(1ms, 2ms)", &why);
  ASSERT_TRUE(u) << why;
  EXPECT_EQ(u->kind, Dist::Kind::Uniform);
  EXPECT_EQ(u->a, NSEC_PER_MSEC);
  EXPECT_EQ(u->b, 2 * NSEC_PER_MSEC);

  auto same = parse_dist(" uniform( 5us ,5us ) ", &why);
  ASSERT_TRUE(same) << why;
  EXPECT_EQ(same->a, same->b);

  for (const char *s : {"exp(5ms)", "exponential(5ms)"}) {
    auto e = parse_dist(s, &why);
    ASSERT_TRUE(e) << why;
    EXPECT_EQ(e->kind, Dist::Kind::Exponential);
    EXPECT_EQ(e->a, 5 * NSEC_PER_MSEC);
  }

  auto n = parse_dist("normal(10ms, 0)", &why);
  ASSERT_TRUE(n) << why;
  EXPECT_EQ(n->kind, Dist::Kind::Normal);
  EXPECT_EQ(n->a, 10 * NSEC_PER_MSEC);
  EXPECT_EQ(n->b, 0u);
}

TEST(ParseDist, Rejects) {
  std::string why;
  for (const char *bad :
       {"", "uniform", "uniform()", "uniform(1ms)", "uniform(1ms, 2ms, 3ms)", "uniform(1ms, 2ms",
        "uniform(1ms, 2ms) x", "exp()", "exp(1ms, 2ms)", "normal(1ms)", "poisson(1ms)",
        "Uniform(1ms, 2ms)", "uniform(1ms, x)", "uniform(-1ms, 2ms)", "10"}) {
    why.clear();
    EXPECT_FALSE(parse_dist(bad, &why).has_value()) << "'" << bad << "'";
    EXPECT_FALSE(why.empty()) << "'" << bad << "'";
  }
  EXPECT_FALSE(parse_dist("uniform(10ms, 5ms)", &why));
  EXPECT_EQ(why, "bad distribution 'uniform(10ms, 5ms)': LOW is greater than HIGH");
  EXPECT_FALSE(parse_dist("often", &why));
  EXPECT_EQ(why,
            "bad distribution 'often': expected a duration, uniform(LOW, HIGH), exp(MEAN) or "
            "normal(MEAN, SD)");
  // A mistyped duration gets the duration's own message.
  EXPECT_FALSE(parse_dist("10", &why));
  EXPECT_EQ(why, "bad duration '10': expected a number and a unit (ns, us, ms, s)");
  EXPECT_FALSE(parse_dist("poisson(1ms)", &why));
  EXPECT_EQ(why,
            "bad distribution 'poisson(1ms)': unknown distribution 'poisson' (expected uniform, "
            "exp, exponential or normal)");
}

TEST(ParseCpulist, Accepts) {
  std::string why;
  EXPECT_EQ(parse_cpulist("0", &why), (std::vector<int>{0}));
  EXPECT_EQ(parse_cpulist("0-3,8", &why), (std::vector<int>{0, 1, 2, 3, 8}));
  EXPECT_EQ(parse_cpulist("8,0-1", &why), (std::vector<int>{0, 1, 8}));  // sorted
  EXPECT_EQ(parse_cpulist("2-2", &why), (std::vector<int>{2}));
  EXPECT_EQ(parse_cpulist("0-3,2-5,1", &why), (std::vector<int>{0, 1, 2, 3, 4, 5}));  // merged
  EXPECT_EQ(parse_cpulist(" 1 , 3 - 4 ", &why), (std::vector<int>{1, 3, 4}));
}

TEST(ParseCpulist, Rejects) {
  std::string why;
  for (const char *bad : {"", " ", ",", "0,", ",0", "0,,1", "a", "0-", "-3", "3-1", "0-3x", "1.5",
                          "0 1", "0-1-2", "99999999999"}) {
    why.clear();
    EXPECT_FALSE(parse_cpulist(bad, &why).has_value()) << "'" << bad << "'";
    EXPECT_FALSE(why.empty()) << "'" << bad << "'";
  }
  EXPECT_FALSE(parse_cpulist("3-1", &why));
  EXPECT_EQ(why, "bad cpu list '3-1': range 3-1 is reversed");
}

TEST(ApplyConfig, LayersConfigOnKernelSection) {
  const Scenario s = parse_scenario(kGood, "good.toml");
  const kernel::KernelConfig base = apply_config(s, nullptr);
  EXPECT_EQ(base.version, KernelVersion::V6_12);
  EXPECT_FALSE(base.features.on[kernel::__SCHED_FEAT_TTWU_QUEUE]);
  EXPECT_EQ(base.tunables[kernel::TUNABLE_hz], 250);

  const kernel::KernelConfig k = apply_config(s, &s.configs[0]);
  EXPECT_EQ(k.version, KernelVersion::V6_12);
  EXPECT_TRUE(k.features.on[kernel::__SCHED_FEAT_TTWU_QUEUE]);  // config overrides [kernel]
  EXPECT_FALSE(k.features.on[kernel::__SCHED_FEAT_SIS_UTIL]);   // [kernel] kept
  EXPECT_FALSE(k.features.on[kernel::__SCHED_FEAT_WA_BIAS]);    // config over the default
  EXPECT_TRUE(k.features.on[kernel::__SCHED_FEAT_PLACE_LAG]);   // default kept
  EXPECT_EQ(k.tunables[kernel::TUNABLE_hz], 1000);
  EXPECT_EQ(k.tunables[kernel::TUNABLE_migration_cost_ns], 100000);

  const kernel::KernelConfig empty = apply_config(s, &s.configs[1]);
  EXPECT_FALSE(empty.features.on[kernel::__SCHED_FEAT_TTWU_QUEUE]);
  EXPECT_EQ(empty.tunables[kernel::TUNABLE_hz], 250);
}

}  // namespace
}  // namespace schedlab::scenario
