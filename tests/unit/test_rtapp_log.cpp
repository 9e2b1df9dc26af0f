// SPDX-License-Identifier: GPL-2.0-only
// rt-app's ftrace log: the lines a run of an rt-app file writes to the trace when its
// global.ftrace names categories, their text as rt-app writes it, the task and CPU that write
// them, and the simulated times (each loop's start and end, each event's start).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "engine/simulation.h"
#include "observe/ftrace_writer.h"
#include "scenario/config.h"
#include "scenario/scenario.h"

using namespace schedlab;

namespace {

// One CPU, so that nothing else moves the times: phase p0 runs 1 ms then waits for a 5 ms
// timer, twice; phase p1 sleeps 2 ms (its zero run is written but not simulated). The thread
// does that twice.
std::string tiny(const std::string &ftrace) {
  return R"({
    "global": { "duration": -1)" +
         (ftrace.empty() ? std::string() : ", \"ftrace\": " + ftrace) + R"( },
    "tasks": { "t": { "loop": 2, "phases": {
      "p0": { "loop": 2, "run": 1000, "timer": { "ref": "tick", "period": 5000 } },
      "p1": { "sleep": 2000, "run0": 0 } } } },
    "schedlab": { "machine": { "sockets": 1, "cores_per_llc": 1, "threads_per_core": 1 } }
  })";
}

struct Line {
  std::string comm;
  int pid = 0, cpu = 0;
  std::string flags;
  u64 us = 0;        // the trace's timestamp, in microseconds
  std::string text;  // after "tracing_mark_write: "
};

struct Traced {
  scenario::Scenario s;
  engine::RunResult r;
  std::vector<Line> marks;
};

// Runs the scenario with an ftrace writer (or without any trace) and returns its marker lines.
Traced run(const std::string &json, bool trace = true) {
  Traced t;
  t.s = scenario::parse_rtapp(json, "tiny.json");
  auto c = scenario::choose_config(t.s, "", {}, {});
  engine::Simulation sim(t.s, c.name, c.kernel, 1);
  char *buf = nullptr;
  std::size_t size = 0;
  std::FILE *out = open_memstream(&buf, &size);
  {
    observe::FtraceWriter w(sim.kernel(), out, 0, kTimeNever);
    if (trace) sim.add_tracer(&w);
    t.r = sim.run();
    EXPECT_EQ(w.finish(), 0);
  }
  std::fclose(out);
  std::istringstream in(std::string(buf, size));
  std::free(buf);
  for (std::string l; std::getline(in, l);) {
    const auto at = l.find(": tracing_mark_write: ");
    if (l.empty() || l[0] == '#' || at == std::string::npos) continue;
    // "%16s-%-7d [%03d] FLAGS SSSSS.UUUUUU: "
    Line m;
    const auto dash = l.rfind('-', l.find(" ["));
    m.comm = l.substr(0, dash);
    m.comm.erase(0, m.comm.find_first_not_of(' '));
    m.pid = std::stoi(l.substr(dash + 1));
    const auto br = l.find('[');
    m.cpu = std::stoi(l.substr(br + 1));
    m.flags = l.substr(br + 6, 5);
    const std::string ts = l.substr(br + 12, at - br - 12);
    const auto dot = ts.find('.');
    m.us = std::stoull(ts.substr(0, dot)) * 1000000 + std::stoull(ts.substr(dot + 1));
    m.text = l.substr(at + 22);
    t.marks.push_back(m);
  }
  return t;
}

std::vector<std::string> texts(const Traced &t) {
  std::vector<std::string> v;
  for (const Line &l : t.marks) v.push_back(l.text);
  return v;
}

const Line &find(const Traced &t, const std::string &text, int nth = 0) {
  for (const Line &l : t.marks)
    if (l.text == text && nth-- == 0) return l;
  ADD_FAILURE() << "no line " << text;
  static const Line none;
  return none;
}

}  // namespace

