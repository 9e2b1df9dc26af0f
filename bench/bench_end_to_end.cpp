// SPDX-License-Identifier: GPL-2.0-only
// End to end: whole runs and experiments of the shipped scenarios and of the scale scenario
// (bench/scenarios/scale-1024.toml). Reports simulated seconds per wall second, events per
// second and the process's peak RSS (counters sim_s_per_s, events_per_s, peak_rss_kb).
#include <benchmark/benchmark.h>

#include <vector>

#include "engine/simulation.h"
#include "experiment/experiment.h"
#include "experiment/host_stats.h"
#include "scenario/config.h"

using namespace schedlab;

namespace {

scenario::Scenario load(const char *path) {
  return scenario::load_scenario(std::string(SCHEDLAB_SOURCE_DIR) + "/" + path);
}

void set_counters(benchmark::State &state, double sim_s, u64 events) {
  state.counters["sim_s_per_s"] = benchmark::Counter(sim_s, benchmark::Counter::kIsRate);
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  // Peak RSS of the whole benchmark process so far: run the scale benchmark alone
  // (--benchmark_filter) for its own figure.
  state.counters["peak_rss_kb"] = static_cast<double>(experiment::peak_rss_kb());
}

// Single runs of one configuration of a scenario, a new seed each iteration; nohz_full, when
// given, replaces the configuration's.
void run_scenario(benchmark::State &state, const char *path, const char *config,
                  std::vector<int> nohz_full = {}) {
  const auto s = load(path);
  auto c = scenario::choose_config(s, config, {}, {});
  if (!nohz_full.empty()) c.kernel.nohz_full = std::move(nohz_full);
  double sim_s = 0;
  u64 events = 0, seed = 1;
  for (auto _ : state) {
    engine::Simulation sim(s, c.name, c.kernel, seed++);
    const auto r = sim.run();
    sim_s += static_cast<double>(r.metrics.end_ns) / 1e9;
    events += r.events;
  }
  set_counters(state, sim_s, events);
}

// The seed mail's three configurations on 30 common seeds (the speed target: < 1 s on one
// core; with 2 jobs >= 1.8x faster on 2 cores; docs/performance.md).
void run_seed3x30(benchmark::State &state, int jobs) {
  const auto s = load("scenarios/wakeup-fastpath.toml");
  experiment::ExperimentOptions o;
  o.configs = {"No cookie", "Cookie", "Cookie + patch"};
  o.runs = 30;
  o.jobs = jobs;
  double sim_s = 0;
  u64 events = 0;
  for (auto _ : state) {
    const auto r = experiment::run_experiment(s, o);
    for (const auto &c : r.configs)
      for (const auto &run : c.runs) {
        events += run.events;
        sim_s += static_cast<double>(run.completion_ns) / 1e9;  // finite scenario: the end
      }
  }
  set_counters(state, sim_s, events);
}

}  // namespace

static void BM_WakeupFastpath_NoCookie(benchmark::State &state) {
  run_scenario(state, "scenarios/wakeup-fastpath.toml", "No cookie");
}
BENCHMARK(BM_WakeupFastpath_NoCookie)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// The same on a kernel booted with nohz_full=1-7: CPUs under a lone task take no tick (the
// NO_HZ_FULL model, docs/model.md 18). Not the seed mail's kernel: its results differ.
static void BM_WakeupFastpath_NoCookie_NohzFull(benchmark::State &state) {
  run_scenario(state, "scenarios/wakeup-fastpath.toml", "No cookie", {1, 2, 3, 4, 5, 6, 7});
}
BENCHMARK(BM_WakeupFastpath_NoCookie_NohzFull)->Unit(benchmark::kMillisecond)->MinTime(2.0);

static void BM_WakeupFastpath_Cookie(benchmark::State &state) {
  run_scenario(state, "scenarios/wakeup-fastpath.toml", "Cookie");
}
BENCHMARK(BM_WakeupFastpath_Cookie)->Unit(benchmark::kMillisecond)->MinTime(2.0);

static void BM_WakeupFastpath_Seed3x30_Jobs1(benchmark::State &state) {
  run_seed3x30(state, 1);
}
BENCHMARK(BM_WakeupFastpath_Seed3x30_Jobs1)->Unit(benchmark::kSecond)->Iterations(3);

static void BM_WakeupFastpath_Seed3x30_Jobs2(benchmark::State &state) {
  run_seed3x30(state, 2);
}
BENCHMARK(BM_WakeupFastpath_Seed3x30_Jobs2)->Unit(benchmark::kSecond)->Iterations(3)->UseRealTime();

// One 60 s run of the hypervisor-noise scenario (64 CPUs, 8 VMs; target: < 0.3 s).
static void BM_HypervisorNoise_60s(benchmark::State &state) {
  run_scenario(state, "scenarios/hypervisor-noise.toml", "Baseline");
}
BENCHMARK(BM_HypervisorNoise_60s)->Unit(benchmark::kMillisecond)->Iterations(3);

// 1024 CPUs, 10 000 tasks, 10 simulated seconds (bench/scenarios/scale-1024.toml).
static void BM_Scale1024_10s(benchmark::State &state) {
  run_scenario(state, "bench/scenarios/scale-1024.toml", "Mixed cookies");
}
BENCHMARK(BM_Scale1024_10s)->Unit(benchmark::kSecond)->Iterations(1);
