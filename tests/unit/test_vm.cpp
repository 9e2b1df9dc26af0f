// SPDX-License-Identifier: GPL-2.0-only
// The vm benchmark group: a VM is one process of vCPU and VMM threads; the hwlat guest measures
// how long its spinning vCPU is kept off the host CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "checked_run.h"
#include "engine/simulation.h"
#include "experiment/experiment.h"
#include "experiment/experiment_report.h"
#include "experiment/result_json.h"
#include "scenario/config.h"
#include "workload/benchmarks.h"

using namespace schedlab;

namespace {

std::string machine(int cores, int threads, const std::string &duration) {
  return "[scenario]\nname = \"t\"\nseed = 5\nduration = \"" + duration +
         "\"\n[machine]\ncores_per_llc = " + std::to_string(cores) +
         "\nthreads_per_core = " + std::to_string(threads) + "\n";
}

engine::RunResult run(const scenario::Scenario &s, const std::string &config = "") {
  auto c = scenario::choose_config(s, config, {}, {});
  engine::Simulation sim(s, c.name, c.kernel, 1);
  return schedlab::testing::checked_run(sim);
}

// One CPU: the hwlat vCPU samples [0, 100 ms) of every 300 ms window; a nice -20 task pinned
// to the CPU forks at 50.3 ms (between two ticks) and runs 400 us of CPU time, then sleeps
// past the run's end.
// With `second`, another such task forks at 70.3 ms and runs 200 us: a second, shorter gap in
// the same window.
scenario::Scenario injected_gap(const std::string &threshold, bool second = false) {
  return scenario::parse_scenario(
      machine(1, 1, "1s") +
          "[[group]]\nname = \"vm\"\n"
          "vm = { vcpus = 1, guest = \"hwlat\", width = \"100ms\", window = \"300ms\", "
          "threshold = \"" +
          threshold +
          "\", vmm_threads = 0 }\n"
          "[[group]]\nname = \"hog\"\nnice = -20\ncpus = \"0\"\nstart = \"50.3ms\"\n"
          "phases = [ { runtime = \"400us\" }, { sleep = \"10s\" } ]\n" +
          (second ? "[[group]]\nname = \"hog2\"\nnice = -20\ncpus = \"0\"\nstart = "
                    "\"70.3ms\"\nphases = [ { runtime = \"200us\" }, { sleep = \"10s\" } ]\n"
                  : ""),
      "gap.toml");
}

}  // namespace

TEST(Vm, HwlatMeasuresAnInjectedGapExactly) {
  const auto s = injected_gap("100us");
  const auto r = run(s);
  ASSERT_EQ(r.bench.vms.size(), 1u);
  const auto &v = r.bench.vms[0];
  EXPECT_EQ(v.name, "vm");
  // The hog preempts the vCPU at its wakeup: the vCPU is off the CPU for the switch to the hog
  // (whose first CPU time is after the switch cost), its 400 us, and the switch back.
  const Time cs = s.costs.context_switch_ns;
  const Time gap = 400 * NSEC_PER_USEC + 2 * cs;
  EXPECT_EQ(v.samples, 1u);
  EXPECT_EQ(v.gaps_over_threshold, 1u);
  EXPECT_EQ(v.max_gap_ns, gap);
  EXPECT_EQ(v.sum_gap_ns, gap);
  EXPECT_EQ(v.breach_gap_ns, gap);
  EXPECT_EQ(v.sample_latency_ns, gap / NSEC_PER_USEC * NSEC_PER_USEC);  // whole microseconds
  // Windows at 0, 300, 600 and 900 ms; the first sample starts after the vCPU's first switch,
  // the others after the wakeup timer's slack and the switch.
  EXPECT_EQ(v.windows, 4u);
  const Time slack = static_cast<Time>(r.kernel.tunables[kernel::TUNABLE_timer_slack_ns]);
  EXPECT_EQ(v.sampling_ns, 4 * 100 * NSEC_PER_MSEC - cs - 3 * (slack + cs));
  // The sample's latency over the sampled time: the user's "breaches scaled up by
  // window/width" over the run's 4 windows of 300 ms.
  EXPECT_DOUBLE_EQ(v.noise_pct(), 402e3 / (4.0 * 100e6) * 100.0);
  EXPECT_DOUBLE_EQ(v.lost_time_pct(),
                   static_cast<double>(gap) / static_cast<double>(v.sampling_ns) * 100.0);
  const auto m = experiment::bench_metrics(r);
  ASSERT_EQ(m.size(), experiment::kNrBenchMetrics);
  EXPECT_EQ(std::string(experiment::kBenchMetrics[4].key), "noise_pct");
  EXPECT_EQ(std::string(experiment::kBenchMetrics[5].key), "lost_time_pct");
  EXPECT_DOUBLE_EQ(m[4], v.noise_pct());
  EXPECT_DOUBLE_EQ(m[5], v.lost_time_pct());
  EXPECT_TRUE(std::isnan(m[0]));

  const auto j = experiment::run_to_json(r, s);
  ASSERT_TRUE(j.contains("vm"));
  EXPECT_EQ(j["vm"][0]["name"], "vm");
  EXPECT_EQ(j["vm"][0]["samples"].get<u64>(), 1u);
  EXPECT_EQ(j["vm"][0]["max_gap_ns"].get<u64>(), gap);
}

