// SPDX-License-Identifier: GPL-2.0-only
#include "experiment/experiment_report.h"

#include <fmt/format.h>

#include <cmath>

#include "experiment/host_stats.h"
#include "experiment/result_json.h"
#include "schedlab/version.h"

namespace schedlab::experiment {

using nlohmann::ordered_json;

namespace {

double to_s(Time ns) {
  return static_cast<double>(ns) / 1e9;
}

// JSON null for an undefined statistic (NaN), the number otherwise.
ordered_json num(double v) {
  return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr);
}

std::string fixed3(double v) {
  return std::isfinite(v) ? fmt::format("{:.3f}", v) : "n/a";
}
std::string pct1(double v) {
  return std::isfinite(v) ? fmt::format("{:.1f}", v) : "n/a";
}

// Display width of UTF-8 text: code points, not bytes ("±" is one column).
std::size_t width(const std::string &s) {
  std::size_t w = 0;
  for (unsigned char c : s) w += (c & 0xC0) != 0x80;
  return w;
}

// Left-aligned columns, as in the seed mail: each at least `min_width` wide and two spaces
// wider than its widest cell; trailing spaces trimmed.
std::string render(const std::vector<std::vector<std::string>> &rows,
                   const std::vector<std::size_t> &min_width) {
  std::vector<std::size_t> w(min_width);
  for (const auto &row : rows)
    for (std::size_t i = 0; i < row.size(); i++) w[i] = std::max(w[i], width(row[i]) + 2);
  std::string out;
  for (const auto &row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); i++) {
      line += row[i];
      if (i + 1 < row.size()) line.append(w[i] - width(row[i]), ' ');
    }
    out += line + "\n";
  }
  return out;
}

