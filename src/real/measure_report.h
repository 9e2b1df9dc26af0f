// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// A measured run as JSON (the schema of `schedlab run --json` where the fields exist, plus
// "measured": true and the host) and as a terminal summary.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "real/measure.h"

namespace schedlab::real {

// `runs` in order; the full result is the last run's, "runs" lists every run's completion.
nlohmann::ordered_json measure_to_json(const std::vector<MeasureResult> &runs,
                                       const HostInfo &host);

std::string measure_summary(const MeasureResult &r, const HostInfo &host);

// The run's benchmark metrics as an experiment summarises them (experiment::kBenchMetrics
// order, NaN where absent); *expected gets which the run has.
std::vector<double> measure_bench_metrics(const MeasureResult &r, std::uint64_t *expected);

}  // namespace schedlab::real
