// SPDX-License-Identifier: GPL-2.0-only
// Benchmark models: hackbench message accounting and blocking, schbench latencies and RPS,
// forked children placed by the fork path.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "checked_run.h"
#include "engine/simulation.h"
#include "experiment/experiment.h"
#include "experiment/result_json.h"
#include "experiment/summary.h"
#include "scenario/config.h"
#include "workload/benchmarks.h"

using namespace schedlab;

namespace {

std::string machine(int cores, int threads) {
  return "[scenario]\nname = \"t\"\nseed = 5\n[machine]\ncores_per_llc = " + std::to_string(cores) +
         "\nthreads_per_core = " + std::to_string(threads) + "\n";
}

engine::RunResult run(const scenario::Scenario &s, u64 seed = 1, const std::string &config = "") {
  auto c = scenario::choose_config(s, config, {}, {});
  engine::Simulation sim(s, c.name, c.kernel, seed);
  return schedlab::testing::checked_run(sim);
}

scenario::Scenario hackbench(const std::string &params, int cores = 2, int threads = 2) {
  return scenario::parse_scenario(
      machine(cores, threads) + "[[group]]\nname = \"hb\"\nhackbench = { " + params + " }\n",
      "hb.toml");
}

// Voluntary switches of hackbench's senders (members fds..2*fds-1 of each group).
u64 sender_voluntary_switches(const engine::RunResult &r, int fds) {
  u64 n = 0;
  for (const auto &t : r.metrics.tasks) {
    const int member = std::stoi(t.comm.substr(t.comm.rfind('-') + 1));
    if (member % (2 * fds) >= fds) n += t.nr_voluntary_switches;
  }
  return n;
}

}  // namespace

TEST(Channel, PipeHoldsSixteenPagesOfMergedSmallWrites) {
  workload::Channel c(false, workload::kPipeBufferBytes, 100);
  EXPECT_EQ(c.capacity_messages(), 16u * 40u);  // 40 writes of 100 bytes fit in a 4 KiB page
  u64 n = 0;
  while (c.can_write()) {
    c.reserve();
    c.commit();
    n++;
  }
  EXPECT_EQ(n, c.capacity_messages());
  // Reads from a full pipe wake a writer only when they free a page (pipe_read(), 6.5+).
  for (int i = 0; i < 39; i++) {
    c.take();
    EXPECT_EQ(c.release(), workload::Channel::WakeWriters::None);
    EXPECT_FALSE(c.can_write());
  }
  c.take();
  EXPECT_EQ(c.release(), workload::Channel::WakeWriters::One);
  EXPECT_TRUE(c.can_write());  // the first page is free again
  c.take();
  EXPECT_EQ(c.release(), workload::Channel::WakeWriters::None);
}

// The pipe fills up while a read is under way (the model spends the read's CPU time between
// take() and release()): freeing the page must still wake a writer, or the writers that
// blocked meanwhile sleep for ever once the reader has drained the pipe.
TEST(Channel, APipeThatFillsDuringAReadWakesAWriterWhenThePageIsFreed) {
  workload::Channel c(false, workload::kPipeBufferBytes, 100);
  for (int i = 0; i < 15 * 40; i++) {  // 15 of 16 pages
    c.reserve();
    c.commit();
  }
  for (int i = 0; i < 39; i++) {
    c.take();
    c.release();
  }
  c.take();  // the first page's last message: the pipe is not full yet
  while (c.can_write()) {
    c.reserve();
    c.commit();
  }
  EXPECT_EQ(c.release(), workload::Channel::WakeWriters::One);
  EXPECT_TRUE(c.can_write());
}

TEST(Channel, SocketChargesSkbOverheadAndWakesWritersBelowAQuarter) {
  workload::Channel c(true, workload::kSocketBufferBytes, 100);
  const u64 cap = c.capacity_messages();
  EXPECT_EQ(cap, (workload::kSocketBufferBytes + 675) / 676);
  for (u64 i = 0; i < cap; i++) {
    ASSERT_TRUE(c.can_write());
    c.reserve();
    c.commit();
  }
  EXPECT_FALSE(c.can_write());
  c.take();
  EXPECT_EQ(c.release(), workload::Channel::WakeWriters::None);  // still > 1/4 full
  EXPECT_TRUE(c.can_write());
  u64 freed = 1;
  workload::Channel::WakeWriters w = workload::Channel::WakeWriters::None;
  while (w == workload::Channel::WakeWriters::None) {
    c.take();
    w = c.release();
    freed++;
  }
  EXPECT_EQ(w, workload::Channel::WakeWriters::All);
  EXPECT_LE((cap - freed) * 676 * 4, workload::kSocketBufferBytes);
}

