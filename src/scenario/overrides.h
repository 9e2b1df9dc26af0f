// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Scenario keys set from the command line (`schedlab sweep --param PATH=V1,V2,...`): PATH is the
// key's dotted path in the scenario file, so every key of the format can be swept:
// `machine.cores_per_llc`, `machine.costs.context_switch_ns`, `kernel.features.NAME`,
// `kernel.tunables.NAME`, `scenario.duration`, `group.NAME.count` and `config.NAME.features.X`
// (a [[group]] or [[config]] chosen by its name, or `*` for every one).
//
// The kernel's switches are one route for every command: `--param kernel.features.NAME=V` and
// `--param kernel.tunables.NAME=V`, with `--feature NAME=V` and `--tunable NAME=V` as their
// shorthands, set the switch in every configuration, over the configuration's own value
// (apply_kernel_param, which alone checks them).
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/scenario.h"

namespace schedlab::scenario {

struct KeyOverride {
  std::string path;   // dotted
  std::string value;  // a TOML value (4, true, "10ms", [0, 1]); bare text is taken as a string
  std::string given;  // the option as typed ("--feature X=true"), for messages; empty: "PATH=VALUE"
};

// "PATH=VALUE" given to `option` ("--param"); "--feature NAME=V" is kernel.features.NAME=V and
// "--tunable NAME=V" kernel.tunables.NAME=V. Throws std::invalid_argument naming the option.
KeyOverride parse_param(std::string_view option, const std::string &text);

// Whether `path` is a kernel switch, kernel.features.* or kernel.tunables.*.
bool is_kernel_param(const std::string &path);

// Sets the kernel switch `o` names in `k`. Throws std::invalid_argument with one line naming
// the option and the bad value: an unknown name, a value that is not true or false (features:
// also 1/0, on/off, yes/no) or not an integer the tunable takes.
void apply_kernel_param(kernel::KernelConfig &k, const KeyOverride &o);

// Loads a TOML scenario with `overrides` applied in order; the reader then checks the result as
// it checks a file. Errors (an unknown path, a bad value) name the override first.
Scenario load_scenario_with(const std::filesystem::path &file,
                            const std::vector<KeyOverride> &overrides);

}  // namespace schedlab::scenario
