// SPDX-License-Identifier: GPL-2.0-only
// Experiments: the statistics against hand-computed values, and the runner's determinism
// (identical results for every thread count).
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "experiment/experiment.h"
#include "experiment/experiment_report.h"
#include "experiment/stats.h"
#include "scenario/scenario.h"
#include "stuck_scenario.h"

using namespace schedlab;
namespace stats = experiment::stats;

namespace {

const char *kTiny = R"toml(
[scenario]
name = "tiny"
seed = 7
[machine]
cores_per_llc = 2
threads_per_core = 2
[[group]]
name = "w"
count = 5
loops = 60
phases = [ { run = "uniform(0ms, 4ms)" }, { sleep = "uniform(0ms, 6ms)" } ]
[[config]]
name = "HZ 1000"
[[config]]
name = "HZ + 250"
tunables = { hz = 250 }
)toml";

const char *kTinyThree = R"toml(
[scenario]
name = "tiny3"
seed = 11
[machine]
cores_per_llc = 2
threads_per_core = 2
[[group]]
name = "w"
count = 5
loops = 60
phases = [ { run = "uniform(0ms, 4ms)" }, { sleep = "uniform(0ms, 6ms)" } ]
[[config]]
name = "HZ 1000"
[[config]]
name = "HZ 100"
tunables = { hz = 100 }
[[config]]
name = "HZ 250"
tunables = { hz = 250 }
)toml";

std::string json_without_host(const experiment::ExperimentResult &r) {
  auto j = experiment::experiment_to_json(r, experiment::experiment_stats(r));
  j.erase("host");
  return j.dump();
}

}  // namespace

