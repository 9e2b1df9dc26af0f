// SPDX-License-Identifier: GPL-2.0-only
#include "report/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "experiment/experiment.h"
#include "experiment/experiment_report.h"
#include "report/svg.h"

namespace schedlab::report {

using nlohmann::json;

namespace {

constexpr const char *kCss =
    R"(body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px auto;max-width:1240px;padding:0 16px;color:#1d2330;line-height:1.45}
h1{font-size:24px;margin-bottom:4px}h2{font-size:19px;margin-top:32px;border-bottom:1px solid #dde1e6;padding-bottom:4px}
.meta{color:#4a5261;margin:2px 0}.note{color:#4a5261;font-size:14px;max-width:1000px}
table{border-collapse:collapse;margin:12px 0;font-size:14px}th,td{padding:5px 12px;border-bottom:1px solid #e3e6ea;text-align:right;white-space:nowrap}
th{background:#f3f5f8;font-weight:600}td:first-child,th:first-child{text-align:left}
tr:hover td{background:#fafbfc}.chart{margin:10px 0 18px;overflow-x:auto}code{background:#f3f5f8;padding:1px 4px;border-radius:3px}
)";

std::string esc(const std::string &s) {
  return xml_escape(s);
}

// A number as the terminal table prints it; JSON null (an undefined statistic) is "n/a".
std::string f3(const json &v) {
  return v.is_number() ? fmt::format("{:.3f}", v.get<double>()) : "n/a";
}
std::string f1(const json &v) {
  return v.is_number() ? fmt::format("{:.1f}", v.get<double>()) : "n/a";
}
double num(const json &v) {
  return v.is_number() ? v.get<double>() : std::nan("");
}

struct Table {
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
};

std::string table_html(const Table &t) {
  std::string o = "<table>\n<thead><tr>";
  for (const auto &h : t.head) o += "<th>" + esc(h) + "</th>";
  o += "</tr></thead>\n<tbody>\n";
  for (const auto &r : t.rows) {
    o += "<tr>";
    for (const auto &c : r) o += "<td>" + esc(c) + "</td>";
    o += "</tr>\n";
  }
  return o + "</tbody>\n</table>\n";
}

std::string page(const std::string &title, const std::string &body) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
         esc(title) + "</title>\n<style>\n" + kCss + "</style>\n</head>\n<body>\n" + body +
         "</body>\n</html>\n";
}

std::string chart(const std::string &svg) {
  return "<div class=\"chart\">\n" + svg + "</div>\n";
}

std::string latency_and_timeline(const ReportExtras &x) {
  std::string o;
  if (!x.latency.empty()) {
    o += "<h2>Wakeup latency</h2>\n<p class=\"note\">Time from <code>sched_waking</code> to the "
         "task's first switch-in, as a cumulative distribution: a line further left is faster; "
         "the height at a latency is the share of wakeups at or below it. " +
         esc(x.latency_note) + "</p>\n";
    o += chart(cdf_chart("Wakeup latency CDF", x.latency, "wakeup latency"));
    o += "<p class=\"note\">The same distributions on a tail scale: each step up is ten times "
         "rarer (90 %, 99 %, 99.9 %, 99.99 % of wakeups).</p>\n";
    o += chart(cdf_chart("Wakeup latency CDF, tail", x.latency, "wakeup latency", true));
  }
  if (!x.timeline_svg.empty()) {
    o += "<h2>Timeline excerpt</h2>\n<p class=\"note\">" + esc(x.timeline_caption) +
         " One lane per CPU, siblings of a core together; colours are core cookies, grey-blue "
         "untagged tasks, red hatching forced idle, black ticks wakeups. Hover for details.</p>\n";
    o += chart(x.timeline_svg);
  }
  return o;
}

// A sign test as the experiment table prints it, "48/46 (p 0.92)", from an object's
// lower/higher/p keys (missing counts read as 0, a missing or null p as NaN).
std::string sign_test_cell(const json &o, const std::string &lower, const std::string &higher,
                           const std::string &p) {
  experiment::stats::SignTest st;
  st.lower = o.value(lower, std::size_t{0});
  st.higher = o.value(higher, std::size_t{0});
  const json &pv = o.value(p, json());
  st.p = pv.is_number() ? pv.get<double>() : std::nan("");
  return experiment::format_sign_test(st);
}

// A table of run statistics as the experiment table prints it: mean ± CI95 per configuration,
// then the change against the first, paired by seed, and the sign test. Empty when the JSON
// has no summary of it.
std::string run_stats_table(const json &configs, experiment::StatTable table) {
  const std::vector<experiment::run_stat_id> list = experiment::table_stats(table);
  const experiment::StatTableInfo &info = experiment::kStatTables[static_cast<std::size_t>(table)];
  const std::string title = info.title;
  std::string note = info.note;
  std::replace(note.begin(), note.end(), '\n', ' ');
  if (list.empty() || configs.empty() ||
      !configs[0].contains(std::string("mean_") + experiment::kStatistics[list[0]].name))
    return "";
  Table t;
  t.head = {title};
  for (const auto id : list) t.head.push_back(experiment::kStatistics[id].label);
  for (std::size_t c = 0; c < configs.size(); c++) {
    const json &jc = configs[c];
    std::vector<std::string> row{jc.at("name").get<std::string>()};
    for (const auto id : list) {
      const experiment::Statistic &m = experiment::kStatistics[id];
      const std::string key = m.name;
      auto val = [&](const json &v) {
        return experiment::run_stat_value(m, v.is_number() ? v.get<double>() : std::nan(""));
      };
      std::string cell = val(jc.at("mean_" + key)) + " ± " + val(jc.at("ci95_" + key));
      if (c > 0) {
        const json &cp = jc.at("change_pct_" + key);
        cell += "; " +
                (cp.is_number() ? fmt::format("{:+.1f} % ± {} %", cp.get<double>(),
                                              f1(jc.at("change_ci95_pct_" + key)))
                                : std::string("n/a")) +
                ", " +
                sign_test_cell(jc, "lower_runs_" + key, "higher_runs_" + key, "sign_test_p_" + key);
      }
      row.push_back(cell);
    }
    t.rows.push_back(row);
  }
  const std::string first = configs[0].at("name").get<std::string>();
  return table_html(t) + "<p class=\"note\">" + esc(title) +
         ": mean ± CI95 of the runs; for the other configurations, the change against " +
         esc(first) + " paired by seed and the sign test (lower/higher runs, p). " + esc(note) +
         "</p>\n";
}

std::string experiment_page(const json &j, const ReportExtras &x) {
  const std::string scenario = j.at("scenario").get<std::string>();
  const auto &seeds = j.at("seeds");
  const auto &configs = j.at("configs");
  const std::size_t n = seeds.size();
  std::string b = "<h1>schedlab report: " + esc(scenario) + "</h1>\n";
  if (!x.scenario_description.empty())
    b += "<p class=\"meta\">" + esc(x.scenario_description) + "</p>\n";
  b += fmt::format(
      "<p class=\"meta\">Scenario file <code>{}</code> &middot; {} configuration{} &times; {} "
      "run{} (seeds {}{}) &middot; schedlab {}</p>\n",
      esc(j.value("scenario_file", std::string("?"))), configs.size(),
      configs.size() == 1 ? "" : "s", n, n == 1 ? "" : "s",
      n ? seeds.front().dump() : std::string("-"), n > 1 ? ".." + seeds.back().dump() : "",
      esc(j.value("schedlab_version", std::string("?"))));

  // The experiment table, as `schedlab experiment` prints it.
  Table t;
  t.head = {"Configuration"};
  if (n <= 5) {
    for (std::size_t i = 0; i < n; i++) t.head.push_back(fmt::format("Run {}", i + 1));
    t.head.insert(t.head.end(), {"Average", "Overhead", "Force idle"});
  } else {
    t.head.insert(t.head.end(), {"Mean ± CI95", "Median", "Overhead ± CI95", "Force idle"});
  }
  for (std::size_t c = 0; c < configs.size(); c++) {
    const json &jc = configs[c];
    std::vector<std::string> row{jc.at("name").get<std::string>()};
    if (n <= 5) {
      for (const auto &run : jc.at("runs")) row.push_back(f3(run.at("completion_time_s")));
      row.push_back(f3(jc.at("mean_completion_time_s")));
      row.push_back(f3(jc.at("overhead_s")));
    } else {
      row.push_back(f3(jc.at("mean_completion_time_s")) + " ± " +
                    f3(jc.at("ci95_completion_time_s")));
      row.push_back(f3(jc.at("median_completion_time_s")));
      row.push_back(c == 0 ? f3(jc.at("overhead_s"))
                           : f3(jc.at("overhead_s")) + " ± " + f3(jc.at("overhead_ci95_s")));
    }
    row.push_back(f3(jc.at("mean_forceidle_s")));
    t.rows.push_back(row);
  }
  const std::string first = configs.empty() ? "" : configs[0].at("name").get<std::string>();
  b += "<h2>Results (seconds)</h2>\n" + table_html(t);
  b += "<p class=\"note\">Completion time: until every task has exited. Overhead: mean "
       "completion time minus " +
       esc(first) + "'s" + (n > 5 ? ", CI95 paired by seed" : "") +
       ". Force idle: forced-idle time summed over CPUs, mean of the runs.</p>\n";
  for (const auto &cmp : j.value("comparisons", json::array())) {
    const std::string ref = cmp.at("reference").get<std::string>();
    std::string line = cmp.at("patched").get<std::string>() + " cuts the overhead of " +
                       cmp.at("base").get<std::string>() +
                       (ref == first ? "" : " (over " + ref + ")") + " by ";
    if (!cmp.at("cut_pct").is_number())
      line += "n/a (base has no overhead)";
    else
      line += fmt::format("{} % (95 % CI {}–{} %)", f1(cmp.at("cut_pct")),
                          f1(cmp.at("cut_ci95_low_pct")), f1(cmp.at("cut_ci95_high_pct")));
    b += "<p><strong>" + esc(line) + "</strong></p>\n";
  }
  // Forced idle per VM and benchmark metrics, when the scenario has them.
  if (!configs.empty() && configs[0].contains("mean_vm_forceidle_s")) {
    Table v;
    v.head = {"Forced idle per VM (s)"};
    for (const auto &[name, _] : configs[0].at("mean_vm_forceidle_s").items())
      v.head.push_back(name);
    for (const auto &jc : configs) {
      std::vector<std::string> row{jc.at("name").get<std::string>()};
      for (const auto &[name, val] : jc.at("mean_vm_forceidle_s").items())
        row.push_back(val.is_number() ? fmt::format("{:.2f}", val.get<double>()) : "n/a");
      v.rows.push_back(row);
    }
    b += table_html(v);
  }
  for (const auto &m : experiment::kBenchMetrics) {
    const std::string key = m.key;
    if (configs.empty() || !configs[0].contains("mean_" + key)) continue;
    Table mt;
    mt.head = {m.label, "Mean ± CI95", "Change vs " + first + " ± CI95 (paired)"};
    // The sign test, from version 0.7.1's JSON on.
    const bool sign = configs.size() > 1 && configs[1].contains("sign_test_p_" + key);
    if (sign) mt.head.push_back("Lower/higher runs (sign test p)");
    const bool sec = key == "hackbench_time_s";
    auto val = [&](const json &v) {
      return !v.is_number() ? std::string("n/a")
             : sec          ? fmt::format("{:.4f}", v.get<double>())
                            : fmt::format("{:.1f}", v.get<double>());
    };
    for (std::size_t c = 0; c < configs.size(); c++) {
      const json &jc = configs[c];
      std::string change;
      if (c > 0) {
        const json &cp = jc.at("change_pct_" + key), &cc = jc.at("change_ci95_pct_" + key);
        change = (cp.is_number() ? fmt::format("{:+.1f} %", cp.get<double>()) : "n/a") + " ± " +
                 (cc.is_number() ? fmt::format("{:.1f} %", cc.get<double>()) : "n/a");
      }
      mt.rows.push_back({jc.at("name").get<std::string>(),
                         val(jc.at("mean_" + key)) + " ± " + val(jc.at("ci95_" + key)), change});
      if (sign)
        mt.rows.back().push_back(c == 0
                                     ? std::string()
                                     : sign_test_cell(jc, "lower_runs_" + key, "higher_runs_" + key,
                                                      "sign_test_p_" + key));
    }
    b += table_html(mt);
  }
  // The tables of run statistics the experiment summarised (where the configurations differ
  // in what acts on them).
  for (std::size_t t = 0; t < experiment::kNrStatTables; t++)
    b += run_stats_table(configs, static_cast<experiment::StatTable>(t));
  // Wakeup placement, from version 0.7.3's JSON on, where core scheduling was at work.
  if (!configs.empty() && configs[0].contains("mean_wakeups_other_cookie_pct")) {
    Table pt;
    pt.head = {"Wakeups onto another cookie's core (%)", "All ± CI95"};
    for (const char *step : kernel::Kernel::kSisStepNames) pt.head.push_back(step);
    for (const auto &jc : configs) {
      std::vector<std::string> row{jc.at("name").get<std::string>(),
                                   f1(jc.at("mean_wakeups_other_cookie_pct")) + " ± " +
                                       f1(jc.at("ci95_wakeups_other_cookie_pct"))};
      for (const char *step : kernel::Kernel::kSisStepNames)
        row.push_back(f1(jc.at("mean_wakeups_other_cookie_pct_by_step").at(step)));
      pt.rows.push_back(row);
    }
    b += table_html(pt);
    b += "<p class=\"note\">select_idle_sibling() calls whose CPU's core then ran another "
         "cookie (sched_core_cookie_match()), in all and by the step that chose the CPU; mean of "
         "the runs' percentages.</p>\n";
    for (const auto &cmp : j.value("comparisons", json::array())) {
      if (!cmp.contains("wakeups_other_cookie_change_points")) continue;
      const json &d = cmp.at("wakeups_other_cookie_change_points");
      b += "<p>" +
           esc(fmt::format("{} against {}: {} ± {} points (CI95 paired by seed), lower/higher "
                           "runs {}",
                           cmp.at("patched").get<std::string>(), cmp.at("base").get<std::string>(),
                           d.is_number() ? fmt::format("{:+.1f}", d.get<double>()) : "n/a",
                           f1(cmp.at("wakeups_other_cookie_change_ci95_points")),
                           sign_test_cell(cmp, "wakeups_other_cookie_lower_runs",
                                          "wakeups_other_cookie_higher_runs",
                                          "wakeups_other_cookie_sign_test_p"))) +
           "</p>\n";
    }
  }

  // Distributions.
  std::vector<StripRow> completion;
  std::vector<Bar> forceidle;
  for (const auto &jc : configs) {
    StripRow r{jc.at("name").get<std::string>(), {}};
    Bar bar{r.label, num(jc.at("mean_forceidle_s")), {}};
    for (const auto &run : jc.at("runs")) {
      r.values.push_back(num(run.at("completion_time_s")));
      bar.points.push_back(static_cast<double>(run.at("forceidle_ns").get<u64>()) / 1e9);
    }
    completion.push_back(std::move(r));
    forceidle.push_back(std::move(bar));
  }
  b += "<h2>Distributions</h2>\n<p class=\"note\">Each dot is one run (one seed); every "
       "configuration ran on the same seeds.</p>\n";
  b += chart(strip_chart("Completion time per run", completion, "completion time", "s"));
  b += chart(
      bar_chart("Forced idle per configuration (summed over CPUs)", forceidle, "forced idle", "s"));
  b += latency_and_timeline(x);
  return page("schedlab report: " + scenario, b);
}

std::string run_page(const json &j, const ReportExtras &x) {
  const std::string scenario = j.at("scenario").get<std::string>();
  std::string b = "<h1>schedlab run: " + esc(scenario) + "</h1>\n";
  if (!x.scenario_description.empty())
    b += "<p class=\"meta\">" + esc(x.scenario_description) + "</p>\n";
  b += fmt::format(
      "<p class=\"meta\">Scenario file <code>{}</code> &middot; configuration <strong>{}</strong> "
      "&middot; seed {} &middot; schedlab {}</p>\n",
      esc(j.value("scenario_file", std::string("?"))), esc(j.at("config").get<std::string>()),
      j.at("seed").dump(), esc(j.value("schedlab_version", std::string("?"))));
  Table t;
  t.head = {"Metric", "Value"};
  t.rows.push_back({"completion time (s)", f3(j.at("completion_time_s"))});
  t.rows.push_back({"forced idle, summed over CPUs (s)", f3(j.at("forceidle_s"))});
  t.rows.push_back({"busy (%)", f1(j.at("busy_pct"))});
  t.rows.push_back({"events", j.at("events").dump()});
  const json &wl = j.at("wakeup_latency_ns");
  for (const char *k : {"p50", "p90", "p99", "p999", "max"})
    t.rows.push_back(
        {std::string("wakeup latency ") + k + " (us)", fmt::format("{:.1f}", num(wl.at(k)) / 1e3)});
  b += "<h2>Summary</h2>\n" + table_html(t);
  Table c;
  c.head = {"CPU", "busy (ms)", "idle (ms)", "forced idle (ms)", "switches"};
  std::vector<Bar> fi;
  for (const auto &cpu : j.at("cpus")) {
    auto ms = [&](const char *k) { return fmt::format("{:.1f}", num(cpu.at(k)) / 1e6); };
    c.rows.push_back({"cpu" + cpu.at("cpu").dump(), ms("busy_ns"), ms("idle_ns"),
                      ms("forceidle_ns"), cpu.at("nr_switches").dump()});
    fi.push_back({"cpu" + cpu.at("cpu").dump(), num(cpu.at("forceidle_ns")) / 1e9, {}});
  }
  b += "<h2>Per CPU</h2>\n" + table_html(c);
  b += chart(bar_chart("Forced idle per CPU", fi, "forced idle", "s"));
  b += latency_and_timeline(x);
  return page("schedlab run: " + scenario, b);
}

// Per configuration (by name, from the first point's `from`-th on), a figure and its CI95 at
// every point, scaled, with the sign test's p from `p_key` if given; NaN where a point lacks
// them. `any`: some point has the figure.
std::vector<PointSeries> sweep_series(const json &points, const std::string &key,
                                      const std::string &ci_key, double scale, std::size_t from,
                                      bool &any, const std::string &p_key = "") {
  std::vector<PointSeries> series;
  const json &configs = points.at(0).at("experiment").at("configs");
  for (std::size_t c = from; c < configs.size(); c++) {
    PointSeries se{configs[c].at("name").get<std::string>(), {}, {}, c};
    for (const auto &point : points) {
      double m = std::nan(""), ci = std::nan(""), p = std::nan("");
      for (const auto &jc : point.at("experiment").at("configs"))
        if (jc.at("name") == se.label && jc.contains(key)) {
          m = num(jc.at(key)) * scale;
          ci = num(jc.value(ci_key, json())) * scale;
          if (!p_key.empty()) p = num(jc.value(p_key, json()));
          any |= std::isfinite(m);
        }
      se.mean.push_back(m);
      se.ci95.push_back(ci);
      se.sign_p.push_back(p);
    }
    series.push_back(std::move(se));
  }
  return series;
}

// The charts of one quantity across a sweep: its mean per configuration, then, with more than
// one configuration, each other's change against the first (paired by seed) as the JSON has it
// (`change_key`, in `change_unit`). Empty when no point has the quantity.
std::string sweep_charts(const json &points, const std::string &key, double scale,
                         const std::string &label, const std::vector<std::string> &categories,
                         const std::string &x_label, const std::string &change_key = "",
                         const std::string &change_ci_key = "",
                         const std::string &change_unit = "%") {
  bool any = false;
  const auto means = sweep_series(points, "mean_" + key, "ci95_" + key, scale, 0, any);
  if (!any) return "";
  std::string o = chart(point_chart(label, categories, means, x_label, label));
  const json &configs = points.at(0).at("experiment").at("configs");
  bool any_change = false;
  const auto changes = change_key.empty()
                           ? sweep_series(points, "change_pct_" + key, "change_ci95_pct_" + key, 1,
                                          1, any_change, "sign_test_p_" + key)
                           : sweep_series(points, change_key, change_ci_key, 1, 1, any_change);
  if (any_change) {
    const std::string t = label + ": change against " +
                          configs.at(0).at("name").get<std::string>() + " (" + change_unit + ")";
    o += chart(point_chart(t, categories, changes, x_label, "change (" + change_unit + ")", true));
  }
  return o;
}

std::string sweep_page(const json &j) {
  const json &params = j.at("params");
  const json &points = j.at("points");
  const json &first = points.at(0).at("experiment");
  const std::string scenario = first.at("scenario").get<std::string>();
  const auto &seeds = first.at("seeds");
  const std::size_t n = seeds.size();
  std::vector<std::string> paths, categories;
  for (const auto &p : params) paths.push_back(p.at("path").get<std::string>());
  for (const auto &p : points) {
    std::string c;
    for (const auto &path : paths)
      c += (c.empty() ? "" : ", ") + p.at("values").at(path).get<std::string>();
    categories.push_back(c);
  }
  std::string x_label;
  for (const auto &path : paths) x_label += (x_label.empty() ? "" : ", ") + path;

  std::string b = "<h1>schedlab sweep: " + esc(scenario) + "</h1>\n";
  b += fmt::format(
      "<p class=\"meta\">Scenario file <code>{}</code> &middot; {} point{} &times; {} "
      "configuration{} &times; {} run{} (seeds {}{}) &middot; schedlab {}</p>\n",
      esc(j.value("scenario_file", std::string("?"))), points.size(), points.size() == 1 ? "" : "s",
      first.at("configs").size(), first.at("configs").size() == 1 ? "" : "s", n, n == 1 ? "" : "s",
      n ? seeds.front().dump() : std::string("-"), n > 1 ? ".." + seeds.back().dump() : "",
      esc(first.value("schedlab_version", std::string("?"))));
  for (const auto &p : params) {
    std::string vals;
    for (const auto &v : p.at("values")) vals += (vals.empty() ? "" : ", ") + v.get<std::string>();
    b += "<p class=\"meta\"><code>" + esc(p.at("path").get<std::string>()) +
         "</code> = " + esc(vals) + "</p>\n";
  }

  Table t;
  t.head = paths;
  t.head.insert(t.head.end(), {"Configuration", "Completion (s) ± CI95", "Overhead (s) ± CI95",
                               "Forced idle (s)"});
  for (std::size_t k = 0; k < points.size(); k++)
    for (const auto &jc : points[k].at("experiment").at("configs")) {
      std::vector<std::string> row;
      for (const auto &path : paths)
        row.push_back(points[k].at("values").at(path).get<std::string>());
      row.push_back(jc.at("name").get<std::string>());
      row.push_back(f3(jc.at("mean_completion_time_s")) + " ± " +
                    f3(jc.at("ci95_completion_time_s")));
      row.push_back(f3(jc.at("overhead_s")) + " ± " + f3(jc.at("overhead_ci95_s")));
      row.push_back(f3(jc.at("mean_forceidle_s")));
      t.rows.push_back(std::move(row));
    }
  b += "<h2>Results</h2>\n" + table_html(t);
  b += "<p class=\"note\">Every point ran the same seeds. Overhead: against the point's first "
       "configuration, CI95 paired by seed. Below, each figure's mean over the runs with its CI95, "
       "then each other configuration's change against the point's first, paired by seed; a "
       "hollow dot is a change whose sign test has p ≥ 0.05.</p>\n";

  b += "<h2>Across the sweep</h2>\n";
  b += sweep_charts(points, "completion_time_s", 1, "completion time (s)", categories, x_label,
                    "overhead_s", "overhead_ci95_s", "s");
  bool forced_idle = false;
  for (const auto &p : points)
    for (const auto &jc : p.at("experiment").at("configs"))
      forced_idle |= num(jc.at("mean_forceidle_s")) > 0;
  if (forced_idle)
    b += sweep_charts(points, "forceidle_s", 1, "forced idle, summed over CPUs (s)", categories,
                      x_label);
  for (const auto &m : experiment::kBenchMetrics)
    b += sweep_charts(points, m.key, 1, m.label, categories, x_label);
  b += sweep_charts(points, "wakeups_other_cookie_pct", 1, "wakeups onto another cookie's core (%)",
                    categories, x_label);
  for (const experiment::Statistic &m : experiment::kStatistics)
    if (m.table != experiment::StatTable::NONE)
      b += sweep_charts(
          points, m.name, m.scale,
          std::string(experiment::kStatTables[static_cast<std::size_t>(m.table)].short_name) +
              ": " + m.label,
          categories, x_label);
  return page("schedlab sweep: " + scenario, b);
}

}  // namespace

std::string html_report(const json &result, const ReportExtras &extras) {
  if (result.contains("points") && result.contains("params")) return sweep_page(result);
  if (result.contains("configs") && result.contains("seeds"))
    return experiment_page(result, extras);
  return run_page(result, extras);
}

}  // namespace schedlab::report
