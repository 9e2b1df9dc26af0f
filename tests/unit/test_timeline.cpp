// SPDX-License-Identifier: GPL-2.0-only
// TimelineRecorder: hand-built tracepoints in, slices clipped to the window out.
#include <gtest/gtest.h>

#include "kernel/sched.h"
#include "machine/topology.h"
#include "observe/timeline_recorder.h"

using namespace schedlab;
using kernel::task_struct;
using observe::TimelineSlice;

namespace {

struct Fixture {
  Topology topo{[] {
    TopologySpec s;
    s.cores_per_llc = 2;
    s.threads_per_core = 2;  // x86 numbering: CPUs 0 and 2 share core 0, 1 and 3 core 1
    return s;
  }()};
  task_struct idle = make(0, "swapper", 0, true), a = make(7, "worker a", 2), b = make(8, "bee", 0);
  static task_struct make(int pid, std::string comm, unsigned long cookie, bool idle = false) {
    task_struct p;
    p.pid = pid;
    p.comm = std::move(comm);  // (assigning a literal trips GCC 12's -Wrestrict false positive)
    p.core_cookie = cookie;
    p.is_idle_task = idle;
    return p;
  }
};

constexpr Time ms = NSEC_PER_MSEC;

}  // namespace

TEST(TimelineRecorder, KeepsSlicesInsideTheWindowClippedToIt) {
  Fixture f;
  observe::TimelineRecorder rec(f.topo, 10 * ms, 20 * ms);
  rec.sched_switch(2 * ms, 0, &f.idle, 0, &f.a);  // a on cpu0 from 2 ms ...
  rec.sched_switch(5 * ms, 0, &f.a, 1, &f.idle);  // ... to 5 ms: before the window, dropped
  rec.sched_switch(8 * ms, 0, &f.idle, 0, &f.a);  // a from 8 ms ...
  rec.sched_switch(12 * ms, 0, &f.a, 0, &f.b);    // ... to 12 ms: clipped to [10, 12)
  rec.sched_forceidle(14 * ms, 2, true);          // cpu2 forced idle 14 ms ...
  rec.sched_forceidle(16 * ms, 2, false);         // ... to 16 ms
  rec.sched_wakeup(9 * ms, &f.b, 1);              // before the window: dropped
  rec.sched_wakeup(15 * ms, &f.a, 1);
  rec.sched_wakeup_new(17 * ms, &f.b, 3);
  rec.sched_switch(18 * ms, 1, &f.idle, 0, &f.a);  // a on cpu1 from 18 ms, still running at the end
  rec.sched_switch(25 * ms, 3, &f.idle, 0, &f.b);  // after the window: never drawn
  const observe::Timeline t = rec.finish(30 * ms);  // b still on cpu0: [12, 20)

  EXPECT_FALSE(t.overflow);
  ASSERT_EQ(t.cpus.size(), 4u);
  EXPECT_EQ(t.cpus[0].cpu, 0);  // grouped by core: 0, 2, then 1, 3
  EXPECT_EQ(t.cpus[1].cpu, 2);
  EXPECT_EQ(t.cpus[2].cpu, 1);
  EXPECT_EQ(t.cpus[3].core, 1);

  ASSERT_EQ(t.slices.size(), 4u);  // in start order
  EXPECT_EQ(t.slices[0].kind, TimelineSlice::Task);
  EXPECT_EQ(t.slices[0].cpu, 0);
  EXPECT_EQ(t.slices[0].start, 10 * ms);
  EXPECT_EQ(t.slices[0].end, 12 * ms);
  EXPECT_EQ(t.slices[0].pid, 7);
  EXPECT_EQ(t.slices[0].comm, "worker_a");  // as ftrace prints it
  EXPECT_EQ(t.slices[0].cookie, 2u);
  EXPECT_EQ(t.slices[1].pid, 8);
  EXPECT_EQ(t.slices[1].comm, "bee");
  EXPECT_EQ(t.slices[1].start, 12 * ms);
  EXPECT_EQ(t.slices[1].end, 20 * ms);
  EXPECT_EQ(t.slices[2].kind, TimelineSlice::ForcedIdle);
  EXPECT_EQ(t.slices[2].cpu, 2);
  EXPECT_EQ(t.slices[2].start, 14 * ms);
  EXPECT_EQ(t.slices[2].end, 16 * ms);
  EXPECT_EQ(t.slices[3].cpu, 1);
  EXPECT_EQ(t.slices[3].start, 18 * ms);
  EXPECT_EQ(t.slices[3].end, 20 * ms);

  ASSERT_EQ(t.wakeups.size(), 2u);
  EXPECT_EQ(t.wakeups[0].at, 15 * ms);
  EXPECT_EQ(t.wakeups[0].cpu, 1);
  EXPECT_FALSE(t.wakeups[0].is_new);
  EXPECT_EQ(t.wakeups[1].cpu, 3);
  EXPECT_TRUE(t.wakeups[1].is_new);
}

