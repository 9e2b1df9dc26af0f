// SPDX-License-Identifier: GPL-2.0-only
// Builds the CLI11 tree of every command and parses argv (see app.h).
#include "cli/app.h"

#include <cstdio>

#include "schedlab/version.h"

namespace schedlab::cli {

Cli::Cli()
    : app("schedlab: a simulator and lab for the Linux CPU scheduler (SMT core scheduling)") {
  app.set_version_flag("--version", std::string("schedlab ") + kVersion);
  app.require_subcommand(1);
  commands = {add_run_command(app),     add_experiment_command(app), add_timeline_command(app),
              add_report_command(app),  add_topology_command(app),   add_measure_command(app),
              add_compare_command(app), add_replay_command(app),     add_sweep_command(app)};
  help = app.add_subcommand("help", "Explain the CLI, features, tunables or run statistics");
  help->add_option("topic", topic, "features | tunables | stats")->type_name("TOPIC");
}

std::optional<int> parse_args(Cli &cli, int argc, char **argv) {
  CLI::App &app = cli.app;
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
  return std::nullopt;
}

}  // namespace schedlab::cli
