// SPDX-License-Identifier: GPL-2.0-only
// The ftrace text reader and trace replay: formats, errors with their line, the run / wake /
// block sequences derived from a trace, and replays that reproduce each task's CPU time.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>

#include "engine/simulation.h"
#include "observe/ftrace_writer.h"
#include "scenario/ftrace_reader.h"

namespace schedlab {
namespace {

using scenario::ParsedTrace;
using scenario::TraceEvent;
using workload::ReplayStep;
using K = ReplayStep::Kind;

const std::string kData = std::string(SCHEDLAB_SOURCE_DIR) + "/tests/data/traces/";

std::string error_of(std::string_view text) {
  try {
    scenario::parse_ftrace(text, "t.trace");
  } catch (const scenario::ScenarioError &e) {
    return e.what();
  }
  return "";
}

TEST(FtraceReader, KernelTraceFileWithFourOrFiveFlagColumns) {
  const ParsedTrace t = scenario::parse_ftrace(
      "# tracer: nop\n"
      "# entries-in-buffer/entries-written: 2/2   #P:8\n"
      "     my task-12      [003] d.h2.  1234.000001: sched_waking: comm=other task pid=13 "
      "prio=120 target_cpu=001\n"
      "          <idle>-0   [001] d...  1234.000002: sched_switch: prev_comm=swapper/1 "
      "prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=other task next_pid=13 "
      "next_prio=120\n",
      "t.trace");
  EXPECT_EQ(t.nr_cpus, 8);
  ASSERT_EQ(t.events.size(), 2u);
  const TraceEvent &w = t.events[0];
  EXPECT_EQ(w.type, TraceEvent::Type::Waking);
  EXPECT_EQ(w.pid, 12);
  EXPECT_EQ(w.cpu, 3);
  EXPECT_TRUE(w.irq);  // 'h' in the hardirq/softirq column
  EXPECT_EQ(w.ts, 1234 * NSEC_PER_SEC + 1000);
  EXPECT_EQ(w.a_comm, "other task");  // comms with spaces
  EXPECT_EQ(w.a_pid, 13);
  const TraceEvent &s = t.events[1];
  EXPECT_EQ(s.type, TraceEvent::Type::Switch);
  EXPECT_FALSE(s.irq);
  EXPECT_EQ(s.a_pid, 0);
  EXPECT_EQ(s.b_pid, 13);
  EXPECT_EQ(s.b_comm, "other task");
  EXPECT_FALSE(s.blocked);  // prev_state=R: preempted
}

// A trace taken with --trace-pelt (or on a kernel with LISA's module loaded) carries
// load-tracking events; replay needs none of them.
TEST(FtraceReader, LoadTrackingEventsAreSkipped) {
  const ParsedTrace t = scenario::parse_ftrace(
      "# tracer: nop\n"
      "          <idle>-0   [001] d.h.     1.000001: lisa__sched_util_est_cfs: cpu=1 path=/ "
      "util=12 util_est=300\n"
      "          <idle>-0   [001] d.h.     1.000001: lisa__sched_pelt_se: cpu=1 path=(null) "
      "comm=w pid=13 load=5 util=4 update_time=1000000512 runnable=5\n"
      "          <idle>-0   [001] d...     1.000002: sched_switch: prev_comm=swapper/1 "
      "prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=w next_pid=13 next_prio=120\n",
      "t.trace");
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.events[0].type, TraceEvent::Type::Switch);
  EXPECT_EQ(t.events[0].line, 4);
}

TEST(FtraceReader, TraceCmdReportLayout) {
  const ParsedTrace t = scenario::read_ftrace(kData + "trace-cmd-report.txt");
  ASSERT_EQ(t.events.size(), 7u);
  EXPECT_EQ(t.nr_cpus, 2);  // no #P: the highest CPU seen + 1
  EXPECT_EQ(t.events[0].a_comm, "server");
  EXPECT_EQ(t.events[0].b_pid, 101);
  EXPECT_TRUE(t.events[0].blocked);
  EXPECT_EQ(t.events[1].ts, 100 * NSEC_PER_SEC + 500 * NSEC_PER_USEC);  // ns timestamps
  EXPECT_EQ(t.events[6].type, TraceEvent::Type::Exit);
}

// perf script after perf sched record: "COMM TID [CPU] SECS: sched:EVENT: FIELDS", the comm
// possibly with spaces or dashes, the id possibly PID/TID, no flag column.
TEST(FtraceReader, PerfScriptLayout) {
  const ParsedTrace t = scenario::parse_ftrace(
      "       perf-exec  2170/2171 [001]  5.000100: sched:sched_waking: comm=other task pid=13 "
      "prio=120 target_cpu=002\n"
      "     Web Content  2172 [002]  5.000200: sched:sched_switch: prev_comm=Web Content "
      "prev_pid=2172 prev_prio=120 prev_state=S ==> next_comm=other task next_pid=13 "
      "next_prio=120\n",
      "p.txt");
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.events[0].type, TraceEvent::Type::Waking);
  EXPECT_EQ(t.events[0].pid, 2171);
  EXPECT_EQ(t.events[0].cpu, 1);
  EXPECT_FALSE(t.events[0].irq);
  EXPECT_EQ(t.events[0].ts, 5 * NSEC_PER_SEC + 100000);
  EXPECT_EQ(t.events[1].type, TraceEvent::Type::Switch);
  EXPECT_EQ(t.events[1].pid, 2172);
  EXPECT_EQ(t.nr_cpus, 3);
}

