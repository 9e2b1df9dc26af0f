// SPDX-License-Identifier: GPL-2.0-only
// The load-tracking tracepoints (pelt_cfs_tp, pelt_se_tp, sched_util_est_cfs_tp,
// sched_util_est_se_tp): when they fire, in what order, and that what they report is the
// model's state at that instant.
#include <gtest/gtest.h>

#include <vector>

#include "kernel/trace.h"
#include "kernel_fixture.h"

using namespace schedlab;
using namespace schedlab::kernel;
using schedlab::testing::KernelFixture;

namespace {

struct Record {
  enum Kind { PeltCfs, PeltSe, UtilEstCfs, UtilEstSe } kind;
  Time t;
  int this_cpu, cpu, pid;
  sched_avg avg;
};

class Recorder : public TraceSink {
 public:
  explicit Recorder(bool pelt) : pelt_(pelt) {}
  bool traces_pelt() const override { return pelt_; }
  void pelt_cfs(Time t, int this_cpu, int cpu, const sched_avg &avg) override {
    r.push_back({Record::PeltCfs, t, this_cpu, cpu, 0, avg});
  }
  void pelt_se(Time t, int this_cpu, const task_struct *p) override {
    r.push_back({Record::PeltSe, t, this_cpu, p->cpu, p->pid, p->se.avg});
  }
  void util_est_cfs(Time t, int this_cpu, int cpu, const sched_avg &avg) override {
    r.push_back({Record::UtilEstCfs, t, this_cpu, cpu, 0, avg});
  }
  void util_est_se(Time t, int this_cpu, const task_struct *p) override {
    r.push_back({Record::UtilEstSe, t, this_cpu, p->cpu, p->pid, p->se.avg});
  }
  std::vector<Record> r;

 private:
  bool pelt_;
};

bool same(const sched_avg &a, const sched_avg &b) {
  return a.last_update_time == b.last_update_time && a.load_sum == b.load_sum &&
         a.runnable_sum == b.runnable_sum && a.util_sum == b.util_sum &&
         a.period_contrib == b.period_contrib && a.load_avg == b.load_avg &&
         a.runnable_avg == b.runnable_avg && a.util_avg == b.util_avg && a.util_est == b.util_est;
}

}  // namespace

// A task that ran 20 ms on CPU 1 goes to sleep past the end of a PELT period. As in
// dequeue_task_fair(): the queue's estimate drops, the sleep samples the task's estimate, then
// the dequeue's PELT update moves the task's averages and the queue's. Each event carries the
// state as it is left.
TEST(LoadTracepoints, ASleepReportsTheQueueSumThenTheSampleThenTheAverages) {
  KernelFixture f;
  Recorder on(true), off(false);
  f.k.add_tracer(&off);
  f.k.add_tracer(&on);
  f.k.set_clock(1 * NSEC_PER_MSEC);
  task_struct *p = f.hog(1);
  f.settle(21 * NSEC_PER_MSEC);
  ASSERT_FALSE(on.r.empty());  // the ticks moved the averages
  // Past the end of the current period (1024 units of 1024 ns), whatever its phase.
  const sched_avg &a = p->se.avg;
  const Time sleep_at = a.last_update_time + (1024 - a.period_contrib + 10) * 1024;
  f.k.set_clock(sleep_at);
  on.r.clear();
  p->__state = TASK_INTERRUPTIBLE;
  f.k.block_current(1);
  const struct cfs_rq &cfs = f.k.cpu_rq(1)->cfs;
  ASSERT_EQ(on.r.size(), 4u);
  EXPECT_EQ(on.r[0].kind, Record::UtilEstCfs);
  EXPECT_EQ(on.r[0].avg.util_est, 0u);  // p was the queue's only task
  EXPECT_EQ(on.r[1].kind, Record::UtilEstSe);
  EXPECT_EQ(on.r[1].pid, p->pid);
  // Sampled, so flagged unchanged until the PELT update that follows moves util_avg.
  EXPECT_EQ(on.r[1].avg.util_est, p->se.avg.util_est | UTIL_AVG_UNCHANGED);
  EXPECT_FALSE(p->se.avg.util_est & UTIL_AVG_UNCHANGED);
  EXPECT_NE(p->se.avg.util_est, 0u);
  EXPECT_EQ(on.r[2].kind, Record::PeltSe);
  EXPECT_TRUE(same(on.r[2].avg, p->se.avg));
  EXPECT_EQ(on.r[2].avg.last_update_time, sleep_at / 1024 * 1024);
  EXPECT_EQ(on.r[3].kind, Record::PeltCfs);
  EXPECT_EQ(on.r[3].cpu, 1);
  EXPECT_TRUE(same(on.r[3].avg, cfs.avg));
  for (const Record &r : on.r) {
    EXPECT_EQ(r.t, sleep_at);
    EXPECT_EQ(r.this_cpu, 1);
  }
  EXPECT_TRUE(off.r.empty());  // a sink that did not ask gets none

  // Woken at the same instant: no time has passed, so no PELT period ends; the queue's sum takes
  // the estimate back.
  on.r.clear();
  f.k.try_to_wake_up(p, 0, 1);
  ASSERT_EQ(p->cpu, 1);
  ASSERT_EQ(on.r.size(), 1u);
  EXPECT_EQ(on.r[0].kind, Record::UtilEstCfs);
  EXPECT_EQ(on.r[0].avg.util_est, p->se.avg.util_est & ~UTIL_AVG_UNCHANGED);
}

// The jiffy tick of a running task ends a PELT period (1.048576 ms) at most once a millisecond;
// a tick within the period of the last update changes no average and reports nothing.
TEST(LoadTracepoints, OnlyAnUpdateThatEndsAPeriodReports) {
  KernelFixture f;
  Recorder on(true);
  f.k.add_tracer(&on);
  f.k.set_clock(1 * NSEC_PER_MSEC);
  task_struct *p = f.hog(2);
  f.settle(2 * NSEC_PER_MSEC);
  on.r.clear();
  f.settle(12 * NSEC_PER_MSEC);
  // Ten ticks over ten milliseconds: 9.8 periods of 1.048576 ms end, each seen by one tick.
  int se = 0, cfs = 0;
  for (const Record &r : on.r) {
    se += r.kind == Record::PeltSe && r.pid == p->pid;
    cfs += r.kind == Record::PeltCfs && r.cpu == 2;
  }
  EXPECT_GE(se, 9);
  EXPECT_LE(se, 10);
  EXPECT_EQ(cfs, se);
}