std::string csv_quote(const std::string &s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

// One value per run, across configurations: mean, CI95 and the change against the first
// configuration, paired by seed, with its sign test.
template <class Value>
MetricStats metric_stats(const ExperimentResult &r, std::size_t index, Value value) {
  MetricStats ms;
  ms.index = index;
  std::vector<double> first;
  for (const auto &c : r.configs) {
    std::vector<double> x;
    for (const auto &run : c.runs) x.push_back(value(run));
    if (first.empty()) first = x;
    MetricStats::PerConfig pc;
    pc.mean = stats::mean(x);
    pc.ci95 = stats::ci95(x);
    const stats::Paired p = stats::paired(x, first);
    const double base = stats::mean(first);
    pc.change_pct = 100.0 * p.mean_diff / base;
    pc.change_ci95_pct = 100.0 * p.ci95 / base;
    pc.sign = stats::sign_test(x, first);
    ms.configs.push_back(pc);
  }
  return ms;
}

// Run metrics as one table: a row of means ± CI95 per configuration and, under each but the
// first, its change against the first (paired by seed) and the sign test.
std::string run_stats_table(StatTable t, const ExperimentStats &st) {
  const std::vector<MetricStats> &metrics = st.tables[static_cast<std::size_t>(t)];
  if (metrics.empty()) return "";
  const StatTableInfo &info = kStatTables[static_cast<std::size_t>(t)];
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head{info.title};
  for (const auto &ms : metrics) head.push_back(kStatistics[ms.index].label);
  rows.push_back(head);
  for (std::size_t c = 0; c < st.configs.size(); c++) {
    std::vector<std::string> row{st.configs[c].name}, change{"  change (CI95 paired)"},
        sign{"  lower/higher (sign test)"};
    for (const auto &ms : metrics) {
      const Statistic &m = kStatistics[ms.index];
      const auto &pc = ms.configs[c];
      row.push_back(run_stat_value(m, pc.mean) + " ± " + run_stat_value(m, pc.ci95));
      // No change in percent of a first configuration whose mean is 0.
      change.push_back(std::isfinite(pc.change_pct) ? fmt::format("{:+.1f} % ± {} %", pc.change_pct,
                                                                  pct1(pc.change_ci95_pct))
                                                    : std::string("n/a"));
      sign.push_back(format_sign_test(pc.sign));
    }
    rows.push_back(row);
    if (c > 0) {
      rows.push_back(change);
      rows.push_back(sign);
    }
  }
  std::string out = "\n";
  out += render(rows, std::vector<std::size_t>(head.size(), 0));
  out +=
      fmt::format("\n{} Changes against {}, paired by seed.\n", info.note, st.configs.front().name);
  return out;
}

// The position of a configuration a comparison names (experiment_stats() keeps their order).
std::size_t config_index(const ExperimentResult &r, const std::string &name) {
  for (std::size_t i = 0; i < r.configs.size(); i++)
    if (r.configs[i].name == name) return i;
  throw std::logic_error("experiment_stats: comparison names a configuration that did not run");
}

// A part of a run's select_idle_sibling() calls, in percent (NaN without calls).
double pct_of_calls(u64 part, const kernel::Kernel::SisStats &sis) {
  return sis.calls ? 100.0 * static_cast<double>(part) / static_cast<double>(sis.calls)
                   : std::nan("");
}

std::optional<PlacementStats> placement_stats(const ExperimentResult &r) {
  bool cookies = false;
  for (const auto &c : r.configs)
    for (const auto &run : c.runs) cookies |= run.forceidle_ns || run.sis.cookie_mismatch;
  if (!cookies) return std::nullopt;
  constexpr std::size_t nsteps = kernel::Kernel::NR_SIS_STEPS;
  PlacementStats ps;
  std::vector<std::vector<double>> pct;  // by configuration, by seed index
  for (const auto &c : r.configs) {
    std::vector<double> calls, x;
    std::array<std::vector<double>, nsteps> by_step;
    for (const auto &run : c.runs) {
      calls.push_back(static_cast<double>(run.sis.calls));
      x.push_back(pct_of_calls(run.sis.cookie_mismatch, run.sis));
      for (std::size_t s = 0; s < nsteps; s++)
        by_step[s].push_back(pct_of_calls(run.sis.cookie_mismatch_by_step[s], run.sis));
    }
    PlacementStats::PerConfig pc;
    pc.mean_calls = stats::mean(calls);
    pc.pct = stats::mean(x);
    pc.ci95 = stats::ci95(x);
    for (std::size_t s = 0; s < nsteps; s++) pc.by_step_pct[s] = stats::mean(by_step[s]);
    ps.configs.push_back(pc);
    pct.push_back(std::move(x));
  }
  for (const auto &cmp : r.comparisons) {
    const auto &base = pct[config_index(r, cmp.base)], &patched = pct[config_index(r, cmp.patched)];
    ps.changes.push_back(
        {cmp.base, cmp.patched, stats::paired(patched, base), stats::sign_test(patched, base)});
  }
  return ps;
}

std::string placement_table(const ExperimentStats &st) {
  const PlacementStats &ps = *st.placement;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head{"Wakeups onto another cookie's core (%)", "All ± CI95"};
  for (const char *name : kernel::Kernel::kSisStepNames) head.push_back(name);
  rows.push_back(head);
  for (std::size_t c = 0; c < ps.configs.size(); c++) {
    const auto &pc = ps.configs[c];
    std::vector<std::string> row{st.configs[c].name, pct1(pc.pct) + " ± " + pct1(pc.ci95)};
    for (double v : pc.by_step_pct) row.push_back(pct1(v));
    rows.push_back(row);
  }
  std::string out = "\n";
  out += render(rows, std::vector<std::size_t>(head.size(), 0));
  out +=
      "\nWakeups onto another cookie's core: select_idle_sibling() calls whose CPU's core then "
      "ran\nanother cookie (sched_core_cookie_match()), in all and by the step that chose the "
      "CPU;\nmean of the runs' percentages.\n";
  for (const auto &ch : ps.changes)
    out += fmt::format(
        "{} against {}: {:+.1f} ± {} points (CI95 paired by seed), lower/higher "
        "runs {}\n",
        ch.patched, ch.base, ch.points.mean_diff, pct1(ch.points.ci95), format_sign_test(ch.sign));
  return out;
}

// Exact decimal seconds from integer nanoseconds.
std::string seconds9(Time ns) {
  return fmt::format("{}.{:09d}", ns / NSEC_PER_SEC, ns % NSEC_PER_SEC);
}

}  // namespace

