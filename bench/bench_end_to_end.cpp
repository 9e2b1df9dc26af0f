// End to end: whole runs and experiments of the shipped scenarios. Reports simulated seconds
// per wall second and events per second (counters sim_s_per_s and events_per_s).
#include <benchmark/benchmark.h>

#include "experiment/experiment.h"
#include "experiment/simulation.h"

using namespace schedlab;

// Single runs of one configuration of a shipped scenario, a new seed each iteration.
static void run_scenario(benchmark::State &state, const char *file, const char *config) {
  const auto s = scenario::load_scenario(std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios/" + file);
  const auto c = experiment::choose_config(s, config, {}, {});
  double sim_s = 0;
  u64 events = 0, seed = 1;
  for (auto _ : state) {
    experiment::Simulation sim(s, c.name, c.kernel, seed++);
    const auto r = sim.run();
    sim_s += static_cast<double>(r.metrics.end_ns) / 1e9;
    events += r.events;
  }
  state.counters["sim_s_per_s"] = benchmark::Counter(sim_s, benchmark::Counter::kIsRate);
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}

static void BM_WakeupFastpath_NoCookie(benchmark::State &state) {
  run_scenario(state, "wakeup-fastpath.toml", "No cookie");
}
BENCHMARK(BM_WakeupFastpath_NoCookie)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// The seed mail's three configurations on 30 common seeds, on one thread (target: < 2 s).
static void BM_WakeupFastpath_Seed3x30_Jobs1(benchmark::State &state) {
  const auto s =
      scenario::load_scenario(std::string(SCHEDLAB_SOURCE_DIR) + "/scenarios/wakeup-fastpath.toml");
  experiment::ExperimentOptions o;
  o.configs = {"No cookie", "Cookie", "Cookie + patch"};
  o.runs = 30;
  o.jobs = 1;
  u64 events = 0;
  for (auto _ : state) {
    const auto r = experiment::run_experiment(s, o);
    for (const auto &c : r.configs)
      for (const auto &run : c.runs) events += run.events;
  }
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_WakeupFastpath_Seed3x30_Jobs1)->Unit(benchmark::kSecond)->Iterations(3);

// One 60 s run of the hypervisor-noise scenario (64 CPUs, 8 VMs; issue 5's target: < 1 s).
static void BM_HypervisorNoise_60s(benchmark::State &state) {
  run_scenario(state, "hypervisor-noise.toml", "Baseline");
}
BENCHMARK(BM_HypervisorNoise_60s)->Unit(benchmark::kMillisecond)->Iterations(3);
