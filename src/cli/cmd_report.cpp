// SPDX-License-Identifier: GPL-2.0-only
// schedlab report: a self-contained HTML page of a result JSON, with charts and a timeline.
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <memory>

#include "cli/commands.h"
#include "cli/output.h"
#include "report/html_report.h"
#include "report/resimulate.h"
#include "report/timeline_svg.h"

namespace schedlab::cli {
namespace {

constexpr Time kExcerpt = 20 * NSEC_PER_MSEC;
constexpr std::size_t kExcerptLimit = 6000;  // keeps the page light

// Points of a CDF from the histogram's percentiles: dense enough for a smooth line, and the
// tail (p99, p99.9, max) kept.
std::vector<std::pair<double, double>> cdf_points(const observe::Histogram &h) {
  std::vector<std::pair<double, double>> pts;
  if (h.count() == 0) return pts;
  std::vector<double> qs;
  for (int i = 1; i <= 200; i++) qs.push_back(i / 200.0);
  for (double q : {0.001, 0.01, 0.991, 0.995, 0.999, 0.9999}) qs.push_back(q);
  std::sort(qs.begin(), qs.end());
  for (double q : qs) {
    const double v = static_cast<double>(h.percentile(q));
    if (!pts.empty() && pts.back().first == v)
      pts.back().second = q;
    else
      pts.emplace_back(v, q);
  }
  return pts;
}

// The configuration whose schedule the excerpt shows: the first comparison's patched one, else
// the first that tags tasks with cookies, else the first.
std::string excerpt_config(const nlohmann::json &j, const scenario::Scenario &s) {
  std::vector<std::string> ran;
  if (j.contains("configs"))
    for (const auto &c : j.at("configs")) ran.push_back(c.at("name").get<std::string>());
  else
    ran.push_back(j.at("config").get<std::string>());
  auto has = [&](const std::string &n) {
    return std::find(ran.begin(), ran.end(), n) != ran.end();
  };
  for (const auto &c : j.value("comparisons", nlohmann::json::array()))
    if (has(c.at("patched").get<std::string>())) return c.at("patched").get<std::string>();
  for (const auto &c : s.configs)
    if ((!c.cookies.empty() || !c.prctl.empty()) && has(c.name)) return c.name;
  return ran.front();
}

// The page of a run or experiment JSON, with what needs a re-run: wakeup latency distributions
// and the timeline excerpt. Throws report::InputError and nlohmann::json::exception.
std::string replayed_report(const report::ResultFile &r, const std::string &input) {
  const report::RunChoice first = report::choose_run(r, std::nullopt, std::nullopt);
  report::Rerun base = report::prepare_rerun(r, first);
  report::ReportExtras x;
  x.scenario_description = base.scenario.description;

  // Wakeup latency: one replay per configuration, on the first seed (the run JSON: its run).
  std::vector<std::string> names;
  if (r.experiment)
    for (const auto &c : r.json.at("configs")) names.push_back(c.at("name").get<std::string>());
  else
    names.push_back(first.config);
  const std::string excerpt = excerpt_config(r.json, base.scenario);
  Time fi_at = kTimeNever, end = 0;
  for (std::size_t i = 0; i < names.size(); i++) {
    report::RunChoice c = first;
    if (r.experiment) c.config = names[i];
    const report::Rerun rep = report::prepare_rerun(r, c);
    // The excerpt starts near the first forced idle after 1 s (or in the run's first part).
    const report::LatencyRerun lr = report::rerun_latency(rep, report::kRepresentativeAfter);
    const observe::Histogram &h = lr.wakeup_latency;
    x.latency.push_back(
        {names[i], cdf_points(h), i,
         fmt::format("p99 {}, p99.9 {}, max {}",
                     report::human_duration(static_cast<double>(h.percentile(0.99))),
                     report::human_duration(static_cast<double>(h.percentile(0.999))),
                     report::human_duration(static_cast<double>(h.max())))});
    if (names[i] == excerpt) fi_at = lr.first_forceidle, end = lr.end;
  }
  x.latency_note = fmt::format("Each line is one run: seed {} of its configuration.", first.seed);

  report::RunChoice ec = first;
  ec.config = excerpt;
  const report::Rerun rep = report::prepare_rerun(r, ec);
  const report::Window win = report::representative_window(fi_at, end, kExcerpt);
  const Time from = win.from;
  Time to = win.to;
  observe::Timeline tl = report::rerun_timeline(rep, from, to, {}, kExcerptLimit);
  if (tl.overflow) {  // a busy machine: a shorter window keeps the page light
    to = from + kExcerpt / 10;
    tl = report::rerun_timeline(rep, from, to, {}, kExcerptLimit);
  }
  if (!tl.overflow) {
    report::TimelineSvgOptions o;
    o.width = 1200;
    o.title = fmt::format("{}, seed {}: {}–{} ms", excerpt, rep.seed, from / NSEC_PER_MSEC,
                          to / NSEC_PER_MSEC);
    x.timeline_svg = report::timeline_svg(tl, o);
    x.timeline_caption = fmt::format(
        "Configuration \"{}\", seed {}, simulated time {}–{} ms{}. Draw other windows with "
        "schedlab timeline {} --config \"{}\" --from T --to T -o FILE.svg.",
        excerpt, rep.seed, from / NSEC_PER_MSEC, to / NSEC_PER_MSEC,
        fi_at != kTimeNever && from <= fi_at && fi_at < to
            ? " (around the first forced idle after 1 s)"
            : "",
        input, excerpt);
  }
  return report::html_report(r.json, x);
}

int cmd_report(const std::string &input, const std::string &out_path,
               const LoadLimitArgs &max_work) {
  if (int rc = apply_max_work("report", max_work)) return rc;
  auto bad = [](const std::string &msg) {
    std::fprintf(stderr, "schedlab report: %s\n", msg.c_str());
    return kExitBadInput;
  };
  // Read the input, then open the output before the replays, so a bad path fails at once.
  report::ResultFile r;
  try {
    r = report::read_result(input);
  } catch (const report::InputError &e) {
    return bad(e.what());
  }
  if (!r.warning.empty()) std::fprintf(stderr, "schedlab report: warning: %s\n", r.warning.c_str());
  Output out;
  if (!out.open("report", "-o", out_path)) return kExitError;
  auto fail = [&](const std::string &msg) {
    out.discard();
    return bad(msg);
  };
  std::string html;
  try {
    // A sweep's page is drawn from its numbers alone: no re-run.
    html = r.sweep ? report::html_report(r.json, {}) : replayed_report(r, input);
  } catch (const report::InputError &e) {
    return fail(e.what());
  } catch (const nlohmann::json::exception &) {
    return fail(input + ": malformed result (a field the report needs is missing or mistyped)");
  }
  return out.write(html);
}

}  // namespace

Command add_report_command(CLI::App &app) {
  struct Args {
    std::string input, out;
    LoadLimitArgs max_work;
  };
  auto a = std::make_shared<Args>();
  CLI::App *cmd = app.add_subcommand(
      "report", "Write a self-contained HTML report (table, charts, timeline) of a result JSON");
  cmd->add_option("result", a->input,
                  "Result JSON of 'experiment --json' (or 'run --json', 'sweep --json')")
      ->required()
      ->type_name("FILE");
  cmd->add_option("-o,--output", a->out, "HTML file to write (- for stdout)")
      ->required()
      ->type_name("FILE");
  add_max_work_option(cmd, a->max_work);
  cmd->allow_extras(false);
  return {cmd, [a] { return cmd_report(a->input, a->out, a->max_work); }};
}

}  // namespace schedlab::cli
