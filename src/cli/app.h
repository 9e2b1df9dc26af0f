// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// The command line's CLI11 tree, built and parsed apart from running a command, so that the
// argument fuzzer (fuzz/fuzz_cli_args.cpp) can exercise the parser alone.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace schedlab::cli {

struct Cli {
  Cli();
  Cli(const Cli &) = delete;
  Cli &operator=(const Cli &) = delete;

  CLI::App app;
  std::vector<Command> commands;
  CLI::App *help = nullptr;
  std::string topic;  // schedlab help TOPIC
};

// Parses argv into `cli`. nullopt: a command (or help) was parsed and should run; otherwise
// the exit code, after printing --help/--version output or a one-line error.
std::optional<int> parse_args(Cli &cli, int argc, char **argv);

}  // namespace schedlab::cli
