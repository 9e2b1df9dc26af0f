// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// A run's kernel: the scenario's [kernel] section, one of its configurations over it, then the
// command line's switches over both.
#include <string>
#include <vector>

#include "kernel/tunables.h"
#include "scenario/overrides.h"
#include "scenario/scenario.h"

namespace schedlab::scenario {

// Resolves a configuration by name ("" = the first, or the implicit default), then sets the
// command line's kernel switches (kernel.features.NAME / kernel.tunables.NAME keys,
// scenario/overrides.h) over the configuration's own. Throws std::invalid_argument with a
// one-line message on an unknown name or bad value.
struct ConfigChoice {
  std::string name;
  kernel::KernelConfig kernel;
};
ConfigChoice choose_config(const Scenario &s, const std::string &name,
                           const std::vector<KeyOverride> &kernel_params);
// The same with the shorthands' "NAME=VALUE" texts: --feature and --tunable.
ConfigChoice choose_config(const Scenario &s, const std::string &name,
                           const std::vector<std::string> &feature_overrides,
                           const std::vector<std::string> &tunable_overrides);

}  // namespace schedlab::scenario
