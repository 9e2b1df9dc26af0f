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
// Tasks: a qualitative palette, dark and light pairs and four more, without the reds of forced
// idle and the greys of idle. A task's colour comes from a hash of its name and pid (the same task
// gets the same colour in every window); tasks of one window that would share a colour move on to
// the next free one, in pid order.
constexpr const char *kTaskPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#499894",
                                        "#b6992d", "#d37295", "#9d7660", "#a0cbe8", "#ffbe7d",
                                        "#8cd17d", "#d4a6c8", "#86bcb6", "#f1ce63", "#fabfd2",
                                        "#d7b5a6", "#17becf", "#bcbd22", "#6b6ecf", "#8c564b"};
constexpr std::size_t kNrTaskColours = sizeof(kTaskPalette) / sizeof(kTaskPalette[0]);
constexpr double kCookieBand = 5;  // the cookie's colour, along the bottom of a task's slice
constexpr const char *kIdle = "#f3f4f6";
constexpr const char *kWakeup = "#111";
constexpr const char *kUtilAvg = "#111";
constexpr const char *kUtilEst = "#c2185b";

constexpr double kLeft = 110;  // core and CPU labels
constexpr double kRight = 20;
constexpr double kLaneH = 22;
constexpr double kLaneGap = 8;  // room for the wakeup ticks above a lane
constexpr double kCoreGap = 16;
constexpr double kUtilH = 44;   // with utilisation: a strip under each lane, 1024 at its top
constexpr double kCharW = 6.6;  // average width of an 11 px sans-serif character
constexpr std::size_t kMaxTaskLegend = 48;

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

u64 fnv1a(const std::string &text, int pid) {
  u64 h = 1469598103934665603ull;
  for (unsigned char c : text + "/" + std::to_string(pid)) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace

std::map<int, const char *> task_colours(const Timeline &t) {
  std::map<int, std::string> tasks;  // pid -> comm, in pid order
  for (const auto &s : t.slices)
    if (s.kind == TimelineSlice::Task) tasks.emplace(s.pid, s.comm);
  std::map<int, const char *> colour;
  std::vector<char> used(kNrTaskColours, 0);
  std::size_t nr_used = 0;
  for (const auto &[pid, comm] : tasks) {
    std::size_t i = fnv1a(comm, pid) % kNrTaskColours;
    if (nr_used < kNrTaskColours)
      while (used[i]) i = (i + 1) % kNrTaskColours;
    if (!used[i]) used[i] = 1, nr_used++;
    colour[pid] = kTaskPalette[i];
  }
  return colour;
}

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
  // The tasks' legend: a swatch per task of the window, in pid order, in rows under the rest.
  const std::map<int, const char *> colours = task_colours(t);
  std::map<int, std::string> comms;
  for (const auto &s : t.slices)
    if (s.kind == TimelineSlice::Task) comms.emplace(s.pid, s.comm);
  struct Entry {
    double x, y;
    const char *colour;
    std::string label;
  };
  std::vector<Entry> task_legend;
  {
    double ex = kLeft, ey = legend_y + 24;
    std::size_t shown = 0;
    for (const auto &[pid, comm] : comms) {
      if (shown == kMaxTaskLegend) {
        task_legend.push_back(
            {ex, ey, nullptr, fmt::format("and {} more tasks", comms.size() - shown)});
        break;
      }
      std::string label = fmt::format("{} ({})", comm, pid);
      const double w = 19 + kCharW * static_cast<double>(label.size()) + 14;
      if (ex + w > o.width - kRight && ex > kLeft) ex = kLeft, ey += 20;
      task_legend.push_back({ex, ey, colours.at(pid), std::move(label)});
      ex += w;
      shown++;
    }
  }
  const double height = (task_legend.empty() ? legend_y : task_legend.back().y) + 30;
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
      // 0 at the bottom, 1024 (a whole CPU) at the top, a grid line at each quarter.
      const double uy = ly + kLaneH + 2;
      svg.rect(x0, uy, x1 - x0, kUtilH, "#fff", {{"stroke", "#aab0b8"}, {"stroke-width", "0.5"}});
      for (int q = 1; q < 4; q++)
        svg.line(x0, uy + kUtilH * q / 4, x1, uy + kUtilH * q / 4, "#e3e6ea", q == 2 ? 0.8 : 0.5);
      for (auto [v, vy] : {std::pair{"1024", uy + 7.0}, std::pair{"512", uy + kUtilH / 2 + 3},
                           std::pair{"0", uy + kUtilH}})
        svg.text(x0 - 3, vy, v, {{"text-anchor", "end"}, {"font-size", "8"}, {"fill", "#666"}});
      svg.text(x0 - 26, uy + kUtilH / 2 + 4, "util",
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
    const char *fill = colours.at(s.pid);
    svg.open("rect", {{"x", px(xa)},
                      {"y", px(it->second + 1)},
                      {"width", px(w)},
                      {"height", px(kLaneH - 2)},
                      {"fill", fill},
                      {"stroke", "#fff"},
                      {"stroke-width", "0.5"},
                      {"class", "task"},
                      {"data-pid", std::to_string(s.pid)}});
    svg.title(fmt::format("{} (pid {})\ncookie {}\nstart {}\nduration {}", s.comm, s.pid,
                          s.cookie ? std::to_string(s.cookie) : std::string("none"), ms6(s.start),
                          dur));
    svg.close();
    if (s.cookie)
      svg.rect(xa, it->second + kLaneH - 1 - kCookieBand, w, kCookieBand, cookie_colour(s.cookie),
               {{"class", "cookie"}, {"pointer-events", "none"}});
    if (w >= kCharW * static_cast<double>(s.comm.size()) + 6)
      svg.text(xa + 3, it->second + (s.cookie ? 13 : 15), s.comm,
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
    if (c) {  // the band along a slice's bottom
      svg.rect(lx, legend_y - 11, 14, 14, "#fff", {{"stroke", "#999"}, {"stroke-width", "0.5"}});
      svg.rect(lx, legend_y + 3 - kCookieBand, 14, kCookieBand, cookie_colour(c));
      const std::string label = fmt::format("cookie {}", c);
      svg.text(lx + 19, legend_y, label);
      lx += 19 + kCharW * 1.1 * static_cast<double>(label.size()) + 16;
    }
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
  svg.open("g", {{"class", "task-legend"}});
  for (const Entry &e : task_legend) {
    if (e.colour)
      svg.rect(e.x, e.y - 11, 14, 14, e.colour, {{"stroke", "#999"}, {"stroke-width", "0.5"}});
    svg.text(e.colour ? e.x + 19 : e.x, e.y, e.label, {{"font-size", "11"}});
  }
  svg.close();
  return svg.finish();
}

}  // namespace schedlab::report
