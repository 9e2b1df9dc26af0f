// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// What the command files share: exit codes, number parsing, and how a command registers.
#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "scenario/overrides.h"
#include "sim/time.h"

namespace schedlab::cli {

// Exit codes, the same for every command (docs/cli.md, "Exit status"; `schedlab help`).
constexpr int kExitError = 1;          // a runtime or I/O error, printed with the OS's reason
constexpr int kExitBadInput = 2;       // bad input or usage: one line names file, line and field
constexpr int kExitUnsupported = 3;    // this host cannot do what was asked (measure, topology)
constexpr int kExitInvariant = 4;      // an invariant of the model was violated (--check)
constexpr int kExitInterrupted = 130;  // stopped by SIGINT/SIGTERM or --max-wall (128 + 2)

// --max-work N and --max-duration DURATION (run, experiment, sweep, timeline, report): set the
// limits of scenario/limits.h; 0 after setting them or when not given, else the exit status.
struct LoadLimitArgs {
  std::string max_work, max_duration;
};
int apply_max_work(const char *cmd, const LoadLimitArgs &a);
// Adds --max-work and --max-duration to a command.
void add_max_work_option(CLI::App *c, LoadLimitArgs &a);

// --max-events N and --max-wall DURATION (run, experiment, sweep): how far a run may go.
struct RunLimitArgs {
  std::string max_events, max_wall;
};
void add_run_limit_options(CLI::App *c, RunLimitArgs &a);
// --max-events as a number (0 when not given); nullopt after printing the error.
std::optional<u64> max_events(const char *cmd, const RunLimitArgs &a);

// --feature NAME=V, --tunable NAME=V and --param PATH=V: the kernel switches of run, experiment
// and replay. --feature and --tunable are shorthands for --param kernel.features.NAME=V and
// --param kernel.tunables.NAME=V; the model checks them all in one place (scenario/overrides.h).
struct KernelParamArgs {
  std::vector<std::string> features, tunables, params;
};
// Adds --feature and --tunable (and --param unless `with_param` is false: sweep has its own).
void add_kernel_param_options(CLI::App *c, KernelParamArgs &a, bool with_param = true);
// The switches in the order feature, tunable, param. Throws std::invalid_argument naming the
// option: a malformed argument, a --param that is not a kernel switch, a switch set twice.
std::vector<scenario::KeyOverride> kernel_params(const KernelParamArgs &a);

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