TEST(TimelineRecorder, RecordsOnlyTheChosenCpus) {
  Fixture f;
  observe::TimelineRecorder rec(f.topo, 0, 10 * ms, {1});
  rec.sched_switch(1 * ms, 0, &f.idle, 0, &f.a);
  rec.sched_switch(2 * ms, 1, &f.idle, 0, &f.b);
  rec.sched_wakeup(3 * ms, &f.a, 0);
  const observe::Timeline t = rec.finish(4 * ms);
  ASSERT_EQ(t.cpus.size(), 1u);
  ASSERT_EQ(t.slices.size(), 1u);
  EXPECT_EQ(t.slices[0].cpu, 1);
  EXPECT_EQ(t.slices[0].end, 4 * ms);
  EXPECT_TRUE(t.wakeups.empty());
}

TEST(TimelineRecorder, StopsAtItsLimitAndSaysSo) {
  Fixture f;
  observe::TimelineRecorder rec(f.topo, 0, 100 * ms, {}, 3);
  for (int i = 0; i < 10; i++) rec.sched_wakeup(static_cast<Time>(i) * ms, &f.a, 0);
  const observe::Timeline t = rec.finish(100 * ms);
  EXPECT_TRUE(t.overflow);
  EXPECT_EQ(t.wakeups.size(), 3u);
}

// With `util`, each traced CPU's utilisation in the window: a CPU starts from its value when the
// window opened (its last sample before), and keeps it if nothing changes in the window.
TEST(TimelineRecorder, UtilStartsFromTheValueBeforeTheWindow) {
  Fixture f;
  observe::TimelineRecorder off(f.topo, 10 * ms, 20 * ms);
  EXPECT_FALSE(off.traces_pelt());
  observe::TimelineRecorder rec(f.topo, 10 * ms, 20 * ms, {0, 1, 2}, 100, /*util=*/true);
  EXPECT_TRUE(rec.traces_pelt());
  auto avg = [](unsigned long util, unsigned int est) {
    kernel::sched_avg a;
    a.util_avg = util;
    a.util_est = est;
    return a;
  };
  rec.pelt_cfs(5 * ms, 0, 0, avg(100, 0));        // cpu0 before the window: its start value
  rec.util_est_cfs(8 * ms, 0, 0, avg(120, 300));  // ... replaced by this one
  rec.pelt_cfs(12 * ms, 0, 0, avg(140, 300));
  rec.util_est_cfs(15 * ms, 2, 0, avg(150, 0));  // fired on cpu2, about cpu0's queue
  rec.pelt_cfs(25 * ms, 0, 0, avg(900, 0));      // after the window: dropped
  rec.pelt_cfs(9 * ms, 1, 1, avg(700, 800));     // cpu1: nothing in the window
  rec.pelt_cfs(11 * ms, 2, 2, avg(50, 0));       // cpu2: nothing before
  rec.pelt_cfs(12 * ms, 3, 3, avg(60, 0));       // cpu3 is not traced
  const observe::Timeline t = rec.finish(30 * ms);
  ASSERT_EQ(t.util.size(), 5u);  // by CPU, then time
  auto is = [](const observe::TimelineUtil &u, int cpu, Time at, unsigned long util,
               unsigned int est) {
    return u.cpu == cpu && u.at == at && u.util_avg == util && u.util_est == est;
  };
  EXPECT_TRUE(is(t.util[0], 0, 10 * ms, 120, 300));
  EXPECT_TRUE(is(t.util[1], 0, 12 * ms, 140, 300));
  EXPECT_TRUE(is(t.util[2], 0, 15 * ms, 150, 0));
  EXPECT_TRUE(is(t.util[3], 1, 10 * ms, 700, 800));
  EXPECT_TRUE(is(t.util[4], 2, 11 * ms, 50, 0));
}
