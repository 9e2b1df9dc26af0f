// schedlab: the command line. Thin: parse, call, print.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>
#include <tuple>

#include "experiment/experiment.h"
#include "experiment/experiment_report.h"
#include "experiment/result_json.h"
#include "experiment/simulation.h"
#include "experiment/summary.h"
#include "observe/chrome_trace_writer.h"
#include "observe/ftrace_writer.h"
#include "schedlab/version.h"

namespace {

using namespace schedlab;

// Exit codes: 0 ok, 1 internal error, 2 bad input (scenario, flags).
constexpr int kExitBadInput = 2;

std::optional<u64> parse_u64(const std::string &s) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  unsigned __int128 v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  if (v > ~u64{0}) return std::nullopt;
  return static_cast<u64>(v);
}

struct TraceOptions {
  std::string file, json, from, to, cpus;
};

int cmd_run(const std::string &file, const std::string &config, std::optional<u64> seed,
            const std::string &json, const std::vector<std::string> &features,
            const std::vector<std::string> &tunables, const TraceOptions &trace) {
  scenario::Scenario s;
  experiment::ConfigChoice choice;
  try {
    s = scenario::load_scenario(file);
    choice = experiment::choose_config(s, config, features, tunables);
  } catch (const scenario::ScenarioError &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return kExitBadInput;
  } catch (const std::invalid_argument &e) {
    std::fprintf(stderr, "schedlab run: %s\n", e.what());
    return kExitBadInput;
  }
  std::unique_ptr<experiment::Simulation> sim;
  try {
    sim = std::make_unique<experiment::Simulation>(s, choice.name, choice.kernel,
                                                   seed.value_or(s.seed));
  } catch (const std::invalid_argument &e) {
    std::fprintf(stderr, "schedlab run: %s\n", e.what());
    return kExitBadInput;
  }
  // --trace (ftrace text) and --trace-json (Chrome trace events), both streamed, for the
  // window [--trace-from, --trace-to) and the CPUs of --trace-cpus.
  using File = std::unique_ptr<std::FILE, int (*)(std::FILE *)>;
  File trace_file(nullptr, &std::fclose), json_trace_file(nullptr, &std::fclose);
  std::unique_ptr<observe::FtraceWriter> writer;
  std::unique_ptr<observe::ChromeTraceWriter> json_writer;
  if (!trace.file.empty() || !trace.json.empty()) {
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
        std::fprintf(stderr, "schedlab run: --trace-cpus %s: %s\n", trace.cpus.c_str(),
                     why.c_str());
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
    auto open = [](const std::string &name, const char *flag, File &f) {
      f.reset(std::fopen(name.c_str(), "w"));
      if (!f)
        std::fprintf(stderr, "schedlab run: %s %s: cannot open for writing\n", flag, name.c_str());
      return static_cast<bool>(f);
    };
    if (!trace.file.empty()) {
      if (!open(trace.file, "--trace", trace_file)) return kExitBadInput;
      writer =
          std::make_unique<observe::FtraceWriter>(sim->kernel(), trace_file.get(), from, to, cpus);
      sim->add_tracer(writer.get());
    }
    if (!trace.json.empty()) {
      if (!open(trace.json, "--trace-json", json_trace_file)) return kExitBadInput;
      json_writer = std::make_unique<observe::ChromeTraceWriter>(
          sim->kernel(), json_trace_file.get(), from, to, cpus);
      sim->add_tracer(json_writer.get());
    }
  }
  const experiment::RunResult r = sim->run();
  if (writer) writer->finish();
  if (json_writer) json_writer->finish(r.metrics.end_ns);
  std::fputs(experiment::run_summary(r, s).c_str(), stdout);
  if (!json.empty()) {
    std::ofstream out(json);
    if (!out) {
      std::fprintf(stderr, "schedlab run: --json %s: cannot open for writing\n", json.c_str());
      return kExitBadInput;
    }
    out << experiment::run_to_json(r, s).dump(2) << "\n";
    if (!out.good()) {
      std::fprintf(stderr, "schedlab run: --json %s: write failed\n", json.c_str());
      return 1;
    }
  }
  return 0;
}

struct ExperimentArgs {
  std::string file, runs, jobs, seed_base, json, csv;
  std::vector<std::string> configs, features, tunables;
};

