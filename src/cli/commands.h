#pragma once
// What the command files share: exit codes, number parsing, and how a command registers.
#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>

#include "sim/time.h"

namespace schedlab::cli {

// Exit codes: 0 ok, 1 internal error, 2 bad input (scenario, flags).
constexpr int kExitBadInput = 2;

// A decimal integer 0..2^64-1, nothing else (no sign, no spaces, no suffix).
std::optional<u64> parse_u64(const std::string &s);

// A subcommand: its CLI11 node and what to do once it was parsed.
struct Command {
  CLI::App *app = nullptr;
  std::function<int()> run;
};

Command add_run_command(CLI::App &app);
Command add_experiment_command(CLI::App &app);

}  // namespace schedlab::cli
