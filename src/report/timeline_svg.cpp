// SPDX-License-Identifier: GPL-2.0-only
#include "report/timeline_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "report/charts.h"
#include "report/svg.h"

namespace schedlab::report {

using observe::Timeline;
using observe::TimelineSlice;

namespace {

// Cookies are numbered from 1 in the order the model creates them, so (cookie - 1) indexes a
// fixed palette and a cookie keeps its colour whatever the window. Red stays free for forced
// idle; the grey-blue for untagged tasks is not in the palette.
constexpr const char *kCookiePalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
                                          "#8c564b", "#e377c2", "#17becf", "#bcbd22",
                                          "#393b79", "#637939", "#f2c12e", "#843c39"};
constexpr std::size_t kNrCookieColours = sizeof(kCookiePalette) / sizeof(kCookiePalette[0]);
constexpr const char *kUntagged = "#8da0b8";
constexpr const char *kIdle = "#f3f4f6";
constexpr const char *kWakeup = "#111";
constexpr const char *kUtilAvg = "#111";
constexpr const char *kUtilEst = "#c2185b";

constexpr double kLeft = 110;  // core and CPU labels
constexpr double kRight = 20;
constexpr double kLaneH = 22;
constexpr double kLaneGap = 8;  // room for the wakeup ticks above a lane
constexpr double kCoreGap = 16;
constexpr double kUtilH = 26;   // with utilisation: a strip under each lane, 1024 at its top
constexpr double kCharW = 6.6;  // average width of an 11 px sans-serif character

// Nanoseconds since 0 as milliseconds, exactly ("1002.345678 ms").
std::string ms6(Time ns) {
  return fmt::format("{}.{:06d} ms", ns / 1000000, ns % 1000000);
}

// Light fills get dark text.
bool light(const char *colour) {
  unsigned r = 0, g = 0, b = 0;
  std::sscanf(colour, "#%02x%02x%02x", &r, &g, &b);
  return 0.299 * r + 0.587 * g + 0.114 * b > 150;
}

}  // namespace

const char *cookie_colour(unsigned long cookie) {
  return cookie == 0 ? kUntagged : kCookiePalette[(cookie - 1) % kNrCookieColours];
}