TEST(Hackbench, EveryReceiverGetsFdsTimesLoopsMessages) {
  for (const char *transport : {"pipe", "socket"}) {
    const auto s = hackbench(std::string("groups = 3, fds = 4, loops = 25, transport = \"") +
                             transport + "\"");
    ASSERT_EQ(s.groups[0].count, 24);
    const auto r = run(s);
    // A receiver exits exactly when it has read fds * loops messages, and every task exits:
    // with the total, each receiver got exactly fds * loops.
    for (const auto &t : r.metrics.tasks) EXPECT_TRUE(t.exited) << transport << " " << t.comm;
    EXPECT_EQ(r.bench.hackbench_messages, 3u * 4u * 4u * 25u) << transport;
    EXPECT_TRUE(r.bench.has_hackbench);
    EXPECT_GT(r.bench.hackbench_ns, 0u);
    EXPECT_LE(r.bench.hackbench_ns, r.metrics.completion_ns);
  }
}

TEST(Hackbench, OneTinyGroupCompletes) {
  const auto s = hackbench("groups = 1, fds = 1, loops = 1, mode = \"thread\"", 1, 1);
  const auto r = run(s);
  ASSERT_EQ(r.metrics.tasks.size(), 2u);
  for (const auto &t : r.metrics.tasks) EXPECT_TRUE(t.exited) << t.comm;
  EXPECT_EQ(r.bench.hackbench_messages, 1u);
  EXPECT_EQ(r.bench.hackbench_expected_messages, 1u);
  EXPECT_FALSE(r.bench.hackbench_unfinished);
  EXPECT_GT(r.bench.hackbench_ns, 0u);
  const auto j = experiment::run_to_json(r, s);
  EXPECT_DOUBLE_EQ(j["hackbench_time_s"].get<double>(),
                   static_cast<double>(r.bench.hackbench_ns) / 1e9);
  EXPECT_TRUE(j["hackbench_finished"].get<bool>());
}

// A run that ends (here at the scenario's duration) before every receiver has read all its
// messages has no hackbench time: not 0, which an experiment would average in.
TEST(Hackbench, ARunThatEndsFirstHasNoHackbenchTime) {
  const auto s = scenario::parse_scenario(
      "[scenario]\nname = \"t\"\nseed = 5\nduration = \"2ms\"\n[machine]\ncores_per_llc = 2\n"
      "threads_per_core = 2\n[[group]]\nname = \"hb\"\n"
      "hackbench = { groups = 1, fds = 4, loops = 1000 }\n",
      "hb.toml");
  const auto r = run(s);
  EXPECT_TRUE(r.bench.hackbench_unfinished);
  EXPECT_EQ(r.bench.hackbench_expected_messages, 4u * 4u * 1000u);
  EXPECT_LT(r.bench.hackbench_messages, r.bench.hackbench_expected_messages);
  u64 expected = 0;
  EXPECT_TRUE(std::isnan(experiment::bench_metrics(r, &expected)[0]));
  EXPECT_EQ(expected, 1u);  // hackbench is there, without a value
  const auto j = experiment::run_to_json(r, s);
  EXPECT_TRUE(j["hackbench_time_s"].is_null());
  EXPECT_FALSE(j["hackbench_finished"].get<bool>());
  EXPECT_NE(experiment::run_summary(r, s).find("hackbench: did not finish ("), std::string::npos);
}

