// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// `schedlab report`: one self-contained HTML page (inline CSS and SVG, nothing fetched) from a
// result JSON. The numbers come from the JSON; what needs a replay (latency distributions, the
// timeline excerpt) is handed in ready-made by the caller.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/charts.h"

namespace schedlab::report {

struct ReportExtras {
  std::string scenario_description;
  std::vector<CdfSeries> latency;  // wakeup latency CDFs, one per configuration
  std::string latency_note;        // which runs the CDFs come from
  std::string timeline_svg;        // the excerpt, or empty
  std::string timeline_caption;
};

// An experiment JSON gets the full page; a run JSON a simpler one; a sweep JSON its table and
// charts across the points (no extras: it needs no re-run). Throws nlohmann::json::exception on
// a JSON that lacks the fields the page needs.
std::string html_report(const nlohmann::json &result, const ReportExtras &extras);

}  // namespace schedlab::report
