// SPDX-License-Identifier: GPL-2.0-only
#include "experiment/experiment.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace schedlab::experiment {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void check_options(const ExperimentOptions &o, u64 seed_base) {
  if (o.runs < 1 || o.runs > kMaxRuns)
    throw std::invalid_argument("--runs " + std::to_string(o.runs) + ": expected 1 to " +
                                std::to_string(kMaxRuns));
  if (o.jobs < 1) throw std::invalid_argument("--jobs 0: expected at least 1");
  if (seed_base > ~u64{0} - (o.runs - 1))
    throw std::invalid_argument("--seed-base " + std::to_string(seed_base) + ": seeds up to " +
                                "seed-base + runs - 1 must fit in 64 bits");
}

}  // namespace

std::vector<scenario::ConfigChoice> experiment_configs(const scenario::Scenario &s,
                                                       const ExperimentOptions &o) {
  check_options(o, o.seed_base.value_or(s.seed));
  std::vector<std::string> names;
  if (s.configs.empty()) {
    names.push_back("");  // the implicit "default"
  } else {
    for (const auto &c : s.configs) names.push_back(c.name);
  }
  // Validate the requested names first (choose_config gives the standard message).
  for (const std::string &n : o.configs) {
    if (n.empty()) throw std::invalid_argument("--config: expected a configuration name");
    scenario::choose_config(s, n, {});
  }
  std::vector<scenario::ConfigChoice> out;
  for (const std::string &n : names) {
    const bool wanted =
        o.configs.empty() || std::any_of(o.configs.begin(), o.configs.end(), [&](const auto &w) {
          return w == n || (n.empty() && w == "default");
        });
    if (wanted) out.push_back(scenario::choose_config(s, n, o.kernel_params));
  }
  return out;
}

ExperimentResult run_experiment(const scenario::Scenario &s, const ExperimentOptions &o) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<scenario::ConfigChoice> configs = experiment_configs(s, o);
  const u64 seed_base = o.seed_base.value_or(s.seed);

  ExperimentResult r;
  r.scenario = s.name;
  r.scenario_file = s.file;
  r.jobs = o.jobs;
  for (u64 i = 0; i < o.runs; i++) r.seeds.push_back(seed_base + i);
  r.planned_runs = o.runs;
  for (const auto &c : configs) {
    ExperimentConfig ec;
    ec.name = c.name;
    ec.kernel = c.kernel;
    ec.runs.resize(r.seeds.size());
    r.configs.push_back(std::move(ec));
  }
  for (const auto &cmp : s.compares) {
    auto ran = [&](const std::string &n) {
      return std::any_of(r.configs.begin(), r.configs.end(),
                         [&](const ExperimentConfig &c) { return c.name == n; });
    };
    if (ran(cmp.base) && ran(cmp.patched) && ran(cmp.reference)) r.comparisons.push_back(cmp);
  }

  // Work item k: work_item(). Each worker writes only the slots it claimed, so the result does
  // not depend on scheduling.
  const std::size_t nruns = r.seeds.size();
  const std::size_t total = configs.size() * nruns;
  if (o.shards == 0 || o.shard >= o.shards)
    throw std::invalid_argument("shard must be below shards");
  const std::size_t mine = total > o.shard ? (total - o.shard + o.shards - 1) / o.shards : 0;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;  // of the lowest failing work item, so the message is deterministic
  std::size_t error_k = total;
  std::mutex error_mu;
  std::size_t done = 0;
  std::mutex progress_mu;
  auto worker = [&] {
    for (;;) {
      // This process's items: k = shard, shard + shards, ... (all of them with one shard).
      const std::size_t k = o.shard + next.fetch_add(1, std::memory_order_relaxed) * o.shards;
      if (k >= total || failed.load(std::memory_order_relaxed)) return;
      if (o.stop && o.stop->load(std::memory_order_relaxed)) return;
      const auto [ci, si] = work_item(k, configs.size());
      try {
        engine::Simulation sim(s, configs[ci].name, configs[ci].kernel, r.seeds[si]);
        if (o.check) sim.enable_check(o.wasted_threshold);
        sim.set_stop(o.stop, o.max_events);
        const RunResult rr = sim.run();
        if (rr.stop == RunResult::Stop::Interrupted) return;
        if (rr.stop == RunResult::Stop::EventLimit)
          throw RunLimitError("configuration \"" + configs[ci].name + "\", seed " +
                              std::to_string(rr.seed) + ": the run reached the limit of " +
                              std::to_string(o.max_events) +
                              " events (--max-events) at simulated time " +
                              std::to_string(static_cast<double>(rr.metrics.end_ns) / 1e9) +
                              " s; raise --max-events");
        ExperimentRun &out = r.configs[ci].runs[si];
        out.seed = rr.seed;
        out.completion_ns = rr.metrics.completion_ns;
        // The workload's forced idle: what kernel threads were charged is the kernel's own.
        out.forceidle_ns = rr.metrics.forceidle_ns - rr.metrics.kthread_forceidle_ns;
        out.events = rr.events;
        out.stuck_tasks = rr.stuck_tasks.size();
        out.bench = bench_metrics(rr, &out.bench_expected);
        for (const auto &vm : rr.bench.vms)
          out.vm_forceidle_ns.emplace_back(vm.name, vm.forceidle_ns);
        out.sis = rr.sis;
        out.stat = run_stats(rr);
        out.check = rr.check;
        out.wall_s = rr.wall_s;
        out.done = true;
        if (o.progress) {
          std::lock_guard<std::mutex> lock(progress_mu);
          o.progress(++done, mine);
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mu);
        if (k < error_k) {
          error = std::current_exception();
          error_k = k;
        }
        failed = true;
        return;
      }
    }
  };
  const std::size_t nthreads = std::max<std::size_t>(1, std::min<std::size_t>(o.jobs, mine));
  r.threads = static_cast<unsigned>(nthreads);
  if (nthreads == 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(nthreads);
    for (std::size_t i = 0; i < nthreads; i++) pool.emplace_back(worker);
    for (auto &t : pool) t.join();
  }
  if (error) std::rethrow_exception(error);
  r.wall_s = seconds_since(t0);
  return r;
}