// get_sample() records one sample per window: its largest gap, with the count of gaps above
// the threshold; the gaps are whole microseconds, compared strictly with the threshold.
TEST(Vm, HwlatRecordsOneSamplePerWindowAsGetSampleDoes) {
  const auto s = injected_gap("100us", true);
  const auto r = run(s);
  const auto &v = r.bench.vms.at(0);
  const Time cs = s.costs.context_switch_ns;
  EXPECT_EQ(v.samples, 1u);
  EXPECT_EQ(v.gaps_over_threshold, 2u);
  EXPECT_EQ(v.sample_latency_ns, (400 * NSEC_PER_USEC + 2 * cs) / 1000 * 1000);
  EXPECT_EQ(v.breach_gap_ns, 600 * NSEC_PER_USEC + 4 * cs);
  EXPECT_DOUBLE_EQ(v.noise_pct(), 402e3 / (4.0 * 100e6) * 100.0);
  // The 402 us gap is not above a 402 us threshold; the 202 us one is below 300 us.
  EXPECT_EQ(run(injected_gap("402us", true)).bench.vms.at(0).samples, 0u);
  const auto r300 = run(injected_gap("300us", true));
  const auto &w = r300.bench.vms.at(0);
  EXPECT_EQ(w.samples, 1u);
  EXPECT_EQ(w.gaps_over_threshold, 1u);
}

TEST(Vm, AGapBelowTheThresholdIsLostTimeButNoSample) {
  const auto r = run(injected_gap("500us"));
  const auto &v = r.bench.vms.at(0);
  EXPECT_EQ(v.samples, 0u);
  EXPECT_EQ(v.breach_gap_ns, 0u);
  EXPECT_EQ(v.sum_gap_ns, 400 * NSEC_PER_USEC + 2000);
  EXPECT_EQ(v.noise_pct(), 0.0);
  EXPECT_GT(v.lost_time_pct(), 0.0);
}

TEST(Vm, HwlatMovesRoundRobinAndIdlesTheOtherVcpus) {
  // 4 vCPUs on 4 CPUs, 8 windows of 10 ms (2 ms wide): each vCPU samples two windows, about
  // 2 x 2 ms of CPU time, and is blocked otherwise.
  const auto s = scenario::parse_scenario(
      machine(2, 2, "80ms") +
          "[[group]]\nname = \"vm\"\n"
          "vm = { vcpus = 4, guest = \"hwlat\", width = \"2ms\", window = \"10ms\", "
          "vmm_threads = 0 }\n",
      "rr.toml");
  const auto r = run(s);
  const auto &v = r.bench.vms.at(0);
  EXPECT_EQ(v.windows, 8u);
  EXPECT_EQ(v.samples, 0u);  // nothing else runs
  ASSERT_EQ(r.metrics.tasks.size(), 4u);
  for (const auto &t : r.metrics.tasks) {
    EXPECT_GE(t.runtime_ns, 2 * 1900 * NSEC_PER_USEC) << t.comm;
    EXPECT_LE(t.runtime_ns, 2 * 2100 * NSEC_PER_USEC) << t.comm;
  }
}

TEST(Vm, AnIdleGuestCostsTheHostNothing) {
  const auto s = scenario::parse_scenario(
      machine(2, 2, "200ms") +
          "[[group]]\nname = \"vm\"\n"
          "vm = { vcpus = 8, guest = \"idle\", vmm_threads = 1, vmm_burst = \"50us\", "
          "vmm_period = \"10ms\" }\n",
      "idle.toml");
  const auto r = run(s);
  ASSERT_EQ(r.metrics.tasks.size(), 9u);
  for (int i = 0; i < 8; i++) {
    const auto &t = r.metrics.tasks[static_cast<std::size_t>(i)];
    EXPECT_EQ(t.comm, "vm-" + std::to_string(i));
    EXPECT_EQ(t.runtime_ns, 0u) << t.comm;
  }
  // The VMM thread: a 50 us burst every 5..15 ms, about 20 in 200 ms.
  const auto &vmm = r.metrics.tasks[8];
  EXPECT_EQ(vmm.comm, "vm-8");
  EXPECT_GE(vmm.runtime_ns, 12 * 50 * NSEC_PER_USEC);
  EXPECT_LE(vmm.runtime_ns, 45 * 52 * NSEC_PER_USEC);
  EXPECT_EQ(r.metrics.end_ns, 200 * NSEC_PER_MSEC);
  EXPECT_TRUE(std::isnan(r.bench.vms.at(0).noise_pct()));
}