TEST(FtraceReader, BadInputNamesFileAndLine) {
  const std::string sw =
      "  a-1 [000] d... 1.000000: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 "
      "prev_state=S ==> next_comm=b next_pid=2 next_prio=120\n";
  EXPECT_EQ(error_of(""),
            "t.trace:0: error: no scheduler events (sched_switch, sched_waking, "
            "...): is this an ftrace text trace?");
  EXPECT_NE(error_of("# tracer: nop\nhello world\n")
                .find("t.trace:2: error: not an ftrace event "
                      "line"),
            std::string::npos);
  EXPECT_NE(error_of(sw + "  a-1 [000] d... 1.0000").find("t.trace:2: error: truncated last line"),
            std::string::npos);
  EXPECT_NE(error_of(sw + "  a-1 [000] d... 0.500000: sched_waking: comm=b pid=2 prio=120 "
                          "target_cpu=000\n")
                .find("t.trace:2: error: timestamp goes back"),
            std::string::npos);
  EXPECT_NE(error_of("  a-1 [000] d... 1.000000: sched_switch: prev_comm=a prev_pid=x\n")
                .find("t.trace:1: error: sched_switch: fields do not follow its format"),
            std::string::npos);
  EXPECT_NE(error_of(std::string("\x7f"
                                 "ELF\0\0",
                                 6))
                .find("binary data"),
            std::string::npos);
  try {
    scenario::read_ftrace(kData + "no-such-file");
    FAIL();
  } catch (const scenario::ScenarioError &e) {
    EXPECT_NE(std::string(e.what()).find("no-such-file: error: cannot read"), std::string::npos);
  }
}

std::vector<ReplayStep> steps_of(const workload::ReplaySpec &s, const std::string &comm) {
  for (const auto &t : s.tasks)
    if (t.comm == comm) return t.steps;
  ADD_FAILURE() << "no task " << comm;
  return {};
}

void expect_steps(const std::vector<ReplayStep> &got, const std::vector<std::pair<K, Time>> &want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); i++) {
    EXPECT_EQ(got[i].kind, want[i].first) << "step " << i;
    EXPECT_EQ(got[i].amount, want[i].second) << "step " << i;
  }
}

TEST(Replay, DerivesRunWakeBlockSequences) {
  const auto spec = scenario::derive_replay(scenario::read_ftrace(kData + "trace-cmd-report.txt"));
  ASSERT_EQ(spec->tasks.size(), 2u);
  // server: blocked at the start, woken by client; runs 1 ms, wakes client, runs 0.4 ms.
  expect_steps(steps_of(*spec, "server"),
               {{K::Block, 0}, {K::Run, 1000000}, {K::Wake, 0}, {K::Run, 400000}});
  // client: runs 0.5 ms, wakes server, 0.1 ms more, blocks until server wakes it, 2.3 ms.
  expect_steps(
      steps_of(*spec, "client"),
      {{K::Run, 500000}, {K::Wake, 0}, {K::Run, 100000}, {K::Block, 0}, {K::Run, 2300000}});
  EXPECT_EQ(spec->tasks[0].trace_runtime_ns + spec->tasks[1].trace_runtime_ns, 4300000u);
}

TEST(Replay, InterruptWakeupsBecomeSleeps) {
  const auto spec = scenario::derive_replay(scenario::parse_ftrace(
      "  t-5 [000] d... 1.000000: sched_switch: prev_comm=t prev_pid=5 prev_prio=120 "
      "prev_state=S ==> next_comm=u next_pid=6 next_prio=120\n"
      "  u-6 [000] d.s. 1.003000: sched_waking: comm=t pid=5 prio=120 target_cpu=000\n"
      "  u-6 [000] d... 1.004000: sched_switch: prev_comm=u prev_pid=6 prev_prio=120 "
      "prev_state=R ==> next_comm=t next_pid=5 next_prio=120\n"
      "  t-5 [000] d... 1.006000: sched_switch: prev_comm=t prev_pid=5 prev_prio=120 "
      "prev_state=S ==> next_comm=u next_pid=6 next_prio=120\n",
      "t.trace"));
  // The softirq wakeup (timer) is a 3 ms sleep, not a wakeup by u.
  expect_steps(steps_of(*spec, "t"), {{K::Sleep, 3000000}, {K::Run, 2000000}});
  expect_steps(steps_of(*spec, "u"), {{K::Run, 4000000}});  // preempted, not blocked
}

