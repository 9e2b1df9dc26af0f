// SPDX-License-Identifier: GPL-2.0-only
#include "experiment/result_json.h"

#include <cmath>

#include "experiment/host_stats.h"
#include "machine/cpumask.h"
#include "schedlab/version.h"

namespace schedlab::experiment {

using nlohmann::ordered_json;

static ordered_json histogram_json(const observe::Histogram &h) {
  ordered_json j;
  j["count"] = h.count();
  j["mean"] = h.mean();
  j["p50"] = h.percentile(0.50);
  j["p90"] = h.percentile(0.90);
  j["p99"] = h.percentile(0.99);
  j["p999"] = h.percentile(0.999);
  j["max"] = h.max();
  return j;
}

static observe::Histogram histogram_of(const std::vector<Time> &v) {
  observe::Histogram h;
  for (Time t : v) h.add(t);
  return h;
}

// The benchmark models' own results, as the benchmarks print them.
void bench_json(const workload::BenchReport &b, ordered_json &j) {
  if (b.has_hackbench) {
    if (b.hackbench_unfinished)
      j["hackbench_time_s"] = nullptr;  // not a result: some receiver never got all its messages
    else
      j["hackbench_time_s"] = static_cast<double>(b.hackbench_ns) / 1e9;
    j["hackbench_messages"] = b.hackbench_messages;
    j["hackbench_finished"] = !b.hackbench_unfinished;
  }
  if (b.has_schbench) {
    ordered_json sb;
    sb["wakeup_latency_ns"] = histogram_json(histogram_of(b.schbench_wakeup_ns));
    sb["request_latency_ns"] = histogram_json(histogram_of(b.schbench_request_ns));
    sb["requests"] = b.schbench_requests;
    sb["window_s"] = static_cast<double>(b.schbench_window_ns) / 1e9;
    sb["rps"] = b.schbench_window_ns ? static_cast<double>(b.schbench_requests) * 1e9 /
                                           static_cast<double>(b.schbench_window_ns)
                                     : 0.0;
    j["schbench"] = sb;
  }
  if (b.has_fork) {
    ordered_json f;
    f["forks"] = b.forks;
    f["children_exited"] = b.children_exited;
    j["fork"] = f;
  }
  if (!b.vms.empty()) {
    auto pct = [](double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr); };
    ordered_json vms = ordered_json::array();
    for (const auto &v : b.vms) {
      ordered_json o;
      o["name"] = v.name;
      o["guest"] = v.guest == workload::VmSpec::Guest::Hwlat  ? "hwlat"
                   : v.guest == workload::VmSpec::Guest::Idle ? "idle"
                                                              : "stress";
      o["windows"] = v.windows;
      o["sampling_ns"] = v.sampling_ns;
      o["samples"] = v.samples;
      o["sample_latency_ns"] = v.sample_latency_ns;
      o["gaps_over_threshold"] = v.gaps_over_threshold;
      o["max_gap_ns"] = v.max_gap_ns;
      o["sum_gap_ns"] = v.sum_gap_ns;
      o["breach_gap_ns"] = v.breach_gap_ns;
      o["noise_pct"] = pct(v.noise_pct());
      o["lost_time_pct"] = pct(v.lost_time_pct());
      o["forceidle_ns"] = v.forceidle_ns;
      vms.push_back(o);
    }
    j["vm"] = vms;
  }
}

void add_check_json(const observe::CheckReport &c, ordered_json &j) {
  ordered_json w;
  w["threshold_ns"] = c.wasted_threshold_ns;
  w["wasted_ns"] = c.wasted_ns;
  w["pct"] = c.wasted_pct;
  j["wasted_cores"] = std::move(w);
  j["invariant_violations"] = c.violations;
}