TEST(Vm, StressVcpusKeepTheirCpusBusy) {
  const auto s = scenario::parse_scenario(
      machine(2, 2, "100ms") +
          "[[group]]\nname = \"vm\"\nvm = { vcpus = 4, guest = \"stress\", vmm_threads = 0 }\n",
      "stress.toml");
  const auto r = run(s);
  ASSERT_EQ(r.metrics.tasks.size(), 4u);
  for (const auto &t : r.metrics.tasks) EXPECT_GE(t.runtime_ns, 99 * NSEC_PER_MSEC) << t.comm;
  for (const auto &c : r.metrics.cpus) EXPECT_GE(c.busy_ns, 99 * NSEC_PER_MSEC) << c.cpu;
}

namespace {
struct Started : kernel::TraceSink {
  std::set<int> tgids;
  std::set<unsigned long> cookies;
  void sched_wakeup_new(Time, const kernel::task_struct *p, int) override {
    tgids.insert(p->tgid);
    cookies.insert(p->core_cookie);
  }
};
}  // namespace

TEST(Vm, AVmIsOneProcessAndTheCookieShorthandGivesItOneCookie) {
  const auto s = scenario::parse_scenario(
      machine(2, 2, "20ms") +
          "[[group]]\nname = \"vm0\"\nvm = { vcpus = 3, guest = \"stress\", vmm_threads = 2 }\n"
          "[[config]]\nname = \"vm\"\ncookies = [ { group = \"vm0\" } ]\n",
      "one.toml");
  EXPECT_EQ(s.groups.at(0).count, 5);
  auto c = scenario::choose_config(s, "vm", {}, {});
  engine::Simulation sim(s, c.name, c.kernel, 1);
  Started seen;
  sim.add_tracer(&seen);
  const auto r = schedlab::testing::checked_run(sim);
  EXPECT_EQ(r.metrics.tasks.size(), 5u);
  EXPECT_EQ(seen.tgids.size(), 1u);
  ASSERT_EQ(seen.cookies.size(), 1u);
  EXPECT_NE(*seen.cookies.begin(), 0ul);
}

TEST(Vm, ScenarioErrors) {
  auto error = [](const std::string &text) {
    try {
      scenario::parse_scenario(text, "bad.toml");
    } catch (const scenario::ScenarioError &e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string m = "[scenario]\nname = \"t\"\n[machine]\ncores_per_llc = 2\n";
  EXPECT_NE(error(m + "[[group]]\nname = \"v\"\nvm = {}\n").find("scenario.duration"),
            std::string::npos);
  const std::string md = "[scenario]\nname = \"t\"\nduration = \"1s\"\n[machine]\n";
  EXPECT_NE(error(md + "[[group]]\nname = \"v\"\nvm = { width = \"2s\" }\n")
                .find("group[0].vm.width: must be at most window"),
            std::string::npos);
  EXPECT_NE(error(md + "[[group]]\nname = \"v\"\ncount = 2\nvm = {}\n").find("group[0].count"),
            std::string::npos);
  EXPECT_NE(error(md + "[[group]]\nname = \"v\"\nvm = { cpus = 2 }\n").find("unknown key"),
            std::string::npos);
  EXPECT_EQ(error(md + "[[group]]\nname = \"v\"\nvm = {}\n"), "");
}

TEST(Vm, HypervisorNoiseScenarioLoads) {
  const auto s = scenario::load_scenario(std::string(SCHEDLAB_SOURCE_DIR) +
                                         "/scenarios/hypervisor-noise.toml");
  EXPECT_EQ(s.groups.size(), 8u);
  ASSERT_EQ(s.configs.size(), 4u);
  EXPECT_EQ(s.configs[0].name, "Baseline");
  EXPECT_EQ(s.configs[1].name, "Force idle aware LB");
  EXPECT_EQ(s.configs[2].name, "Push force idle tasks");
  EXPECT_EQ(s.configs[3].name, "Both");
  for (const auto &c : s.configs) {
    const auto k = scenario::apply_config(s, &c);
    EXPECT_TRUE(k.features.on[kernel::__SCHED_FEAT_CORE_COOKIE_FASTPATH]) << c.name;
  }
}

// The experiment reports the forced idle charged to each VM, per configuration.
TEST(VmExperiment, ForcedIdlePerVm) {
  const auto s = scenario::parse_scenario(
      machine(2, 2, "200ms") +
          "[[group]]\nname = \"a\"\nvm = { vcpus = 3, guest = \"stress\", vmm_threads = 0 }\n"
          "[[group]]\nname = \"b\"\nvm = { vcpus = 3, guest = \"stress\", vmm_threads = 0 }\n"
          "[[config]]\nname = \"cookies\"\ncookies = [ { group = \"a\" }, { group = \"b\" } ]\n",
      "t.toml");
  experiment::ExperimentOptions o;
  o.runs = 2;
  const auto r = experiment::run_experiment(s, o);
  const auto st = experiment::experiment_stats(r);
  ASSERT_EQ(st.configs.size(), 1u);
  const auto &v = st.configs[0].vm_forceidle_s;
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].first, "a");
  EXPECT_EQ(v[1].first, "b");
  EXPECT_GT(v[0].second + v[1].second, 0.0);  // 6 vCPUs of 2 cookies on 2 cores: forced idle
  const auto j = experiment::experiment_to_json(r, st);
  EXPECT_TRUE(j["configs"][0].contains("mean_vm_forceidle_s"));
}