TEST(Stats, MeanStddevMedian) {
  const std::vector<double> x{2, 4, 4, 4, 5, 5, 7, 9};
  EXPECT_DOUBLE_EQ(stats::mean(x), 5.0);
  EXPECT_NEAR(stats::stddev(x), std::sqrt(32.0 / 7.0), 1e-12);  // sample sd: 2.138090
  EXPECT_DOUBLE_EQ(stats::median(x), 4.5);
  EXPECT_DOUBLE_EQ(stats::median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(stats::median({42}), 42.0);
  EXPECT_TRUE(std::isnan(stats::stddev({1.0})));
  EXPECT_TRUE(std::isnan(stats::ci95({1.0})));
  EXPECT_TRUE(std::isnan(stats::mean({})));
}

TEST(Stats, StudentTQuantiles) {
  EXPECT_NEAR(stats::t975(1), 12.7062, 1e-4);
  EXPECT_NEAR(stats::t975(2), 4.3027, 1e-4);
  EXPECT_NEAR(stats::t975(10), 2.2281, 1e-4);
  EXPECT_NEAR(stats::t975(30), 2.0423, 1e-4);
  // Interpolated in 1/df: t_{0.975,35} = 2.030108, t_{0.975,150} = 1.975905.
  EXPECT_NEAR(stats::t975(35), 2.0301, 2e-4);
  EXPECT_NEAR(stats::t975(150), 1.9759, 2e-4);
  EXPECT_NEAR(stats::t975(1000000000), 1.959964, 1e-6);
  for (std::size_t df = 1; df < 3000; df++) EXPECT_GT(stats::t975(df), stats::t975(df + 1));
}

TEST(Stats, ConfidenceInterval) {
  // mean 3, sd sqrt(2.5), n 5: 2.776445 * 1.581139 / sqrt(5) = 1.963243.
  EXPECT_NEAR(stats::ci95({1, 2, 3, 4, 5}), 1.963243, 1e-5);
}

TEST(Stats, PairedDifference) {
  // d = {1, 2, 1, 2}: mean 1.5, sd sqrt(1/3), t_{0.975,3} = 3.182446: 3.182446 * 0.577350 / 2.
  const auto p = stats::paired({10, 12, 11, 13}, {9, 10, 10, 11});
  EXPECT_DOUBLE_EQ(p.mean_diff, 1.5);
  EXPECT_NEAR(p.ci95, 0.918693, 1e-5);
  // Pairing removes the between-seed variance an unpaired comparison would keep.
  EXPECT_LT(p.ci95, stats::ci95({10, 12, 11, 13}));
}

// Exact binomial tails: all of 10 pairs on one side is p = 2 / 2^10; 8 of 10 is
// 2 * (1 + 10 + 45) / 1024; an even split is 1; ties do not count.
TEST(Stats, TTests) {
  // Two-sided p of Student's t (tables: t = 2.228 at df 10 and 1.96 in the limit give 0.05).
  EXPECT_NEAR(stats::t_two_sided_p(2.228139, 10), 0.05, 1e-6);
  EXPECT_NEAR(stats::t_two_sided_p(-12.7062, 1), 0.05, 1e-5);
  EXPECT_NEAR(stats::t_two_sided_p(1.959964, 1e6), 0.05, 1e-5);
  EXPECT_DOUBLE_EQ(stats::t_two_sided_p(0, 5), 1.0);
  // Paired: differences 1, 2, 3 -> mean 2, sd 1, t = 2 / (1 / sqrt 3), df 2.
  const auto p = stats::paired_t({2, 4, 6}, {1, 2, 3});
  EXPECT_DOUBLE_EQ(p.diff, 2);
  EXPECT_NEAR(p.t, 2 * std::sqrt(3.0), 1e-12);
  EXPECT_DOUBLE_EQ(p.df, 2);
  EXPECT_NEAR(p.p, stats::t_two_sided_p(2 * std::sqrt(3.0), 2), 1e-15);
  EXPECT_DOUBLE_EQ(stats::paired_t({1, 2}, {1, 2}).p, 1.0);  // no difference at all
  EXPECT_TRUE(std::isnan(stats::paired_t({1}, {2}).p));
  // Welch: equal sizes and variances give the pooled t with df 2(n - 1).
  const auto w = stats::welch_t({3, 4, 5}, {1, 2, 3});
  EXPECT_DOUBLE_EQ(w.diff, 2);
  EXPECT_NEAR(w.t, 2 / std::sqrt(2.0 / 3), 1e-12);
  EXPECT_NEAR(w.df, 4, 1e-12);
}

// An experiment stopped early keeps the seeds every configuration finished, so the statistics
// stay paired; the finished runs of later seeds are dropped and counted.
TEST(Experiment, KeepFinishedSeeds) {
  experiment::ExperimentResult r;
  r.seeds = {1, 2, 3};
  r.configs.resize(2);
  for (auto &c : r.configs) c.runs.resize(3);
  for (auto &run : r.configs[0].runs) run.done = true;
  r.configs[1].runs[0].done = r.configs[1].runs[2].done = true;
  EXPECT_EQ(experiment::keep_finished_seeds(r), 3u);
  EXPECT_TRUE(r.partial);
  EXPECT_EQ(r.seeds, std::vector<u64>{1});
  EXPECT_EQ(r.configs[1].runs.size(), 1u);
  experiment::ExperimentResult whole = r;
  whole.partial = false;
  EXPECT_EQ(experiment::keep_finished_seeds(whole), 0u);
  EXPECT_FALSE(whole.partial);
}

TEST(Stats, SignTest) {
  const std::vector<double> base(12, 5.0);
  std::vector<double> x(12, 4.0);
  x[10] = x[11] = 5.0;  // two ties
  stats::SignTest s = stats::sign_test(x, base);
  EXPECT_EQ(s.lower, 10u);
  EXPECT_EQ(s.higher, 0u);
  EXPECT_EQ(s.ties, 2u);
  EXPECT_NEAR(s.p, 2.0 / 1024, 1e-12);
  x[0] = x[1] = 6.0;
  s = stats::sign_test(x, base);
  EXPECT_EQ(s.lower, 8u);
  EXPECT_EQ(s.higher, 2u);
  EXPECT_NEAR(s.p, 2.0 * 56 / 1024, 1e-12);
  for (int i = 0; i < 5; i++) x[static_cast<std::size_t>(i)] = 6.0;
  EXPECT_EQ(stats::sign_test(x, base).p, 1.0);  // 5 and 5
  EXPECT_EQ(stats::sign_test(base, base).p, 1.0);
  // Large n stays finite and symmetric, on both sides of the switch to log-gamma at n = 1000:
  // 40 % below is z = -6.3 at n = 1000 (p ~ 3e-10) and z = -6.6 at 1100.
  for (std::size_t n : {1000u, 1100u}) {
    std::vector<double> b(n, 0.0), y(n, 1.0);
    for (std::size_t i = 0; i < n * 2 / 5; i++) y[i] = -1.0;
    const double p = stats::sign_test(y, b).p;
    EXPECT_GT(p, 1e-12) << n;
    EXPECT_LT(p, 1e-9) << n;
    EXPECT_NEAR(stats::sign_test(b, y).p, p, p * 1e-9) << n;
  }
  std::vector<double> b(1000, 0.0), y(1000, 1.0);
  EXPECT_THROW(stats::sign_test(y, base), std::invalid_argument);
}

TEST(Stats, OverheadCut) {
  // Overheads 2 and 1 over the reference on every seed: the patch cuts it by exactly 50 %.
  const auto c = stats::overhead_cut({12, 13, 14}, {11, 12, 13}, {10, 11, 12});
  EXPECT_DOUBLE_EQ(c.overhead_base, 2.0);
  EXPECT_DOUBLE_EQ(c.overhead_patched, 1.0);
  EXPECT_DOUBLE_EQ(c.pct, 50.0);
  EXPECT_DOUBLE_EQ(c.ci_low, 50.0);
  EXPECT_DOUBLE_EQ(c.ci_high, 50.0);
  EXPECT_EQ(c.dropped, 0);
  // No base overhead: no ratio.
  const auto none = stats::overhead_cut({10, 11}, {12, 13}, {10, 11});
  EXPECT_TRUE(std::isnan(none.pct));
  EXPECT_TRUE(std::isnan(none.ci_low));
}

TEST(Stats, BootstrapIsDeterministic) {
  // The seed mail's numbers: 61.7 %.
  const std::vector<double> ref{24.653, 24.454, 24.586}, base{25.896, 26.256, 25.979},
      patched{25.346, 25.007, 25.042};
  const auto a = stats::overhead_cut(base, patched, ref);
  const auto b = stats::overhead_cut(base, patched, ref);
  EXPECT_NEAR(a.pct, 61.6, 0.1);  // 100 * (1 - 0.568 / 1.480), unrounded: 61.64
  EXPECT_EQ(a.ci_low, b.ci_low);
  EXPECT_EQ(a.ci_high, b.ci_high);
  EXPECT_LE(a.ci_low, a.pct);
  EXPECT_GE(a.ci_high, a.pct);
  EXPECT_LT(a.ci_low, a.ci_high);
  EXPECT_EQ(a.resamples, stats::kBootstrapResamples);
  // With 10 seeds, the interval depends on the bootstrap stream: another seed moves it.
  const std::vector<double> r10{10.0, 10.4, 9.8, 10.1, 10.3, 9.9, 10.2, 10.0, 9.7, 10.5},
      b10{12.1, 12.2, 11.5, 12.4, 12.0, 11.9, 12.6, 11.8, 11.9, 12.3},
      p10{10.9, 11.6, 10.5, 11.0, 11.5, 10.8, 11.1, 11.3, 10.6, 11.7};
  const auto d = stats::overhead_cut(b10, p10, r10);
  const auto e = stats::overhead_cut(b10, p10, r10);
  const auto f = stats::overhead_cut(b10, p10, r10, stats::kBootstrapResamples, 1);
  EXPECT_EQ(d.ci_low, e.ci_low);
  EXPECT_EQ(d.ci_high, e.ci_high);
  EXPECT_NE(d.ci_low + d.ci_high, f.ci_low + f.ci_high);
}

TEST(Experiment, IdenticalForEveryThreadCount) {
  const auto s = scenario::parse_scenario(kTiny, "x.toml");
  experiment::ExperimentOptions o;
  o.runs = 4;
  o.jobs = 1;
  const auto r1 = experiment::run_experiment(s, o);
  o.jobs = 3;
  const auto r3 = experiment::run_experiment(s, o);
  EXPECT_EQ(r1.threads, 1u);
  EXPECT_EQ(r3.threads, 3u);
  EXPECT_EQ(json_without_host(r1), json_without_host(r3));
  EXPECT_EQ(experiment::experiment_csv(r1), experiment::experiment_csv(r3));

  ASSERT_EQ(r1.configs.size(), 2u);
  EXPECT_EQ(r1.configs[0].name, "HZ 1000");
  EXPECT_EQ(r1.configs[1].name, "HZ + 250");
  EXPECT_EQ(r1.seeds, (std::vector<u64>{7, 8, 9, 10}));
  for (const auto &c : r1.configs)
    for (std::size_t i = 0; i < c.runs.size(); i++) {
      EXPECT_EQ(c.runs[i].seed, r1.seeds[i]);
      EXPECT_GT(c.runs[i].completion_ns, 0u);
    }
  // The tunable matters: the two configurations do not give identical runs.
  EXPECT_NE(r1.configs[0].runs[0].events, r1.configs[1].runs[0].events);
}

// The cell of `column` in CSV row `row` (1 = the first run), by the header's names.
static std::string csv_cell(const std::string &csv, std::size_t row, const std::string &column) {
  std::istringstream in(csv);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::istringstream l(line);
    for (std::string c; std::getline(l, c, ',');) cells.push_back(c);
    if (!line.empty() && line.back() == ',') cells.push_back("");
    rows.push_back(cells);
  }
  for (std::size_t i = 0; i < rows.at(0).size(); i++)
    if (rows[0][i] == column) return rows.at(row).at(i);
  return "(no column " + column + ")";
}

