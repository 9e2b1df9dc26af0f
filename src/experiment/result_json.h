#pragma once
// The result of a run as JSON. Keys carry their unit (_ns, _s, _pct). Everything but the
// top-level "host" object is a function of (scenario, configuration, seed, version) only.
#include <nlohmann/json.hpp>

#include "experiment/simulation.h"

namespace schedlab::experiment {

nlohmann::ordered_json run_to_json(const RunResult &r, const scenario::Scenario &s);
// --check's figures: "wasted_cores" {threshold_ns, wasted_ns, pct} and "invariant_violations".
void add_check_json(const observe::CheckReport &c, nlohmann::ordered_json &j);

}  // namespace schedlab::experiment
