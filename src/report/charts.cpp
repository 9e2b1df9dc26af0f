// SPDX-License-Identifier: GPL-2.0-only
#include "report/charts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/svg.h"

namespace schedlab::report {

namespace {

constexpr const char *kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
                                    "#e377c2", "#17becf", "#bcbd22", "#393b79", "#d62728"};
constexpr double kWidth = 900;
constexpr double kLabelW = 250;  // configuration names left of horizontal charts
constexpr double kRight = 40;
constexpr double kTop = 40;
constexpr double kRowH = 30;
constexpr double kBottom = 52;

struct Scale {
  double lo, hi, x0, x1;
  double operator()(double v) const { return x0 + (v - lo) / (hi - lo) * (x1 - x0); }
};

// [lo, hi] widened to whole ticks, never empty.
std::pair<double, double> domain(double lo, double hi, bool from_zero) {
  if (from_zero) lo = std::min(0.0, lo);
  if (!(hi > lo)) {
    const double pad = lo == 0 ? 1 : std::abs(lo) * 0.1;
    lo -= from_zero ? 0 : pad;
    hi += pad;
  } else if (!from_zero) {
    const double pad = (hi - lo) * 0.08;
    lo -= pad;
    hi += pad;
  } else {
    hi += (hi - lo) * 0.12;  // room for the value label
  }
  return {lo, hi};
}

void title(Svg &svg, const std::string &t) {
  svg.text(10, 22, t, {{"font-size", "15"}, {"font-weight", "bold"}});
}

// Vertical grid lines and tick labels under a horizontal chart's plot area.
void x_axis(Svg &svg, const Scale &s, const Ticks &t, double y_top, double y_bottom,
            const std::string &x_label, const std::string &unit) {
  for (double v : t.values) {
    const double x = s(v);
    svg.line(x, y_top, x, y_bottom, "#e3e3e3");
    svg.line(x, y_bottom, x, y_bottom + 5, "#333");
    svg.text(x, y_bottom + 18, tick_label(v, t.step), {{"text-anchor", "middle"}});
  }
  svg.line(s.x0, y_bottom, s.x1, y_bottom, "#333");
  svg.text((s.x0 + s.x1) / 2, y_bottom + 38, x_label + (unit.empty() ? "" : " (" + unit + ")"),
           {{"text-anchor", "middle"}});
}

void row_label(Svg &svg, double y, const std::string &label) {
  svg.text(kLabelW - 10, y + 4, label, {{"text-anchor", "end"}});
}

}  // namespace

Ticks nice_ticks(double lo, double hi, int target) {
  Ticks t;
  if (!(hi > lo) || target < 1) {
    t.values.push_back(lo);
    return t;
  }
  const double raw = (hi - lo) / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  t.step = step;
  const double first = std::ceil(lo / step - 1e-9);
  for (double k = first; k * step <= hi + step * 1e-9; k++) t.values.push_back(k * step);
  return t;
}

std::string tick_label(double v, double step) {
  const int dec = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
  std::string s = fmt::format("{:.{}f}", v, dec);
  return s.find_first_not_of("-0.") == std::string::npos ? std::string("0") : s;
}

std::string human_duration(double ns) {
  auto trim = [](double v) {
    std::string s = fmt::format("{:.2f}", v);
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s;
  };
  if (ns >= 1e9) return trim(ns / 1e9) + " s";
  if (ns >= 1e6) return trim(ns / 1e6) + " ms";
  if (ns >= 1e3) return trim(ns / 1e3) + " us";
  return trim(ns) + " ns";
}

const char *series_colour(std::size_t i) {
  return kPalette[i % (sizeof(kPalette) / sizeof(kPalette[0]))];
}

