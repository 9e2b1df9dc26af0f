// SPDX-License-Identifier: GPL-2.0-only
// schedlab replay: an ftrace text trace or a trace-cmd data file, replayed as a workload on any
// machine and features.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/timehist_view.h"
#include "engine/simulation.h"
#include "experiment/result_json.h"
#include "experiment/summary.h"
#include "scenario/config.h"
#include "scenario/ftrace_reader.h"

namespace schedlab::cli {
namespace {

struct ReplayArgs {
  std::string trace, base, config, seed, json;
  std::vector<std::string> cookies;
  KernelParamArgs kernel;
  TimehistArgs timehist;
};

// Per task: CPU time in the trace and in the replay.
std::string replay_table(const workload::ReplaySpec &spec, const engine::RunResult &r,
                         Time *trace_total, Time *replay_total) {
  std::string out =
      fmt::format("\nReplay of {} ({} tasks, {:.6f} s traced on {} CPUs)\n", spec.source,
                  spec.tasks.size(), static_cast<double>(spec.span_ns) / 1e9, spec.nr_cpus);
  out += fmt::format("  {:<20} {:>8} {:>14} {:>14} {:>8} {:>7} {:>7}\n", "task", "pid",
                     "trace run (ms)", "replay run (ms)", "diff %", "by task", "by timer");
  *trace_total = *replay_total = 0;
  for (std::size_t i = 0; i < spec.tasks.size(); i++) {
    const auto &t = spec.tasks[i];
    const Time replayed = i < r.metrics.tasks.size() ? r.metrics.tasks[i].runtime_ns : 0;
    *trace_total += t.trace_runtime_ns;
    *replay_total += replayed;
    const double diff =
        t.trace_runtime_ns
            ? 100.0 * (static_cast<double>(replayed) - static_cast<double>(t.trace_runtime_ns)) /
                  static_cast<double>(t.trace_runtime_ns)
            : 0.0;
    out +=
        fmt::format("  {:<20} {:>8} {:>14.3f} {:>14.3f} {:>+8.2f} {:>7} {:>7}\n", t.comm,
                    t.trace_pid, static_cast<double>(t.trace_runtime_ns) / 1e6,
                    static_cast<double>(replayed) / 1e6, diff, t.woken_by_task, t.woken_by_timer);
  }
  out += fmt::format("  {:<29} {:>14.3f} {:>14.3f}\n", "total",
                     static_cast<double>(*trace_total) / 1e6,
                     static_cast<double>(*replay_total) / 1e6);
  return out;
}

int cmd_replay(const ReplayArgs &a) {
  std::shared_ptr<const workload::ReplaySpec> spec;
  scenario::Scenario base, s;
  scenario::ConfigChoice choice;
  std::optional<u64> seed;
  if (!a.seed.empty() && !(seed = parse_u64(a.seed))) {
    std::fprintf(stderr, "schedlab replay: --seed %s: expected an integer from 0 to 2^64-1\n",
                 a.seed.c_str());
    return kExitBadInput;
  }
  std::vector<std::vector<std::string>> cookies;
  for (const auto &c : a.cookies) {
    std::vector<std::string> list;
    std::size_t pos = 0;
    for (;;) {
      const auto comma = c.find(',', pos);
      list.push_back(c.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
      if (list.back().empty()) {
        std::fprintf(stderr, "schedlab replay: --cookie %s: expected task names: comm,comm,...\n",
                     c.c_str());
        return kExitBadInput;
      }
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    cookies.push_back(std::move(list));
  }
  try {
    spec = scenario::derive_replay(scenario::read_trace(a.trace));
    if (!a.base.empty()) base = scenario::load_scenario(a.base);
    s = scenario::replay_scenario(spec, a.base.empty() ? nullptr : &base, cookies);
    choice = scenario::choose_config(s, a.config, kernel_params(a.kernel));
  } catch (const scenario::TraceUnsupported &e) {
    std::fprintf(stderr, "schedlab replay: %s\n", e.what());
    return kExitUnsupported;
  } catch (const scenario::ScenarioError &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return kExitBadInput;
  } catch (const std::invalid_argument &e) {
    std::fprintf(stderr, "schedlab replay: %s\n", e.what());
    return kExitBadInput;
  }
  Output out;  // opened before the run, so that a bad path fails at once
  if (!out.open("replay", "--json", a.json)) return kExitError;
  engine::RunResult r;
  TimehistView timehist;
  try {
    engine::Simulation sim(s, choice.name, choice.kernel, seed.value_or(s.seed));
    if (int rc = timehist.start("replay", a.timehist, sim, {})) {
      out.discard();
      return rc;
    }
    r = sim.run();
  } catch (const std::invalid_argument &e) {
    out.discard();
    std::fprintf(stderr, "schedlab replay: %s\n", e.what());
    return kExitBadInput;
  }
  std::FILE *text = text_stream(a.json == "-");
  std::fputs(experiment::run_summary(r, s).c_str(), text);
  Time trace_total = 0, replay_total = 0;
  std::fputs(replay_table(*spec, r, &trace_total, &replay_total).c_str(), text);
  if (int rc = timehist.print("replay", text)) return rc;
  if (out.wanted()) {
    nlohmann::ordered_json j = experiment::run_to_json(r, s);
    nlohmann::ordered_json rep;
    rep["source"] = spec->source;
    rep["traced_cpus"] = spec->nr_cpus;
    rep["traced_span_ns"] = spec->span_ns;
    rep["trace_runtime_ns"] = trace_total;
    rep["replay_runtime_ns"] = replay_total;
    nlohmann::ordered_json tasks = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < spec->tasks.size(); i++) {
      const auto &t = spec->tasks[i];
      nlohmann::ordered_json tj;
      tj["comm"] = t.comm;
      tj["trace_pid"] = t.trace_pid;
      tj["trace_runtime_ns"] = t.trace_runtime_ns;
      tj["replay_runtime_ns"] = r.metrics.tasks[i].runtime_ns;
      tj["woken_by_task"] = t.woken_by_task;
      tj["woken_by_timer"] = t.woken_by_timer;
      tasks.push_back(std::move(tj));
    }
    rep["tasks"] = std::move(tasks);
    j["replay"] = std::move(rep);
    return out.write(j.dump(2) + "\n");
  }
  return 0;
}

}  // namespace

Command add_replay_command(CLI::App &app) {
  auto a = std::make_shared<ReplayArgs>();
  CLI::App *c = app.add_subcommand(
      "replay", "Replay a kernel trace (ftrace text, trace-cmd report or trace.dat) as a workload");
  c->add_option("trace", a->trace,
                "ftrace text or trace-cmd data file: sched_switch, sched_waking, fork, exit")
      ->required()
      ->type_name("FILE");
  c->add_option("--scenario", a->base,
                "Take the machine, costs, kernel and configurations from this scenario "
                "(default: the trace's CPU count, no SMT)")
      ->type_name("FILE");
  c->add_option("--config", a->config, "Configuration to run (default: the first)")
      ->type_name("NAME");
  c->add_option("--seed", a->seed, "Random seed (default: the scenario's)")->type_name("N");
  c->add_option("--json", a->json,
                "Write the run and the per-task comparison as JSON to FILE (- for stdout)")
      ->type_name("FILE");
  c->add_option("--cookie", a->cookies,
                "Tasks sharing one core-scheduling cookie: comm,comm,... (repeatable)")
      ->take_all()
      ->allow_extra_args(false)
      ->type_name("COMM,...");
  add_kernel_param_options(c, a->kernel);
  add_timehist_options(c, a->timehist);
  c->allow_extras(false);
  return {c, [a] { return cmd_replay(*a); }};
}

}  // namespace schedlab::cli
