// SPDX-License-Identifier: GPL-2.0-only
// schedlab run: one run of a scenario, its summary, JSON and traces.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <tuple>

#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/output.h"
#include "cli/provenance.h"
#include "cli/timehist_view.h"
#include "engine/simulation.h"
#include "experiment/result_json.h"
#include "experiment/summary.h"
#include "observe/chrome_trace_writer.h"
#include "observe/ftrace_writer.h"
#include "observe/tracedat_writer.h"
#include "scenario/config.h"

namespace schedlab::cli {
namespace {

struct TraceOptions {
  std::string file, dat, json, from, to, cpus;
  bool pelt = false;
};

struct CheckOptions {
  bool on = false;
  std::string wasted_threshold;
};

// --wasted-threshold, or the default; nullopt after printing the error.
std::optional<Time> wasted_threshold(const char *cmd, const std::string &text) {
  if (text.empty()) return observe::InvariantChecker::kDefaultWastedThreshold;
  std::string why;
  const auto d = scenario::parse_duration(text, &why);
  if (!d) std::fprintf(stderr, "%s: --wasted-threshold %s: %s\n", cmd, text.c_str(), why.c_str());
  return d;
}

int cmd_run(const std::string &file, const std::string &config, std::optional<u64> seed,
            const std::string &json, const KernelParamArgs &kernel, const TraceOptions &trace,
            const CheckOptions &check, bool latency, const TimehistArgs &timehist, u64 max_events,
            std::optional<std::chrono::nanoseconds> max_wall, const OptionsJson &options) {
  scenario::Scenario s;
  scenario::ConfigChoice choice;
  try {
    s = scenario::load_scenario(file);
    choice = scenario::choose_config(s, config, kernel_params(kernel));
  } catch (const scenario::ScenarioError &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return kExitBadInput;
  } catch (const std::invalid_argument &e) {
    std::fprintf(stderr, "schedlab run: %s\n", e.what());
    return kExitBadInput;
  }
  std::unique_ptr<engine::Simulation> sim;
  try {
    sim =
        std::make_unique<engine::Simulation>(s, choice.name, choice.kernel, seed.value_or(s.seed));
  } catch (const std::invalid_argument &e) {
    std::fprintf(stderr, "schedlab run: %s\n", e.what());
    return kExitBadInput;
  }
  // --trace (ftrace text), --trace-dat (trace-cmd's trace.dat) and --trace-json (Chrome trace
  // events), all streamed, for the window [--trace-from, --trace-to) and the CPUs of
  // --trace-cpus. Every output is opened before the run, so that a bad path fails at once.
  if (!at_most_one_stdout("run", {{"--json", json},
                                  {"--trace", trace.file},
                                  {"--trace-dat", trace.dat},
                                  {"--trace-json", trace.json}}))
    return kExitBadInput;
  Output json_out, trace_out, dat_out, json_trace_out;
  std::unique_ptr<observe::FtraceWriter> writer;
  std::unique_ptr<observe::TraceDatWriter> dat_writer;
  std::unique_ptr<observe::ChromeTraceWriter> json_writer;
  TimehistView timehist_view;
  const bool tracing = !trace.file.empty() || !trace.dat.empty() || !trace.json.empty();
  // The window and the event choice shape a trace (and the timehist view): without one they
  // would be ignored.
  for (auto [set, flag] :
       {std::pair{!trace.from.empty(), "--trace-from"}, std::pair{!trace.to.empty(), "--trace-to"},
        std::pair{!trace.cpus.empty(), "--trace-cpus"}})
    if (set && !tracing && !timehist.on) {
      std::fprintf(stderr,
                   "schedlab run: %s needs --trace, --trace-dat, --trace-json or --timehist\n",
                   flag);
      return kExitBadInput;
    }
  if (trace.pelt && !tracing) {
    std::fprintf(stderr, "schedlab run: --trace-pelt needs --trace, --trace-dat or --trace-json\n");
    return kExitBadInput;
  }
  std::string why;
  Time from = 0, to = kTimeNever;
  for (auto [text, out, flag] :
       {std::tuple{trace.from, &from, "--trace-from"}, std::tuple{trace.to, &to, "--trace-to"}}) {
    if (text.empty()) continue;
    const auto d = scenario::parse_duration(text, &why);
    if (!d) {
      std::fprintf(stderr, "schedlab run: %s %s: %s\n", flag, text.c_str(), why.c_str());
      return kExitBadInput;
    }
    *out = *d;
  }
  if (from >= to) {
    std::fprintf(stderr, "schedlab run: --trace-from must be before --trace-to\n");
    return kExitBadInput;
  }
  std::vector<int> cpus;
  if (!trace.cpus.empty()) {
    auto list = scenario::parse_cpulist(trace.cpus, &why);
    if (!list) {
      std::fprintf(stderr, "schedlab run: --trace-cpus %s: %s\n", trace.cpus.c_str(), why.c_str());
      return kExitBadInput;
    }
    for (int c : *list)
      if (c >= sim->kernel().nr_cpu_ids()) {
        std::fprintf(stderr, "schedlab run: --trace-cpus %s: cpu %d does not exist (%d CPUs)\n",
                     trace.cpus.c_str(), c, sim->kernel().nr_cpu_ids());
        return kExitBadInput;
      }
    cpus = *list;
  }
  // perf sched timehist --time and -C: the same window and CPUs.
  observe::Timehist::Options th;
  th.from = from;
  th.to = to;
  th.cpus = cpus;
  if (int rc = timehist_view.start("run", timehist, *sim, th)) return rc;
  if (tracing) {
    if (!trace_out.open("run", "--trace", trace.file) ||
        !dat_out.open("run", "--trace-dat", trace.dat) ||
        !json_trace_out.open("run", "--trace-json", trace.json))
      return kExitError;
    if (trace_out.wanted()) {
      writer = std::make_unique<observe::FtraceWriter>(sim->kernel(), trace_out.file(), from, to,
                                                       cpus, trace.pelt);
      if (int err = writer->error()) {
        std::fprintf(stderr, "schedlab run: --trace %s: cannot create a temporary file: %s\n",
                     trace.file.c_str(), std::strerror(err));
        return kExitError;
      }
      sim->add_tracer(writer.get());
    }
    if (dat_out.wanted()) {
      dat_writer = std::make_unique<observe::TraceDatWriter>(sim->kernel(), dat_out.file(), from,
                                                             to, cpus, trace.pelt);
      if (int err = dat_writer->error()) {
        std::fprintf(stderr, "schedlab run: --trace-dat %s: cannot create a temporary file: %s\n",
                     trace.dat.c_str(), std::strerror(err));
        return kExitError;
      }
      sim->add_tracer(dat_writer.get());
    }
    if (json_trace_out.wanted()) {
      json_writer = std::make_unique<observe::ChromeTraceWriter>(
          sim->kernel(), json_trace_out.file(), from, to, cpus, trace.pelt);
      sim->add_tracer(json_writer.get());
    }
  }
  if (!check.on && !check.wasted_threshold.empty()) {
    std::fprintf(stderr, "schedlab run: --wasted-threshold needs --check\n");
    return kExitBadInput;
  }
  if (check.on) {
    const auto threshold = wasted_threshold("schedlab run", check.wasted_threshold);
    if (!threshold) return kExitBadInput;
    sim->enable_check(*threshold);
  }
  if (!json_out.open("run", "--json", json)) return kExitError;
  // Ctrl-C, SIGTERM and --max-wall stop the run at simulated time T: the result is the tasks'
  // state at T, marked partial. --max-events is an error: a run that long is a runaway.
  auto stop = std::make_unique<StopOnSignal>(true, max_wall);
  sim->set_stop(&stop->flag(), max_events);
  const engine::RunResult r = sim->run();
  const bool wall_expired = stop->wall_expired();
  stop.reset();
  if (r.stop == engine::RunResult::Stop::EventLimit) {
    json_out.discard();
    trace_out.discard();
    dat_out.discard();
    json_trace_out.discard();
    std::fprintf(stderr,
                 "schedlab run: the run reached the limit of %llu events (--max-events) at "
                 "simulated time %.9f s; raise --max-events\n",
                 static_cast<unsigned long long>(max_events),
                 static_cast<double>(r.metrics.end_ns) / 1e9);
    return kExitBadInput;
  }
  const bool partial = r.stop == engine::RunResult::Stop::Interrupted;
  if (writer)
    if (int err = writer->finish()) {
      std::fprintf(stderr, "schedlab run: --trace %s: write failed: %s\n", trace.file.c_str(),
                   std::strerror(err));
      return kExitError;
    }
  if (dat_writer)
    if (int err = dat_writer->finish()) {
      std::fprintf(stderr, "schedlab run: --trace-dat %s: write failed: %s\n", trace.dat.c_str(),
                   std::strerror(err));
      return kExitError;
    }
  if (json_writer) json_writer->finish(r.metrics.end_ns);
  if (int rc = trace_out.close()) return rc;
  if (int rc = dat_out.close()) return rc;
  if (int rc = json_trace_out.close()) return rc;
  const bool data_on_stdout =
      json == "-" || trace.file == "-" || trace.dat == "-" || trace.json == "-";
  if (partial)
    std::fprintf(text_stream(data_on_stdout),
                 "PARTIAL: stopped at simulated time %.9f s; the figures cover [0, %.9f s)\n",
                 static_cast<double>(r.metrics.end_ns) / 1e9,
                 static_cast<double>(r.metrics.end_ns) / 1e9);
  std::fputs(experiment::run_summary(r, s).c_str(), text_stream(data_on_stdout));
  if (latency) std::fputs(experiment::latency_table(r).c_str(), text_stream(data_on_stdout));
  if (int rc = timehist_view.print("run", text_stream(data_on_stdout))) return rc;
  if (json_out.wanted()) {
    nlohmann::ordered_json j = experiment::run_to_json(r, s);
    j["partial"] = partial;
    if (partial) {
      j["stop_reason"] = wall_expired ? "max-wall" : "interrupted";
      j["stopped_at_ns"] = r.metrics.end_ns;
      j["runs_finished"] = 0;
    }
    j["scenario_source"] = scenario_source_json(s.file, s.source, json);
    j["options"] = options.json();
    if (int rc = json_out.write(j.dump(2) + "\n")) return rc;
  }
  if (partial)
    std::fprintf(stderr, "schedlab run: %s at simulated time %.9f s; wrote the partial result\n",
                 wall_expired ? "--max-wall reached" : "interrupted",
                 static_cast<double>(r.metrics.end_ns) / 1e9);
  if (r.check && r.check->violations) {
    for (const auto &v : r.check->first)
      std::fprintf(stderr, "schedlab run: invariant violated at %s\n",
                   observe::format_violation(v).c_str());
    if (r.check->violations > r.check->first.size())
      std::fprintf(stderr, "schedlab run: %llu invariant violations in all\n",
                   static_cast<unsigned long long>(r.check->violations));
    return partial ? kExitInterrupted : kExitInvariant;
  }
  return partial ? kExitInterrupted : 0;
}

}  // namespace

Command add_run_command(CLI::App &app) {
  struct Args {
    std::string file, config, json, seed;
    LoadLimitArgs max_work;
    RunLimitArgs limits;
    KernelParamArgs kernel;
    TraceOptions trace;
    CheckOptions check;
    bool latency = false;
    TimehistArgs timehist;
  };
  auto a = std::make_shared<Args>();
  CLI::App *run = app.add_subcommand("run", "Simulate one run of a scenario and print a summary");
  run->add_option("scenario", a->file, "Scenario file (TOML or rt-app JSON)")
      ->required()
      ->type_name("FILE");
  run->add_option("--config", a->config, "Configuration to run (default: the first)")
      ->type_name("NAME");
  run->add_option("--seed", a->seed, "Random seed, 0..2^64-1 (default: the scenario's)")
      ->type_name("N");
  run->add_option("--json", a->json, "Write the full result as JSON to FILE (- for stdout)")
      ->type_name("FILE");
  run->add_option("--trace", a->trace.file,
                  "Write an ftrace text trace (the nop tracer's format) to FILE (- for stdout)")
      ->type_name("FILE");
  run->add_option("--trace-dat", a->trace.dat,
                  "Write the same events as a trace-cmd data file (trace.dat, as trace-cmd "
                  "report and KernelShark read it) to FILE (- for stdout)")
      ->type_name("FILE");
  run->add_option("--trace-json", a->trace.json,
                  "Write a Chrome trace-event JSON (CPU tracks, task and forced-idle slices) to "
                  "FILE (- for stdout)")
      ->type_name("FILE");
  // --from/--to/--cpus: the names timeline uses for the same window.
  run->add_option("--trace-from,--from", a->trace.from, "Trace from this simulated time (e.g. 10s)")
      ->type_name("DURATION");
  run->add_option("--trace-to,--to", a->trace.to, "Trace until this simulated time (e.g. 10.5s)")
      ->type_name("DURATION");
  run->add_option("--trace-cpus,--cpus", a->trace.cpus,
                  "Trace only these CPUs (cpulist, e.g. 0-3,8)")
      ->type_name("LIST");
  run->add_flag(
      "--trace-pelt", a->trace.pelt,
      "Add the load-tracking tracepoints: PELT and util_est events to --trace and --trace-dat "
      "(LISA's lisa__sched_pelt_*/lisa__sched_util_est_*_unified format), util counters per CPU "
      "to --trace-json");
  run->add_flag("--latency", a->latency,
                "Print each task's scheduling delays as perf sched latency does (runtime, count, "
                "average and maximum delay, when the maximum began and ended)");
  add_timehist_options(run, a->timehist);
  run->add_flag("--check", a->check.on,
                "Check the model's invariants (exit 4 on a violation) and measure wasted cores");
  run->add_option("--wasted-threshold", a->check.wasted_threshold,
                  "With --check: a task waiting longer than this wastes an idle CPU (default 1ms)")
      ->type_name("DURATION");
  add_kernel_param_options(run, a->kernel);
  add_max_work_option(run, a->max_work);
  add_run_limit_options(run, a->limits);
  run->allow_extras(false);
  return {run, [a] {
            if (int rc = apply_max_work("run", a->max_work)) return rc;
            std::optional<u64> seed;
            if (!a->seed.empty()) {
              seed = parse_u64(a->seed);
              if (!seed) {
                std::fprintf(stderr,
                             "schedlab run: --seed %s: expected an integer from 0 to 2^64-1\n",
                             a->seed.c_str());
                return kExitBadInput;
              }
            }
            const auto events = max_events("run", a->limits);
            if (!events) return kExitBadInput;
            std::optional<std::chrono::nanoseconds> wall;
            if (!parse_max_wall("run", a->limits.max_wall, wall)) return kExitBadInput;
            OptionsJson o;
            o.add("config", a->config)
                .add("seed", a->seed)
                .add("feature", a->kernel.features)
                .add("tunable", a->kernel.tunables)
                .add("param", a->kernel.params)
                .add("check", a->check.on)
                .add("wasted_threshold", a->check.wasted_threshold)
                .add("max_work", a->max_work.max_work)
                .add("max_duration", a->max_work.max_duration)
                .add("max_events", a->limits.max_events)
                .add("max_wall", a->limits.max_wall);
            return cmd_run(a->file, a->config, seed, a->json, a->kernel, a->trace, a->check,
                           a->latency, a->timehist, *events, wall, o);
          }};
}

}  // namespace schedlab::cli