std::string strip_chart(const std::string &t, const std::vector<StripRow> &rows,
                        const std::string &x_label, const std::string &unit) {
  const double h = kTop + kRowH * static_cast<double>(rows.size()) + kBottom;
  Svg svg(kWidth, h);
  title(svg, t);
  double lo = INFINITY, hi = -INFINITY;
  for (const auto &r : rows)
    for (double v : r.values)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (!std::isfinite(lo)) lo = hi = 0;
  auto [dlo, dhi] = domain(lo, hi, false);
  const Ticks ticks = nice_ticks(dlo, dhi, 8);
  const Scale s{dlo, dhi, kLabelW, kWidth - kRight};
  const double y_bottom = kTop + kRowH * static_cast<double>(rows.size());
  x_axis(svg, s, ticks, kTop, y_bottom, x_label, unit);
  for (std::size_t i = 0; i < rows.size(); i++) {
    const double y = kTop + kRowH * (static_cast<double>(i) + 0.5);
    if (i % 2 == 0)
      svg.rect(s.x0, y - kRowH / 2, s.x1 - s.x0, kRowH, "#000", {{"fill-opacity", "0.03"}});
    row_label(svg, y, rows[i].label);
    double sum = 0;
    int n = 0;
    for (std::size_t k = 0; k < rows[i].values.size(); k++) {
      const double v = rows[i].values[k];
      if (!std::isfinite(v)) continue;
      sum += v;
      n++;
      // Runs with equal values stay visible: a small deterministic vertical spread.
      const double dy = (static_cast<double>(k % 5) - 2) * 3;
      svg.open("circle", {{"cx", px(s(v))},
                          {"cy", px(y + dy)},
                          {"r", "4.5"},
                          {"fill", series_colour(i)},
                          {"fill-opacity", "0.75"},
                          {"stroke", "#fff"},
                          {"stroke-width", "0.8"}});
      svg.title(fmt::format("{}, run {}: {:.3f} {}", rows[i].label, k + 1, v, unit));
      svg.close();
    }
    if (n > 0) {
      const double m = sum / n;
      svg.open("line", {{"x1", px(s(m))},
                        {"y1", px(y - kRowH * 0.4)},
                        {"x2", px(s(m))},
                        {"y2", px(y + kRowH * 0.4)},
                        {"stroke", "#222"},
                        {"stroke-width", "2"}});
      svg.title(fmt::format("{}: mean {:.3f} {}", rows[i].label, m, unit));
      svg.close();
    }
  }
  svg.text(kWidth - kRight, 22, "dots: runs; bar: mean",
           {{"text-anchor", "end"}, {"fill", "#555"}});
  return svg.finish();
}

std::string bar_chart(const std::string &t, const std::vector<Bar> &bars,
                      const std::string &x_label, const std::string &unit) {
  const double h = kTop + kRowH * static_cast<double>(bars.size()) + kBottom;
  Svg svg(kWidth, h);
  title(svg, t);
  double hi = 0;
  for (const auto &b : bars) {
    if (std::isfinite(b.value)) hi = std::max(hi, b.value);
    for (double p : b.points)
      if (std::isfinite(p)) hi = std::max(hi, p);
  }
  auto [dlo, dhi] = domain(0, hi, true);
  const Ticks ticks = nice_ticks(dlo, dhi, 8);
  const Scale s{dlo, dhi, kLabelW, kWidth - kRight};
  const double y_bottom = kTop + kRowH * static_cast<double>(bars.size());
  x_axis(svg, s, ticks, kTop, y_bottom, x_label, unit);
  for (std::size_t i = 0; i < bars.size(); i++) {
    const double y = kTop + kRowH * (static_cast<double>(i) + 0.5);
    row_label(svg, y, bars[i].label);
    const double v = std::isfinite(bars[i].value) ? bars[i].value : 0;
    svg.open("rect", {{"x", px(s.x0)},
                      {"y", px(y - kRowH * 0.32)},
                      {"width", px(s(v) - s.x0)},
                      {"height", px(kRowH * 0.64)},
                      {"fill", series_colour(i)},
                      {"fill-opacity", "0.85"}});
    svg.title(fmt::format("{}: {:.3f} {}", bars[i].label, v, unit));
    svg.close();
    for (double p : bars[i].points)
      if (std::isfinite(p))
        svg.leaf("circle", {{"cx", px(s(p))},
                            {"cy", px(y)},
                            {"r", "2.5"},
                            {"fill", "#222"},
                            {"fill-opacity", "0.6"}});
    double end = v;
    for (double q : bars[i].points)
      if (std::isfinite(q)) end = std::max(end, q);
    svg.text(s(end) + 8, y + 4, fmt::format("{:.3f}", v), {{"fill", "#222"}});
  }
  if (!bars.empty() && !bars.front().points.empty())
    svg.text(kWidth - kRight, 22, "bar: mean; dots: runs",
             {{"text-anchor", "end"}, {"fill", "#555"}});
  return svg.finish();
}

