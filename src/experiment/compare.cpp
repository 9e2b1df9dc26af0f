// SPDX-License-Identifier: GPL-2.0-only
#include "experiment/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string_view>

#include "experiment/run_stats.h"

namespace schedlab::experiment {

using nlohmann::ordered_json;

namespace {

std::string_view kind_of(const ordered_json &j) {
  if (!j.is_object()) return {};
  if (j.contains("configs") && j["configs"].is_array() && j.contains("runs")) return "experiment";
  if (j.contains("tasks") && j["tasks"].is_array() && j.contains("completion_time_ns"))
    return "run";
  return {};
}

// The number at a dotted path ("wakeup_latency_ns.p99"), if there is one.
std::optional<double> number_at(const ordered_json &j, std::string_view path) {
  const ordered_json *cur = &j;
  while (!path.empty()) {
    const size_t dot = path.find('.');
    const std::string key(path.substr(0, dot));
    if (!cur->is_object() || !cur->contains(key)) return std::nullopt;
    cur = &(*cur)[key];
    path = dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1);
  }
  if (!cur->is_number()) return std::nullopt;
  return cur->get<double>();
}

struct Builder {
  Comparison c;
  void add(const std::string &name, const ordered_json &a, const ordered_json &b,
           std::string_view path, bool only_if_both = false) {
    auto x = number_at(a, path), y = number_at(b, path);
    if (!x && !y) return;
    if (only_if_both && !(x && y)) return;
    c.rows.push_back({name, x, y});
  }
};

// Elements of two arrays of objects matched by a key; an element whose key repeats gets "#k".
std::map<std::string, const ordered_json *> by_key(
    const ordered_json &arr, const std::function<std::string(const ordered_json &)> &key) {
  std::map<std::string, const ordered_json *> out;
  std::map<std::string, int> seen;
  for (const ordered_json &e : arr) {
    std::string k = key(e);
    if (const int n = seen[k]++; n > 0) k += fmt::format("#{}", n);
    out.emplace(k, &e);
  }
  return out;
}

// Keeps the first list's order (a file's own order: tasks by pid, CPUs by number).
std::vector<std::string> ordered_keys(const ordered_json &arr,
                                      const std::function<std::string(const ordered_json &)> &key) {
  std::vector<std::string> out;
  std::map<std::string, int> seen;
  for (const ordered_json &e : arr) {
    std::string k = key(e);
    if (const int n = seen[k]++; n > 0) k += fmt::format("#{}", n);
    out.push_back(k);
  }
  return out;
}

std::string short_names(const std::vector<std::string> &v) {
  std::string out;
  for (size_t i = 0; i < v.size() && i < 6; ++i) out += (i ? ", " : "") + v[i];
  if (v.size() > 6) out += fmt::format(", ... ({} in all)", v.size());
  return out;
}

void match(Builder &bl, const ordered_json &a, const ordered_json &b, const char *what,
           const std::function<std::string(const ordered_json &)> &key,
           const std::vector<std::pair<std::string, std::string>> &metrics) {
  const auto ka = by_key(a, key), kb = by_key(b, key);
  std::vector<std::string> only_a, only_b;
  for (const std::string &k : ordered_keys(a, key)) {
    auto it = kb.find(k);
    if (it == kb.end()) {
      only_a.push_back(k);
      continue;
    }
    for (const auto &[label, path] : metrics)
      bl.add(fmt::format("{} {} {}", what, k, label), *ka.at(k), *it->second, path, true);
  }
  for (const std::string &k : ordered_keys(b, key))
    if (!ka.count(k)) only_b.push_back(k);
  if (!only_a.empty() || !only_b.empty())
    bl.c.notes.push_back(
        fmt::format("the {} sets differ (compared: the {} in both): only in A: {}; only in B: {}",
                    what, what, only_a.empty() ? "none" : short_names(only_a),
                    only_b.empty() ? "none" : short_names(only_b)));
}

std::string str(const ordered_json &j, const char *k) {
  return j.is_object() && j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : "";
}

// A CPU statistic of kernel/stats.h summed over a run JSON's cpus[] (under its section).
std::optional<double> cpu_stat_sum(const ordered_json &run, const Statistic &st) {
  if (!run.contains("cpus") || !run["cpus"].is_array()) return std::nullopt;
  std::optional<double> sum;
  for (const ordered_json &c : run["cpus"]) {
    const ordered_json *at = &c;
    if (st.section == StatSection::schedstat) {
      if (!c.contains("schedstat")) continue;
      at = &c["schedstat"];
    }
    if (at->contains(st.name) && (*at)[st.name].is_number())
      sum = sum.value_or(0) + (*at)[st.name].get<double>();
  }
  return sum;
}

// A statistic's mean over an experiment configuration's runs[] (NaN values left out).
std::optional<double> run_stat_mean(const ordered_json &config, const Statistic &st) {
  if (!config.contains("runs") || !config["runs"].is_array()) return std::nullopt;
  double sum = 0;
  std::size_t n = 0;
  for (const ordered_json &r : config["runs"])
    if (r.contains(st.name) && r[st.name].is_number()) {
      sum += r[st.name].get<double>();
      n++;
    }
  if (!n) return std::nullopt;
  return sum / static_cast<double>(n);
}

void compare_runs(Builder &bl, const ordered_json &a, const ordered_json &b) {
  bl.add("completion time (s)", a, b, "completion_time_s");
  bl.add("forced idle (s)", a, b, "forceidle_s");
  bl.add("busy (%)", a, b, "busy_pct");
  bl.add("wakeups (latency samples)", a, b, "wakeup_latency_ns.count");
  for (const char *p : {"mean", "p50", "p90", "p99", "p999", "max"})
    bl.add(fmt::format("wakeup latency {} (ns)", p), a, b, fmt::format("wakeup_latency_ns.{}", p));
  bl.add("mean avg_idle (ns)", a, b, "mean_avg_idle_ns", true);
  bl.add("select_idle_sibling idle tests per call", a, b, "select_idle_sibling.idle_tests_per_call",
         true);
  bl.add("select_idle_sibling onto another cookie's core", a, b,
         "select_idle_sibling.cookie_mismatch", true);
  // Benchmark models' own metrics.
  bl.add("hackbench time (s)", a, b, "hackbench_time_s");
  bl.add("hackbench messages", a, b, "hackbench_messages");
  for (const char *h : {"wakeup_latency_ns", "request_latency_ns"})
    for (const char *p : {"p50", "p90", "p99", "max"})
      bl.add(fmt::format("schbench {} {}", h, p), a, b, fmt::format("schbench.{}.{}", h, p));
  bl.add("schbench rps", a, b, "schbench.rps");
  bl.add("fork forks", a, b, "fork.forks");
  bl.add("fork children exited", a, b, "fork.children_exited");
  // The CPU statistics (kernel/stats.h), summed over the CPUs, where both runs have them.
  for (const Statistic &st : kStatistics)
    if (st.over == StatOver::CPU)
      if (auto x = cpu_stat_sum(a, st), y = cpu_stat_sum(b, st); x && y)
        bl.c.rows.push_back({fmt::format("{} (all CPUs)", st.name), x, y});

  // Tasks by comm: pids differ between a simulation and a real run.
  match(bl, a["tasks"], b["tasks"], "task", [](const ordered_json &t) { return str(t, "comm"); },
        {{"runtime (ns)", "runtime_ns"},
         {"wait (ns)", "wait_ns"},
         {"sleep (ns)", "sleep_ns"},
         {"switches", "nr_switches"},
         {"voluntary switches", "nr_voluntary_switches"},
         {"involuntary switches", "nr_involuntary_switches"},
         {"migrations", "nr_migrations"},
         {"wakeups", "nr_wakeups"},
         {"forced idle (ns)", "core_forceidle_sum_ns"}});
  if (a.contains("cpus") && b.contains("cpus") && a["cpus"].is_array() && b["cpus"].is_array())
    match(bl, a["cpus"], b["cpus"], "cpu",
          [](const ordered_json &c) {
            return c.contains("cpu") && c["cpu"].is_number_integer()
                       ? std::to_string(c["cpu"].get<long long>())
                       : std::string("?");
          },
          {{"busy (ns)", "busy_ns"},
           {"idle (ns)", "idle_ns"},
           {"forced idle (ns)", "forceidle_ns"},
           {"switches", "nr_switches"}});
}

void compare_experiments(Builder &bl, const ordered_json &a, const ordered_json &b) {
  bl.add("runs", a, b, "runs");
  // Every numeric per-configuration summary both sides have ("mean_...", "overhead_s", ...).
  std::vector<std::pair<std::string, std::string>> metrics;
  std::set<std::string> seen;
  for (const ordered_json *side : {&a, &b})
    for (const ordered_json &c : (*side)["configs"])
      if (c.is_object())
        for (const auto &[k, v] : c.items())
          if (v.is_number() && seen.insert(k).second) metrics.push_back({k, k});
  match(
      bl, a["configs"], b["configs"], "config",
      [](const ordered_json &c) { return str(c, "name"); }, metrics);
  // Every run statistic (kernel/stats.h) both sides report, as its mean over the runs: a
  // twin's schedstat counters beside the model's, whether or not a table summarised them.
  const auto ka = by_key(a["configs"], [](const ordered_json &c) { return str(c, "name"); });
  const auto kb = by_key(b["configs"], [](const ordered_json &c) { return str(c, "name"); });
  for (const auto &[name, ca] : ka)
    if (const auto it = kb.find(name); it != kb.end())
      for (const Statistic &st : kStatistics)
        if (seen.count(std::string("mean_") + st.name) == 0)
          if (auto x = run_stat_mean(*ca, st), y = run_stat_mean(*it->second, st); x && y)
            bl.c.rows.push_back({fmt::format("config {} {} (mean per run)", name, st.name), x, y});
  // Per-run completion and forced idle: significance of B - A per configuration.
  for (const auto &[name, ca] : ka) {
    const auto it = kb.find(name);
    if (it == kb.end()) continue;
    const ordered_json &cb = *it->second;
    auto runs_of = [](const ordered_json &c, const char *key, std::vector<double> &v,
                      std::vector<double> &seeds) {
      if (!c.contains("runs") || !c["runs"].is_array()) return;
      for (const ordered_json &r : c["runs"])
        if (r.contains(key) && r[key].is_number()) {
          v.push_back(r[key].get<double>());
          seeds.push_back(r.contains("seed") && r["seed"].is_number() ? r["seed"].get<double>()
                                                                      : -1);
        }
    };
    for (const char *key : {"completion_time_s", "forceidle_ns"}) {
      std::vector<double> xa, xb, sa, sb;
      runs_of(*ca, key, xa, sa);
      runs_of(cb, key, xb, sb);
      if (xa.size() < 2 || xb.size() < 2) continue;
      CompareTest t;
      t.config = name;
      t.metric = key;
      t.n_a = xa.size();
      t.n_b = xb.size();
      if (sa == sb) {
        t.test = "paired t";
        t.t = stats::paired_t(xb, xa);
      } else {
        t.test = "Welch t";
        t.t = stats::welch_t(xb, xa);
      }
      bl.c.tests.push_back(t);
    }
  }
  if (a.contains("comparisons") && b.contains("comparisons") && a["comparisons"].is_array() &&
      b["comparisons"].is_array())
    match(bl, a["comparisons"], b["comparisons"], "comparison",
          [](const ordered_json &c) {
            return fmt::format("'{}' vs '{}' (ref '{}')", str(c, "patched"), str(c, "base"),
                               str(c, "reference"));
          },
          {{"cut (%)", "cut_pct"},
           {"cut ci95 low (%)", "cut_ci95_low_pct"},
           {"cut ci95 high (%)", "cut_ci95_high_pct"},
           {"wakeups onto another cookie's core (points)", "wakeups_other_cookie_change_points"}});
}

// How the table shows a metric: every time in ms. A label's "(s)", "(ns)" or "(us)", or a word
// ending in _s, _ns or _us (a JSON key), names the unit of the value.
struct Shown {
  std::string label;
  double scale = 1;
};
Shown shown(const std::string &metric) {
  static const std::pair<const char *, double> kUnits[] = {
      {"(ns)", 1e-6}, {"(us)", 1e-3}, {"(s)", 1e3}};
  for (const auto &[u, f] : kUnits) {
    const std::string unit(u);
    if (metric.size() > unit.size() &&
        metric.compare(metric.size() - unit.size(), unit.size(), unit) == 0)
      return {metric.substr(0, metric.size() - unit.size()) + "(ms)", f};
  }
  static const std::pair<const char *, double> kSuffixes[] = {
      {"_ns", 1e-6}, {"_us", 1e-3}, {"_s", 1e3}};
  std::size_t start = 0;
  while (start < metric.size()) {
    std::size_t end = metric.find(' ', start);
    if (end == std::string::npos) end = metric.size();
    const std::string word = metric.substr(start, end - start);
    // Counts, percentages and p-values about a time metric keep their own unit.
    bool about = false;
    for (const char *prefix :
         {"lower_runs_", "higher_runs_", "sign_test_p_", "change_pct_", "change_ci95_pct_"})
      about = about || word.rfind(prefix, 0) == 0;
    for (const auto &[suf, f] : kSuffixes) {
      if (about) break;
      const std::string sfx(suf);
      if (word.size() > sfx.size() &&
          word.compare(word.size() - sfx.size(), sfx.size(), sfx) == 0) {
        std::string label = metric.substr(0, start) + word.substr(0, word.size() - sfx.size()) +
                            metric.substr(end) + " (ms)";
        return {label, f};
      }
    }
    start = end + 1;
  }
  return {metric, 1};
}

std::optional<double> scaled(std::optional<double> v, double f) {
  if (!v) return v;
  return *v * f;
}

std::string fmt_num(std::optional<double> v) {
  if (!v) return "-";
  if (std::isfinite(*v) && *v == std::trunc(*v) && std::fabs(*v) < 1e15)
    return fmt::format("{}", static_cast<long long>(*v));
  return fmt::format("{:.6g}", *v);
}

}  // namespace