TEST(RtAppLog, LinesAreRtAppsInItsOrder) {
  const Traced t = run(tiny("\"main,task,loop,event\""));
  std::vector<std::string> want = {"rtapp_main: event=start", "rtapp_main: event=clock_ref data=1",
                                   "rtapp_task: event=start"};
  for (int thread_loop = 0; thread_loop < 2; thread_loop++) {
    for (int pl = 0; pl < 2; pl++) {
      const std::string at = fmt::format("thread_loop={} phase=0 phase_loop={}", thread_loop, pl);
      want.push_back("rtapp_loop: event=start " + at);
      want.push_back("rtapp_event: id=0 type=6 desc=run");
      want.push_back("rtapp_event: id=1 type=10 desc=timer:tick");
      want.push_back("rtapp_loop: event=end " + at);
    }
    const std::string at = fmt::format("thread_loop={} phase=1 phase_loop=0", thread_loop);
    want.push_back("rtapp_loop: event=start " + at);
    want.push_back("rtapp_event: id=0 type=5 desc=sleep");
    want.push_back("rtapp_event: id=1 type=6 desc=run0");
    want.push_back("rtapp_loop: event=end " + at);
  }
  want.push_back("rtapp_task: event=end");
  want.push_back("rtapp_main: event=end");  // every thread ended: no shutdown
  EXPECT_EQ(texts(t), want);
  // The thread writes its lines from its CPU, in user context (interrupts on); the main thread's
  // lines are written on CPU 0 by whatever runs there (here the idle task).
  for (const Line &l : t.marks) {
    EXPECT_EQ(l.flags, ".....") << l.text;
    EXPECT_EQ(l.cpu, 0);
    const bool by_main = l.text == "rtapp_main: event=start" || l.text == "rtapp_main: event=end";
    EXPECT_EQ(l.comm, by_main ? "<idle>" : "t") << l.text;
    EXPECT_EQ(l.pid, by_main ? 0 : 1) << l.text;
  }
}

TEST(RtAppLog, LinesAreWrittenAtTheSimulatedTimesOfLoopsAndEvents) {
  const Traced t = run(tiny("\"main,task,loop,event,stats\""));
  const u64 start = find(t, "rtapp_task: event=start").us;
  // The thread starts once forked and switched in (1 us of context switch on an idle CPU).
  EXPECT_EQ(start, 1u);
  EXPECT_EQ(find(t, "rtapp_main: event=clock_ref data=1").us, start);
  EXPECT_EQ(find(t, "rtapp_loop: event=start thread_loop=0 phase=0 phase_loop=0").us, start);
  // Each event is marked where it starts: the timer after the 1 ms run.
  EXPECT_EQ(find(t, "rtapp_event: id=0 type=6 desc=run").us, start);
  EXPECT_EQ(find(t, "rtapp_event: id=1 type=10 desc=timer:tick").us, start + 1000);
  // The loop ends when the thread runs again after the timer's 5 ms boundary (timer_slack_ns,
  // 50 us, late, plus the wakeup's switch); the next loop starts at once.
  const u64 end0 = find(t, "rtapp_loop: event=end thread_loop=0 phase=0 phase_loop=0").us;
  EXPECT_GE(end0, 5050u);
  EXPECT_LE(end0, 5060u);
  EXPECT_EQ(find(t, "rtapp_loop: event=start thread_loop=0 phase=0 phase_loop=1").us, end0);
  // rt-app's statistics of that loop: its length, the run's time, the timer's wakeup latency
  // and slack, and the configured period and run.
  EXPECT_EQ(find(t, fmt::format("rtapp_stats: period={} run=1000 wu_lat={} slack={} "
                                "c_period=5000 c_run=1000",
                                end0 - start, end0 - 5000, 5000 - (start + 1000)))
                .us,
            end0);
  // The second timer boundary is at 10 ms (absolute from the thread's start, rt-app's t_first).
  const u64 end1 = find(t, "rtapp_loop: event=end thread_loop=0 phase=0 phase_loop=1").us;
  EXPECT_GE(end1, 10050u);
  EXPECT_LE(end1, 10060u);
  // Phase p1 sleeps 2 ms (plus the timer slack); its zero run is marked where the sleep ends.
  const u64 sleep_end = find(t, "rtapp_event: id=1 type=6 desc=run0").us;
  EXPECT_GE(sleep_end, end1 + 2050);
  EXPECT_LE(sleep_end, end1 + 2060);
  EXPECT_EQ(find(t, "rtapp_loop: event=end thread_loop=0 phase=1 phase_loop=0").us, sleep_end);
  // The thread's second pass restarts p0; its timer boundary is 15 ms.
  EXPECT_EQ(find(t, "rtapp_loop: event=start thread_loop=1 phase=0 phase_loop=0").us, sleep_end);
  const u64 task_end = find(t, "rtapp_task: event=end").us;
  EXPECT_EQ(find(t, "rtapp_loop: event=end thread_loop=1 phase=1 phase_loop=0").us, task_end);
  EXPECT_EQ(find(t, "rtapp_main: event=end").us, task_end);
  EXPECT_EQ(t.r.metrics.end_ns / 1000, task_end);
}

