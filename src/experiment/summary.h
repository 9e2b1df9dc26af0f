// SPDX-License-Identifier: GPL-2.0-only
#pragma once
#include <string>

#include "experiment/simulation.h"

namespace schedlab::experiment {

// A readable summary of one run, for the terminal.
std::string run_summary(const RunResult &r, const scenario::Scenario &s);

}  // namespace schedlab::experiment
