// SPDX-License-Identifier: GPL-2.0-only
#include "experiment/summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "machine/cpumask.h"

namespace schedlab::experiment {

static std::string ms(Time ns) {
  return fmt::format("{:.3f}", static_cast<double>(ns) / 1e6);
}

std::string run_summary(const RunResult &r, const scenario::Scenario &s) {
  const observe::RunMetrics &m = r.metrics;
  const TopologySpec &t = s.topology;
  std::string out;
  out += fmt::format("{}: configuration \"{}\", seed {}\n", r.scenario, r.config, r.seed);
  out += fmt::format(
      "machine: {} CPUs = {} socket(s) x {} LLC(s) x {} cores x {} threads; kernel {}, HZ={}\n",
      m.cpus.size(), t.sockets, t.llcs_per_socket, t.cores_per_llc, t.threads_per_core,
      r.kernel.version == kernel::KernelVersion::V6_12 ? "6.12" : "6.18",
      r.kernel.tunables[kernel::TUNABLE_hz]);
  int exited = 0;
  for (const auto &tm : m.tasks) exited += tm.exited;
  if (m.completion_ns)
    out += fmt::format("completion time: {:.3f} s ({} of {} tasks exited)\n",
                       static_cast<double>(m.completion_ns) / 1e9, exited, m.tasks.size());
  else
    out += fmt::format("ran for {:.3f} s (no task exited)\n", static_cast<double>(m.end_ns) / 1e9);
  if (!r.stuck_tasks.empty()) {
    out += fmt::format(
        "warning: {} task{} can never finish: asleep, with nothing left to wake {} (a deadlock in "
        "the workload, or a lost wakeup):",
        r.stuck_tasks.size(), r.stuck_tasks.size() == 1 ? "" : "s",
        r.stuck_tasks.size() == 1 ? "it" : "them");
    const std::size_t shown = std::min<std::size_t>(r.stuck_tasks.size(), 8);
    for (std::size_t i = 0; i < shown; i++) out += " " + r.stuck_tasks[i];
    if (shown < r.stuck_tasks.size()) out += " ...";
    out += "\n";
  }
  const auto &h = m.wakeup_latency;
  out += fmt::format(
      "wakeup latency (us): p50 {:.1f}  p90 {:.1f}  p99 {:.1f}  p99.9 {:.1f}  max {:.1f}  ({} "
      "wakeups)\n",
      h.percentile(0.5) / 1e3, h.percentile(0.9) / 1e3, h.percentile(0.99) / 1e3,
      h.percentile(0.999) / 1e3, h.max() / 1e3, h.count());
  const workload::BenchReport &b = r.bench;
  if (b.has_hackbench && b.hackbench_unfinished)
    out += fmt::format("hackbench: did not finish ({} of {} messages read when the run ended)\n",
                       b.hackbench_messages, b.hackbench_expected_messages);
  else if (b.has_hackbench)
    out += fmt::format("hackbench: Time: {:.3f} ({} messages)\n",
                       static_cast<double>(b.hackbench_ns) / 1e9, b.hackbench_messages);
  if (b.has_schbench) {
    for (const auto &[what, v] : {std::pair{"wakeup", &b.schbench_wakeup_ns},
                                  std::pair{"request", &b.schbench_request_ns}}) {
      observe::Histogram h;
      for (Time t : *v) h.add(t);
      out += fmt::format(
          "schbench {} latency (us): p50 {:.1f}  p90 {:.1f}  p99 {:.1f}  p99.9 {:.1f}  max "
          "{:.1f}  ({} samples)\n",
          what, h.percentile(0.5) / 1e3, h.percentile(0.9) / 1e3, h.percentile(0.99) / 1e3,
          h.percentile(0.999) / 1e3, h.max() / 1e3, h.count());
    }
    out += fmt::format("schbench average rps: {:.2f}\n",
                       b.schbench_window_ns ? static_cast<double>(b.schbench_requests) * 1e9 /
                                                  static_cast<double>(b.schbench_window_ns)
                                            : 0.0);
  }
  if (b.has_fork)
    out += fmt::format("fork: {} children forked, {} exited\n", b.forks, b.children_exited);
  for (const auto &v : b.vms) {
    if (v.guest == workload::VmSpec::Guest::Hwlat)
      out += fmt::format(
          "vm {} (hwlat): {} samples in {} windows ({} gaps over threshold), max gap {:.1f} us, "
          "noise {:.3f}%, lost time {:.3f}%, forced idle {:.3f} s\n",
          v.name, v.samples, v.windows, v.gaps_over_threshold,
          static_cast<double>(v.max_gap_ns) / 1e3, v.noise_pct(), v.lost_time_pct(),
          static_cast<double>(v.forceidle_ns) / 1e9);
    else
      out += fmt::format("vm {} ({}): forced idle {:.3f} s\n", v.name,
                         v.guest == workload::VmSpec::Guest::Idle ? "idle" : "stress",
                         static_cast<double>(v.forceidle_ns) / 1e9);
  }
  Time busy = 0, total = 0;
  std::string per_cpu;
  for (const auto &c : m.cpus) {
    busy += c.busy_ns;
    total += c.busy_ns + c.idle_ns + c.forceidle_ns;
    if (m.cpus.size() <= 64)
      per_cpu += fmt::format(
          " {}:{:.0f}%", c.cpu,
          100.0 * static_cast<double>(c.busy_ns) /
              static_cast<double>(std::max<Time>(1, c.busy_ns + c.idle_ns + c.forceidle_ns)));
  }
  out += fmt::format(
      "CPU busy: {:.1f}% overall;{}\n",
      100.0 * static_cast<double>(busy) / static_cast<double>(std::max<Time>(1, total)), per_cpu);
  if (!r.kernel.nohz_full.empty()) {
    // What nohz_full= buys: the ticks each CPU took, its remote ticks in parentheses.
    u64 ticks = 0, remote = 0;
    std::string each;
    for (std::size_t c = 0; c < r.sched.size(); c++) {
      ticks += r.sched[c].ticks;
      remote += r.sched[c].remote_ticks;
      if (r.sched.size() <= 64)
        each += fmt::format(" {}:{}({})", c, r.sched[c].ticks, r.sched[c].remote_ticks);
    }
    out += fmt::format("nohz_full={}: {} ticks ({} remote); per CPU:{}\n",
                       CpuMask::of(static_cast<int>(m.cpus.size()), r.kernel.nohz_full).to_list(),
                       ticks, remote, each);
  }
  if (m.forceidle_ns) {
    Time charged = 0;
    for (const auto &tm : m.tasks) charged += tm.core_forceidle_sum_ns;
    out += fmt::format(
        "forced idle: {:.3f} CPU-s ({:.2f}% of CPU time); charged to running tasks "
        "(core_forceidle_sum): {:.3f} s\n",
        static_cast<double>(m.forceidle_ns) / 1e9,
        100.0 * static_cast<double>(m.forceidle_ns) / static_cast<double>(std::max<Time>(1, total)),
        static_cast<double>(charged) / 1e9);
  }
  if (r.sis.calls) {
    // Where wakeups were placed, and how often onto a core running another cookie: what the
    // fast-path cookie checks (CORE_COOKIE_FASTPATH*) change.
    const double calls = static_cast<double>(r.sis.calls);
    std::string steps;
    for (int s = 0; s < kernel::Kernel::NR_SIS_STEPS; s++)
      steps += fmt::format(
          "{} {} {:.1f}%", s ? "," : "", kernel::Kernel::kSisStepNames[s],
          100.0 * static_cast<double>(r.sis.by_step[static_cast<std::size_t>(s)]) / calls);
    out += fmt::format("select_idle_sibling: {} calls; chose{}", r.sis.calls, steps);
    if (m.forceidle_ns || r.sis.cookie_mismatch)
      out += fmt::format("; onto a core running another cookie {:.1f}%",
                         100.0 * static_cast<double>(r.sis.cookie_mismatch) / calls);
    out += "\n";
  }
  if (m.tasks.size() <= 32) {
    out += fmt::format("{:>6} {:<16} {:>12} {:>12} {:>12} {:>6} {:>7}\n", "pid", "comm",
                       "runtime_ms", "wait_ms", "sleep_ms", "migr", "switch");
    for (const auto &tm : m.tasks)
      out += fmt::format("{:>6} {:<16} {:>12} {:>12} {:>12} {:>6} {:>7}\n", tm.pid, tm.comm,
                         ms(tm.runtime_ns), ms(tm.wait_ns), ms(tm.sleep_ns), tm.nr_migrations,
                         tm.nr_switches);
  }
  if (r.check)
    out += fmt::format(
        "invariants: {} violations; wasted cores (idle while a task it could run waited > {} "
        "ms in its LLC): {:.3f} CPU-s ({:.3f}% of CPU time)\n",
        r.check->violations, static_cast<double>(r.check->wasted_threshold_ns) / 1e6,
        static_cast<double>(r.check->wasted_ns) / 1e9, r.check->wasted_pct);
  // Slower than real time (a 1024-CPU machine) shows two decimals rather than "0x".
  const double speed = r.wall_s > 0 ? static_cast<double>(m.end_ns) / 1e9 / r.wall_s : 0.0;
  out += fmt::format(
      "simulated {:.3f} s in {:.3f} s of wall time ({:.{}f}x real time), {} events ({:.2f} M/s)\n",
      static_cast<double>(m.end_ns) / 1e9, r.wall_s, speed, speed < 10 ? 2 : 0, r.events,
      r.wall_s > 0 ? static_cast<double>(r.events) / r.wall_s / 1e6 : 0.0);
  return out;
}

std::string latency_table(const RunResult &r) {
  const std::string rule(139, '-');
  std::string out = " " + rule + "\n";
  out +=
      "  Task                  |   Runtime ms  |  Count   | Avg delay ms    | Max delay ms    | "
      "Max delay start           | Max delay end          |\n";
  out += " " + rule + "\n";
  std::vector<const observe::TaskMetrics *> tasks;
  for (const auto &tm : r.metrics.tasks) tasks.push_back(&tm);
  auto avg = [](const observe::TaskMetrics *t) {
    return t->nr_delays ? static_cast<double>(t->delay_sum_ns) / static_cast<double>(t->nr_delays)
                        : 0.0;
  };
  std::stable_sort(tasks.begin(), tasks.end(), [&](auto *a, auto *b) {
    if (avg(a) != avg(b)) return avg(a) > avg(b);
    if (a->max_delay_ns != b->max_delay_ns) return a->max_delay_ns > b->max_delay_ns;
    if (a->nr_delays != b->nr_delays) return a->nr_delays > b->nr_delays;
    return a->runtime_ns > b->runtime_ns;
  });
  Time runtime = 0;
  u64 count = 0;
  for (const observe::TaskMetrics *t : tasks) {
    runtime += t->runtime_ns;
    count += t->nr_delays;
    out += fmt::format(
        "  {:<22}|{:>11.3f} ms |{:>9} | avg:{:>8.3f} ms | max:{:>8.3f} ms | max start: {:>12.6f} s "
        "| max end: {:>12.6f} s\n",
        fmt::format("{}:{}", t->comm, t->pid), static_cast<double>(t->runtime_ns) / 1e6,
        t->nr_delays, avg(t) / 1e6, static_cast<double>(t->max_delay_ns) / 1e6,
        static_cast<double>(t->max_delay_start_ns) / 1e9,
        static_cast<double>(t->max_delay_end_ns) / 1e9);
  }
  out += " " + std::string(113, '-') + "\n";
  out += fmt::format("  TOTAL:                |{:>11.3f} ms |{:>9} |\n",
                     static_cast<double>(runtime) / 1e6, count);
  out += " " + std::string(51, '-') + "\n";
  return out;
}

}  // namespace schedlab::experiment
