// SPDX-License-Identifier: GPL-2.0-only
#include "experiment/run_stats.h"

#include <cmath>
#include <sstream>

#include "kernel/features.h"
#include "kernel/tunables.h"

namespace schedlab::experiment {

namespace {

// The machine costs by the names acts_on uses ("costs.NAME", as [machine.costs] spells them
// plus their unit).
struct CostName {
  const char *name;
  double (*get)(const MachineCosts &);
};
constexpr CostName kCostNames[] = {
    {"costs.context_switch_ns", [](const MachineCosts &c) { return double(c.context_switch_ns); }},
    {"costs.wakeup_ipi_ns", [](const MachineCosts &c) { return double(c.wakeup_ipi_ns); }},
    {"costs.migration_penalty_ns",
     [](const MachineCosts &c) { return double(c.migration_penalty_ns); }},
    {"costs.cross_llc_migration_penalty_ns",
     [](const MachineCosts &c) { return double(c.cross_llc_migration_penalty_ns); }},
    {"costs.smt_corun_speed", [](const MachineCosts &c) { return double(c.smt_corun_speed); }},
    {"costs.newidle_balance_base_ns",
     [](const MachineCosts &c) { return double(c.newidle_balance_base_ns); }},
    {"costs.newidle_balance_per_cpu_ns",
     [](const MachineCosts &c) { return double(c.newidle_balance_per_cpu_ns); }},
    // The idle states as one fingerprint (count, then each state's latency and residency): two
    // machines whose states differ almost surely differ in it, and it only decides which
    // tables a report shows.
    {"costs.idle_states",
     [](const MachineCosts &c) {
       double h = c.nr_idle_states;
       for (int i = 0; i < c.nr_idle_states; i++)
         h = h * 1e3 + double(c.idle_exit_latency_ns[i]) * 7 +
             double(c.idle_target_residency_ns[i]);
       return h;
     }},
};

std::vector<std::string> words(const char *s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Whether the setups differ in the feature, tunable or cost `name` (false if unknown).
bool differs(const std::string &name, const ComparedSetup &s) {
  if (const auto f = kernel::find_feature(name)) {
    for (const kernel::KernelConfig *k : s.kernels)
      if (k->features.on[*f] != s.kernels.front()->features.on[*f]) return true;
    return false;
  }
  if (const auto t = kernel::find_tunable(name)) {
    for (const kernel::KernelConfig *k : s.kernels)
      if (k->tunables[*t] != s.kernels.front()->tunables[*t]) return true;
    return false;
  }
  for (const CostName &c : kCostNames)
    if (name == c.name) {
      for (const MachineCosts *m : s.costs)
        if (c.get(*m) != c.get(*s.costs.front())) return true;
      return false;
    }
  return false;
}

double percentile_us(const observe::Histogram &h, double q) {
  return h.count() ? static_cast<double>(h.percentile(q)) / 1e3 : std::nan("");
}

}  // namespace

std::vector<run_stat_id> table_stats(StatTable t) {
  std::vector<run_stat_id> out;
  for (std::size_t i = 0; i < NR_RUN_STATS; i++)
    if (kStatistics[i].table == t) out.push_back(static_cast<run_stat_id>(i));
  return out;
}

run_stat_id find_stat(std::string_view name) {
  for (std::size_t i = 0; i < NR_RUN_STATS; i++)
    if (name == kStatistics[i].name) return static_cast<run_stat_id>(i);
  return NR_RUN_STATS;
}

RunStats run_stats(const RunResult &r) {
  RunStats v{};
  for (std::size_t i = 0; i < NR_RUN_STATS; i++) {
    if (kStatistics[i].over != StatOver::CPU) continue;
    u64 sum = 0;
    for (const auto &cs : r.sched) sum += cs.stat[i];
    v[i] = static_cast<double>(sum);
  }
  // The RUN statistics, each from its part of the run.
  u64 ni_count = 0, ni_gained = 0, migrations = 0;
  for (const auto &cs : r.sched) {
    ni_count += cs.lb_count_by_idle[2];
    ni_gained += cs.lb_gained_by_idle[2];
  }
  for (const auto &tm : r.metrics.tasks)
    if (!tm.kthread) migrations += tm.nr_migrations;
  v[STAT_mean_avg_idle_ns] = r.mean_avg_idle_ns();
  v[STAT_newidle_lb_count] = static_cast<double>(ni_count);
  v[STAT_newidle_lb_gained] = static_cast<double>(ni_gained);
  v[STAT_migrations] = static_cast<double>(migrations);
  v[STAT_wakeup_p50_us] = percentile_us(r.metrics.wakeup_latency, 0.50);
  v[STAT_wakeup_p99_us] = percentile_us(r.metrics.wakeup_latency, 0.99);
  v[STAT_wakeup_p999_us] = percentile_us(r.metrics.wakeup_latency, 0.999);
  return v;
}

bool table_acted_on(StatTable t, const ComparedSetup &s) {
  if (s.kernels.empty()) return false;
  for (const run_stat_id id : table_stats(t))
    for (const std::string &w : words(kStatistics[id].acts_on))
      if (w == "*" || differs(w, s)) return true;
  return false;
}

std::vector<std::string> unknown_acts_on() {
  std::vector<std::string> bad;
  for (const Statistic &st : kStatistics)
    for (const std::string &w : words(st.acts_on)) {
      bool known = w == "*" || kernel::find_feature(w) || kernel::find_tunable(w);
      for (const CostName &c : kCostNames) known |= w == c.name;
      if (!known) bad.push_back(std::string(st.name) + ": " + w);
    }
  return bad;
}

}  // namespace schedlab::experiment