int cmd_experiment(const ExperimentArgs &a) {
  experiment::ExperimentOptions o;
  o.configs = a.configs;
  o.features = a.features;
  o.tunables = a.tunables;
  if (!a.runs.empty()) {
    const auto v = parse_u64(a.runs);
    if (!v || *v < 1 || *v > experiment::kMaxRuns) {
      std::fprintf(stderr, "schedlab experiment: --runs %s: expected an integer from 1 to %llu\n",
                   a.runs.c_str(), static_cast<unsigned long long>(experiment::kMaxRuns));
      return kExitBadInput;
    }
    o.runs = *v;
  }
  constexpr u64 kMaxJobs = 4096;
  if (a.jobs.empty()) {
    o.jobs = std::max(1u, std::thread::hardware_concurrency());
  } else {
    const auto v = parse_u64(a.jobs);
    if (!v || *v < 1 || *v > kMaxJobs) {
      std::fprintf(stderr, "schedlab experiment: --jobs %s: expected an integer from 1 to %llu\n",
                   a.jobs.c_str(), static_cast<unsigned long long>(kMaxJobs));
      return kExitBadInput;
    }
    o.jobs = static_cast<unsigned>(*v);
  }
  if (!a.seed_base.empty()) {
    o.seed_base = parse_u64(a.seed_base);
    if (!o.seed_base) {
      std::fprintf(stderr,
                   "schedlab experiment: --seed-base %s: expected an integer from 0 to 2^64-1\n",
                   a.seed_base.c_str());
      return kExitBadInput;
    }
  }
  scenario::Scenario s;
  try {
    s = scenario::load_scenario(a.file);
    experiment::experiment_configs(s, o);  // reject bad names and overrides before any run
  } catch (const scenario::ScenarioError &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return kExitBadInput;
  } catch (const std::invalid_argument &e) {
    std::fprintf(stderr, "schedlab experiment: %s\n", e.what());
    return kExitBadInput;
  }
  // Open the outputs before the (possibly long) runs, so a bad path fails at once.
  std::ofstream json_out, csv_out;
  for (auto [flag, path, out] :
       {std::tuple{"--json", &a.json, &json_out}, std::tuple{"--csv", &a.csv, &csv_out}}) {
    if (path->empty()) continue;
    out->open(*path);
    if (!*out) {
      std::fprintf(stderr, "schedlab experiment: %s %s: cannot open for writing\n", flag,
                   path->c_str());
      return kExitBadInput;
    }
  }
  experiment::ExperimentResult r;
  try {
    r = experiment::run_experiment(s, o);
  } catch (const std::invalid_argument &e) {  // e.g. a configuration the simulation rejects
    std::fprintf(stderr, "schedlab experiment: %s\n", e.what());
    return kExitBadInput;
  }
  const experiment::ExperimentStats st = experiment::experiment_stats(r);
  if (json_out.is_open()) {
    json_out << experiment::experiment_to_json(r, st).dump(2) << "\n";
    json_out.close();
    if (!json_out) {
      std::fprintf(stderr, "schedlab experiment: --json %s: write failed\n", a.json.c_str());
      return 1;
    }
  }
  if (csv_out.is_open()) {
    csv_out << experiment::experiment_csv(r);
    csv_out.close();
    if (!csv_out) {
      std::fprintf(stderr, "schedlab experiment: --csv %s: write failed\n", a.csv.c_str());
      return 1;
    }
  }
  std::fputs(experiment::experiment_table(r, st).c_str(), stdout);
  return 0;
}