ExperimentStats experiment_stats(const ExperimentResult &r, RunStatTables force) {
  ExperimentStats st;
  for (const auto &c : r.configs) {
    ConfigStats cs;
    cs.name = c.name;
    std::vector<double> fi;
    for (const auto &run : c.runs) {
      cs.completion_s.push_back(to_s(run.completion_ns));
      fi.push_back(to_s(run.forceidle_ns));
    }
    cs.mean = stats::mean(cs.completion_s);
    cs.stddev = stats::stddev(cs.completion_s);
    cs.median = stats::median(cs.completion_s);
    cs.ci95 = stats::ci95(cs.completion_s);
    cs.mean_forceidle_s = stats::mean(fi);
    if (!c.runs.empty())
      for (std::size_t v = 0; v < c.runs.front().vm_forceidle_ns.size(); v++) {
        std::vector<double> x;
        for (const auto &run : c.runs) x.push_back(to_s(run.vm_forceidle_ns[v].second));
        cs.vm_forceidle_s.emplace_back(c.runs.front().vm_forceidle_ns[v].first, stats::mean(x));
      }
    if (st.configs.empty()) {
      cs.overhead = 0;
      cs.overhead_ci95 = cs.completion_s.size() >= 2 ? 0.0 : std::nan("");
    } else {
      const stats::Paired p = stats::paired(cs.completion_s, st.configs.front().completion_s);
      cs.overhead = p.mean_diff;
      cs.overhead_ci95 = p.ci95;
    }
    st.configs.push_back(std::move(cs));
  }
  for (const auto &c : r.configs)
    for (const auto &run : c.runs)
      if (run.stuck_tasks) st.stuck.push_back({c.name, run.seed, run.stuck_tasks});
  for (std::size_t m = 0; m < kNrBenchMetrics; m++) {
    IncompleteMetric im;
    im.index = m;
    bool expected = false;
    for (const auto &c : r.configs)
      for (const auto &run : c.runs) {
        im.runs++;
        expected |= (run.bench_expected >> m) & 1;
        if (m >= run.bench.size() || !std::isfinite(run.bench[m]))
          im.missing.emplace_back(c.name, run.seed);
      }
    // Not in this scenario: no run has it, and none was to.
    if (im.runs == 0 || (im.missing.size() == im.runs && !expected)) continue;
    if (!im.missing.empty()) {
      st.incomplete.push_back(std::move(im));
      continue;
    }
    st.metrics.push_back(
        metric_stats(r, m, [m](const ExperimentRun &run) { return run.bench[m]; }));
  }
  const ComparedSetup setup = compared_setup(r);
  for (std::size_t t = 0; t < kNrStatTables; t++)
    if (force[t] || table_acted_on(static_cast<StatTable>(t), setup))
      for (const run_stat_id m : table_stats(static_cast<StatTable>(t)))
        st.tables[t].push_back(
            metric_stats(r, m, [m](const ExperimentRun &run) { return run.stat[m]; }));
  auto find = [&](const std::string &n) -> const std::vector<double> & {
    return st.configs[config_index(r, n)].completion_s;
  };
  for (const auto &cmp : r.comparisons) {
    ComparisonStats cs;
    cs.spec = cmp;
    cs.cut = stats::overhead_cut(find(cmp.base), find(cmp.patched), find(cmp.reference));
    st.comparisons.push_back(std::move(cs));
  }
  st.placement = placement_stats(r);
  return st;
}