TEST(Experiment, CsvHasOneRowPerRun) {
  const auto s = scenario::parse_scenario(kTiny, "x.toml");
  experiment::ExperimentOptions o;
  o.runs = 4;
  o.jobs = 2;
  o.seed_base = 100;
  const auto r = experiment::run_experiment(s, o);
  std::istringstream in(experiment::experiment_csv(r));
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 1u + 4u * 2u);
  // The run's own columns, then every run statistic of kernel/stats.h in its order.
  std::string header =
      "config,seed,completion_time_s,forceidle_ns,events,sis_calls,sis_cookie_mismatch";
  for (const auto &st : experiment::kStatistics) header += std::string(",") + st.name;
  EXPECT_EQ(lines[0], header);
  EXPECT_NE(header.find(",newidle_attempts,newidle_skipped_avg_idle,"), std::string::npos);
  EXPECT_NE(header.find(",ttwu_local,"), std::string::npos);
  EXPECT_EQ(lines[1].rfind("\"HZ 1000\",100,", 0), 0u) << lines[1];
  EXPECT_EQ(lines[4].rfind("\"HZ 1000\",103,", 0), 0u) << lines[4];
  EXPECT_EQ(lines[5].rfind("\"HZ + 250\",100,", 0), 0u) << lines[5];
}

