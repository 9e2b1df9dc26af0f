// SPDX-License-Identifier: GPL-2.0-only
#include "real/measure_report.h"

#include <fmt/format.h>

#include "engine/run_stats.h"
#include "experiment/experiment.h"
#include "experiment/result_json.h"
#include "machine/host_topology.h"
#include "schedlab/version.h"

namespace schedlab::real {

using nlohmann::ordered_json;

static double seconds(u64 ns) {
  return static_cast<double>(ns) / 1e9;
}

ordered_json measure_to_json(const std::vector<MeasureResult> &runs, const HostInfo &host) {
  const MeasureResult &r = runs.back();
  ordered_json j;
  j["schedlab_version"] = kVersion;
  j["scenario"] = r.scenario;
  j["config"] = r.config;
  j["seed"] = r.seed;
  j["measured"] = true;
  j["interrupted"] = r.interrupted;
  ordered_json mach;
  mach["cpus"] = host.nr_cpus;
  if (host.described) {
    mach["sockets"] = host.machine.sockets;
    mach["llcs_per_socket"] = host.machine.llcs_per_socket;
    mach["cores_per_llc"] = host.machine.cores_per_llc;
    mach["threads_per_core"] = host.machine.threads_per_core;
  }
  j["machine"] = mach;
  j["end_time_ns"] = r.end_ns;
  j["completion_time_ns"] = r.completion_ns;
  j["completion_time_s"] = seconds(r.completion_ns);
  bool has_fi = false;
  u64 fi = 0;
  for (const auto &t : r.tasks)
    if (t.core_forceidle_sum_ns) {
      has_fi = true;
      fi += *t.core_forceidle_sum_ns;
    }
  // Only the forced idle charged to tasks is visible from user space (core_forceidle_sum).
  j["forceidle_ns"] = has_fi ? ordered_json(fi) : ordered_json(nullptr);
  j["forceidle_s"] = has_fi ? ordered_json(seconds(fi)) : ordered_json(nullptr);
  ordered_json tasks = ordered_json::array();
  for (const auto &t : r.tasks) {
    ordered_json tj;
    tj["pid"] = t.tid;
    tj["comm"] = t.comm;
    auto opt = [](bool has, u64 v) { return has ? ordered_json(v) : ordered_json(nullptr); };
    tj["runtime_ns"] = opt(t.has_schedstat, t.runtime_ns);
    tj["wait_ns"] = opt(t.has_schedstat, t.wait_ns);
    tj["sleep_ns"] = opt(t.has_schedstat, t.sleep_ns);
    tj["nr_switches"] = opt(t.has_sched, t.nr_switches);
    tj["nr_voluntary_switches"] = opt(t.has_sched, t.nr_voluntary_switches);
    tj["nr_involuntary_switches"] = opt(t.has_sched, t.nr_involuntary_switches);
    tj["nr_migrations"] = opt(t.has_sched, t.nr_migrations);
    tj["core_forceidle_sum_ns"] =
        t.core_forceidle_sum_ns ? ordered_json(*t.core_forceidle_sum_ns) : ordered_json(nullptr);
    if (t.core_cookie) tj["core_cookie"] = *t.core_cookie;
    ordered_json ps;
    ps["se.sum_exec_runtime"] = opt(t.has_schedstat, t.runtime_ns);
    ps["se.nr_migrations"] = opt(t.has_sched, t.nr_migrations);
    ps["nr_switches"] = opt(t.has_sched, t.nr_switches);
    ps["nr_voluntary_switches"] = opt(t.has_sched, t.nr_voluntary_switches);
    ps["nr_involuntary_switches"] = opt(t.has_sched, t.nr_involuntary_switches);
    ps["core_forceidle_sum"] = tj["core_forceidle_sum_ns"];
    tj["sched"] = std::move(ps);
    tj["timeslices"] = opt(t.has_schedstat, t.timeslices);
    tj["start_ns"] = t.start_ns;
    tj["exit_ns"] = t.exited ? ordered_json(t.exit_ns) : ordered_json(nullptr);
    tasks.push_back(tj);
  }
  j["tasks"] = tasks;
  experiment::bench_json(r.bench, j);
  ordered_json rs = ordered_json::array();
  double sum = 0;
  for (const auto &run : runs) {
    ordered_json o;
    o["completion_time_ns"] = run.completion_ns;
    o["completion_time_s"] = seconds(run.completion_ns);
    o["interrupted"] = run.interrupted;
    rs.push_back(o);
    sum += seconds(run.completion_ns);
  }
  u64 ours = 0;
  for (const auto &t : r.tasks) ours += t.runtime_ns;
  if (r.host_busy_ns) {
    // Busy time of the host that was not ours: other processes, the kernel's threads, steal.
    j["others_busy_ns"] = *r.host_busy_ns > ours ? *r.host_busy_ns - ours : 0;
    j["others_busy_pct"] =
        r.end_ns
            ? 100.0 * static_cast<double>(*r.host_busy_ns > ours ? *r.host_busy_ns - ours : 0) /
                  (static_cast<double>(r.end_ns) * host.nr_cpus)
            : 0.0;
  } else {
    j["others_busy_ns"] = nullptr;
    j["others_busy_pct"] = nullptr;
  }
  j["loadavg_1min_before"] = r.loadavg_1min ? ordered_json(*r.loadavg_1min) : ordered_json(nullptr);
  // The kernel's own counts over the run: the run statistics of kernel/stats.h that
  // /proc/schedstat counts under the same name, then every counter, CPU by CPU.
  if (r.schedstat) {
    const std::map<std::string, u64> counts = schedstat_by_name(*r.schedstat);
    ordered_json st = ordered_json::object();
    for (const engine::Statistic &s : engine::kStatistics)
      if (const auto it = counts.find(s.name);
          s.over == engine::StatOver::CPU && it != counts.end())
        st[s.name] = it->second;
    j["stats"] = std::move(st);
    ordered_json ss = ordered_json::object();
    ss["version"] = r.schedstat->version;
    ss["jiffies"] = r.schedstat->timestamp;
    ordered_json totals = ordered_json::object();
    for (const auto &[name, v] : counts) totals[name] = v;
    ss["totals"] = std::move(totals);
    ss["cpus"] = schedstat_cpus_json(*r.schedstat);
    j["schedstat"] = std::move(ss);
  } else {
    j["stats"] = nullptr;
    j["schedstat"] = nullptr;
    j["schedstat_unavailable"] = r.schedstat_unavailable;
  }
  j["runs"] = rs;
  j["mean_completion_time_s"] = sum / static_cast<double>(runs.size());
  j["warnings"] = r.warnings;
  ordered_json h;
  h["kernel_release"] = host.kernel_release;
  h["cpus"] = host.nr_cpus;
  h["topology"] = host.described ? describe(host.machine) : "not describable";
  h["core_scheduling"] = host.core_sched;
  h["ns_per_loop"] = host.ns_per_loop;
  j["host"] = h;
  return j;
}

std::vector<double> measure_bench_metrics(const MeasureResult &r, std::uint64_t *expected) {
  return experiment::bench_metrics(r.bench, expected);
}

std::string measure_summary(const MeasureResult &r, const HostInfo &host) {
  std::string out;
  out += fmt::format("{}: configuration \"{}\", seed {}, measured on this host\n", r.scenario,
                     r.config, r.seed);
  out += fmt::format("host: Linux {}, {}; calibration {:.4f} ns per loop\n", host.kernel_release,
                     host.described ? describe(host.machine) : fmt::format("{} CPUs", host.nr_cpus),
                     host.ns_per_loop);
  int exited = 0;
  for (const auto &t : r.tasks) exited += t.exited;
  if (r.interrupted)
    out += fmt::format("interrupted after {:.3f} s: partial result ({} of {} tasks exited)\n",
                       seconds(r.end_ns), exited, r.tasks.size());
  if (r.completion_ns)
    out += fmt::format("completion time: {:.3f} s ({} of {} tasks exited)\n",
                       seconds(r.completion_ns), exited, r.tasks.size());
  else
    out += fmt::format("ran for {:.3f} s (no task exited)\n", seconds(r.end_ns));
  // The benchmarks' own lines, as they print them.
  if (r.bench.has_hackbench) {
    if (r.bench.hackbench_unfinished)
      out += fmt::format("hackbench: unfinished ({} of {} messages)\n", r.bench.hackbench_messages,
                         r.bench.hackbench_expected_messages);
    else
      out += fmt::format("hackbench: Time: {:.3f}\n", seconds(r.bench.hackbench_ns));
  }
  if (r.bench.has_schbench) {
    const std::vector<double> m = measure_bench_metrics(r, nullptr);
    out += fmt::format(
        "schbench: wakeup latency p99.9 {:.0f} us, request latency p99.9 {:.0f} us, {:.1f} "
        "requests/s\n",
        m[1], m[2], m[3]);
  }
  if (r.bench.has_fork)
    out += fmt::format("fork: {} children forked, {} exited\n", r.bench.forks,
                       r.bench.children_exited);
  u64 ours = 0;
  for (const auto &t : r.tasks) ours += t.runtime_ns;
  if (r.host_busy_ns && r.end_ns) {
    const u64 others = *r.host_busy_ns > ours ? *r.host_busy_ns - ours : 0;
    out += fmt::format(
        "other load: {:.3f} CPU-s of other processes during the run ({:.1f}% of the host's CPU "
        "time; load average {:.2f} before it)\n",
        seconds(others),
        100.0 * static_cast<double>(others) / (static_cast<double>(r.end_ns) * host.nr_cpus),
        r.loadavg_1min.value_or(0.0));
  }
  u64 fi = 0;
  for (const auto &t : r.tasks) fi += t.core_forceidle_sum_ns.value_or(0);
  if (fi)
    out +=
        fmt::format("forced idle charged to tasks (core_forceidle_sum): {:.3f} s\n", seconds(fi));
  if (r.schedstat) {
    const std::map<std::string, u64> n = schedstat_by_name(*r.schedstat);
    auto at = [&](const char *k) { return n.count(k) ? n.at(k) : u64{0}; };
    const u64 ttwu = at("ttwu_count");
    out += fmt::format(
        "/proc/schedstat over the run (all CPUs): ttwu_count {} ({:.1f}% ttwu_local), "
        "sched_count {}, lb_count {} (lb_gained {}), alb_pushed {}\n",
        ttwu,
        ttwu ? 100.0 * static_cast<double>(at("ttwu_local")) / static_cast<double>(ttwu) : 0.0,
        at("sched_count"), at("lb_count"), at("lb_gained"), at("alb_pushed"));
  } else {
    out += fmt::format("/proc/schedstat: not counted ({})\n", r.schedstat_unavailable);
  }
  if (r.tasks.size() <= 32) {
    auto ms = [](u64 ns) { return fmt::format("{:.3f}", static_cast<double>(ns) / 1e6); };
    out += fmt::format("{:>7} {:<16} {:>12} {:>12} {:>12} {:>6} {:>7}\n", "tid", "comm",
                       "runtime_ms", "wait_ms", "sleep_ms", "migr", "switch");
    for (const auto &t : r.tasks)
      out += fmt::format("{:>7} {:<16} {:>12} {:>12} {:>12} {:>6} {:>7}\n", t.tid, t.comm,
                         ms(t.runtime_ns), ms(t.wait_ns), ms(t.sleep_ns), t.nr_migrations,
                         t.nr_switches);
  }
  return out;  // the command prints r.warnings on stderr
}

}  // namespace schedlab::real
