// schedlab: the command line. Thin: parse, call, print. Each command lives in cmd_*.cpp.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <vector>

#include "cli/commands.h"
#include "kernel/features.h"
#include "kernel/tunables.h"
#include "schedlab/version.h"

namespace {

using namespace schedlab;
using cli::kExitBadInput;

int cmd_help(const std::string &topic, CLI::App &app) {
  if (topic == "features") {
    std::printf(
        "Scheduler features (kernel/sched/features.h style); set with [kernel.features],\n"
        "a configuration's features, or --feature NAME=true|false.\n\n");
    for (const auto &f : kernel::kFeatures)
      std::printf("  %-28s default %s\n", std::string(f.name).c_str(),
                  f.default_value ? "true" : "false");
    return 0;
  }
  if (topic == "tunables") {
    std::printf(
        "Tunables (sysctl style); set with [kernel.tunables], a configuration's tunables,\n"
        "or --tunable NAME=INTEGER.\n\n");
    for (const auto &t : kernel::kTunables)
      std::printf("  %-26s default %-10lld range %lld..%lld\n      %s\n",
                  std::string(t.name).c_str(), static_cast<long long>(t.default_value),
                  static_cast<long long>(t.min), static_cast<long long>(t.max),
                  std::string(t.doc).c_str());
    return 0;
  }
  if (!topic.empty()) {
    std::fprintf(stderr, "schedlab help: unknown topic '%s' (topics: features, tunables)\n",
                 topic.c_str());
    return kExitBadInput;
  }
  std::cout << app.help();
  std::printf(
      "\nHelp topics: schedlab help features | schedlab help tunables\n"
      "Scenario format: docs/scenario-format.md\n");
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{"schedlab: a simulator and lab for the Linux CPU scheduler (SMT core scheduling)"};
  app.set_version_flag("--version", std::string("schedlab ") + kVersion);
  app.require_subcommand(1);

  std::vector<cli::Command> commands = {
      cli::add_run_command(app),     cli::add_experiment_command(app),
      cli::add_sweep_command(app),   cli::add_timeline_command(app),
      cli::add_report_command(app),  cli::add_topology_command(app),
      cli::add_measure_command(app), cli::add_compare_command(app),
      cli::add_replay_command(app)};
  std::string topic;
  CLI::App *help = app.add_subcommand("help", "Explain the CLI, features or tunables");
  help->add_option("topic", topic, "features | tunables");

  // A first word that is not an option must name a command (CLI11 would only say that a
  // subcommand is required).
  if (argc > 1 && argv[1][0] != '-') {
    std::string names;
    bool known = false;
    for (const CLI::App *sub : app.get_subcommands([](const CLI::App *) { return true; })) {
      names += (names.empty() ? "" : ", ") + sub->get_name();
      known |= sub->get_name() == argv[1];
    }
    if (!known) {
      std::fprintf(stderr, "schedlab: unknown command '%s' (commands: %s)\n", argv[1],
                   names.c_str());
      return kExitBadInput;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "schedlab: %s\n", e.what());
    std::fprintf(stderr, "Run 'schedlab --help' for usage.\n");
    return kExitBadInput;
  }
  for (const cli::Command &c : commands)
    if (c.app->parsed()) return c.run();
  if (help->parsed()) return cmd_help(topic, app);
  return 0;
}