TEST(Experiment, ChosenConfigurationsAndErrors) {
  const auto s = scenario::parse_scenario(kTiny, "x.toml");
  experiment::ExperimentOptions o;
  o.runs = 2;
  o.configs = {"HZ + 250"};
  const auto r = experiment::run_experiment(s, o);
  ASSERT_EQ(r.configs.size(), 1u);
  EXPECT_EQ(r.configs[0].name, "HZ + 250");

  o.configs = {"Nope"};
  EXPECT_THROW(experiment::run_experiment(s, o), std::invalid_argument);
  o.configs = {};
  o.runs = 0;
  EXPECT_THROW(experiment::run_experiment(s, o), std::invalid_argument);
  o.runs = 2;
  o.jobs = 0;
  EXPECT_THROW(experiment::run_experiment(s, o), std::invalid_argument);
  o.jobs = 1;
  o.seed_base = ~u64{0};
  EXPECT_THROW(experiment::run_experiment(s, o), std::invalid_argument);
  o.seed_base.reset();
  o.kernel_params = {scenario::parse_param("--tunable", "hz=999")};
  EXPECT_THROW(experiment::run_experiment(s, o), std::invalid_argument);
}

TEST(Experiment, ComparisonIsDeterministic) {
  auto s = scenario::parse_scenario(kTinyThree, "x.toml");
  s.compares.clear();
  s.compares.push_back({"HZ 100", "HZ 250", "HZ 1000", 0});
  experiment::ExperimentOptions o;
  o.runs = 6;
  o.jobs = 1;
  const auto r1 = experiment::run_experiment(s, o);
  o.jobs = 2;
  const auto r2 = experiment::run_experiment(s, o);
  ASSERT_EQ(r1.comparisons.size(), 1u);
  const auto st1 = experiment::experiment_stats(r1), st2 = experiment::experiment_stats(r2);
  ASSERT_EQ(st1.comparisons.size(), 1u);
  const auto &a = st1.comparisons[0].cut, &b = st2.comparisons[0].cut;
  EXPECT_EQ(std::isnan(a.pct), std::isnan(b.pct));
  if (!std::isnan(a.pct)) {
    EXPECT_EQ(a.pct, b.pct);
    EXPECT_EQ(a.ci_low, b.ci_low);
    EXPECT_EQ(a.ci_high, b.ci_high);
  }
  EXPECT_EQ(json_without_host(r1), json_without_host(r2));
  // The table (but its last line, the wall time) is deterministic too, and in the > 5 runs form.
  auto table = [](const experiment::ExperimentResult &r) {
    std::string t = experiment::experiment_table(r, experiment::experiment_stats(r));
    t.pop_back();
    return t.substr(0, t.rfind('\n'));
  };
  EXPECT_EQ(table(r1), table(r2));
  EXPECT_NE(table(r1).find("Mean ± CI95"), std::string::npos);
  EXPECT_NE(table(r1).find("HZ 250 cuts the overhead of HZ 100 by"), std::string::npos);

  // A comparison naming a configuration left out by --config is skipped.
  o.configs = {"HZ 1000", "HZ 250"};
  EXPECT_TRUE(experiment::run_experiment(s, o).comparisons.empty());
}

// A benchmark metric that some runs lack (a hackbench that did not finish) is not averaged
// over the others: the table and the JSON name the runs without it.
TEST(ExperimentStats, AMetricSomeRunsLackIsNotSummarisedAndTheRunsAreNamed) {
  auto s = scenario::parse_scenario(kTiny, "x.toml");
  experiment::ExperimentOptions o;
  o.runs = 2;
  o.jobs = 1;
  auto r = experiment::run_experiment(s, o);
  for (auto &c : r.configs)
    for (auto &run : c.runs) run.bench[0] = 0.05;
  auto st = experiment::experiment_stats(r);
  ASSERT_EQ(st.metrics.size(), 1u);  // hackbench time in every run: summarised
  EXPECT_TRUE(st.incomplete.empty());
  r.configs[1].runs[1].bench[0] = std::nan("");
  st = experiment::experiment_stats(r);
  EXPECT_TRUE(st.metrics.empty());
  ASSERT_EQ(st.incomplete.size(), 1u);
  EXPECT_EQ(st.incomplete[0].runs, 4u);
  ASSERT_EQ(st.incomplete[0].missing.size(), 1u);
  EXPECT_EQ(st.incomplete[0].missing[0].first, "HZ + 250");
  EXPECT_EQ(st.incomplete[0].missing[0].second, r.configs[1].runs[1].seed);
  const std::string table = experiment::experiment_table(r, st);
  EXPECT_NE(
      table.find("hackbench time (s): not summarised, 1 of 4 runs have no value: HZ + 250 seed " +
                 std::to_string(r.configs[1].runs[1].seed)),
      std::string::npos)
      << table;
  const auto j = experiment::experiment_to_json(r, st);
  ASSERT_TRUE(j.contains("incomplete_metrics"));
  EXPECT_EQ(j["incomplete_metrics"][0]["key"], "hackbench_time_s");
  EXPECT_EQ(j["incomplete_metrics"][0]["missing"][0]["config"], "HZ + 250");
  EXPECT_FALSE(j["configs"][0].contains("mean_hackbench_time_s"));
  // No run has a value, though the scenario has the benchmark: still named, not left out.
  for (auto &c : r.configs)
    for (auto &run : c.runs) {
      run.bench[0] = std::nan("");
      run.bench_expected = 1;
    }
  st = experiment::experiment_stats(r);
  ASSERT_EQ(st.incomplete.size(), 1u);
  EXPECT_EQ(st.incomplete[0].missing.size(), 4u);
}