TEST(RtAppLog, CategoriesChooseTheLinesAndTheDefaultIsNone) {
  auto count = [](const Traced &t, const std::string &prefix) {
    int n = 0;
    for (const Line &l : t.marks) n += l.text.rfind(prefix, 0) == 0;
    return n;
  };
  const Traced loop = run(tiny("\"LOOP\""));  // rt-app ignores the case
  EXPECT_EQ(count(loop, "rtapp_loop: "), 12);
  EXPECT_EQ(loop.marks.size(), 12u);
  const Traced stats = run(tiny("\"stats,none,task\""));  // "none" clears what came before
  EXPECT_EQ(texts(stats),
            (std::vector<std::string>{"rtapp_main: event=clock_ref data=1",
                                      "rtapp_task: event=start", "rtapp_task: event=end"}));
  const Traced all = run(tiny("true"));  // the older boolean: every category
  EXPECT_EQ(count(all, "rtapp_stats: "), 6);
  EXPECT_EQ(count(all, "rtapp_event: "), 12);
  EXPECT_EQ(count(all, "rtapp_main: "), 3);
  // Without global.ftrace (rt-app's default), "", "none" or false, nothing is written, and
  // the tasks' programs carry no marks.
  for (const std::string f : {"", "\"\"", "\"none\"", "false"}) {
    const Traced off = run(tiny(f));
    EXPECT_TRUE(off.marks.empty()) << f;
    EXPECT_TRUE(off.s.marks.empty()) << f;
    EXPECT_EQ(off.s.groups[0].phases.size(), 2u) << f;  // Loop(p0), then p1's sleep
  }
}

TEST(RtAppLog, TheLogChangesNoResult) {
  // The marks take no time: the same run with the log, without it, and with the log but no
  // trace to take it.
  const Traced off = run(tiny(""));
  for (const Traced &on : {run(tiny("true")), run(tiny("true"), false)}) {
    EXPECT_EQ(on.r.events, off.r.events);
    EXPECT_EQ(on.r.metrics.end_ns, off.r.metrics.end_ns);
    ASSERT_EQ(on.r.metrics.tasks.size(), off.r.metrics.tasks.size());
    for (std::size_t i = 0; i < on.r.metrics.tasks.size(); i++) {
      EXPECT_EQ(on.r.metrics.tasks[i].runtime_ns, off.r.metrics.tasks[i].runtime_ns);
      EXPECT_EQ(on.r.metrics.tasks[i].sleep_ns, off.r.metrics.tasks[i].sleep_ns);
      EXPECT_EQ(on.r.metrics.tasks[i].nr_switches, off.r.metrics.tasks[i].nr_switches);
    }
  }
}

TEST(RtAppLog, EventDescriptionsAreRtApps) {
  const Traced t = run(R"({
    "global": { "duration": 1, "ftrace": "event" },
    "tasks": {
      "a": { "loop": 1, "lock": "m", "signal": "c", "unlock": "m", "barrier": "b",
             "timer": { "ref": "unique", "period": 100 }, "yield": 0, "resume": "b2",
             "run": 10 },
      "b": { "loop": 1, "barrier": "b", "suspend": "b2", "lock1": "m",
             "wait": { "ref": "c", "mutex": "m" }, "unlock1": "m",
             "timer": { "period": 0 }, "runtime": 10 }
    }
  })");
  std::vector<std::string> a, b;
  for (const Line &l : t.marks) (l.comm == "a" ? a : b).push_back(l.text);
  EXPECT_EQ(
      a, (std::vector<std::string>{
             "rtapp_event: id=0 type=8 desc=lock:m", "rtapp_event: id=1 type=3 desc=signal:c",
             "rtapp_event: id=2 type=9 desc=unlock:m", "rtapp_event: id=3 type=21 desc=barrier:b",
             // rt-app appends an address to a unique timer's name: here the task's index
             "rtapp_event: id=4 type=11 desc=timer:unique0", "rtapp_event: id=5 type=20 desc=yield",
             "rtapp_event: id=6 type=13 desc=resume:b2:b2", "rtapp_event: id=7 type=6 desc=run"}));
  ASSERT_GE(b.size(), 3u);
  EXPECT_EQ(b[0], "rtapp_event: id=0 type=21 desc=barrier:b");
  EXPECT_EQ(b[1], "rtapp_event: id=1 type=12 desc=suspend:b2:b2");
  EXPECT_EQ(b[2], "rtapp_event: id=2 type=8 desc=lock1:m");
}

TEST(RtAppLog, BadFtraceValuesAreRefusedAsRtAppRefusesThem) {
  for (const auto &[value, msg] :
       {std::pair{"\"main,run\"", "global.ftrace: unknown category 'run'"},
        std::pair{"\"main, task\"", "global.ftrace: unknown category ' task'"},
        std::pair{"3", "global.ftrace: expected a string of categories"}}) {
    try {
      scenario::parse_rtapp(tiny(value), "tiny.json");
      ADD_FAILURE() << value;
    } catch (const scenario::ScenarioError &e) {
      EXPECT_NE(std::string(e.what()).find(msg), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("tiny.json:2:", 0), 0u) << e.what();
    }
  }
}
