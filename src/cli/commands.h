// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// What the command files share: exit codes, number parsing, and how a command registers.
#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>

#include "sim/time.h"

namespace schedlab::cli {

// Exit codes: 0 ok, 1 internal error, 2 bad input (scenario, flags), 3 an invariant of the
// model was violated (--check).
constexpr int kExitBadInput = 2;
constexpr int kExitInvariant = 3;
// 3 also: the host cannot run what was asked (measure: no core scheduling, a benchmark model).
constexpr int kExitUnsupported = 3;

// A decimal integer 0..2^64-1, nothing else (no sign, no spaces, no suffix).
std::optional<u64> parse_u64(const std::string &s);

// A subcommand: its CLI11 node and what to do once it was parsed.
struct Command {
  CLI::App *app = nullptr;
  std::function<int()> run;
};

Command add_run_command(CLI::App &app);
Command add_experiment_command(CLI::App &app);
Command add_timeline_command(CLI::App &app);
Command add_report_command(CLI::App &app);
Command add_topology_command(CLI::App &app);
Command add_measure_command(CLI::App &app);
Command add_compare_command(CLI::App &app);
Command add_replay_command(CLI::App &app);
Command add_sweep_command(CLI::App &app);

}  // namespace schedlab::cli
