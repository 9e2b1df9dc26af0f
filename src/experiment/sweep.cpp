// SPDX-License-Identifier: GPL-2.0-only
#include "experiment/sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace schedlab::experiment {

SweepParam parse_sweep_param(const std::string &text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw std::invalid_argument(fmt::format(
        "--param {}: expected PATH=V1,V2,... (e.g. machine.cores_per_llc=2,4,8)", text));
  SweepParam p;
  p.path = text.substr(0, eq);
  std::string cur;
  int depth = 0;
  bool quoted = false;
  for (std::size_t i = eq + 1; i <= text.size(); i++) {
    const char c = i < text.size() ? text[i] : ',';
    if (c == '"') quoted = !quoted;
    if (!quoted && c == '[') depth++;
    if (!quoted && c == ']') depth--;
    if (c == ',' && depth == 0 && !quoted) {
      if (cur.empty()) throw std::invalid_argument(fmt::format("--param {}: an empty value", text));
      p.values.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (quoted || depth != 0)
    throw std::invalid_argument(fmt::format("--param {}: unbalanced quotes or brackets", text));
  for (std::size_t i = 0; i < p.values.size(); i++)
    for (std::size_t j = 0; j < i; j++)
      if (p.values[i] == p.values[j])
        throw std::invalid_argument(
            fmt::format("--param {}: value {} is listed twice", text, p.values[i]));
  return p;
}

SweepResult run_sweep(const std::string &file, const std::vector<SweepParam> &params,
                      const ExperimentOptions &o, const GatherFn &gather) {
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t npoints = 1;
  for (std::size_t i = 0; i < params.size(); i++) {
    for (std::size_t j = 0; j < i; j++)
      if (params[i].path == params[j].path)
        throw std::invalid_argument(fmt::format("--param {} is given twice", params[i].path));
    for (const auto &fixed : o.kernel_params)
      if (params[i].path == fixed.path)
        throw std::invalid_argument(
            fmt::format("--param {} and {} set the same switch", params[i].path, fixed.given));
    npoints *= params[i].values.size();
    if (npoints > kMaxSweepPoints)
      throw std::invalid_argument(
          fmt::format("the grid has more than {} points; sweep fewer values", kMaxSweepPoints));
  }
  // Every point's scenario, loaded and its configurations resolved before any run.
  std::vector<std::vector<std::string>> grid(npoints);
  std::vector<scenario::Scenario> scenarios;
  scenarios.reserve(npoints);
  std::vector<std::vector<scenario::ConfigChoice>> choices;
  std::vector<ExperimentOptions> options(npoints, o);
  for (std::size_t k = 0; k < npoints; k++) {
    std::vector<scenario::KeyOverride> ov;
    std::size_t rest = k;
    for (std::size_t i = params.size(); i-- > 0;) {  // the last parameter varies fastest
      const auto &vals = params[i].values;
      grid[k].insert(grid[k].begin(), vals[rest % vals.size()]);
      rest /= vals.size();
    }
    // A kernel switch is set in every configuration, as --feature and --tunable set it; any
    // other key is set in the file.
    for (std::size_t i = 0; i < params.size(); i++) {
      scenario::KeyOverride kv{params[i].path, grid[k][i],
                               fmt::format("--param {}={}", params[i].path, grid[k][i])};
      (scenario::is_kernel_param(kv.path) ? options[k].kernel_params : ov).push_back(kv);
    }
    scenarios.push_back(scenario::load_scenario_with(file, ov));
    choices.push_back(experiment_configs(scenarios.back(), options[k]));
  }
  // Where the points differ in what acts on newidle balancing or task moves (a sweep over
  // migration_cost_ns, a feature or the newidle cost), every point shows those tables, even one
  // whose own configurations are alike.
  ComparedSetup setup;
  for (const auto &point : choices)
    for (const auto &c : point) setup.kernels.push_back(&c.kernel);
  for (const auto &sc : scenarios) setup.costs.push_back(&sc.costs);
  RunStatTables tables{};
  for (std::size_t t = 0; t < kNrStatTables; t++)
    tables[t] = table_acted_on(static_cast<StatTable>(t), setup);
  SweepResult r;
  r.scenario_file = file;
  r.params = params;
  r.jobs = o.jobs;
  const std::size_t per_point = choices.front().size() * o.runs;
  std::size_t before = 0;
  for (std::size_t k = 0; k < npoints; k++) {
    ExperimentOptions po = options[k];
    if (o.progress) {
      const std::size_t total = per_point * npoints;  // an estimate if points differ
      po.progress = [&, before, total](std::size_t done, std::size_t) {
        o.progress(std::min(before + done, total), total);
      };
    }
    SweepPoint p;
    p.values = grid[k];
    if (!gather) {
      p.result = run_experiment(scenarios[k], po);
    } else {
      // Every process must reach the gather, even one whose runs failed.
      std::exception_ptr error;
      try {
        p.result = run_experiment(scenarios[k], po);
      } catch (...) {
        error = std::current_exception();
      }
      if (!gather(p.result, error != nullptr)) {
        if (error) std::rethrow_exception(error);
        throw std::invalid_argument("a run failed in another MPI process");
      }
    }
    const std::size_t ran = p.result.configs.size() * p.result.seeds.size();
    // Stopped early: this point keeps its finished seeds (if any), no later point runs. Only
    // then: under MPI the other processes' runs are missing from this one's result.
    if (o.stop && o.stop->load()) {
      keep_finished_seeds(p.result);
      r.partial = p.result.partial || k + 1 < npoints;
      if (p.result.seeds.empty()) break;
    }
    p.stats = experiment_stats(p.result, tables);
    before += ran;
    r.points.push_back(std::move(p));
    if (r.partial) break;
  }
  r.planned_points = npoints;
  for (const auto &point : choices) r.planned_runs += point.size() * o.runs;
  r.scenario_source = scenarios.front().source;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::string sweep_csv(const SweepResult &r) {
  std::vector<const ExperimentResult *> rs;
  for (const auto &p : r.points) rs.push_back(&p.result);
  const std::vector<std::size_t> metrics = present_bench_metrics(rs);
  std::vector<std::string> names;
  for (const auto &p : r.params) names.push_back(p.path);
  std::string out = experiment_csv_header(names, metrics);
  for (const auto &p : r.points) out += experiment_csv_rows(p.result, p.values, metrics);
  return out;
}

nlohmann::ordered_json sweep_to_json(const SweepResult &r) {
  using nlohmann::ordered_json;
  ordered_json j;
  ordered_json params = ordered_json::array();
  for (const auto &p : r.params) {
    ordered_json jp;
    jp["path"] = p.path;
    jp["values"] = p.values;
    params.push_back(std::move(jp));
  }
  j["scenario_file"] = r.scenario_file;
  j["params"] = std::move(params);
  // Stopped early: "points" holds the points that ran (the last one perhaps partial itself).
  j["partial"] = r.partial;
  if (r.partial) {
    std::size_t finished = 0;
    for (const auto &p : r.points) finished += p.result.seeds.size() * p.result.configs.size();
    j["planned_points"] = r.planned_points;
    j["planned_runs"] = r.planned_runs;
    j["runs_finished"] = finished;
  }
  ordered_json points = ordered_json::array();
  for (const auto &p : r.points) {
    ordered_json jp;
    ordered_json values;
    for (std::size_t i = 0; i < r.params.size(); i++) values[r.params[i].path] = p.values[i];
    jp["values"] = std::move(values);
    ordered_json e = experiment_to_json(p.result, p.stats);
    e.erase("host");  // wall time per point is noise; the sweep's host object has the total
    jp["experiment"] = std::move(e);
    points.push_back(std::move(jp));
  }
  j["points"] = std::move(points);
  j["host"] = host_json(r.wall_s, r.jobs);
  return j;
}

// " (+1.2 % ± 0.8 %)": a configuration's change against the point's first, paired by seed;
// nothing for the first, "n/a" where the first's mean is 0.
static std::string change_vs_first(const MetricStats &m, std::size_t ci) {
  if (ci == 0) return "";
  const auto &pc = m.configs[ci];
  if (!std::isfinite(pc.change_pct)) return " (n/a)";
  return std::isfinite(pc.change_ci95_pct)
             ? fmt::format(" ({:+.1f} % ± {:.1f} %)", pc.change_pct, pc.change_ci95_pct)
             : fmt::format(" ({:+.1f} %)", pc.change_pct);
}

std::string sweep_table(const SweepResult &r) {
  std::vector<std::size_t> width;
  std::string head;
  for (const auto &p : r.params) {
    std::size_t w = p.path.size();
    for (const auto &v : p.values) w = std::max(w, v.size());
    width.push_back(w);
    head += fmt::format("{:<{}} ", p.path, w);
  }
  std::string out = fmt::format("{}{:<28} {:>20} {:>16} {:>14}\n", head, "configuration",
                                "completion (s)", "overhead (s)", "forced idle (s)");
  std::size_t runs = 0, stuck_runs = 0;
  for (const auto &pt : r.points) {
    std::string lead;
    for (std::size_t i = 0; i < pt.values.size(); i++)
      lead += fmt::format("{:<{}} ", pt.values[i], width[i]);
    for (const auto &c : pt.stats.configs) {
      out += fmt::format("{}{:<28} {:>11.3f} ± {:<6.3f} {:>+9.3f} ± {:<4.3f} {:>14.3f}\n", lead,
                         c.name, c.mean, c.ci95, c.overhead, c.overhead_ci95, c.mean_forceidle_s);
      runs += c.completion_s.size();
    }
    const std::string indent(lead.size(), ' ');
    // A benchmark metric's change comes with its sign test, as in the experiment table.
    for (const auto &m : pt.stats.metrics)
      for (std::size_t ci = 0; ci < m.configs.size() && ci < pt.stats.configs.size(); ci++)
        out += fmt::format(
            "{}  {:<26} {}: {:.4g} ± {:.2g}{}{}\n", indent, pt.stats.configs[ci].name,
            kBenchMetrics[m.index].label, m.configs[ci].mean, m.configs[ci].ci95,
            change_vs_first(m, ci),
            ci ? fmt::format(", lower/higher runs {}", format_sign_test(m.configs[ci].sign))
               : std::string());
    // Newidle balancing and task moves, where the point's configurations differ in what acts
    // on them: one line per configuration.
    for (std::size_t t = 0; t < kNrStatTables; t++) {
      const std::vector<MetricStats> &ms = pt.stats.tables[t];
      for (std::size_t ci = 0; !ms.empty() && ci < pt.stats.configs.size(); ci++) {
        std::string line = fmt::format("{}  {:<26} {}:", indent, pt.stats.configs[ci].name,
                                       kStatTables[t].short_name);
        for (std::size_t k = 0; k < ms.size(); k++) {
          const Statistic &m = kStatistics[ms[k].index];
          line += fmt::format(
              "{} {} {} ± {}{}", k ? "," : "", m.label, run_stat_value(m, ms[k].configs[ci].mean),
              run_stat_value(m, ms[k].configs[ci].ci95), change_vs_first(ms[k], ci));
        }
        out += line + "\n";
      }
    }
    if (pt.stats.placement)
      for (std::size_t ci = 0; ci < pt.stats.placement->configs.size(); ci++)
        out += fmt::format("{}  {:<26} wakeups onto another cookie's core (%): {:.1f} ± {:.1f}\n",
                           indent, pt.stats.configs[ci].name, pt.stats.placement->configs[ci].pct,
                           pt.stats.placement->configs[ci].ci95);
    for (const auto &im : pt.stats.incomplete)
      out += fmt::format("{}  {}\n", indent, not_summarised(im));
    stuck_runs += pt.stats.stuck.size();
  }
  if (stuck_runs)
    out += fmt::format(
        "warning: {} run{} ended with tasks asleep for good (a deadlock in the workload, or a lost "
        "wakeup): the JSON's runs[].stuck_tasks\n",
        stuck_runs, stuck_runs == 1 ? "" : "s");
  out += fmt::format("{} points, {} runs in {:.2f} s on {} jobs\n", r.points.size(), runs, r.wall_s,
                     r.jobs);
  return out;
}

}  // namespace schedlab::experiment