int cmd_help(const std::string &topic, CLI::App &app) {
  if (topic == "features") {
    std::printf(
        "Scheduler features (kernel/sched/features.h style); set with [kernel.features],\n"
        "a configuration's features, or --feature NAME=true|false.\n\n");
    for (const auto &f : kernel::kFeatures)
      std::printf("  %-28s default %s\n", std::string(f.name).c_str(),
                  f.default_value ? "true" : "false");
    return 0;
  }
  if (topic == "tunables") {
    std::printf(
        "Tunables (sysctl style); set with [kernel.tunables], a configuration's tunables,\n"
        "or --tunable NAME=INTEGER.\n\n");
    for (const auto &t : kernel::kTunables)
      std::printf("  %-26s default %-10lld range %lld..%lld\n      %s\n",
                  std::string(t.name).c_str(), static_cast<long long>(t.default_value),
                  static_cast<long long>(t.min), static_cast<long long>(t.max),
                  std::string(t.doc).c_str());
    return 0;
  }
  if (!topic.empty()) {
    std::fprintf(stderr, "schedlab help: unknown topic '%s' (topics: features, tunables)\n",
                 topic.c_str());
    return kExitBadInput;
  }
  std::cout << app.help();
  std::printf(
      "\nHelp topics: schedlab help features | schedlab help tunables\n"
      "Scenario format: docs/scenario-format.md\n");
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  // A first word that is not an option must name a command (CLI11 would only say that a
  // subcommand is required).
  if (argc > 1 && argv[1][0] != '-') {
    const std::string cmd = argv[1];
    if (cmd != "run" && cmd != "experiment" && cmd != "help") {
      std::fprintf(stderr, "schedlab: unknown command '%s' (commands: run, experiment, help)\n",
                   cmd.c_str());
      return kExitBadInput;
    }
  }
  CLI::App app{"schedlab: a simulator and lab for the Linux CPU scheduler (SMT core scheduling)"};
  app.set_version_flag("--version", std::string("schedlab ") + kVersion);
  app.require_subcommand(1);

  std::string file, config, json;
  std::string seed_text;
  std::vector<std::string> features, tunables;
  CLI::App *run = app.add_subcommand("run", "Simulate one run of a scenario and print a summary");
  run->add_option("scenario", file, "Scenario file (TOML)")->required();
  run->add_option("--config", config, "Configuration to run (default: the first)");
  run->add_option("--seed", seed_text, "Random seed, 0..2^64-1 (default: the scenario's)");
  run->add_option("--json", json, "Write the full result as JSON to this file");
  TraceOptions trace;
  run->add_option("--trace", trace.file,
                  "Write an ftrace text trace (the nop tracer's format) here");
  run->add_option("--trace-json", trace.json,
                  "Write a Chrome trace-event JSON (CPU tracks, task and forced-idle slices) here");
  run->add_option("--trace-from", trace.from, "Trace from this simulated time (e.g. 10s)");
  run->add_option("--trace-to", trace.to, "Trace until this simulated time (e.g. 10.5s)");
  run->add_option("--trace-cpus", trace.cpus, "Trace only these CPUs (cpulist, e.g. 0-3,8)");
  run->add_option("--feature", features, "Override a scheduler feature: NAME=true|false")
      ->take_all();
  run->add_option("--tunable", tunables, "Override a tunable: NAME=INTEGER")->take_all();
  ExperimentArgs ex;
  CLI::App *exp = app.add_subcommand(
      "experiment", "Run configurations of a scenario on the same seeds and compare them");
  exp->add_option("scenario", ex.file, "Scenario file (TOML)")->required();
  exp->add_option("--runs", ex.runs, "Runs (seeds) per configuration, 1..100000 (default: 3)");
  exp->add_option("--jobs", ex.jobs, "Worker threads (default: the number of CPUs)");
  exp->add_option("--seed-base", ex.seed_base,
                  "Seeds are S, S+1, ..., S+runs-1 (default S: the scenario's seed)");
  exp->add_option("--json", ex.json, "Write the runs and statistics as JSON to this file");
  exp->add_option("--csv", ex.csv, "Write one row per run as CSV to this file");
  // One value per occurrence, so "--config A FILE" does not take FILE as a second name.
  exp->add_option("--config", ex.configs,
                  "Run only this configuration (repeatable; default: every one)")
      ->take_all()
      ->allow_extra_args(false);
  exp->add_option("--feature", ex.features, "Override a scheduler feature: NAME=true|false")
      ->take_all()
      ->allow_extra_args(false);
  exp->add_option("--tunable", ex.tunables, "Override a tunable: NAME=INTEGER")
      ->take_all()
      ->allow_extra_args(false);
  for (auto *o : {run, exp}) o->allow_extras(false);

  std::string topic;
  CLI::App *help = app.add_subcommand("help", "Explain the CLI, features or tunables");
  help->add_option("topic", topic, "features | tunables");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "schedlab: %s\n", e.what());
    std::fprintf(stderr, "Run 'schedlab --help' for usage.\n");
    return kExitBadInput;
  }
  if (run->parsed()) {
    std::optional<u64> seed;
    if (!seed_text.empty()) {
      seed = parse_u64(seed_text);
      if (!seed) {
        std::fprintf(stderr, "schedlab run: --seed %s: expected an integer from 0 to 2^64-1\n",
                     seed_text.c_str());
        return kExitBadInput;
      }
    }
    return cmd_run(file, config, seed, json, features, tunables, trace);
  }
  if (exp->parsed()) return cmd_experiment(ex);
  if (help->parsed()) return cmd_help(topic, app);
  return 0;
}