std::string run_stat_value(const Statistic &m, double v) {
  return std::isfinite(v) ? fmt::format("{:.{}f}", v * m.scale, m.decimals) : "n/a";
}

ComparedSetup compared_setup(const ExperimentResult &r) {
  ComparedSetup s;
  for (const auto &c : r.configs) s.kernels.push_back(&c.kernel);
  return s;
}

// More digits would claim what the test cannot.
std::string format_sign_test(const stats::SignTest &s) {
  const std::string p = !std::isfinite(s.p) ? "n/a"
                        : s.p < 0.001       ? "< 0.001"
                                            : fmt::format("{:.2g}", s.p);
  return fmt::format("{}/{} (p {})", s.lower, s.higher, p);
}

std::string not_summarised(const IncompleteMetric &im) {
  return fmt::format("{}: not summarised, {} of {} runs have no value",
                     kBenchMetrics[im.index].label, im.missing.size(), im.runs);
}

std::string experiment_table(const ExperimentResult &r, const ExperimentStats &st) {
  const std::size_t n = r.seeds.size();
  std::string out;
  out += fmt::format("{}: {} configuration{} x {} run{} (seed{} {}{})\n\n", r.scenario,
                     r.configs.size(), r.configs.size() == 1 ? "" : "s", n, n == 1 ? "" : "s",
                     n == 1 ? "" : "s", r.seeds.front(),
                     n > 1 ? fmt::format("..{}", r.seeds.back()) : "");
  bool any_exit = false;
  for (const auto &c : r.configs)
    for (const auto &run : c.runs) any_exit |= run.completion_ns != 0;
  out += any_exit ? "Test Results (seconds)\n\n"
                  : "Test Results (no task exits: the runs end at the scenario's duration, so "
                    "completion time is 0; see the tables below)\n\n";

  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head{"Configuration"};
  if (n <= 5) {
    for (std::size_t i = 0; i < n; i++) head.push_back(fmt::format("Run {}", i + 1));
    head.insert(head.end(), {"Average", "Overhead", "Force idle"});
  } else {
    head.insert(head.end(), {"Mean ± CI95", "Median", "Overhead ± CI95", "Force idle"});
  }
  rows.push_back(head);
  for (std::size_t c = 0; c < st.configs.size(); c++) {
    const ConfigStats &cs = st.configs[c];
    std::vector<std::string> row{cs.name};
    if (n <= 5) {
      for (double v : cs.completion_s) row.push_back(fixed3(v));
      row.push_back(fixed3(cs.mean));
      row.push_back(fixed3(cs.overhead));
    } else {
      row.push_back(fixed3(cs.mean) + " ± " + fixed3(cs.ci95));
      row.push_back(fixed3(cs.median));
      row.push_back(c == 0 ? fixed3(cs.overhead)
                           : fixed3(cs.overhead) + " ± " + fixed3(cs.overhead_ci95));
    }
    row.push_back(fixed3(cs.mean_forceidle_s));
    rows.push_back(row);
  }
  std::vector<std::size_t> min_width(head.size(), 9);
  min_width[0] = 23;
  out += render(rows, min_width);
  out += fmt::format(
      "\nOverhead: mean completion time minus {}'s{}.\nForce idle: forced-idle time summed over "
      "CPUs, mean of the runs.\n",
      st.configs.front().name, n > 5 ? ", CI95 paired by seed" : "");

  if (!st.comparisons.empty()) out += "\n";
  for (const auto &cmp : st.comparisons) {
    const std::string over =
        cmp.spec.reference == st.configs.front().name ? "" : " (over " + cmp.spec.reference + ")";
    out += fmt::format("{} cuts the overhead of {}{} by ", cmp.spec.patched, cmp.spec.base, over);
    const stats::Cut &k = cmp.cut;
    if (!std::isfinite(k.pct)) {
      out += "n/a (base has no overhead)\n";
      continue;
    }
    out += fmt::format("{} % (95 % CI {}–{} %", pct1(k.pct), pct1(k.ci_low), pct1(k.ci_high));
    if (k.dropped)
      out += fmt::format("; {} of {} resamples had no base overhead and were dropped", k.dropped,
                         k.resamples);
    out += ")\n";
  }
  if (!st.configs.empty() && !st.configs.front().vm_forceidle_s.empty()) {
    // Forced idle charged to each VM's tasks: who keeps siblings idle.
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> head = {"Forced idle per VM (s)"};
    for (const auto &v : st.configs.front().vm_forceidle_s) head.push_back(v.first);
    rows.push_back(head);
    for (const auto &cs : st.configs) {
      std::vector<std::string> row = {cs.name};
      for (const auto &v : cs.vm_forceidle_s) row.push_back(fmt::format("{:.2f}", v.second));
      rows.push_back(row);
    }
    out += "\n";
    out += render(rows, std::vector<std::size_t>(head.size(), 0));
  }
  for (const auto &ms : st.metrics) {
    std::vector<std::vector<std::string>> rows;
    rows.push_back({kBenchMetrics[ms.index].label, "Mean ± CI95",
                    "Change vs " + st.configs.front().name + " ± CI95 (paired)",
                    "Lower/higher runs (sign test p)"});
    for (std::size_t c = 0; c < ms.configs.size(); c++) {
      const auto &pc = ms.configs[c];
      const bool sec = ms.index == 0;
      auto val = [&](double v) {
        return sec ? fmt::format("{:.4f}", v) : fmt::format("{:.1f}", v);
      };
      const std::string ci = std::isfinite(pc.ci95) ? val(pc.ci95) : "n/a";
      std::string change = "", sign = "";
      if (c > 0) {
        change = fmt::format("{:+.1f} % ± {}", pc.change_pct,
                             std::isfinite(pc.change_ci95_pct)
                                 ? fmt::format("{:.1f} %", pc.change_ci95_pct)
                                 : std::string("n/a"));
        sign = format_sign_test(pc.sign);
      }
      rows.push_back({st.configs[c].name, val(pc.mean) + " ± " + ci, change, sign});
    }
    out += "\n";
    out += render(rows, {0, 0, 0, 0});
  }
  for (std::size_t t = 0; t < kNrStatTables; t++)
    out += run_stats_table(static_cast<StatTable>(t), st);
  if (st.placement) out += placement_table(st);
  if (!st.stuck.empty()) {
    out += fmt::format(
        "\nwarning: {} run{} ended with tasks asleep for good (a deadlock in the workload, or a "
        "lost wakeup; `schedlab run` names them):",
        st.stuck.size(), st.stuck.size() == 1 ? "" : "s");
    for (std::size_t i = 0; i < st.stuck.size(); i++)
      out += fmt::format("{} {} seed {} ({})", i ? "," : "", st.stuck[i].config, st.stuck[i].seed,
                         st.stuck[i].tasks);
    out += "\n";
  }
  for (const auto &im : st.incomplete) {
    out += fmt::format("\n{}:", not_summarised(im));
    for (std::size_t i = 0; i < im.missing.size(); i++)
      out += fmt::format("{} {} seed {}", i ? "," : "", im.missing[i].first, im.missing[i].second);
    out += "\n";
  }
  const std::size_t total = r.configs.size() * n;
  out += fmt::format("\n{} run{} in {:.2f} s on {} thread{}\n", total, total == 1 ? "" : "s",
                     r.wall_s, r.threads, r.threads == 1 ? "" : "s");
  return out;
}