// Runs that end with tasks asleep for good are flagged in the table and the JSON.
TEST(ExperimentStats, RunsWithTasksAsleepForGoodAreFlagged) {
  const auto s = scenario::parse_scenario(schedlab::testing::kStuckScenario, "stuck.toml");
  experiment::ExperimentOptions o;
  o.runs = 2;
  o.jobs = 1;
  const auto r = experiment::run_experiment(s, o);
  const auto st = experiment::experiment_stats(r);
  EXPECT_NE(
      experiment::experiment_table(r, st).find("warning: 2 runs ended with tasks asleep for good"),
      std::string::npos);
  EXPECT_EQ(experiment::experiment_to_json(r, st)["configs"][0]["runs"][1]["stuck_tasks"], 1);
  const auto tiny = experiment::run_experiment(scenario::parse_scenario(kTiny, "x.toml"), o);
  const auto tj = experiment::experiment_to_json(tiny, experiment::experiment_stats(tiny));
  EXPECT_FALSE(tj["configs"][0]["runs"][0].contains("stuck_tasks"));
}

// Where select_idle_sibling() placed wakeups: the share onto another cookie's core per
// configuration and step, and each comparison's paired change, against hand-computed values.
TEST(ExperimentStats, WakeupsOntoAnotherCookiesCore) {
  experiment::ExperimentResult r;
  r.scenario = "placement";
  r.seeds = {1, 2, 3};
  auto config = [&](const char *name, std::vector<std::pair<u64, u64>> mismatch_target_scan) {
    experiment::ExperimentConfig c;
    c.name = name;
    for (std::size_t i = 0; i < r.seeds.size(); i++) {
      experiment::ExperimentRun run;
      run.seed = r.seeds[i];
      run.sis.calls = 1000;
      const auto [target, scan] = mismatch_target_scan[i];
      run.sis.cookie_mismatch_by_step[kernel::Kernel::SIS_TARGET] = target;
      run.sis.cookie_mismatch_by_step[kernel::Kernel::SIS_SCAN] = scan;
      run.sis.cookie_mismatch = target + scan;
      c.runs.push_back(run);
    }
    r.configs.push_back(c);
  };
  config("Cookie", {{200, 20}, {180, 10}, {220, 30}});    // 22 %, 19 %, 25 %
  config("Cookie + patch", {{0, 60}, {0, 80}, {0, 70}});  // 6 %, 8 %, 7 %
  r.comparisons.push_back({"Cookie", "Cookie + patch", "Cookie", 0});
  auto st = experiment::experiment_stats(r);
  ASSERT_TRUE(st.placement);
  const auto &p = *st.placement;
  ASSERT_EQ(p.configs.size(), 2u);
  EXPECT_DOUBLE_EQ(p.configs[0].mean_calls, 1000);
  EXPECT_DOUBLE_EQ(p.configs[0].pct, 22);
  EXPECT_DOUBLE_EQ(p.configs[0].ci95, stats::ci95({22, 19, 25}));
  EXPECT_DOUBLE_EQ(p.configs[0].by_step_pct[kernel::Kernel::SIS_TARGET], 20);
  EXPECT_DOUBLE_EQ(p.configs[0].by_step_pct[kernel::Kernel::SIS_SCAN], 2);
  EXPECT_DOUBLE_EQ(p.configs[1].pct, 7);
  ASSERT_EQ(p.changes.size(), 1u);
  EXPECT_DOUBLE_EQ(p.changes[0].points.mean_diff, -15);  // -16, -11, -18
  EXPECT_EQ(p.changes[0].sign.lower, 3u);
  EXPECT_EQ(p.changes[0].sign.higher, 0u);
  const std::string table = experiment::experiment_table(r, st);
  EXPECT_NE(table.find("Cookie + patch against Cookie: -15.0 ± "), std::string::npos) << table;
  EXPECT_NE(table.find("lower/higher runs 3/0 (p 0.25)"), std::string::npos) << table;
  const auto j = experiment::experiment_to_json(r, st);
  EXPECT_EQ(j["configs"][1]["mean_wakeups_other_cookie_pct"], 7.0);
  EXPECT_EQ(j["configs"][0]["mean_wakeups_other_cookie_pct_by_step"]["target"], 20.0);
  EXPECT_EQ(j["configs"][0]["runs"][2]["select_idle_sibling"]["cookie_mismatch"], 250);
  EXPECT_EQ(j["comparisons"][0]["wakeups_other_cookie_change_points"], -15.0);
  EXPECT_EQ(j["comparisons"][0]["wakeups_other_cookie_lower_runs"], 3);
  EXPECT_NE(experiment::experiment_csv(r).find("\"Cookie\",3,0.000000000,0,0,1000,250"),
            std::string::npos);
  // Without core scheduling at work (no forced idle, no mismatch) there is no such table.
  for (auto &c : r.configs)
    for (auto &run : c.runs) run.sis.cookie_mismatch = 0;
  st = experiment::experiment_stats(r);
  EXPECT_FALSE(st.placement);
  EXPECT_EQ(experiment::experiment_table(r, st).find("another cookie"), std::string::npos);
  EXPECT_FALSE(experiment::experiment_to_json(r, st)["configs"][0].contains(
      "mean_wakeups_other_cookie_pct"));
  // Forced idle alone is enough: a patch may remove every mismatch.
  r.configs[0].runs[0].forceidle_ns = 1;
  EXPECT_TRUE(experiment::experiment_stats(r).placement);
}

