// SPDX-License-Identifier: GPL-2.0-only
// schedlab measure: a scenario's workload run for real on this host.
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <fstream>

#include "cli/commands.h"
#include "real/calibrate.h"
#include "real/host_topology.h"
#include "real/measure.h"
#include "real/measure_report.h"

namespace schedlab::cli {
namespace {

constexpr int kExitInterrupted = 130;  // 128 + SIGINT, as a shell reports it

std::atomic<bool> g_interrupt{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

extern "C" void on_sigint(int) {
  g_interrupt.store(true);
}

int cmd_measure(const std::string &file, const std::string &config_name,
                const std::string &runs_text, const std::string &json,
                const std::string &sysfs_root) {
  scenario::Scenario s;
  try {
    s = scenario::load_scenario(file);
  } catch (const scenario::ScenarioError &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return kExitBadInput;
  }
  const scenario::ConfigSpec *config = nullptr;
  if (!config_name.empty() || !s.configs.empty()) {
    std::string names;
    for (const auto &c : s.configs) {
      names += (names.empty() ? "" : ", ") + c.name;
      if (c.name == config_name || (config_name.empty() && !config)) config = &c;
    }
    if (!config && !(s.configs.empty() && config_name == "default")) {
      std::fprintf(stderr, "schedlab measure: --config %s: no such configuration (%s)\n",
                   config_name.c_str(),
                   names.empty() ? "the scenario has only \"default\"" : names.c_str());
      return kExitBadInput;
    }
  }
  const std::optional<u64> runs = parse_u64(runs_text);
  if (!runs || *runs < 1 || *runs > 10000) {
    std::fprintf(stderr, "schedlab measure: --runs %s: expected an integer from 1 to 10000\n",
                 runs_text.c_str());
    return kExitBadInput;
  }

  real::HostInfo host = real::probe_host(sysfs_root);
  if (!host.described)
    std::printf("measure: this host's topology cannot be described; running on its %d CPUs\n",
                host.nr_cpus);
  else if (!s.host_machine && !real::same_machine(s.topology, host.machine))
    std::printf(
        "measure: the scenario's machine (%s) differs from this host (%s); measuring on "
        "the host's\n",
        real::describe(s.topology).c_str(), real::describe(host.machine).c_str());
  try {
    real::check_supported(s, config, host);
  } catch (const real::Unsupported &e) {
    std::printf("%s\n", e.what());
    return kExitUnsupported;
  }

  // From here on Ctrl-C only sets the flag: the threads stop, the partial result is printed.
  struct sigaction sa = {};
  struct sigaction old_sa = {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_sa);
  host.ns_per_loop = real::calibrate_ns_per_loop();
  std::vector<real::MeasureResult> results;
  int rc = 0;
  try {
    for (u64 i = 0; i < *runs && !g_interrupt.load(); i++) {
      results.push_back(real::run_measure(s, config, host, g_interrupt));
      if (*runs > 1)
        std::printf("run %llu: %.3f s%s\n", static_cast<unsigned long long>(i + 1),
                    static_cast<double>(results.back().completion_ns) / 1e9,
                    results.back().interrupted ? " (interrupted)" : "");
    }
  } catch (const real::Unsupported &e) {
    std::printf("%s\n", e.what());
    rc = kExitUnsupported;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "schedlab measure: %s\n", e.what());
    rc = 1;
  }
  sigaction(SIGINT, &old_sa, nullptr);
  if (results.empty()) return rc ? rc : kExitInterrupted;

  std::fputs(real::measure_summary(results.back(), host).c_str(), stdout);
  if (results.size() > 1) {
    double sum = 0;
    for (const auto &r : results) sum += static_cast<double>(r.completion_ns) / 1e9;
    std::printf("mean completion time over %zu runs: %.3f s\n", results.size(),
                sum / static_cast<double>(results.size()));
  }
  if (!json.empty()) {
    std::ofstream out(json);
    if (!out) {
      std::fprintf(stderr, "schedlab measure: --json %s: cannot open for writing\n", json.c_str());
      return kExitBadInput;
    }
    out << real::measure_to_json(results, host).dump(2) << "\n";
    if (!out.good()) {
      std::fprintf(stderr, "schedlab measure: --json %s: write failed\n", json.c_str());
      return 1;
    }
  }
  if (rc) return rc;
  return results.back().interrupted ? kExitInterrupted : 0;
}

}  // namespace

Command add_measure_command(CLI::App &app) {
  struct Args {
    std::string file, config, json, runs = "1", root = real::kDefaultSysfsRoot;
  };
  auto a = std::make_shared<Args>();
  CLI::App *cmd = app.add_subcommand(
      "measure", "Run a scenario's workload for real on this host and report the kernel's view");
  cmd->add_option("scenario", a->file, "Scenario file (TOML)")->required();
  cmd->add_option("--config", a->config, "Configuration to run (default: the first)");
  cmd->add_option("--runs", a->runs, "Repeat the run this many times (default 1)");
  cmd->add_option("--json", a->json, "Write the result as JSON (the schema of run --json)");
  cmd->allow_extras(false);
  return {cmd, [a] { return cmd_measure(a->file, a->config, a->runs, a->json, a->root); }};
}

}  // namespace schedlab::cli