std::optional<double> relative_pct(const CompareRow &r) {
  if (!r.a || !r.b) return std::nullopt;
  if (*r.a == 0) return *r.b == 0 ? std::optional<double>(0.0) : std::nullopt;
  return 100.0 * (*r.b - *r.a) / *r.a;
}

Comparison compare_results(const ordered_json &a, const ordered_json &b) {
  const std::string_view ka = kind_of(a), kb = kind_of(b);
  if (ka.empty()) throw std::invalid_argument("A is not a schedlab run or experiment result");
  if (kb.empty()) throw std::invalid_argument("B is not a schedlab run or experiment result");
  if (ka != kb)
    throw std::invalid_argument(fmt::format(
        "cannot compare {} result (A) with {} result (B): the kinds differ",
        ka == "run" ? "a run" : "an experiment", kb == "run" ? "a run" : "an experiment"));
  Builder bl;
  bl.c.kind = std::string(ka);
  auto describe = [](const ordered_json &j) {
    const bool measured =
        j.contains("measured") && j["measured"].is_boolean() && j["measured"].get<bool>();
    return fmt::format(
        "{} '{}'{}", measured ? "measured" : "simulated", str(j, "scenario"),
        str(j, "config").empty() ? "" : fmt::format(" config '{}'", str(j, "config")));
  };
  bl.c.notes.push_back(fmt::format("A: {}; B: {}", describe(a), describe(b)));
  // The scenario texts the results embed: the same name may hide an edited file.
  auto sha = [](const ordered_json &j) {
    return j.contains("scenario_source") ? str(j["scenario_source"], "sha256") : std::string();
  };
  if (!sha(a).empty() && !sha(b).empty() && sha(a) != sha(b))
    bl.c.notes.push_back(fmt::format("the scenario texts differ (sha256 {}... in A, {}... in B)",
                                     sha(a).substr(0, 12), sha(b).substr(0, 12)));
  if (ka == "run") {
    const auto ca = number_at(a, "machine.cpus"), cb = number_at(b, "machine.cpus");
    if (ca && cb && *ca != *cb)
      bl.c.notes.push_back(
          fmt::format("the machines differ: {} CPUs (A) vs {} CPUs (B)", fmt_num(ca), fmt_num(cb)));
    compare_runs(bl, a, b);
  } else {
    compare_experiments(bl, a, b);
  }
  return bl.c;
}

