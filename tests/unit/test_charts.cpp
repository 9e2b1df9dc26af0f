// SPDX-License-Identifier: GPL-2.0-only
// The report's sweep chart: what it draws for the points a sweep has, and what it leaves out.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "report/charts.h"

namespace schedlab::report {
namespace {

std::size_t count(const std::string &s, const std::string &what) {
  std::size_t n = 0;
  for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) n++;
  return n;
}

// A text element that starts with a minus and a digit: a negative tick label.
bool negative_label(const std::string &svg) {
  for (std::size_t p = svg.find(">-"); p != std::string::npos; p = svg.find(">-", p + 1))
    if (p + 2 < svg.size() && svg[p + 2] >= '0' && svg[p + 2] <= '9') return true;
  return false;
}

TEST(PointChart, ADotPerPointWithAMeanAndItsFiguresOnHover) {
  const std::string svg = point_chart("completion time (s)", {"4", "8"},
                                      {{"Cookie", {25.8, std::nan("")}, {0.1, 0.2}, 0},
                                       {"Cookie + patch", {25.0, 24.5}, {0.1, 0.05}, 1}},
                                      "machine.cores_per_llc", "completion time (s)");
  EXPECT_EQ(count(svg, "<circle"), 3u);  // Cookie has no mean at 8 cores: no dot there
  EXPECT_NE(svg.find("<title>Cookie at 4: 25.8 ± 0.1</title>"), std::string::npos);
  EXPECT_NE(svg.find("<title>Cookie + patch at 8: 24.5 ± 0.05</title>"), std::string::npos);
  EXPECT_EQ(svg.find("Cookie at 8"), std::string::npos);
  EXPECT_NE(svg.find(">machine.cores_per_llc<"), std::string::npos);
  // One line joining each configuration's dots; a lone dot draws none.
  EXPECT_EQ(count(svg, "<path"), 1u);
}

TEST(PointChart, QuantitiesStopAtZeroChangesDoNot) {
  // Three skewed runs: the t interval reaches far below zero.
  const std::string svg =
      point_chart("p99.9 (us)", {"a", "b"}, {{"x", {700, 27}, {1800, 2}, 0}}, "k", "p99.9 (us)");
  EXPECT_FALSE(negative_label(svg));
  EXPECT_NE(svg.find(">0<"), std::string::npos);
  // A change keeps its negative range, even where every mean is positive.
  const std::string change =
      point_chart("change", {"a"}, {{"x", {5}, {20}, 0}}, "k", "change (%)", /*changes=*/true);
  EXPECT_TRUE(negative_label(change));
}

TEST(PointChart, ChangesWhoseSignTestFailsAreHollow) {
  PointSeries se{"patch", {-12, -3}, {4, 5}, 1, {0.001, 0.4}};
  const std::string svg = point_chart("change", {"a", "b"}, {se}, "k", "change (%)", true);
  EXPECT_EQ(count(svg, "fill=\"#fff\""), 1u);  // b only
  EXPECT_NE(svg.find("<title>patch at a: -12 ± 4, sign test p 0.001</title>"), std::string::npos);
  EXPECT_NE(svg.find("hollow: sign test p ≥ 0.05"), std::string::npos);
  se.sign_p.clear();  // untested: every dot filled, and the legend says nothing of tests
  const std::string untested = point_chart("change", {"a", "b"}, {se}, "k", "change (%)", true);
  EXPECT_EQ(count(untested, "fill=\"#fff\""), 0u);
  EXPECT_EQ(untested.find("hollow"), std::string::npos);
}

}  // namespace
}  // namespace schedlab::report