// The runner keeps each run's select_idle_sibling() counts.
TEST(Experiment, RunsKeepTheirPlacementCounts) {
  auto s = scenario::parse_scenario(kTiny, "x.toml");
  experiment::ExperimentOptions o;
  o.runs = 1;
  o.jobs = 1;
  o.configs = {"HZ 1000"};
  const auto r = experiment::run_experiment(s, o);
  engine::Simulation sim(s, "HZ 1000", r.configs[0].kernel, r.seeds[0]);
  const auto rr = sim.run();
  EXPECT_GT(rr.sis.calls, 0u);
  EXPECT_EQ(r.configs[0].runs[0].sis.calls, rr.sis.calls);
  EXPECT_EQ(r.configs[0].runs[0].sis.by_step, rr.sis.by_step);
  // Newidle balancing, summed over the CPUs.
  using namespace experiment;
  const auto &run = r.configs[0].runs[0];
  u64 attempts = 0, pulled = 0;
  for (const auto &cs : rr.sched)
    attempts += cs.stat[STAT_newidle_attempts], pulled += cs.stat[STAT_newidle_pulled];
  EXPECT_GT(attempts, 0u);
  EXPECT_EQ(run.stat[STAT_newidle_attempts], static_cast<double>(attempts));
  EXPECT_EQ(run.stat[STAT_newidle_pulled], static_cast<double>(pulled));
  EXPECT_EQ(run.stat[STAT_mean_avg_idle_ns], rr.mean_avg_idle_ns());
  EXPECT_GT(rr.mean_avg_idle_ns(), 0);
  // schedstat's counters by idle type: every balance attempt counted once under its type (as
  // lb_count[idle] is incremented on entry to sched_balance_rq()), newly idle ones among them;
  // tasks detached are at least the tasks moved.
  u64 lb_all = 0, lb_by_type = 0, ni_count = 0, ni_gained = 0, gained = 0, moved_all = 0;
  for (const auto &cs : rr.sched) {
    lb_all += cs.stat[STAT_lb_count];
    for (std::size_t t = 0; t < 3; t++) lb_by_type += cs.lb_count_by_idle[t];
    for (std::size_t t = 0; t < 3; t++) gained += cs.lb_gained_by_idle[t];
    ni_count += cs.lb_count_by_idle[2];
    ni_gained += cs.lb_gained_by_idle[2];
    moved_all += cs.stat[STAT_lb_moved];
  }
  EXPECT_EQ(lb_by_type, lb_all);
  EXPECT_GT(ni_count, 0u);
  EXPECT_GE(gained, moved_all);
  EXPECT_EQ(run.stat[STAT_newidle_lb_count], static_cast<double>(ni_count));
  EXPECT_EQ(run.stat[STAT_newidle_lb_gained], static_cast<double>(ni_gained));
  // Task moves: every task's migrations, and load balancing's moves over the CPUs.
  u64 migrations = 0, moved = 0;
  for (const auto &tm : rr.metrics.tasks) migrations += tm.nr_migrations;
  for (const auto &cs : rr.sched) moved += cs.stat[STAT_lb_moved];
  EXPECT_GT(migrations, 0u);
  EXPECT_EQ(run.stat[STAT_migrations], static_cast<double>(migrations));
  EXPECT_EQ(run.stat[STAT_lb_moved], static_cast<double>(moved));
  // schedstat's cpuN counters, and wakeup latency from the run's histogram.
  u64 ttwu = 0;
  for (const auto &cs : rr.sched) ttwu += cs.stat[STAT_ttwu_count];
  EXPECT_GT(ttwu, 0u);
  EXPECT_EQ(run.stat[STAT_ttwu_count], static_cast<double>(ttwu));
  ASSERT_GT(rr.metrics.wakeup_latency.count(), 0u);
  EXPECT_EQ(run.stat[STAT_wakeup_p99_us],
            static_cast<double>(rr.metrics.wakeup_latency.percentile(0.99)) / 1e3);
  EXPECT_LE(run.stat[STAT_wakeup_p50_us], run.stat[STAT_wakeup_p999_us]);
}