std::string comparison_table(const Comparison &c, const std::string &a_name,
                             const std::string &b_name) {
  std::string out =
      fmt::format("Comparing {} results\n  A = {}\n  B = {}\n", c.kind, a_name, b_name);
  for (const std::string &n : c.notes) out += "  note: " + n + "\n";
  size_t w = 6;
  for (const CompareRow &r : c.rows) w = std::max(w, shown(r.metric).label.size());
  out += fmt::format("\n{:<{}}  {:>16}  {:>16}  {:>16}  {:>10}\n", "metric", w, "A", "B", "B-A",
                     "(B-A)/A");
  size_t differ = 0, missing = 0;
  const CompareRow *worst = nullptr;
  double worst_rel = 0;
  for (const CompareRow &r : c.rows) {
    std::optional<double> diff;
    if (r.a && r.b) diff = *r.b - *r.a;
    const auto rel = relative_pct(r);
    if (!r.a || !r.b)
      ++missing;
    else if (*diff != 0)
      ++differ;
    if (rel && std::fabs(*rel) > worst_rel) {
      worst_rel = std::fabs(*rel);
      worst = &r;
    }
    const std::string rel_s = rel ? fmt::format("{:+.2f}%", *rel) : (diff ? "n/a" : "-");
    const Shown sh = shown(r.metric);
    out += fmt::format("{:<{}}  {:>16}  {:>16}  {:>16}  {:>10}\n", sh.label, w,
                       fmt_num(scaled(r.a, sh.scale)), fmt_num(scaled(r.b, sh.scale)),
                       diff ? fmt_num(scaled(diff, sh.scale)) : "-", rel_s);
  }
  out += fmt::format("\n{} metrics compared, {} differ", c.rows.size() - missing, differ);
  if (missing) out += fmt::format(", {} present on one side only", missing);
  if (worst)
    out += fmt::format("; largest relative difference {:+.2f}% ({})", *relative_pct(*worst),
                       shown(worst->metric).label);
  out += "\n";
  if (!c.tests.empty()) {
    out +=
        "\nSignificance of B - A per configuration (two-sided t tests: paired by seed where "
        "both sides ran the same seeds, else Welch's):\n";
    for (const CompareTest &t : c.tests) {
      const Shown sh = shown(t.metric);
      out += fmt::format("  config {} {}: B - A = {} ({}, n = {}/{}), p = {}{}\n", t.config,
                         sh.label, fmt_num(t.t.diff * sh.scale), t.test, t.n_a, t.n_b,
                         std::isnan(t.t.p) ? "n/a" : fmt::format("{:.3g}", t.t.p),
                         !std::isnan(t.t.p) && t.t.p < 0.05 ? " (significant at 5 %)" : "");
    }
  } else if (c.kind == "run") {
    out += "(one run a side: no significance test; compare experiments for one)\n";
  }
  return out;
}