ordered_json experiment_to_json(const ExperimentResult &r, const ExperimentStats &st) {
  ordered_json j;
  j["schedlab_version"] = kVersion;
  j["scenario"] = r.scenario;
  j["scenario_file"] = r.scenario_file;
  j["runs"] = r.seeds.size();
  j["seeds"] = r.seeds;
  // Stopped early (Ctrl-C, --max-wall): "runs" and "seeds" are what finished in every
  // configuration, "planned_runs" what was asked for.
  j["partial"] = r.partial;
  if (r.partial) {
    j["planned_runs"] = r.planned_runs;
    j["runs_finished"] = r.seeds.size() * r.configs.size();
  }
  ordered_json configs = ordered_json::array();
  for (std::size_t c = 0; c < r.configs.size(); c++) {
    const ExperimentConfig &ec = r.configs[c];
    const ConfigStats &cs = st.configs[c];
    ordered_json jc;
    jc["name"] = ec.name;
    ordered_json runs = ordered_json::array();
    for (const auto &run : ec.runs) {
      ordered_json jr;
      jr["seed"] = run.seed;
      jr["completion_time_s"] = to_s(run.completion_ns);
      jr["forceidle_ns"] = run.forceidle_ns;
      jr["events"] = run.events;
      ordered_json sis;
      sis["calls"] = run.sis.calls;
      sis["cookie_mismatch"] = run.sis.cookie_mismatch;
      sis["cookie_mismatch_by_step"] = sis_steps_json(run.sis.cookie_mismatch_by_step);
      jr["select_idle_sibling"] = std::move(sis);
      for (std::size_t m = 0; m < NR_RUN_STATS; m++) jr[kStatistics[m].name] = num(run.stat[m]);
      if (run.stuck_tasks) jr["stuck_tasks"] = run.stuck_tasks;
      if (run.check) add_check_json(*run.check, jr);  // --check
      runs.push_back(std::move(jr));
    }
    jc["runs"] = std::move(runs);
    jc["mean_completion_time_s"] = num(cs.mean);
    jc["ci95_completion_time_s"] = num(cs.ci95);
    jc["median_completion_time_s"] = num(cs.median);
    jc["stddev_completion_time_s"] = num(cs.stddev);
    jc["overhead_s"] = num(cs.overhead);
    jc["overhead_ci95_s"] = num(cs.overhead_ci95);
    jc["mean_forceidle_s"] = num(cs.mean_forceidle_s);
    if (!cs.vm_forceidle_s.empty()) {
      ordered_json vms = ordered_json::object();
      for (const auto &v : cs.vm_forceidle_s) vms[v.first] = num(v.second);
      jc["mean_vm_forceidle_s"] = std::move(vms);
    }
    auto add_metric = [&](const std::string &key, const MetricStats &ms) {
      const auto &pc = ms.configs[c];
      jc["mean_" + key] = num(pc.mean);
      jc["ci95_" + key] = num(pc.ci95);
      jc["change_pct_" + key] = num(pc.change_pct);
      jc["change_ci95_pct_" + key] = num(pc.change_ci95_pct);
      if (c > 0) {
        jc["lower_runs_" + key] = pc.sign.lower;
        jc["higher_runs_" + key] = pc.sign.higher;
        jc["sign_test_p_" + key] = num(pc.sign.p);
      }
    };
    for (const auto &ms : st.metrics) add_metric(kBenchMetrics[ms.index].key, ms);
    for (const auto &table : st.tables)
      for (const auto &ms : table) add_metric(kStatistics[ms.index].name, ms);
    if (st.placement) {
      const auto &pc = st.placement->configs[c];
      jc["mean_sis_calls"] = num(pc.mean_calls);
      jc["mean_wakeups_other_cookie_pct"] = num(pc.pct);
      jc["ci95_wakeups_other_cookie_pct"] = num(pc.ci95);
      jc["mean_wakeups_other_cookie_pct_by_step"] = sis_steps_json(pc.by_step_pct);
    }
    configs.push_back(std::move(jc));
  }
  j["configs"] = std::move(configs);
  ordered_json cmps = ordered_json::array();
  for (std::size_t i = 0; i < st.comparisons.size(); i++) {
    const ComparisonStats &cmp = st.comparisons[i];
    ordered_json jc;
    jc["base"] = cmp.spec.base;
    jc["patched"] = cmp.spec.patched;
    jc["reference"] = cmp.spec.reference;
    jc["cut_pct"] = num(cmp.cut.pct);
    jc["cut_ci95_low_pct"] = num(cmp.cut.ci_low);
    jc["cut_ci95_high_pct"] = num(cmp.cut.ci_high);
    if (st.placement) {
      const PlacementStats::Change &ch = st.placement->changes[i];
      jc["wakeups_other_cookie_change_points"] = num(ch.points.mean_diff);
      jc["wakeups_other_cookie_change_ci95_points"] = num(ch.points.ci95);
      jc["wakeups_other_cookie_lower_runs"] = ch.sign.lower;
      jc["wakeups_other_cookie_higher_runs"] = ch.sign.higher;
      jc["wakeups_other_cookie_sign_test_p"] = num(ch.sign.p);
    }
    cmps.push_back(std::move(jc));
  }
  j["comparisons"] = std::move(cmps);
  if (!st.incomplete.empty()) {
    ordered_json inc = ordered_json::array();
    for (const auto &im : st.incomplete) {
      ordered_json ji;
      ji["key"] = kBenchMetrics[im.index].key;
      ordered_json missing = ordered_json::array();
      for (const auto &[config, seed] : im.missing)
        missing.push_back({{"config", config}, {"seed", seed}});
      ji["missing"] = std::move(missing);
      inc.push_back(std::move(ji));
    }
    j["incomplete_metrics"] = std::move(inc);
  }
  j["host"] = host_json(r.wall_s, r.jobs);
  return j;
}