ordered_json run_to_json(const RunResult &r, const scenario::Scenario &s) {
  const observe::RunMetrics &m = r.metrics;
  ordered_json j;
  j["schedlab_version"] = kVersion;
  j["scenario"] = r.scenario;
  j["scenario_file"] = s.file;  // what `schedlab timeline` and `report` re-simulate
  j["config"] = r.config;
  j["seed"] = r.seed;

  ordered_json k;
  k["version"] = r.kernel.version == kernel::KernelVersion::V6_12 ? "6.12" : "6.18";
  ordered_json feats = ordered_json::object();
  for (int i = 0; i < kernel::__SCHED_FEAT_NR; i++)
    feats[std::string(kernel::kFeatures[i].name)] = static_cast<bool>(r.kernel.features.on[i]);
  k["features"] = feats;
  ordered_json tun = ordered_json::object();
  for (int i = 0; i < kernel::__SCHED_TUNABLE_NR; i++)
    tun[std::string(kernel::kTunables[i].name)] = r.kernel.tunables.v[i];
  k["tunables"] = tun;
  if (!r.kernel.nohz_full.empty())
    k["nohz_full"] = CpuMask::of(static_cast<int>(m.cpus.size()), r.kernel.nohz_full).to_list();
  j["kernel"] = k;

  const TopologySpec &t = s.topology;
  ordered_json mach;
  mach["cpus"] = m.cpus.size();
  mach["sockets"] = t.sockets;
  mach["llcs_per_socket"] = t.llcs_per_socket;
  mach["cores_per_llc"] = t.cores_per_llc;
  mach["threads_per_core"] = t.threads_per_core;
  mach["context_switch_ns"] = s.costs.context_switch_ns;
  mach["wakeup_ipi_ns"] = s.costs.wakeup_ipi_ns;
  mach["migration_penalty_ns"] = s.costs.migration_penalty_ns;
  mach["cross_llc_migration_penalty_ns"] = s.costs.cross_llc_migration_penalty_ns;
  mach["smt_corun_speed"] = static_cast<double>(s.costs.smt_corun_speed) / kSpeedOne;
  if (s.costs.nr_idle_states) {  // [machine.idle]
    ordered_json states = ordered_json::array();
    for (int i = 0; i < s.costs.nr_idle_states; i++)
      states.push_back({{"name", s.idle_state_names.at(static_cast<std::size_t>(i))},
                        {"exit_latency_ns", s.costs.idle_exit_latency_ns[i]},
                        {"target_residency_ns", s.costs.idle_target_residency_ns[i]}});
    mach["idle_states"] = std::move(states);
  }
  j["machine"] = mach;

  j["end_time_ns"] = m.end_ns;
  j["completion_time_ns"] = m.completion_ns;
  j["completion_time_s"] = static_cast<double>(m.completion_ns) / 1e9;
  j["forceidle_ns"] = m.forceidle_ns;
  j["forceidle_s"] = static_cast<double>(m.forceidle_ns) / 1e9;
  j["events"] = r.events;
  j["stuck_tasks"] = r.stuck_tasks;
  j["wakeup_latency_ns"] = histogram_json(m.wakeup_latency);
  ordered_json sis;
  sis["calls"] = r.sis.calls;
  sis["idle_tests"] = r.sis.idle_tests;
  sis["idle_tests_per_call"] =
      r.sis.calls ? static_cast<double>(r.sis.idle_tests) / static_cast<double>(r.sis.calls) : 0.0;
  sis["by_step"] = sis_steps_json(r.sis.by_step);
  sis["cookie_mismatch"] = r.sis.cookie_mismatch;
  sis["cookie_mismatch_by_step"] = sis_steps_json(r.sis.cookie_mismatch_by_step);
  j["select_idle_sibling"] = sis;
  bench_json(r.bench, j);

  Time busy = 0, total = 0;
  ordered_json cpus = ordered_json::array();
  for (const auto &c : m.cpus) {
    ordered_json cj;
    cj["cpu"] = c.cpu;
    cj["busy_ns"] = c.busy_ns;
    cj["idle_ns"] = c.idle_ns;
    cj["forceidle_ns"] = c.forceidle_ns;
    cj["nr_switches"] = c.nr_switches;
    if (static_cast<std::size_t>(c.cpu) < r.sched.size()) {
      const auto &cs = r.sched[static_cast<std::size_t>(c.cpu)];
      for (std::size_t i = 0; i < NR_RUN_STATS; i++)
        if (kStatistics[i].section == StatSection::cpu) cj[kStatistics[i].name] = cs.stat[i];
      cj["ticks"] = cs.ticks;
      if (!r.kernel.nohz_full.empty()) cj["remote_ticks"] = cs.remote_ticks;
      cj["avg_idle_ns"] = cs.avg_idle_ns;
      cj["mean_avg_idle_ns"] = cs.mean_avg_idle_ns;
      // The counters of /proc/schedstat's cpuN line, under its names (times in ns).
      ordered_json ss;
      for (std::size_t i = 0; i < NR_RUN_STATS; i++)
        if (kStatistics[i].section == StatSection::schedstat) ss[kStatistics[i].name] = cs.stat[i];
      ss["rq_cpu_time"] = c.busy_ns;
      ss["run_delay"] = c.run_delay_ns;
      ss["pcount"] = c.pcount;
      // The domain lines' lb_count[] and lb_gained[], summed over the CPU's domains.
      static const char *const kIdleTypes[] = {"busy", "idle", "newidle"};
      for (std::size_t t = 0; t < 3; t++)
        ss["lb"][kIdleTypes[t]] = {{"lb_count", cs.lb_count_by_idle[t]},
                                   {"lb_gained", cs.lb_gained_by_idle[t]}};
      cj["schedstat"] = std::move(ss);
    }
    cpus.push_back(cj);
    busy += c.busy_ns;
    total += c.busy_ns + c.idle_ns + c.forceidle_ns;
  }
  j["busy_pct"] = total ? 100.0 * static_cast<double>(busy) / static_cast<double>(total) : 0.0;
  j["cpus"] = cpus;
  j["mean_avg_idle_ns"] = r.mean_avg_idle_ns();

  ordered_json tasks = ordered_json::array();
  for (const auto &tm : m.tasks) {
    ordered_json tj;
    tj["pid"] = tm.pid;
    tj["comm"] = tm.comm;
    if (tm.kthread) tj["kthread"] = true;
    tj["runtime_ns"] = tm.runtime_ns;
    tj["wait_ns"] = tm.wait_ns;
    tj["sleep_ns"] = tm.sleep_ns;
    tj["nr_switches"] = tm.nr_switches;
    tj["nr_voluntary_switches"] = tm.nr_voluntary_switches;
    tj["nr_involuntary_switches"] = tm.nr_involuntary_switches;
    tj["nr_migrations"] = tm.nr_migrations;
    tj["nr_wakeups"] = tm.nr_wakeups;
    tj["core_forceidle_sum_ns"] = tm.core_forceidle_sum_ns;
    // perf sched latency's columns: delays from runnable to running.
    tj["latency"] = {{"count", tm.nr_delays},
                     {"delay_sum_ns", tm.delay_sum_ns},
                     {"max_delay_ns", tm.max_delay_ns},
                     {"max_delay_start_ns", tm.max_delay_start_ns},
                     {"max_delay_end_ns", tm.max_delay_end_ns}};
    // The fields of /proc/PID/sched under its names (times in ns).
    ordered_json ps;
    ps["se.sum_exec_runtime"] = tm.runtime_ns;
    ps["se.nr_migrations"] = tm.nr_migrations;
    ps["nr_switches"] = tm.nr_switches;
    ps["nr_voluntary_switches"] = tm.nr_voluntary_switches;
    ps["nr_involuntary_switches"] = tm.nr_involuntary_switches;
    ps["core_forceidle_sum"] = tm.core_forceidle_sum_ns;
    tj["sched"] = std::move(ps);
    tj["start_ns"] = tm.start_ns;
    if (tm.exited)
      tj["exit_ns"] = tm.exit_ns;
    else
      tj["exit_ns"] = nullptr;
    tasks.push_back(tj);
  }
  j["tasks"] = tasks;
  if (r.check) add_check_json(*r.check, j);  // --check

  ordered_json host;
  host["wall_s"] = r.wall_s;
  host["events_per_s"] = r.wall_s > 0 ? static_cast<double>(r.events) / r.wall_s : 0.0;
  host["simulated_s_per_wall_s"] =
      r.wall_s > 0 ? static_cast<double>(m.end_ns) / 1e9 / r.wall_s : 0.0;
  host["peak_rss_kb"] = peak_rss_kb();
  j["host"] = host;
  return j;
}

}  // namespace schedlab::experiment