ordered_json comparison_to_json(const Comparison &c, const std::string &a_name,
                                const std::string &b_name) {
  ordered_json j;
  j["kind"] = c.kind;
  j["a"] = a_name;
  j["b"] = b_name;
  j["notes"] = c.notes;
  ordered_json rows = ordered_json::array();
  size_t differ = 0;
  for (const CompareRow &r : c.rows) {
    ordered_json row;
    row["metric"] = r.metric;
    row["a"] = r.a ? ordered_json(*r.a) : ordered_json(nullptr);
    row["b"] = r.b ? ordered_json(*r.b) : ordered_json(nullptr);
    row["diff"] = r.a && r.b ? ordered_json(*r.b - *r.a) : ordered_json(nullptr);
    const auto rel = relative_pct(r);
    row["rel_pct"] = rel ? ordered_json(*rel) : ordered_json(nullptr);
    if (r.a && r.b && *r.a != *r.b) ++differ;
    rows.push_back(std::move(row));
  }
  j["differ"] = differ;
  j["metrics"] = std::move(rows);
  ordered_json tests = ordered_json::array();
  auto num = [](double v) { return std::isnan(v) ? ordered_json(nullptr) : ordered_json(v); };
  for (const CompareTest &t : c.tests) {
    ordered_json jt;
    jt["config"] = t.config;
    jt["metric"] = t.metric;
    jt["test"] = t.test;
    jt["n_a"] = t.n_a;
    jt["n_b"] = t.n_b;
    jt["diff"] = num(t.t.diff);
    jt["t"] = num(t.t.t);
    jt["df"] = num(t.t.df);
    jt["p"] = num(t.t.p);
    tests.push_back(std::move(jt));
  }
  j["tests"] = std::move(tests);
  return j;
}

}  // namespace schedlab::experiment
