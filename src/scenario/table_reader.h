// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// The TOML reader's checks, run on a table built in memory: the rt-app reader translates its
// JSON into the table a TOML scenario would have, so both formats share every validation.
#include <toml++/toml.h>

#include <string>

#include "scenario/scenario.h"

namespace schedlab::scenario {

// Nodes built in memory have no source position: their errors carry position 1:1.
Scenario read_scenario_table(const toml::table &root, const std::string &file_name);

}  // namespace schedlab::scenario