TEST(Hackbench, AFullPipeBlocksTheWriter) {
  // 1000-byte messages: a 4 KiB pipe holds 4 of them, the default one 64.
  const std::string p = "groups = 1, fds = 2, loops = 200, transport = \"pipe\", datasize = 1000";
  const auto big = run(hackbench(p));
  const auto tiny = run(hackbench(p + ", buffer = 4096"));
  EXPECT_EQ(big.bench.hackbench_messages, tiny.bench.hackbench_messages);
  const u64 v_big = sender_voluntary_switches(big, 2);
  const u64 v_tiny = sender_voluntary_switches(tiny, 2);
  EXPECT_GT(v_tiny, v_big + 50) << "big " << v_big << " tiny " << v_tiny;
  // The same with a socket whose sndbuf holds a single message.
  const std::string q = "groups = 1, fds = 2, loops = 200, transport = \"socket\"";
  const auto sbig = run(hackbench(q));
  const auto stiny = run(hackbench(q + ", buffer = 1"));
  EXPECT_GT(sender_voluntary_switches(stiny, 2), sender_voluntary_switches(sbig, 2) + 50);
}

TEST(Hackbench, ProcessModeMakesOneProcessPerTaskThreadModeOne) {
  for (const char *mode : {"process", "thread"}) {
    const auto s = hackbench(std::string("groups = 2, fds = 2, mode = \"") + mode + "\"");
    auto c = scenario::choose_config(s, "", {}, {});
    engine::Simulation sim(s, c.name, c.kernel, 1);
    std::set<int> tgids;
    for (const auto &p : sim.kernel().tasks()) tgids.insert(p->tgid);
    EXPECT_EQ(tgids.size(), std::string(mode) == "process" ? 8u : 1u) << mode;
  }
}

TEST(Hackbench, IsDeterministic) {
  const auto s = hackbench("groups = 2, fds = 3, loops = 20");
  auto a = experiment::run_to_json(run(s, 7), s);
  auto b = experiment::run_to_json(run(s, 7), s);
  a.erase("host");
  b.erase("host");
  EXPECT_EQ(a.dump(), b.dump());
}

TEST(Schbench, ProducesLatenciesAndRps) {
  const auto s = scenario::parse_scenario(
      machine(2, 2) +
          "[[group]]\nname = \"sb\"\n"
          "schbench = { message_threads = 2, workers = 3, runtime = \"200ms\", "
          "sleep = \"100us\", work = \"uniform(500us, 1500us)\" }\n",
      "sb.toml");
  ASSERT_EQ(s.groups[0].count, 8);
  const auto r = run(s);
  for (const auto &t : r.metrics.tasks) EXPECT_TRUE(t.exited) << t.comm;
  ASSERT_TRUE(r.bench.has_schbench);
  EXPECT_GT(r.bench.schbench_requests, 100u);
  EXPECT_GT(r.bench.schbench_wakeup_ns.size(), 100u);
  EXPECT_EQ(r.bench.schbench_request_ns.size(), r.bench.schbench_requests);
  for (Time t : r.bench.schbench_request_ns) EXPECT_GE(t, 600u * NSEC_PER_USEC);
  const auto j = experiment::run_to_json(r, s);
  EXPECT_GT(j["schbench"]["rps"].get<double>(), 0.0);
  EXPECT_GT(j["schbench"]["wakeup_latency_ns"]["p99"].get<u64>(), 0u);
  EXPECT_GE(j["schbench"]["request_latency_ns"]["p99"].get<u64>(),
            j["schbench"]["request_latency_ns"]["p50"].get<u64>());
}

TEST(Schbench, RpsModeServesTheRequestedRate) {
  const auto s = scenario::parse_scenario(
      machine(2, 2) +
          "[[group]]\nname = \"sb\"\n"
          "schbench = { workers = 4, runtime = \"2s\", work = \"1ms\", rps = 300 }\n",
      "sb.toml");
  const auto r = run(s);
  for (const auto &t : r.metrics.tasks) EXPECT_TRUE(t.exited) << t.comm;
  const double rps = static_cast<double>(r.bench.schbench_requests) * 1e9 /
                     static_cast<double>(r.bench.schbench_window_ns);
  EXPECT_NEAR(rps, 300.0, 10.0);
  EXPECT_GT(r.bench.schbench_wakeup_ns.size(), 0u);
}

