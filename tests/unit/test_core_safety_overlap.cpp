// SPDX-License-Identifier: GPL-2.0-only
// Cookie safety measures each task's overlap with other cookies, not the core's: siblings that
// keep re-picking for the core before the other acted on the last pick's IPI keep the core
// mixed for as long as they go on (the kernel does too), while a task that stays on its CPU
// beside other cookies is still caught.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel_fixture.h"
#include "observe/checkers.h"

using namespace schedlab;
using schedlab::testing::KernelFixture;

namespace {

constexpr Time kUs = 1000;
constexpr Time kLimit = 16 * kUs;  // the default machine costs' tolerance

struct Watched {
  Watched() : f(KernelFixture::default_spec(), {}), check(f.topo) {
    check.set_report(
        [this](Time, int core, const char *what, Time d) {
          reports.push_back(fmt::format("core {}: {} {}", core, what, d));
        },
        kLimit);
  }
  // A task of its own cookie (text by fmt: GCC 12 warns on "literal" + std::string), switched in on
  // `cpu` at `t`.
  void run(int cpu, Time t, unsigned long cookie) {
    const std::string name = fmt::format("t{}", tasks.size());
    kernel::task_struct *p = f.task(name.c_str());
    p->core_cookie = cookie;
    tasks.push_back(p);
    const kernel::task_struct *prev = cur[cpu] ? cur[cpu] : f.k.cpu_rq(cpu)->idle;
    check.sched_switch(t, cpu, prev, 0, p);
    cur[cpu] = p;
  }
  KernelFixture f;
  observe::CoreSafetyChecker check;
  std::vector<std::string> reports;
  std::vector<kernel::task_struct *> tasks;
  const kernel::task_struct *cur[8] = {};
};

// CPU 0 and its sibling CPU 4 switch in turn every 2 us, each to a task of a new cookie, for
// 400 us: the core runs two cookies all along, but every task only for the 4 us it runs.
TEST(CoreSafetyOverlap, AChainOfRepicksIsNotOneLongOverlap) {
  Watched w;
  unsigned long cookie = 1;
  for (Time t = 0; t < 400 * kUs; t += 2 * kUs) w.run((t / (2 * kUs)) % 2 ? 4 : 0, t, cookie++);
  w.check.finish(400 * kUs);
  EXPECT_TRUE(w.reports.empty()) << w.reports.front();
  EXPECT_GT(w.check.overlaps(), 100u);
  EXPECT_LE(w.check.max_overlap_ns(), 4 * kUs);
}

// The same switching on CPU 4 only: the task on CPU 0 co-runs with other cookies for 400 us.
TEST(CoreSafetyOverlap, ATaskThatStaysBesideOtherCookiesIsCaught) {
  Watched w;
  w.run(0, 0, 1000);
  unsigned long cookie = 1;
  for (Time t = 2 * kUs; t < 400 * kUs; t += 2 * kUs) w.run(4, t, cookie++);
  w.check.finish(400 * kUs);
  ASSERT_EQ(w.reports.size(), 1u);
  EXPECT_EQ(w.reports[0], "core 0: two cookies co-ran longer than the IPI tolerance 398000");
  EXPECT_EQ(w.check.max_overlap_ns(), 398 * kUs);
}

}  // namespace