std::string cdf_chart(const std::string &t, const std::vector<CdfSeries> &series,
                      const std::string &x_label, bool tail) {
  const double kLeft = tail ? 80 : 70, kLegendW = 330;
  const double kH = std::max(400.0, kTop + 36 * static_cast<double>(series.size()) + kBottom);
  Svg svg(kWidth, kH);
  title(svg, t);
  const double x0 = kLeft, x1 = kWidth - kLegendW, y0 = kTop, y1 = kH - kBottom;
  double lo = INFINITY, hi = 0;
  for (const auto &se : series)
    for (const auto &[x, q] : se.points) {
      if (x > 0) lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  if (!std::isfinite(lo) || hi <= 0) lo = 1, hi = 10;
  // Whole decades, so every tick is a power of ten; zero (a wakeup that ran at once) gets its
  // own tick at the left edge, before the log scale starts.
  const double dlo = std::floor(std::log10(lo)), dhi = std::max(dlo + 1, std::ceil(std::log10(hi)));
  constexpr double kZeroW = 36;
  const double xl = x0 + kZeroW;
  auto sx = [&](double ns) {
    if (ns <= 0) return x0;
    const double l = std::clamp(std::log10(ns), dlo, dhi);
    return xl + (l - dlo) / (dhi - dlo) * (x1 - xl);
  };
  // The tail view spreads 90 %, 99 %, 99.9 %, 99.99 % evenly: y = -log10(1 - q), up to 4.
  constexpr double kTailDecades = 4;
  auto sy = [&](double q) {
    if (!tail) return y1 - q * (y1 - y0);
    const double d = q >= 1 ? kTailDecades : std::min(kTailDecades, -std::log10(1 - q));
    return y1 - d / kTailDecades * (y1 - y0);
  };
  svg.line(x0, y0, x0, y1, "#e3e3e3");
  svg.text(x0, y1 + 18, "0", {{"text-anchor", "middle"}});
  svg.line(x0 + kZeroW / 2 - 3, y1 + 4, x0 + kZeroW / 2 + 3, y1 - 4, "#333");  // axis break
  for (double d = dlo; d <= dhi + 1e-9; d++) {
    const double x = sx(std::pow(10.0, d));
    svg.line(x, y0, x, y1, "#e3e3e3");
    svg.line(x, y1, x, y1 + 5, "#333");
    svg.text(x, y1 + 18, human_duration(std::pow(10.0, d)), {{"text-anchor", "middle"}});
    if (d < dhi)
      for (int m = 2; m <= 9; m++) {
        const double xm = sx(m * std::pow(10.0, d));
        svg.line(xm, y1, xm, y1 + 3, "#777");
      }
  }
  static constexpr std::pair<double, const char *> kLinear[] = {
      {0, "0 %"}, {0.25, "25 %"}, {0.5, "50 %"}, {0.75, "75 %"}, {1, "100 %"}};
  static constexpr std::pair<double, const char *> kTail[] = {
      {0, "0 %"}, {0.9, "90 %"}, {0.99, "99 %"}, {0.999, "99.9 %"}, {0.9999, "99.99 %"}};
  for (const auto &[q, label] : tail ? kTail : kLinear) {
    const double y = sy(q);
    svg.line(x0, y, x1, y, "#e3e3e3");
    svg.line(x0 - 5, y, x0, y, "#333");
    svg.text(x0 - 8, y + 4, label, {{"text-anchor", "end"}});
  }
  svg.line(x0, y1, x1, y1, "#333");
  svg.line(x0, y0, x0, y1, "#333");
  svg.text((x0 + x1) / 2, y1 + 38, x_label + " (log scale)", {{"text-anchor", "middle"}});
  svg.text(16, (y0 + y1) / 2,
           tail ? "wakeups at or below (%, tail scale)" : "wakeups at or below (%)",
           {{"text-anchor", "middle"},
            {"transform", fmt::format("rotate(-90 16 {})", px((y0 + y1) / 2))}});
  for (std::size_t i = 0; i < series.size(); i++) {
    const auto &se = series[i];
    // A step function: the fraction holds until the next value.
    std::string d;
    double prev_q = 0;
    for (const auto &[x, q] : se.points) {
      d += d.empty() ? fmt::format("M{},{}", px(sx(x)), px(sy(0)))
                     : fmt::format(" L{},{}", px(sx(x)), px(sy(prev_q)));
      d += fmt::format(" L{},{}", px(sx(x)), px(sy(q)));
      prev_q = q;
    }
    if (!d.empty()) {
      svg.open("path",
               {{"d", d},
                {"fill", "none"},
                {"stroke", series_colour(se.colour)},
                // Earlier series wider, so identical lines stay visible.
                {"stroke-width", px(1.5 + 0.9 * static_cast<double>(series.size() - 1 - i))},
                {"stroke-opacity", "0.9"}});
      svg.title(se.label);
      svg.close();
    }
    const double ly = y0 + 10 + 36 * static_cast<double>(i);
    svg.line(x1 + 20, ly, x1 + 44, ly, series_colour(se.colour), 3);
    svg.text(x1 + 50, ly + 4, se.label);
    if (!se.note.empty())
      svg.text(x1 + 50, ly + 19, se.note, {{"font-size", "11"}, {"fill", "#555"}});
  }
  return svg.finish();
}

std::string point_chart(const std::string &t, const std::vector<std::string> &categories,
                        const std::vector<PointSeries> &series, const std::string &x_label,
                        const std::string &y_label, bool changes) {
  const double kLeft = 90, kLegendW = 260, kH = 340;
  Svg svg(kWidth, kH);
  title(svg, t);
  const double x0 = kLeft, x1 = kWidth - kLegendW, y0 = kTop, y1 = kH - kBottom - 14;
  // Times, counts and shares cannot go below zero, so neither do their whiskers (a t interval
  // of a few skewed runs can) nor the axis. A change can, and its zero line stays in view.
  const bool non_negative = !changes;
  auto whisker = [&](const PointSeries &se, std::size_t i) {
    const double m = se.mean[i];
    const double c = i < se.ci95.size() && std::isfinite(se.ci95[i]) ? se.ci95[i] : 0;
    return std::pair{non_negative ? std::max(0.0, m - c) : m - c, m + c};
  };
  double lo = INFINITY, hi = -INFINITY;
  for (const auto &se : series)
    for (std::size_t i = 0; i < se.mean.size(); i++) {
      if (!std::isfinite(se.mean[i])) continue;
      const auto [l, h] = whisker(se, i);
      lo = std::min(lo, l), hi = std::max(hi, h);
    }
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  if (changes) lo = std::min(lo, 0.0), hi = std::max(hi, 0.0);
  auto [dlo, dhi] = domain(lo, hi, false);
  if (non_negative) dlo = std::max(0.0, dlo);
  const Ticks ticks = nice_ticks(dlo, dhi, 5);
  dlo = std::min(dlo, ticks.values.front());
  dhi = std::max(dhi, ticks.values.back());
  const Scale sy{dlo, dhi, y1, y0};
  for (double v : ticks.values) {
    const double y = sy(v);
    svg.line(x0, y, x1, y, "#e3e3e3");
    svg.line(x0 - 5, y, x0, y, "#333");
    svg.text(x0 - 8, y + 4, tick_label(v, ticks.step), {{"text-anchor", "end"}});
  }
  svg.line(x0, y1, x1, y1, "#333");
  svg.line(x0, y0, x0, y1, "#333");
  if (changes) svg.line(x0, sy(0), x1, sy(0), "#333");  // no change
  svg.text(16, (y0 + y1) / 2, y_label,
           {{"text-anchor", "middle"},
            {"transform", fmt::format("rotate(-90 16 {})", px((y0 + y1) / 2))}});
  const double n = static_cast<double>(std::max<std::size_t>(categories.size(), 1));
  const double band = (x1 - x0) / n;
  for (std::size_t i = 0; i < categories.size(); i++) {
    const double x = x0 + (static_cast<double>(i) + 0.5) * band;
    svg.line(x, y1, x, y1 + 5, "#333");
    svg.text(x, y1 + 19, categories[i], {{"text-anchor", "middle"}});
  }
  svg.text((x0 + x1) / 2, y1 + 42, x_label, {{"text-anchor", "middle"}});
  const double ns = static_cast<double>(series.size());
  const double nudge = std::min(10.0, band / (ns + 1));
  for (std::size_t s = 0; s < series.size(); s++) {
    const auto &se = series[s];
    const char *colour = series_colour(se.colour);
    const double dx = (static_cast<double>(s) - (ns - 1) / 2) * nudge;
    auto cx = [&](std::size_t i) { return x0 + (static_cast<double>(i) + 0.5) * band + dx; };
    std::string d;
    int dots = 0;
    for (std::size_t i = 0; i < se.mean.size() && i < categories.size(); i++) {
      if (!std::isfinite(se.mean[i])) continue;
      d += fmt::format("{}{},{}", d.empty() ? "M" : " L", px(cx(i)), px(sy(se.mean[i])));
      dots++;
    }
    if (dots > 1)
      svg.leaf("path", {{"d", d},
                        {"fill", "none"},
                        {"stroke", colour},
                        {"stroke-width", "1.5"},
                        {"stroke-opacity", "0.7"}});
    for (std::size_t i = 0; i < se.mean.size() && i < categories.size(); i++) {
      const double m = se.mean[i];
      if (!std::isfinite(m)) continue;
      const double c = i < se.ci95.size() ? se.ci95[i] : std::nan("");
      const double x = cx(i);
      // A change whose sign test does not reach 5 % is drawn hollow.
      const double p = i < se.sign_p.size() ? se.sign_p[i] : std::nan("");
      svg.open("g");
      svg.title((std::isfinite(c)
                     ? fmt::format("{} at {}: {:.4g} ± {:.2g}", se.label, categories[i], m, c)
                     : fmt::format("{} at {}: {:.4g}", se.label, categories[i], m)) +
                (std::isfinite(p) ? fmt::format(", sign test p {:.2g}", p) : ""));
      if (std::isfinite(c) && c > 0) {
        const auto [l, h] = whisker(se, i);
        svg.line(x, sy(l), x, sy(h), colour, 1.5);
        svg.line(x - 4, sy(l), x + 4, sy(l), colour, 1.5);
        svg.line(x - 4, sy(h), x + 4, sy(h), colour, 1.5);
      }
      if (std::isfinite(p) && p >= 0.05)
        svg.leaf("circle", {{"cx", px(x)},
                            {"cy", px(sy(m))},
                            {"r", "4"},
                            {"fill", "#fff"},
                            {"stroke", colour},
                            {"stroke-width", "1.5"}});
      else
        svg.leaf("circle", {{"cx", px(x)}, {"cy", px(sy(m))}, {"r", "4"}, {"fill", colour}});
      svg.close();
    }
    const double ly = y0 + 10 + 24 * static_cast<double>(s);
    svg.line(x1 + 20, ly, x1 + 44, ly, colour, 3);
    svg.text(x1 + 50, ly + 4, se.label);
  }
  bool tested = false;
  for (const auto &se : series)
    for (double p : se.sign_p) tested |= std::isfinite(p);
  // Bottom right, clear of a long title.
  svg.text(kWidth - kRight, kH - 10,
           changes ? tested ? "dot: mean change, paired by seed (hollow: sign test p ≥ 0.05); "
                              "whisker: CI95"
                            : "dot: mean change, paired by seed; whisker: CI95"
                   : "dot: mean of the runs; whisker: CI95",
           {{"text-anchor", "end"}, {"fill", "#555"}, {"font-size", "12"}});
  return svg.finish();
}

}  // namespace schedlab::report