// The list of run statistics is sound: every name acting on a statistic is a feature, a
// tunable or a machine cost; every table has statistics; CPU statistics are rq counters.
TEST(RunStats, TheListIsSound) {
  using namespace experiment;
  EXPECT_TRUE(unknown_acts_on().empty()) << ::testing::PrintToString(unknown_acts_on());
  for (std::size_t t = 0; t < kNrStatTables; t++)
    EXPECT_FALSE(table_stats(static_cast<StatTable>(t)).empty()) << kStatTables[t].title;
  for (const Statistic &st : kStatistics) {
    EXPECT_EQ(st.field != nullptr, st.over == StatOver::CPU) << st.name;
    EXPECT_EQ(st.section != StatSection::none, st.over == StatOver::CPU) << st.name;
    EXPECT_EQ(find_stat(st.name), static_cast<run_stat_id>(&st - kStatistics)) << st.name;
  }
  EXPECT_EQ(find_stat("no_such_statistic"), NR_RUN_STATS);
}

// Newidle balancing is summarised where the configurations gate it differently: means, the
// paired change against the first configuration and its sign test, against hand-computed
// values.
TEST(ExperimentStats, NewidleBalancingWhereItsGatingDiffers) {
  experiment::ExperimentResult r;
  r.scenario = "newidle";
  r.seeds = {1, 2, 3};
  auto config = [&](const char *name, std::vector<double> attempts) {
    experiment::ExperimentConfig c;
    c.name = name;
    for (std::size_t i = 0; i < r.seeds.size(); i++) {
      experiment::ExperimentRun run;
      run.seed = r.seeds[i];
      using namespace experiment;
      run.stat[STAT_newidle_attempts] = attempts[i];
      run.stat[STAT_newidle_skipped_avg_idle] = 10;
      run.stat[STAT_newidle_pulled] = 5;
      run.stat[STAT_newidle_cost_ns] = 2e6;
      run.stat[STAT_mean_avg_idle_ns] = 80000;
      c.runs.push_back(run);
    }
    r.configs.push_back(c);
  };
  config("Baseline", {100, 200, 300});
  config("avg_idle update", {110, 230, 300});
  constexpr auto kNewidle = static_cast<std::size_t>(experiment::StatTable::NEWIDLE);
  constexpr auto kMoves = static_cast<std::size_t>(experiment::StatTable::MOVES);
  auto st = experiment::experiment_stats(r);
  EXPECT_TRUE(st.tables[kNewidle].empty());  // the same kernel twice: nothing to compare
  EXPECT_EQ(experiment::experiment_table(r, st).find("Newidle"), std::string::npos);
  EXPECT_FALSE(
      experiment::experiment_to_json(r, st)["configs"][0].contains("mean_newidle_attempts"));
  r.configs[1].kernel.features.on[kernel::__SCHED_FEAT_AVG_IDLE_ON_IDLE_EXIT] = true;
  st = experiment::experiment_stats(r);
  ASSERT_EQ(st.tables[kNewidle].size(), 7u);
  const auto &attempts = st.tables[kNewidle][0].configs;
  EXPECT_DOUBLE_EQ(attempts[0].mean, 200);
  EXPECT_DOUBLE_EQ(attempts[1].mean, 640.0 / 3);
  EXPECT_DOUBLE_EQ(attempts[1].change_pct, 100.0 * (40.0 / 3) / 200);
  EXPECT_EQ(attempts[1].sign.higher, 2u);
  EXPECT_EQ(attempts[1].sign.ties, 1u);
  const std::string table = experiment::experiment_table(r, st);
  EXPECT_NE(table.find("Newidle balancing, per run"), std::string::npos) << table;
  EXPECT_NE(table.find("213 ± "), std::string::npos) << table;      // attempts
  EXPECT_NE(table.find("2.0 ± 0.0"), std::string::npos) << table;   // CPU time in ms
  EXPECT_NE(table.find("80.0 ± 0.0"), std::string::npos) << table;  // avg_idle in us
  EXPECT_NE(table.find("+6.7 % ± "), std::string::npos) << table;
  EXPECT_NE(table.find("0/2 (p 0.5)"), std::string::npos) << table;
  const auto j = experiment::experiment_to_json(r, st);
  EXPECT_EQ(j["configs"][1]["mean_newidle_pulled"], 5.0);
  EXPECT_EQ(j["configs"][1]["higher_runs_newidle_attempts"], 2);
  EXPECT_EQ(j["configs"][0]["runs"][1]["newidle_attempts"], 200.0);
  // Every statistic has its column; seed 2 of Baseline is the second row.
  const std::string csv = experiment::experiment_csv(r);
  EXPECT_EQ(csv_cell(csv, 2, "newidle_attempts"), "200") << csv;
  EXPECT_EQ(csv_cell(csv, 2, "newidle_cost_ns"), "2000000") << csv;
  EXPECT_EQ(csv_cell(csv, 2, "mean_avg_idle_ns"), "80000") << csv;
  EXPECT_EQ(csv_cell(csv, 2, "ttwu_local"), "0") << csv;
  EXPECT_TRUE(st.tables[kMoves].empty());  // the force-idle balancing features are the same
  // migration_cost_ns paces newidle balancing too; machine costs only matter across machines.
  r.configs[1].kernel.features.on[kernel::__SCHED_FEAT_AVG_IDLE_ON_IDLE_EXIT] = false;
  experiment::ComparedSetup setup = experiment::compared_setup(r);
  EXPECT_FALSE(experiment::table_acted_on(experiment::StatTable::NEWIDLE, setup));
  r.configs[1].kernel.tunables.v[kernel::TUNABLE_migration_cost_ns] = 100000;
  EXPECT_TRUE(experiment::table_acted_on(experiment::StatTable::NEWIDLE, setup));
  r.configs[1].kernel.tunables.v[kernel::TUNABLE_migration_cost_ns] =
      r.configs[0].kernel.tunables.v[kernel::TUNABLE_migration_cost_ns];
  MachineCosts a, b;
  b.newidle_balance_base_ns = a.newidle_balance_base_ns + 1;
  setup.costs = {&a, &a};
  EXPECT_FALSE(experiment::table_acted_on(experiment::StatTable::NEWIDLE, setup));
  setup.costs = {&a, &b};
  EXPECT_TRUE(experiment::table_acted_on(experiment::StatTable::NEWIDLE, setup));
  EXPECT_FALSE(experiment::table_acted_on(experiment::StatTable::MOVES, setup));
}

