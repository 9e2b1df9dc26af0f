// SPDX-License-Identifier: GPL-2.0-only
// schedlab timeline: an SVG picture of a window of one run's schedule.
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <memory>

#include "cli/commands.h"
#include "cli/output.h"
#include "observe/timeline_recorder.h"
#include "report/resimulate.h"
#include "report/timeline_svg.h"

namespace schedlab::cli {
namespace {

// With only one of --from/--to: 50 ms from or to it. With neither: the 20 ms report shows,
// around the first forced idle after 1 s (report::representative_window()). A window holds
// at most 20000 slices and wakeups.
constexpr Time kDefaultWindow = 50 * NSEC_PER_MSEC;
constexpr Time kRepresentativeLength = 20 * NSEC_PER_MSEC;

struct TimelineArgs {
  std::string input, config, seed, from, to, cpus, out;
  LoadLimitArgs max_work;
  bool util = false;
};

// A result JSON starts with '{'; a TOML scenario never does. An rt-app scenario does too: a
// result is an object with "config" and "seed", "configs" or "params" (the rest, including JSON
// that does not parse, is left to read_result's messages unless it is rt-app's).
bool is_json(const std::string &path) {
  std::ifstream in(path);
  char c = 0;
  in >> std::ws >> c;
  if (!in || c != '{') return false;
  in.seekg(0);
  const auto j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false,
                                       /*ignore_comments=*/true);
  if (j.is_discarded() || !j.is_object()) return true;
  const bool result =
      (j.contains("config") && j.contains("seed")) || j.contains("configs") || j.contains("params");
  return result || !j.contains("tasks") || j["tasks"].is_array();
}

int cmd_timeline(const TimelineArgs &a) {
  auto bad = [](const std::string &msg) {
    std::fprintf(stderr, "schedlab timeline: %s\n", msg.c_str());
    return kExitBadInput;
  };
  std::optional<u64> seed;
  if (!a.seed.empty() && !(seed = parse_u64(a.seed)))
    return bad("--seed " + a.seed + ": expected an integer from 0 to 2^64-1");
  std::string why;
  std::optional<Time> from, to;
  if (!a.from.empty() && !(from = scenario::parse_duration(a.from, &why)))
    return bad("--from " + a.from + ": " + why);
  if (!a.to.empty() && !(to = scenario::parse_duration(a.to, &why)))
    return bad("--to " + a.to + ": " + why);
  Time f = from.value_or(to && *to > kDefaultWindow ? *to - kDefaultWindow : 0);
  Time t = to.value_or(f + kDefaultWindow);
  if (f >= t) return bad("--from must be before --to");
  const bool representative = !from && !to;
  std::vector<int> cpus;
  if (!a.cpus.empty()) {
    auto list = scenario::parse_cpulist(a.cpus, &why);
    if (!list) return bad("--cpus " + a.cpus + ": " + why);
    cpus = *list;
  }
  if (int rc = apply_max_work("timeline", a.max_work)) return rc;
  Output out;  // opened before the replay, so that a bad path fails at once
  if (!out.open("timeline", "-o", a.out)) return kExitError;
  auto fail = [&](const std::string &msg) {
    out.discard();
    return bad(msg);
  };
  observe::Timeline tl;
  report::Rerun replay;
  try {
    report::RunChoice choice;
    const bool json = is_json(a.input);
    if (json) {
      const report::ResultFile r = report::read_result(a.input);
      if (!r.warning.empty())
        std::fprintf(stderr, "schedlab timeline: warning: %s\n", r.warning.c_str());
      choice =
          report::choose_run(r, a.config.empty() ? std::nullopt : std::optional(a.config), seed);
      replay = report::prepare_rerun(r, choice);
    } else {
      choice.config = a.config;
      replay = report::prepare_rerun(a.input, choice);
    }
    if (!json) replay.seed = seed.value_or(replay.scenario.seed);
    if (representative) {
      const report::LatencyRerun lr = report::rerun_latency(replay, report::kRepresentativeAfter);
      const report::Window w =
          report::representative_window(lr.first_forceidle, lr.end, kRepresentativeLength);
      f = w.from;
      t = w.to;
    }
    tl = report::rerun_timeline(replay, f, t, cpus, observe::TimelineRecorder::kDefaultLimit,
                                a.util);
  } catch (const report::InputError &e) {
    return fail(e.what());
  }
  if (tl.end <= f)
    return fail(fmt::format("--from {}: the run ends at {:.3f} ms, before the window starts",
                            a.from, static_cast<double>(tl.end) / 1e6));
  if (tl.overflow)
    return fail(
        fmt::format("the window [{}, {}) holds more than {} slices, wakeups and util samples; "
                    "choose a "
                    "shorter one with --from/--to, or fewer CPUs with --cpus",
                    a.from.empty() ? "0" : a.from, a.to.empty() ? "..." : a.to,
                    observe::TimelineRecorder::kDefaultLimit));
  report::TimelineSvgOptions o;
  o.title =
      fmt::format("{}: {}, seed {}, {:.3f}–{:.3f} ms", replay.scenario.name, replay.config.name,
                  replay.seed, static_cast<double>(f) / 1e6, static_cast<double>(t) / 1e6);
  return out.write(report::timeline_svg(tl, o));
}

}  // namespace

Command add_timeline_command(CLI::App &app) {
  auto a = std::make_shared<TimelineArgs>();
  CLI::App *cmd = app.add_subcommand(
      "timeline", "Draw a window of a run's schedule as SVG (CPU lanes, cookies, forced idle)");
  cmd->add_option("input", a->input,
                  "Scenario (.toml) or result JSON of 'run --json' / 'experiment --json'")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--config", a->config,
                  "Configuration (default: the JSON's, or the scenario's first)")
      ->type_name("NAME");
  cmd->add_option("--seed", a->seed, "Seed (default: the JSON's first, or the scenario's)")
      ->type_name("N");
  cmd->add_option("--from", a->from,
                  "Window start, simulated time (e.g. 1s; default: the 20 ms window report draws, "
                  "around the first forced idle after 1 s)")
      ->type_name("DURATION");
  cmd->add_option("--to", a->to, "Window end (e.g. 1.02s; default --from + 50ms)")
      ->type_name("DURATION");
  cmd->add_option("--cpus", a->cpus, "Only these CPUs (cpulist, e.g. 0-3,8)")->type_name("LIST");
  cmd->add_flag("--util", a->util,
                "Draw each CPU's util_avg and util_est (PELT, 0-1024) over its lane");
  cmd->add_option("-o,--output", a->out, "SVG file to write (- for stdout)")
      ->required()
      ->type_name("FILE");
  add_max_work_option(cmd, a->max_work);
  cmd->allow_extras(false);
  return {cmd, [a] { return cmd_timeline(*a); }};
}

}  // namespace schedlab::cli