// Replays a parsed trace on a scenario; per task CPU time in the trace and the replay.
struct Replayed {
  std::shared_ptr<const workload::ReplaySpec> spec;
  engine::RunResult r;
};
Replayed replay(const ParsedTrace &t, const scenario::Scenario *base) {
  Replayed out;
  out.spec = scenario::derive_replay(t);
  const scenario::Scenario s = scenario::replay_scenario(out.spec, base, {});
  engine::Simulation sim(s, s.configs[0].name, s.kernel, 1);
  out.r = sim.run();
  return out;
}

void expect_runtimes_reproduced(const Replayed &rp) {
  Time trace_total = 0, replay_total = 0;
  ASSERT_EQ(rp.r.metrics.tasks.size(), rp.spec->tasks.size());
  for (std::size_t i = 0; i < rp.spec->tasks.size(); i++) {
    const auto &t = rp.spec->tasks[i];
    const auto &m = rp.r.metrics.tasks[i];
    EXPECT_TRUE(m.exited) << t.comm << " never finished its replay";
    trace_total += t.trace_runtime_ns;
    replay_total += m.runtime_ns;
    // Each switch in adds the machine's modelled costs (context switch, cache refill) to CPU
    // time the trace measured with the real ones included: a task whose runs are short differs
    // by more than 1 %. Tasks that run 1 ms or more per switch in must match within 1 %.
    std::size_t runs = 0;
    for (const auto &st : t.steps) runs += st.kind == K::Run;
    if (runs && t.trace_runtime_ns / runs >= NSEC_PER_MSEC) {
      EXPECT_NEAR(static_cast<double>(m.runtime_ns), static_cast<double>(t.trace_runtime_ns),
                  0.01 * static_cast<double>(t.trace_runtime_ns))
          << t.comm;
    }
  }
  EXPECT_NEAR(static_cast<double>(replay_total), static_cast<double>(trace_total),
              0.01 * static_cast<double>(trace_total));
}

TEST(Replay, RealLinuxTraceReproducesEachTasksRuntime) {
  const ParsedTrace t = scenario::read_ftrace(kData + "golden-pairs-4t.trace");
  EXPECT_EQ(t.nr_cpus, 4);
  const Replayed rp = replay(t, nullptr);
  expect_runtimes_reproduced(rp);
  // The four workers did 200 iterations each: 200 sleeps and one last run.
  for (const char *w : {"cbw0", "cbw1", "cbw2", "cbw3"}) {
    std::size_t runs = 0;
    for (const auto &s : steps_of(*rp.spec, w)) runs += s.kind == K::Run;
    EXPECT_GE(runs, 200u) << w;
  }
}

TEST(Replay, OwnTraceRoundTrip) {
  // A run traced by schedlab, read back and replayed: every task's CPU time in the trace is
  // the original run's, and the replay reproduces it.
  const auto file =
      std::filesystem::temp_directory_path() / ("schedlab-replay-" + std::to_string(getpid()));
  const scenario::Scenario s =
      scenario::load_scenario(std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios/wakeup-fastpath.toml");
  engine::RunResult original;
  {
    std::FILE *out = std::fopen(file.c_str(), "w");
    ASSERT_NE(out, nullptr);
    engine::Simulation sim(s, s.configs.empty() ? "default" : s.configs[0].name, s.kernel, 3);
    observe::FtraceWriter w(sim.kernel(), out, 0, kTimeNever);
    sim.add_tracer(&w);
    original = sim.run();
    w.finish();
    std::fclose(out);
  }
  const ParsedTrace t = scenario::read_ftrace(file.string());
  std::filesystem::remove(file);
  const Replayed rp = replay(t, &s);
  expect_runtimes_reproduced(rp);
  std::map<std::string, const observe::TaskMetrics *> orig;
  for (const auto &m : original.metrics.tasks) orig[m.comm] = &m;
  std::size_t matched = 0;
  for (const auto &task : rp.spec->tasks) {
    const auto it = orig.find(task.comm);
    if (it == orig.end()) continue;
    matched++;
    // The trace has microsecond timestamps: at most 1 us lost or gained per switch in or out.
    EXPECT_NEAR(static_cast<double>(task.trace_runtime_ns),
                static_cast<double>(it->second->runtime_ns),
                1000.0 * static_cast<double>(2 * it->second->nr_switches + 2))
        << task.comm;
  }
  EXPECT_EQ(matched, original.metrics.tasks.size());
}

}  // namespace
}  // namespace schedlab