// Task moves are summarised where the configurations differ in a force-idle balancing feature.
TEST(ExperimentStats, TaskMovesWhereForceIdleBalancingDiffers) {
  experiment::ExperimentResult r;
  r.scenario = "moves";
  r.seeds = {1, 2};
  for (const char *name : {"Baseline", "Push force idle tasks"}) {
    experiment::ExperimentConfig c;
    c.name = name;
    for (u64 seed : r.seeds) {
      experiment::ExperimentRun run;
      run.seed = seed;
      const bool push = c.name != "Baseline";
      using namespace experiment;
      run.stat[STAT_migrations] = 100.0 + static_cast<double>(seed);
      run.stat[STAT_lb_moved] = 40;
      run.stat[STAT_lb_active] = 1;
      run.stat[STAT_core_pushed] = push ? 30.0 : 0.0;
      run.stat[STAT_core_stolen] = 20;
      c.runs.push_back(run);
    }
    r.configs.push_back(c);
  }
  constexpr auto kNewidle = static_cast<std::size_t>(experiment::StatTable::NEWIDLE);
  constexpr auto kMoves = static_cast<std::size_t>(experiment::StatTable::MOVES);
  EXPECT_TRUE(experiment::experiment_stats(r).tables[kMoves].empty());
  // A sweep whose points differ in the feature asks for the table at a point that does not.
  experiment::RunStatTables force{};
  force[kMoves] = true;
  EXPECT_EQ(experiment::experiment_stats(r, force).tables[kMoves].size(), 5u);
  r.configs[1].kernel.features.on[kernel::__SCHED_FEAT_CORE_PUSH_FORCEIDLE] = true;
  EXPECT_FALSE(
      experiment::table_acted_on(experiment::StatTable::NEWIDLE, experiment::compared_setup(r)));
  const auto st = experiment::experiment_stats(r);
  const auto &moves = st.tables[kMoves];
  ASSERT_EQ(moves.size(), 5u);
  EXPECT_TRUE(st.tables[kNewidle].empty());
  EXPECT_DOUBLE_EQ(moves[0].configs[0].mean, 101.5);
  EXPECT_DOUBLE_EQ(moves[3].configs[1].mean, 30);
  EXPECT_EQ(moves[3].configs[1].sign.higher, 2u);
  const std::string table = experiment::experiment_table(r, st);
  EXPECT_NE(table.find("Task moves, per run"), std::string::npos) << table;
  EXPECT_NE(table.find("pushed off forced idle"), std::string::npos) << table;
  // No change in percent of Baseline's 0 pushes: "n/a", not a division by zero.
  EXPECT_NE(table.find("+0.0 % ± 0.0 %   n/a "), std::string::npos) << table;
  const auto j = experiment::experiment_to_json(r, st);
  EXPECT_EQ(j["configs"][1]["mean_core_pushed"], 30.0);
  EXPECT_TRUE(j["configs"][1]["change_pct_core_pushed"].is_null());
  EXPECT_EQ(j["configs"][0]["runs"][1]["migrations"], 102.0);
  const std::string csv = experiment::experiment_csv(r);
  EXPECT_EQ(csv_cell(csv, 4, "migrations"), "102") << csv;  // the second config's seed 2
  EXPECT_EQ(csv_cell(csv, 4, "lb_moved"), "40") << csv;
  EXPECT_EQ(csv_cell(csv, 4, "core_pushed"), "30") << csv;
  EXPECT_EQ(csv_cell(csv, 4, "core_stolen"), "20") << csv;
  EXPECT_EQ(csv_cell(csv, 2, "core_pushed"), "0") << csv;
}