std::size_t keep_finished_seeds(ExperimentResult &r) {
  std::size_t keep = r.seeds.size(), finished = 0;
  for (const auto &c : r.configs)
    for (std::size_t i = 0; i < c.runs.size(); i++) {
      if (c.runs[i].done)
        finished++;
      else
        keep = std::min(keep, i);
    }
  if (keep == r.seeds.size()) return 0;
  r.partial = true;
  r.seeds.resize(keep);
  for (auto &c : r.configs) c.runs.resize(keep);
  return finished - keep * r.configs.size();
}

// p99.9 by the run JSON's definition (the smallest sample with at least 99.9 % at or below it),
// but exact: the run JSON reports its histogram bucket's upper bound, up to 0.8 % above.
static double p999_us(std::vector<Time> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t rank =
      static_cast<std::size_t>(std::ceil(0.999 * static_cast<double>(v.size())));
  return static_cast<double>(v[std::max<std::size_t>(rank, 1) - 1]) / 1e3;
}

std::vector<double> bench_metrics(const RunResult &r, u64 *expected) {
  return bench_metrics(r.bench, expected);
}

std::vector<double> bench_metrics(const workload::BenchReport &b, u64 *expected) {
  const double nan = std::nan("");
  std::vector<double> m(kNrBenchMetrics, nan);
  u64 bits = 0;
  if (b.has_hackbench) {
    bits |= 1u << 0;
    if (!b.hackbench_unfinished) m[0] = static_cast<double>(b.hackbench_ns) / 1e9;
  }
  if (b.has_schbench) {
    bits |= 1u << 1 | 1u << 2 | 1u << 3;
    m[1] = p999_us(b.schbench_wakeup_ns);
    m[2] = p999_us(b.schbench_request_ns);
    m[3] = b.schbench_window_ns ? static_cast<double>(b.schbench_requests) * 1e9 /
                                      static_cast<double>(b.schbench_window_ns)
                                : nan;
  }
  // The first VM whose guest runs hwlat.
  for (const auto &v : b.vms)
    if (v.guest == workload::VmSpec::Guest::Hwlat) {
      bits |= 1u << 4 | 1u << 5;
      m[4] = v.noise_pct();
      m[5] = v.lost_time_pct();
      break;
    }
  if (expected) *expected = bits;
  return m;
}

}  // namespace schedlab::experiment