std::string timeline_svg(const Timeline &t, const TimelineSvgOptions &o) {
  // Lane geometry: siblings stacked, a wider gap between cores.
  std::map<int, double> lane_y;  // by CPU
  const double util_h = t.util.empty() ? 0 : kUtilH + 2;
  double y = o.title.empty() ? 24 : 50;
  int prev_core = -1;
  std::vector<std::pair<int, double>> core_label;  // core, y of its first lane
  for (const auto &c : t.cpus) {
    if (prev_core != -1 && c.core != prev_core) y += kCoreGap;
    if (c.core != prev_core) core_label.emplace_back(c.core, y);
    lane_y[c.cpu] = y;
    y += kLaneH + util_h + kLaneGap;
    prev_core = c.core;
  }
  const double lanes_bottom = y - kLaneGap;
  const double axis_y = lanes_bottom + 6;
  const double legend_y = axis_y + 52;
  const double height = legend_y + 30;
  const double x0 = kLeft, x1 = o.width - kRight;
  const double span = static_cast<double>(t.to > t.from ? t.to - t.from : 1);
  auto sx = [&](Time v) { return x0 + static_cast<double>(v - t.from) / span * (x1 - x0); };

  Svg svg(o.width, height);
  svg.open("defs");
  svg.open("pattern", {{"id", "forceidle-hatch"},
                       {"patternUnits", "userSpaceOnUse"},
                       {"width", "6"},
                       {"height", "6"},
                       {"patternTransform", "rotate(45)"}});
  svg.rect(0, 0, 6, 6, "#fbe3e3");
  svg.line(0, 0, 0, 6, "#c0392b", 2.5);
  svg.close();
  svg.close();
  if (!o.title.empty()) svg.text(10, 22, o.title, {{"font-size", "15"}, {"font-weight", "bold"}});

  // Time axis: grid lines behind the lanes, ticks and labels below them.
  const Ticks ticks = nice_ticks(static_cast<double>(t.from), static_cast<double>(t.to), 10);
  const bool in_ms = ticks.step >= 1e5;
  const double unit = in_ms ? 1e6 : 1e3;
  const double top = lane_y.empty() ? axis_y : lane_y.begin()->second;
  svg.open("g", {{"class", "axis"}});
  for (double v : ticks.values) {
    const double x = sx(static_cast<Time>(std::llround(v)));
    svg.line(x, top - kLaneGap, x, axis_y, "#d5d8dc", 1);
    svg.line(x, axis_y, x, axis_y + 5, "#333");
    svg.text(x, axis_y + 18, tick_label(v / unit, ticks.step / unit), {{"text-anchor", "middle"}});
  }
  svg.line(x0, axis_y, x1, axis_y, "#333");
  svg.text((x0 + x1) / 2, axis_y + 36, in_ms ? "time (ms)" : "time (us)",
           {{"text-anchor", "middle"}});
  svg.close();

  // Lanes: the idle background, then forced idle, then tasks, then wakeups on top.
  svg.open("g", {{"class", "lanes"}});
  for (const auto &[core, cy] : core_label)
    svg.text(8, cy + 15, fmt::format("core {}", core), {{"font-weight", "bold"}});
  for (const auto &c : t.cpus) {
    const double ly = lane_y[c.cpu];
    svg.text(x0 - 8, ly + 15, fmt::format("cpu{}", c.cpu), {{"text-anchor", "end"}});
    svg.rect(x0, ly, x1 - x0, kLaneH, kIdle,
             {{"class", "lane"}, {"data-cpu", std::to_string(c.cpu)}});
    if (util_h > 0) {
      svg.rect(x0, ly + kLaneH + 2, x1 - x0, kUtilH, "#fff",
               {{"stroke", "#d5d8dc"}, {"stroke-width", "0.5"}});
      svg.text(x0 - 8, ly + kLaneH + 2 + kUtilH / 2 + 4, "util",
               {{"text-anchor", "end"}, {"font-size", "10"}, {"fill", "#666"}});
    }
  }
  svg.close();
  svg.open("g", {{"class", "slices"}});
  for (const TimelineSlice &s : t.slices) {
    auto it = lane_y.find(s.cpu);
    if (it == lane_y.end()) continue;
    const double xa = sx(s.start), w = std::max(sx(s.end) - xa, 0.5);
    const std::string dur = human_duration(static_cast<double>(s.end - s.start));
    if (s.kind == TimelineSlice::ForcedIdle) {
      svg.open("rect", {{"x", px(xa)},
                        {"y", px(it->second)},
                        {"width", px(w)},
                        {"height", px(kLaneH)},
                        {"fill", "url(#forceidle-hatch)"},
                        {"class", "forceidle"}});
      svg.title(
          fmt::format("forced idle on cpu{}\nstart {}\nduration {}", s.cpu, ms6(s.start), dur));
      svg.close();
      continue;
    }
    const char *fill = cookie_colour(s.cookie);
    svg.open("rect", {{"x", px(xa)},
                      {"y", px(it->second + 1)},
                      {"width", px(w)},
                      {"height", px(kLaneH - 2)},
                      {"fill", fill},
                      {"stroke", "#fff"},
                      {"stroke-width", "0.5"},
                      {"class", "task"}});
    svg.title(fmt::format("{} (pid {})\ncookie {}\nstart {}\nduration {}", s.comm, s.pid,
                          s.cookie ? std::to_string(s.cookie) : std::string("none"), ms6(s.start),
                          dur));
    svg.close();
    if (w >= kCharW * static_cast<double>(s.comm.size()) + 6)
      svg.text(xa + 3, it->second + 15, s.comm,
               {{"font-size", "11"},
                {"fill", light(fill) ? "#111" : "#fff"},
                {"pointer-events", "none"}});
  }
  svg.close();
  svg.open("g", {{"class", "wakeups"}});
  for (const auto &wk : t.wakeups) {
    auto it = lane_y.find(wk.cpu);
    if (it == lane_y.end()) continue;
    const double x = sx(wk.at), ly = it->second;
    svg.open("path", {{"d", fmt::format("M{},{} L{},{} L{},{} Z", px(x - 3), px(ly - 6), px(x + 3),
                                        px(ly - 6), px(x), px(ly + 1))},
                      {"fill", kWakeup},
                      {"class", "wakeup"}});
    svg.title(fmt::format("{} {} (pid {}) on cpu{}\nat {}",
                          wk.is_new ? "sched_wakeup_new" : "sched_wakeup", wk.comm, wk.pid, wk.cpu,
                          ms6(wk.at)));
    svg.close();
  }
  svg.close();

  // Utilisation in the strip under each lane, 0 at its bottom and 1024 at its top: a step line
  // per signal, each value held until the CPU's next sample.
  if (!t.util.empty()) {
    svg.open("g", {{"class", "util"}, {"pointer-events", "none"}});
    auto steps = [&](std::size_t first, std::size_t last, auto value, const char *colour,
                     const char *dash) {
      const double bottom = lane_y[t.util[first].cpu] + kLaneH + 2 + kUtilH;
      auto vy = [&](unsigned long v) {
        return bottom - static_cast<double>(std::min<unsigned long>(v, 1024)) / 1024 * kUtilH;
      };
      std::string d;
      for (std::size_t i = first; i < last; i++) {
        const double x = sx(t.util[i].at), y = vy(value(t.util[i]));
        d += i == first ? fmt::format("M{},{}", px(x), px(y))
                        : fmt::format(" H{} V{}", px(x), px(y));
      }
      d += fmt::format(" H{}", px(x1));
      Attrs a{{"d", d}, {"fill", "none"}, {"stroke", colour}, {"stroke-width", "1.2"}};
      if (dash) a.emplace_back("stroke-dasharray", dash);
      svg.leaf("path", a);
    };
    for (std::size_t i = 0; i < t.util.size();) {
      std::size_t j = i;
      while (j < t.util.size() && t.util[j].cpu == t.util[i].cpu) j++;
      if (lane_y.count(t.util[i].cpu)) {
        steps(
            i, j, [](const observe::TimelineUtil &u) { return u.util_avg; }, kUtilAvg, nullptr);
        steps(
            i, j, [](const observe::TimelineUtil &u) { return u.util_est; }, kUtilEst, "3,2");
      }
      i = j;
    }
    svg.close();
  }

  // Legend: the cookies present, untagged, forced idle, wakeup, idle.
  std::set<unsigned long> cookies;
  for (const auto &s : t.slices)
    if (s.kind == TimelineSlice::Task) cookies.insert(s.cookie);
  svg.open("g", {{"class", "legend"}});
  double lx = x0;
  auto swatch = [&](const std::string &fill, const std::string &label) {
    svg.rect(lx, legend_y - 11, 14, 14, fill, {{"stroke", "#999"}, {"stroke-width", "0.5"}});
    svg.text(lx + 19, legend_y, label);
    lx += 19 + kCharW * 1.1 * static_cast<double>(label.size()) + 16;
  };
  for (unsigned long c : cookies)
    if (c) swatch(cookie_colour(c), fmt::format("cookie {}", c));
  if (cookies.count(0) || cookies.empty()) swatch(kUntagged, "untagged");
  swatch("url(#forceidle-hatch)", "forced idle");
  swatch(kIdle, "idle");
  svg.leaf("path",
           {{"d", fmt::format("M{},{} L{},{} L{},{} Z", px(lx), px(legend_y - 10), px(lx + 10),
                              px(legend_y - 10), px(lx + 5), px(legend_y + 1))},
            {"fill", kWakeup}});
  svg.text(lx + 16, legend_y, "wakeup");
  lx += 16 + kCharW * 6 + 16;
  if (!t.util.empty()) {
    for (auto [colour, dash, label] :
         {std::tuple{kUtilAvg, "", "util_avg"}, std::tuple{kUtilEst, "3,2", "util_est (0-1024)"}}) {
      Attrs a;
      if (*dash) a.emplace_back("stroke-dasharray", dash);
      svg.line(lx, legend_y - 4, lx + 18, legend_y - 4, colour, 1.2, a);
      svg.text(lx + 23, legend_y, label);
      lx += 23 + kCharW * static_cast<double>(std::string_view(label).size()) + 16;
    }
  }
  svg.close();
  return svg.finish();
}

}  // namespace schedlab::report
