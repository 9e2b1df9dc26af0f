// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Scenario keys set from the command line (`schedlab sweep --param PATH=V1,V2,...`): PATH is the
// key's dotted path in the scenario file, so every key of the format can be swept:
// `machine.cores_per_llc`, `machine.costs.context_switch_ns`, `kernel.features.NAME`,
// `kernel.tunables.NAME`, `scenario.duration`, `group.NAME.count` and `config.NAME.features.X`
// (a [[group]] or [[config]] chosen by its name, or `*` for every one).
#include <filesystem>
#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace schedlab::scenario {

struct KeyOverride {
  std::string path;   // dotted
  std::string value;  // a TOML value (4, true, "10ms", [0, 1]); bare text is taken as a string
};

// Loads a TOML scenario with `overrides` applied in order; the reader then checks the result as
// it checks a file. Errors (an unknown path, a bad value) name the override first.
Scenario load_scenario_with(const std::filesystem::path &file,
                            const std::vector<KeyOverride> &overrides);

}  // namespace schedlab::scenario