namespace {
struct NewTaskCpus : kernel::TraceSink {
  std::set<int> cpus;
  std::set<unsigned long> cookies;
  int children = 0;
  void sched_wakeup_new(Time, const kernel::task_struct *p, int cpu) override {
    if (p->comm.size() > 2 && p->comm.substr(p->comm.size() - 2) == "-c") {
      cpus.insert(cpu);
      cookies.insert(p->core_cookie);
      children++;
    }
  }
};
}  // namespace

TEST(ForkWorkload, ChildrenRunExitAndArePlacedByTheForkPath) {
  const auto s = scenario::parse_scenario(
      machine(4, 2) +
          "[[group]]\nname = \"f\"\n"
          "fork = { children = 40, child_run = \"2ms\", interval = \"100us\" }\n"
          "[[config]]\nname = \"plain\"\n"
          "[[config]]\nname = \"cookie\"\ncookies = [ { group = \"f\" } ]\n",
      "fork.toml");
  for (const char *config : {"plain", "cookie"}) {
    auto c = scenario::choose_config(s, config, {}, {});
    engine::Simulation sim(s, c.name, c.kernel, 1);
    NewTaskCpus seen;
    sim.add_tracer(&seen);
    const auto r = schedlab::testing::checked_run(sim);
    EXPECT_EQ(seen.children, 40) << config;
    EXPECT_EQ(r.bench.forks, 40u);
    EXPECT_EQ(r.bench.children_exited, 40u);
    ASSERT_EQ(r.metrics.tasks.size(), 41u);
    for (const auto &t : r.metrics.tasks) {
      EXPECT_TRUE(t.exited) << config << " " << t.comm;
      if (t.comm == "f-c") {
        EXPECT_GE(t.runtime_ns, 2 * NSEC_PER_MSEC);
      }
    }
    // Overlapping 2 ms children forked every 100 us: the fork path spreads them over the idle
    // CPUs (sched_balance_find_dst_cpu), not onto the parent's CPU.
    EXPECT_GE(seen.cpus.size(), 4u) << config;
    // The parent waited for its children: it exits after the last one.
    const auto &parent = r.metrics.tasks.front();
    EXPECT_EQ(parent.comm, "f");
    for (const auto &t : r.metrics.tasks) EXPECT_LE(t.exit_ns, parent.exit_ns);
    // sched_core_fork(): the children carry the parent's cookie.
    ASSERT_EQ(seen.cookies.size(), 1u);
    if (std::string(config) == "cookie")
      EXPECT_NE(*seen.cookies.begin(), 0ul);
    else
      EXPECT_EQ(*seen.cookies.begin(), 0ul);
  }
}

TEST(BenchmarkScenario, RejectsPhasesCountAndUnknownKeys) {
  auto bad = [](const std::string &group) {
    try {
      scenario::parse_scenario(machine(1, 1) + "[[group]]\nname = \"g\"\n" + group, "b.toml");
    } catch (const scenario::ScenarioError &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(bad("hackbench = {}\ncount = 3\n").find("group[0].count: not allowed with hackbench"),
            std::string::npos);
  EXPECT_NE(bad("schbench = {}\nphases = [ { run = \"1ms\" } ]\n")
                .find("group[0].phases: not allowed with schbench"),
            std::string::npos);
  EXPECT_NE(bad("hackbench = { pipes = 3 }\n").find("group[0].hackbench.pipes: unknown key"),
            std::string::npos);
  EXPECT_NE(bad("hackbench = { transport = \"udp\" }\n")
                .find("group[0].hackbench.transport: unknown transport 'udp'"),
            std::string::npos);
  EXPECT_NE(
      bad("fork = {}\nschbench = {}\n").find("at most one of hackbench, schbench, fork or vm"),
      std::string::npos);
  EXPECT_NE(bad("schbench = { runtime = \"1s\", warmup = \"2s\" }\n")
                .find("group[0].schbench.warmup: must be shorter than runtime"),
            std::string::npos);
}

TEST(BenchmarkScenario, HackbenchSmallScenarioRuns) {
  const auto s =
      scenario::load_scenario(std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios/hackbench-small.toml");
  const auto r = run(s);
  EXPECT_EQ(r.bench.hackbench_messages, 2u * 10u * 10u * 400u);
  EXPECT_GT(r.bench.hackbench_ns, 0u);
}
