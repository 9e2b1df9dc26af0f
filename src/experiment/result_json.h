// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// The result of a run as JSON. Keys carry their unit (_ns, _s, _pct). Everything but the
// top-level "host" object is a function of (scenario, configuration, seed, version) only.
#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <type_traits>

#include "experiment/run_stats.h"
#include "scenario/scenario.h"

namespace schedlab::experiment {

nlohmann::ordered_json run_to_json(const RunResult &r, const scenario::Scenario &s);
// The benchmark models' own results (hackbench_time_s, "schbench", "fork", "vms"), added to j.
void bench_json(const workload::BenchReport &b, nlohmann::ordered_json &j);
// --check's figures: "wasted_cores" {threshold_ns, wasted_ns, pct} and "invariant_violations".
void add_check_json(const observe::CheckReport &c, nlohmann::ordered_json &j);
// Per select_idle_sibling() step, keyed by the step names ("target", ..., "fallback"); a NaN
// becomes null.
template <class T>
nlohmann::ordered_json sis_steps_json(const std::array<T, kernel::Kernel::NR_SIS_STEPS> &v) {
  nlohmann::ordered_json o = nlohmann::ordered_json::object();
  for (std::size_t s = 0; s < v.size(); s++) {
    if constexpr (std::is_floating_point_v<T>)
      o[kernel::Kernel::kSisStepNames[s]] =
          std::isfinite(v[s]) ? nlohmann::ordered_json(v[s]) : nlohmann::ordered_json(nullptr);
    else
      o[kernel::Kernel::kSisStepNames[s]] = v[s];
  }
  return o;
}

}  // namespace schedlab::experiment
