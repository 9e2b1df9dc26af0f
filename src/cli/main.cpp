// SPDX-License-Identifier: GPL-2.0-only
// schedlab: the command line. Thin: parse, call, print. Each command lives in cmd_*.cpp.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <vector>

#include "cli/app.h"
#include "cli/commands.h"
#include "experiment/run_stats.h"
#include "kernel/features.h"
#include "kernel/tunables.h"

namespace {

using namespace schedlab;
using cli::kExitBadInput;

int cmd_help(const std::string &topic, CLI::App &app) {
  if (topic == "features") {
    std::printf(
        "Scheduler features (kernel/sched/features.h style); set with [kernel.features],\n"
        "a configuration's features, or --param kernel.features.NAME=true|false\n"
        "(--feature NAME=true|false for short).\n\n");
    for (const auto &f : kernel::kFeatures) {
      std::printf("  %-30s default %s\n      %s\n", std::string(f.name).c_str(),
                  f.default_value ? "true" : "false", std::string(f.doc).c_str());
      if (!f.patch.empty()) std::printf("      patch: %s\n", std::string(f.patch).c_str());
    }
    return 0;
  }
  if (topic == "tunables") {
    std::printf(
        "Tunables (sysctl style); set with [kernel.tunables], a configuration's tunables,\n"
        "or --param kernel.tunables.NAME=INTEGER (--tunable NAME=INTEGER for short).\n\n");
    for (const auto &t : kernel::kTunables)
      std::printf("  %-26s default %-10lld range %lld..%lld\n      %s\n",
                  std::string(t.name).c_str(), static_cast<long long>(t.default_value),
                  static_cast<long long>(t.min), static_cast<long long>(t.max),
                  std::string(t.doc).c_str());
    return 0;
  }
  if (topic == "stats") {
    std::printf(
        "Run statistics (kernel/stats.h): per CPU in run --json, one value per run in\n"
        "experiment --json/--csv; a table summarises a statistic when the compared\n"
        "configurations differ in something that acts on it.\n\n");
    for (const auto &st : experiment::kStatistics) {
      const auto t = static_cast<std::size_t>(st.table);
      std::printf("  %-26s %-5s %-5s table: %s\n      %s\n", st.name,
                  st.over == experiment::StatOver::CPU ? "cpu" : "run", st.unit,
                  t < experiment::kNrStatTables ? experiment::kStatTables[t].short_name : "none",
                  st.meaning);
      if (*st.acts_on) std::printf("      acted on by: %s\n", st.acts_on);
    }
    return 0;
  }
  if (!topic.empty()) {
    std::fprintf(stderr, "schedlab help: unknown topic '%s' (topics: features, tunables, stats)\n",
                 topic.c_str());
    return kExitBadInput;
  }
  std::cout << app.help();
  std::printf(
      "\nOutputs: every --json, --csv, --trace, --trace-json and -o takes - for stdout; the\n"
      "summary or table then goes to stderr. Outputs are opened before any run.\n"
      "\nExit status (every command):\n"
      "  0    success\n"
      "  1    runtime or I/O error (an output that cannot be written), with the OS's reason\n"
      "  2    bad input or usage: one line names the file, line and field, or the flag\n"
      "  3    unsupported on this host (measure, topology --host)\n"
      "  4    an invariant of the model was violated (--check)\n"
      "  130  interrupted (Ctrl-C, SIGTERM, --max-wall): run, experiment, sweep and measure\n"
      "       write what finished, marked \"partial\": true\n"
      "\nHelp topics: schedlab help features | tunables | stats\n"
      "Scenario format: docs/scenario-format.md; every command: docs/cli.md\n");
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  cli::Cli cli;
  if (const auto code = cli::parse_args(cli, argc, argv)) return *code;
  for (const cli::Command &c : cli.commands)
    if (c.app->parsed()) return c.run();
  if (cli.help->parsed()) return cmd_help(cli.topic, cli.app);
  return 0;
}
