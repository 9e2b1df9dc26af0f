// SPDX-License-Identifier: GPL-2.0-only
// The bytes MPI ranks send rank 0: every field of a run comes back exactly, NaN included, and
// damaged bytes are refused rather than read as a run.
#include <gtest/gtest.h>

#include <cmath>

#include "experiment/run_codec.h"

namespace schedlab::experiment {
namespace {

ExperimentRun sample() {
  ExperimentRun r;
  r.seed = ~u64{0};
  r.completion_ns = 24520917134;
  r.forceidle_ns = 11838000001;
  r.events = 61796;
  r.stuck_tasks = 24;
  r.bench = {1.5, std::nan(""), -0.0, 1e-300};
  r.bench_expected = 0b101;
  r.vm_forceidle_ns = {{"vm0", 12}, {"", 0}, {"a b", ~u64{0}}};
  r.sis.calls = 12000;
  r.sis.idle_tests = 40123;
  r.sis.by_step = {1, 2, 3, 4, 5, ~u64{0}};
  r.sis.cookie_mismatch = 2677;
  r.sis.cookie_mismatch_by_step = {2064, 0, 396, 0, 192, 25};
  for (std::size_t i = 0; i < r.stat.size(); i++) r.stat[i] = 1000.25 * static_cast<double>(i);
  r.stat[experiment::STAT_wakeup_p999_us] = std::nan("");  // a run without wakeups
  observe::CheckReport c;
  c.violations = 11;
  c.first.push_back({observe::Violation::Kind::Cookie, 5, 3, 1, -1, "two cookies on core 1"});
  c.wasted_threshold_ns = 1000000;
  c.wasted_ns = 77;
  c.wasted_pct = 0.125;
  c.max_cookie_overlap_ns = 2000;
  c.cookie_tolerance_ns = 10000;
  r.check = c;
  r.wall_s = 0.25;
  return r;
}

TEST(RunCodec, RoundTripsEveryField) {
  std::string bytes;
  encode_run(7, sample(), bytes);
  encode_run(8, ExperimentRun{}, bytes);
  std::string_view in(bytes);
  auto [k, r] = decode_run(in);
  const ExperimentRun want = sample();
  EXPECT_EQ(k, 7u);
  EXPECT_EQ(r.seed, want.seed);
  EXPECT_EQ(r.completion_ns, want.completion_ns);
  EXPECT_EQ(r.forceidle_ns, want.forceidle_ns);
  EXPECT_EQ(r.events, want.events);
  EXPECT_EQ(r.stuck_tasks, want.stuck_tasks);
  ASSERT_EQ(r.bench.size(), 4u);
  EXPECT_EQ(r.bench[0], 1.5);
  EXPECT_TRUE(std::isnan(r.bench[1]));
  EXPECT_TRUE(std::signbit(r.bench[2]));
  EXPECT_EQ(r.bench[3], 1e-300);
  EXPECT_EQ(r.bench_expected, want.bench_expected);
  EXPECT_EQ(r.vm_forceidle_ns, want.vm_forceidle_ns);
  EXPECT_EQ(r.sis.calls, want.sis.calls);
  EXPECT_EQ(r.sis.idle_tests, want.sis.idle_tests);
  EXPECT_EQ(r.sis.by_step, want.sis.by_step);
  EXPECT_EQ(r.sis.cookie_mismatch, want.sis.cookie_mismatch);
  EXPECT_EQ(r.sis.cookie_mismatch_by_step, want.sis.cookie_mismatch_by_step);
  for (std::size_t i = 0; i < r.stat.size(); i++)
    if (std::isnan(want.stat[i]))
      EXPECT_TRUE(std::isnan(r.stat[i])) << i;
    else
      EXPECT_EQ(r.stat[i], want.stat[i]) << i;
  ASSERT_TRUE(r.check);
  EXPECT_EQ(r.check->violations, 11u);
  ASSERT_EQ(r.check->first.size(), 1u);
  EXPECT_EQ(r.check->first[0].kind, observe::Violation::Kind::Cookie);
  EXPECT_EQ(r.check->first[0].pid, -1);
  EXPECT_EQ(r.check->first[0].what, "two cookies on core 1");
  EXPECT_EQ(r.check->wasted_pct, 0.125);
  EXPECT_EQ(r.check->cookie_tolerance_ns, 10000u);
  EXPECT_EQ(r.wall_s, 0.25);
  auto [k2, r2] = decode_run(in);
  EXPECT_EQ(k2, 8u);
  EXPECT_FALSE(r2.check);
  EXPECT_TRUE(in.empty());
}

TEST(RunCodec, RefusesDamagedBytes) {
  std::string bytes;
  encode_run(1, sample(), bytes);
  for (std::size_t cut : {std::size_t{0}, std::size_t{7}, std::size_t{60}, bytes.size() - 1}) {
    std::string_view in(bytes.data(), cut);
    EXPECT_THROW(decode_run(in), std::runtime_error) << "cut at " << cut;
  }
  std::string huge = bytes;
  huge[6 * 8] = '\xff';  // the bench count (after item, seed, times, events, stuck tasks)
  std::string_view in(huge);
  EXPECT_THROW(decode_run(in), std::runtime_error);
}

}  // namespace
}  // namespace schedlab::experiment
