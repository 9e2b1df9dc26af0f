// schedlab experiment: every configuration of a scenario on the same seeds, compared.
#include <cstdio>
#include <fstream>
#include <thread>
#include <tuple>

#include "cli/commands.h"
#include "cli/progress.h"
#include "experiment/experiment.h"
#include "experiment/experiment_report.h"

namespace schedlab::cli {
namespace {

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
    Progress progress("schedlab experiment");
    o.progress = [&progress](std::size_t done, std::size_t total) { progress.update(done, total); };
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

}  // namespace

Command add_experiment_command(CLI::App &app) {
  auto ex = std::make_shared<ExperimentArgs>();
  CLI::App *exp = app.add_subcommand(
      "experiment", "Run configurations of a scenario on the same seeds and compare them");
  exp->add_option("scenario", ex->file, "Scenario file (TOML)")->required();
  exp->add_option("--runs", ex->runs, "Runs (seeds) per configuration, 1..100000 (default: 3)");
  exp->add_option("--jobs", ex->jobs, "Worker threads (default: the number of CPUs)");
  exp->add_option("--seed-base", ex->seed_base,
                  "Seeds are S, S+1, ..., S+runs-1 (default S: the scenario's seed)");
  exp->add_option("--json", ex->json, "Write the runs and statistics as JSON to this file");
  exp->add_option("--csv", ex->csv, "Write one row per run as CSV to this file");
  // One value per occurrence, so "--config A FILE" does not take FILE as a second name.
  exp->add_option("--config", ex->configs,
                  "Run only this configuration (repeatable; default: every one)")
      ->take_all()
      ->allow_extra_args(false);
  exp->add_option("--feature", ex->features, "Override a scheduler feature: NAME=true|false")
      ->take_all()
      ->allow_extra_args(false);
  exp->add_option("--tunable", ex->tunables, "Override a tunable: NAME=INTEGER")
      ->take_all()
      ->allow_extra_args(false);
  exp->allow_extras(false);
  return {exp, [ex] { return cmd_experiment(*ex); }};
}

}  // namespace schedlab::cli