nlohmann::ordered_json host_json(double wall_s, unsigned jobs) {
  ordered_json host;
  host["wall_s"] = wall_s;
  host["jobs"] = jobs;
  host["peak_rss_kb"] = peak_rss_kb();
  return host;
}

std::vector<std::size_t> present_bench_metrics(const std::vector<const ExperimentResult *> &rs) {
  std::vector<std::size_t> out;
  for (std::size_t m = 0; m < kNrBenchMetrics; m++) {
    bool any = false;
    for (const ExperimentResult *r : rs)
      for (const auto &c : r->configs)
        for (const auto &run : c.runs) any |= m < run.bench.size() && !std::isnan(run.bench[m]);
    if (any) out.push_back(m);
  }
  return out;
}

std::string experiment_csv_header(const std::vector<std::string> &lead,
                                  const std::vector<std::size_t> &metrics) {
  std::string out;
  for (const auto &l : lead) out += csv_quote(l) + ",";
  out += "config,seed,completion_time_s,forceidle_ns,events,sis_calls,sis_cookie_mismatch";
  for (const auto &m : kStatistics) out += std::string(",") + m.name;
  for (std::size_t m : metrics) out += std::string(",") + kBenchMetrics[m].key;
  return out + "\n";
}

std::string experiment_csv_rows(const ExperimentResult &r, const std::vector<std::string> &lead,
                                const std::vector<std::size_t> &metrics) {
  std::string prefix;
  for (const auto &l : lead) prefix += csv_quote(l) + ",";
  std::string out;
  for (const auto &c : r.configs)
    for (const auto &run : c.runs) {
      out += fmt::format("{}{},{},{},{},{},{},{}", prefix, csv_quote(c.name), run.seed,
                         seconds9(run.completion_ns), run.forceidle_ns, run.events, run.sis.calls,
                         run.sis.cookie_mismatch);
      for (double v : run.stat) out += std::isnan(v) ? std::string(",") : fmt::format(",{}", v);
      for (std::size_t m : metrics) {
        const double v = m < run.bench.size() ? run.bench[m] : std::nan("");
        out += std::isnan(v) ? std::string(",") : fmt::format(",{}", v);
      }
      out += "\n";
    }
  return out;
}

std::string experiment_csv(const ExperimentResult &r) {
  const std::vector<std::size_t> metrics = present_bench_metrics({&r});
  return experiment_csv_header({}, metrics) + experiment_csv_rows(r, {}, metrics);
}

}  // namespace schedlab::experiment
