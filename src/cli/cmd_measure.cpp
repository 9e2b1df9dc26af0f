// SPDX-License-Identifier: GPL-2.0-only
// schedlab measure: a scenario's workload run for real on this host.
#include <signal.h>

#include <atomic>
#include <cstdio>

#include "cli/commands.h"
#include "cli/output.h"
#include "real/calibrate.h"
#include "real/host_topology.h"
#include "real/measure.h"
#include "real/measure_report.h"

namespace schedlab::cli {
namespace {

std::atomic<bool> g_interrupt{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

extern "C" void on_sigint(int) {
  g_interrupt.store(true);
}

// An Unsupported message starts with "measure: " or with the scenario's file:line.
void print_unsupported(const std::string &msg) {
  std::fprintf(stderr, "schedlab %s%s\n",
               msg.rfind("measure: ", 0) == 0 ? "" : "measure: ", msg.c_str());
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

  Output json_out;
  if (!json_out.open("measure", "--json", json)) return kExitError;
  real::HostInfo host = real::probe_host(sysfs_root);
  if (!host.described)
    std::fprintf(stderr,
                 "schedlab measure: warning: this host's topology cannot be described; running "
                 "on its %d CPUs\n",
                 host.nr_cpus);
  else if (!s.host_machine && !real::same_machine(s.topology, host.machine))
    std::fprintf(stderr,
                 "schedlab measure: warning: the scenario's machine (%s) differs from this host "
                 "(%s); measuring on the host's\n",
                 real::describe(s.topology).c_str(), real::describe(host.machine).c_str());
  try {
    real::check_supported(s, config, host);
  } catch (const real::Unsupported &e) {
    print_unsupported(e.what());
    json_out.discard();
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
        std::fprintf(text_stream(json_out.to_stdout()), "run %llu: %.3f s%s\n",
                     static_cast<unsigned long long>(i + 1),
                     static_cast<double>(results.back().completion_ns) / 1e9,
                     results.back().interrupted ? " (interrupted)" : "");
    }
  } catch (const real::Unsupported &e) {
    print_unsupported(e.what());
    rc = kExitUnsupported;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "schedlab measure: %s\n", e.what());
    rc = kExitError;
  }
  sigaction(SIGINT, &old_sa, nullptr);
  if (results.empty()) {
    json_out.discard();
    return rc ? rc : kExitInterrupted;
  }

  std::FILE *text = text_stream(json_out.to_stdout());
  std::fputs(real::measure_summary(results.back(), host).c_str(), text);
  for (const auto &w : results.back().warnings)
    std::fprintf(stderr, "schedlab measure: warning: %s\n", w.c_str());
  if (results.size() > 1) {
    double sum = 0;
    for (const auto &r : results) sum += static_cast<double>(r.completion_ns) / 1e9;
    std::fprintf(text, "mean completion time over %zu runs: %.3f s\n", results.size(),
                 sum / static_cast<double>(results.size()));
  }
  if (int wrc = json_out.write(real::measure_to_json(results, host).dump(2) + "\n")) return wrc;
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
  cmd->add_option("scenario", a->file, "Scenario file (TOML)")->required()->type_name("FILE");
  cmd->add_option("--config", a->config, "Configuration to run (default: the first)")
      ->type_name("NAME");
  cmd->add_option("--runs", a->runs, "Repeat the run this many times (default 1)")->type_name("N");
  cmd->add_option("--json", a->json,
                  "Write the result as JSON (the schema of run --json) to FILE, or - for stdout")
      ->type_name("FILE");
  cmd->allow_extras(false);
  return {cmd, [a] { return cmd_measure(a->file, a->config, a->runs, a->json, a->root); }};
}

}  // namespace schedlab::cli
