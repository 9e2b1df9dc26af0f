// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Small SVG charts for the HTML report: axes with "nice" ticks, labels and units, one colour
// per configuration. Each function returns a standalone <svg> element.
#include <string>
#include <utility>
#include <vector>

namespace schedlab::report {

// About `target` ticks covering [lo, hi], at multiples of 1, 2 or 5 x 10^k.
struct Ticks {
  std::vector<double> values;
  double step = 1;
};
Ticks nice_ticks(double lo, double hi, int target);
// A tick value with as many decimals as the step needs ("0.25", "12", "1.5").
std::string tick_label(double v, double step);
// A duration in ns as a person reads it: "800 ns", "12.5 us", "3 ms", "1.25 s".
std::string human_duration(double ns);

// The colour of the i-th configuration (cycles through a fixed palette).
const char *series_colour(std::size_t i);

// One row per configuration: a dot per run and a bar at the mean, on a shared x axis.
struct StripRow {
  std::string label;
  std::vector<double> values;
};
std::string strip_chart(const std::string &title, const std::vector<StripRow> &rows,
                        const std::string &x_label, const std::string &unit);

// One horizontal bar per configuration (from 0), the value written at its end, and the
// per-run values as dots when given.
struct Bar {
  std::string label;
  double value = 0;
  std::vector<double> points;
};
std::string bar_chart(const std::string &title, const std::vector<Bar> &bars,
                      const std::string &x_label, const std::string &unit);

// Cumulative distributions of durations (x in ns, log scale; y the fraction of samples at or
// below x), one line per series, legend on the right. Zero gets its own tick left of the log
// scale.
struct CdfSeries {
  std::string label;
  std::vector<std::pair<double, double>> points;  // (ns, fraction), x ascending
  std::size_t colour = 0;                         // index for series_colour()
  std::string note;                               // a second legend line (e.g. percentiles)
};
// `tail` puts the y axis on a log scale of 1 - fraction (90 %, 99 %, 99.9 %, 99.99 % evenly
// spaced), where latency tails differ.
std::string cdf_chart(const std::string &title, const std::vector<CdfSeries> &series,
                      const std::string &x_label, bool tail = false);

// A sweep's means at each grid point: the points along x (categories, evenly spaced, labelled
// by their values), one series per configuration: a dot at the mean, a whisker over its CI95
// and a line joining the series' dots. Series are nudged apart within a point so that equal
// means stay visible. A NaN mean leaves its point out (a NaN CI95 its whisker). Quantities are
// taken to be non-negative (the axis and whiskers stop at zero) unless they are `changes`
// (against a reference), which get a zero line.
struct PointSeries {
  std::string label;
  std::vector<double> mean, ci95;  // one per category
  std::size_t colour = 0;          // index for series_colour()
  // For changes: the sign test's p per category (NaN or none: untested). A dot whose p is 0.05
  // or more is drawn hollow.
  std::vector<double> sign_p = {};
};
std::string point_chart(const std::string &title, const std::vector<std::string> &categories,
                        const std::vector<PointSeries> &series, const std::string &x_label,
                        const std::string &y_label, bool changes = false);

}  // namespace schedlab::report
