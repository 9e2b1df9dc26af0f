// SPDX-License-Identifier: GPL-2.0-only
// schedlab experiment: every configuration of a scenario on the same seeds, compared.
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>
#include <tuple>

#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/mpi.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/provenance.h"
#include "experiment/experiment.h"
#include "experiment/experiment_report.h"
#include "experiment/sweep.h"

namespace schedlab::cli {
namespace {

struct ExperimentArgs {
  std::string file, runs, jobs, seed_base, json, csv;
  LoadLimitArgs max_work;
  RunLimitArgs limits;
  std::vector<std::string> configs;
  KernelParamArgs kernel;           // --feature, --tunable (and experiment's --param)
  std::vector<std::string> params;  // sweep's --param
  bool mpi = false;
  bool check = false;
  std::string wasted_threshold;
};

// --check: every violation (up to 10 in all) with its run, and exit status 4.
int report_violations(const experiment::ExperimentResult &r) {
  u64 total = 0;
  std::size_t printed = 0;
  for (const auto &c : r.configs)
    for (const auto &run : c.runs) {
      if (!run.check) continue;
      total += run.check->violations;
      for (const auto &v : run.check->first)
        if (printed++ < observe::InvariantChecker::kMaxKept)
          std::fprintf(stderr,
                       "schedlab experiment: invariant violated at %s (configuration \"%s\", "
                       "seed %llu)\n",
                       observe::format_violation(v).c_str(), c.name.c_str(),
                       static_cast<unsigned long long>(run.seed));
    }
  if (!total) return 0;
  if (total > printed)
    std::fprintf(stderr, "schedlab experiment: %llu invariant violations in all\n",
                 static_cast<unsigned long long>(total));
  return kExitInvariant;
}

// The options experiment and sweep share; 0 when they are good, else the exit status.
int options_from(const ExperimentArgs &a, const char *cmd, experiment::ExperimentOptions &o) {
  o.configs = a.configs;
  try {
    o.kernel_params = kernel_params(a.kernel);
  } catch (const std::invalid_argument &e) {
    std::fprintf(stderr, "schedlab %s: %s\n", cmd, e.what());
    return kExitBadInput;
  }
  o.check = a.check;
  if (!a.wasted_threshold.empty()) {
    if (!a.check) {
      std::fprintf(stderr, "schedlab %s: --wasted-threshold needs --check\n", cmd);
      return kExitBadInput;
    }
    std::string why;
    const auto d = scenario::parse_duration(a.wasted_threshold, &why);
    if (!d) {
      std::fprintf(stderr, "schedlab %s: --wasted-threshold %s: %s\n", cmd,
                   a.wasted_threshold.c_str(), why.c_str());
      return kExitBadInput;
    }
    o.wasted_threshold = *d;
  }
  if (!a.runs.empty()) {
    const auto v = parse_u64(a.runs);
    if (!v || *v < 1 || *v > experiment::kMaxRuns) {
      std::fprintf(stderr, "schedlab %s: --runs %s: expected an integer from 1 to %llu\n", cmd,
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
      std::fprintf(stderr, "schedlab %s: --jobs %s: expected an integer from 1 to %llu\n", cmd,
                   a.jobs.c_str(), static_cast<unsigned long long>(kMaxJobs));
      return kExitBadInput;
    }
    o.jobs = static_cast<unsigned>(*v);
  }
  const auto events = max_events(cmd, a.limits);
  if (!events) return kExitBadInput;
  o.max_events = *events;
  if (!a.seed_base.empty()) {
    o.seed_base = parse_u64(a.seed_base);
    if (!o.seed_base) {
      std::fprintf(stderr, "schedlab %s: --seed-base %s: expected an integer from 0 to 2^64-1\n",
                   cmd, a.seed_base.c_str());
      return kExitBadInput;
    }
  }
  return 0;
}

// Opens --json and --csv before the (possibly long) runs, so a bad path fails at once.
int open_outputs(const ExperimentArgs &a, const char *cmd, Output &json_out, Output &csv_out) {
  if (!at_most_one_stdout(cmd, {{"--json", a.json}, {"--csv", a.csv}})) return kExitBadInput;
  if (!json_out.open(cmd, "--json", a.json) || !csv_out.open(cmd, "--csv", a.csv))
    return kExitError;
  return 0;
}

// --mpi: joins the MPI job and takes this rank's share of the work items.
int start_mpi(const ExperimentArgs &a, const char *cmd, experiment::ExperimentOptions &o,
              std::unique_ptr<Mpi> &mpi) {
  if (!a.mpi) return 0;
  try {
    mpi = std::make_unique<Mpi>();
  } catch (const std::runtime_error &e) {
    std::fprintf(stderr, "schedlab %s: --mpi: %s\n", cmd, e.what());
    return kExitBadInput;
  }
  o.shard = static_cast<unsigned>(mpi->rank());
  o.shards = static_cast<unsigned>(mpi->size());
  return 0;
}

// The options as typed, for the result's "options".
nlohmann::ordered_json options_json(const ExperimentArgs &a) {
  OptionsJson o;
  o.add("config", a.configs)
      .add("runs", a.runs)
      .add("seed_base", a.seed_base)
      .add("feature", a.kernel.features)
      .add("tunable", a.kernel.tunables)
      .add("param", a.kernel.params.empty() ? a.params : a.kernel.params)
      .add("check", a.check)
      .add("wasted_threshold", a.wasted_threshold)
      .add("max_work", a.max_work.max_work)
      .add("max_duration", a.max_work.max_duration)
      .add("max_events", a.limits.max_events)
      .add("max_wall", a.limits.max_wall);
  return o.json();
}

// After a stop: one line on stderr, and the note that heads the text output.
std::string partial_note(const char *cmd, bool wall_expired, std::size_t finished,
                         std::size_t planned, const char *what) {
  std::fprintf(stderr, "schedlab %s: %s; %zu of %zu %s finished, the result is partial\n", cmd,
               wall_expired ? "--max-wall reached" : "interrupted", finished, planned, what);
  return "PARTIAL: stopped early (" + std::string(wall_expired ? "--max-wall" : "interrupted") +
         "); " + std::to_string(finished) + " of " + std::to_string(planned) + " " + what +
         " finished, the statistics below cover those only\n";
}

int cmd_experiment(const ExperimentArgs &a) {
  experiment::ExperimentOptions o;
  if (int rc = options_from(a, "experiment", o)) return rc;
  std::optional<std::chrono::nanoseconds> wall;
  if (!parse_max_wall("experiment", a.limits.max_wall, wall)) return kExitBadInput;
  if (int rc = apply_max_work("experiment", a.max_work)) return rc;
  std::unique_ptr<Mpi> mpi;
  if (int rc = start_mpi(a, "experiment", o, mpi)) return rc;
  const bool root = !mpi || mpi->rank() == 0;
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
  Output json_out, csv_out;
  if (root)
    if (int rc = open_outputs(a, "experiment", json_out, csv_out)) return rc;
  experiment::ExperimentResult r;
  bool failed = false;
  auto stop = std::make_unique<StopOnSignal>(true, wall);
  o.stop = &stop->flag();
  try {
    Progress progress("schedlab experiment");
    if (root)
      o.progress = [&progress](std::size_t done, std::size_t total) {
        progress.update(done, total);
      };
    r = experiment::run_experiment(s, o);
  } catch (const std::invalid_argument &e) {  // e.g. a configuration the simulation rejects
    std::fprintf(stderr, "schedlab experiment: %s\n", e.what());
    failed = true;
  } catch (const experiment::RunLimitError &e) {
    std::fprintf(stderr, "schedlab experiment: %s\n", e.what());
    failed = true;
  }
  const bool wall_expired = stop->wall_expired();
  if (mpi && !mpi->gather(r, failed) && !failed) {
    std::fprintf(stderr, "schedlab experiment: a run failed in another MPI process\n");
    failed = true;
  }
  stop.reset();
  if (failed) {
    json_out.discard();
    csv_out.discard();
    return kExitBadInput;
  }
  if (!root) return 0;
  experiment::keep_finished_seeds(r);
  std::string note;
  if (r.partial)
    note = partial_note("experiment", wall_expired, r.seeds.size() * r.configs.size(),
                        r.planned_runs * r.configs.size(), "runs");
  const experiment::ExperimentStats st = experiment::experiment_stats(r);
  if (json_out.wanted()) {
    nlohmann::ordered_json j = experiment::experiment_to_json(r, st);
    if (r.partial) j["stop_reason"] = wall_expired ? "max-wall" : "interrupted";
    j["scenario_source"] = scenario_source_json(s.file, s.source, a.json);
    j["options"] = options_json(a);
    if (int rc = json_out.write(j.dump(2) + "\n")) return rc;
  }
  if (csv_out.wanted())
    if (int rc = csv_out.write(experiment::experiment_csv(r))) return rc;
  std::FILE *text = text_stream(a.json == "-" || a.csv == "-");
  std::fputs(note.c_str(), text);
  std::fputs(experiment::experiment_table(r, st).c_str(), text);
  const int rc = report_violations(r);
  return r.partial ? kExitInterrupted : rc;
}

int cmd_sweep(const ExperimentArgs &a) {
  experiment::ExperimentOptions o;
  if (int rc = options_from(a, "sweep", o)) return rc;
  std::optional<std::chrono::nanoseconds> wall;
  if (!parse_max_wall("sweep", a.limits.max_wall, wall)) return kExitBadInput;
  if (int rc = apply_max_work("sweep", a.max_work)) return rc;
  if (a.check) {
    std::fprintf(stderr, "schedlab sweep: --check is for run and experiment\n");
    return kExitBadInput;
  }
  std::vector<experiment::SweepParam> params;
  try {
    for (const auto &p : a.params) params.push_back(experiment::parse_sweep_param(p));
  } catch (const std::invalid_argument &e) {
    std::fprintf(stderr, "schedlab sweep: %s\n", e.what());
    return kExitBadInput;
  }
  std::unique_ptr<Mpi> mpi;
  if (int rc = start_mpi(a, "sweep", o, mpi)) return rc;
  const bool root = !mpi || mpi->rank() == 0;
  Output json_out, csv_out;
  if (root)
    if (int rc = open_outputs(a, "sweep", json_out, csv_out)) return rc;
  experiment::SweepResult r;
  auto stop = std::make_unique<StopOnSignal>(true, wall);
  o.stop = &stop->flag();
  try {
    Progress progress("schedlab sweep");
    if (root)
      o.progress = [&progress](std::size_t done, std::size_t total) {
        progress.update(done, total);
      };
    experiment::GatherFn gather;
    if (mpi)
      gather = [&mpi](experiment::ExperimentResult &er, bool failed) {
        return mpi->gather(er, failed);
      };
    r = experiment::run_sweep(a.file, params, o, gather);
  } catch (const scenario::ScenarioError &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return kExitBadInput;
  } catch (const std::invalid_argument &e) {
    std::fprintf(stderr, "schedlab sweep: %s\n", e.what());
    return kExitBadInput;
  } catch (const experiment::RunLimitError &e) {
    std::fprintf(stderr, "schedlab sweep: %s\n", e.what());
    json_out.discard();
    csv_out.discard();
    return kExitBadInput;
  }
  const bool wall_expired = stop->wall_expired();
  stop.reset();
  if (!root) return 0;
  std::string note;
  if (r.partial) {
    std::size_t finished = 0;
    for (const auto &p : r.points) finished += p.result.seeds.size() * p.result.configs.size();
    note = partial_note("sweep", wall_expired, finished, r.planned_runs, "runs");
  }
  if (json_out.wanted()) {
    nlohmann::ordered_json j = experiment::sweep_to_json(r);
    if (r.partial) j["stop_reason"] = wall_expired ? "max-wall" : "interrupted";
    j["scenario_source"] = scenario_source_json(a.file, r.scenario_source, a.json);
    j["options"] = options_json(a);
    if (int rc = json_out.write(j.dump(2) + "\n")) return rc;
  }
  if (csv_out.wanted())
    if (int rc = csv_out.write(experiment::sweep_csv(r))) return rc;
  std::FILE *text = text_stream(a.json == "-" || a.csv == "-");
  std::fputs(note.c_str(), text);
  std::fputs(experiment::sweep_table(r).c_str(), text);
  return r.partial ? kExitInterrupted : 0;
}

// The options experiment and sweep share.
void add_common_options(CLI::App *c, ExperimentArgs &ex) {
  c->add_option("scenario", ex.file, "Scenario file (TOML or rt-app JSON)")
      ->required()
      ->type_name("FILE");
  c->add_option("--runs", ex.runs, "Runs (seeds) per configuration, 1..100000 (default: 3)")
      ->type_name("N");
  c->add_option("--jobs", ex.jobs, "Worker threads (default: the number of CPUs)")->type_name("N");
  c->add_option("--seed-base", ex.seed_base,
                "Seeds are S, S+1, ..., S+runs-1 (default S: the scenario's seed)")
      ->type_name("S");
  c->add_option("--json", ex.json, "Write the runs and statistics as JSON to FILE (- for stdout)")
      ->type_name("FILE");
  c->add_option("--csv", ex.csv, "Write one row per run as CSV to FILE (- for stdout)")
      ->type_name("FILE");
  // One value per occurrence, so "--config A FILE" does not take FILE as a second name.
  c->add_option("--config", ex.configs,
                "Run only this configuration (repeatable; default: every one)")
      ->take_all()
      ->allow_extra_args(false)
      ->type_name("NAME");
  add_max_work_option(c, ex.max_work);
  add_run_limit_options(c, ex.limits);
  c->add_flag("--mpi", ex.mpi,
              "Under mpirun: spread the runs over the ranks; rank 0 writes the results");
  c->allow_extras(false);
}

}  // namespace

Command add_experiment_command(CLI::App &app) {
  auto ex = std::make_shared<ExperimentArgs>();
  CLI::App *exp = app.add_subcommand(
      "experiment", "Run configurations of a scenario on the same seeds and compare them");
  add_common_options(exp, *ex);
  add_kernel_param_options(exp, ex->kernel);
  exp->add_flag("--check", ex->check,
                "Check the model's invariants in every run (exit 4 on a violation) and measure "
                "wasted cores");
  exp->add_option("--wasted-threshold", ex->wasted_threshold,
                  "With --check: a task waiting longer than this wastes an idle CPU (default 1ms)")
      ->type_name("DURATION");
  return {exp, [ex] { return cmd_experiment(*ex); }};
}

Command add_sweep_command(CLI::App &app) {
  auto ex = std::make_shared<ExperimentArgs>();
  CLI::App *sw = app.add_subcommand(
      "sweep", "Run a grid of scenario key values x configurations x seeds (CSV, JSON, table)");
  add_common_options(sw, *ex);
  add_kernel_param_options(sw, ex->kernel, false);
  sw->add_option("--param", ex->params,
                 "PATH=V1,V2,...: a scenario key (dotted, e.g. machine.cores_per_llc, "
                 "kernel.features.NAME, group.NAME.count) and its values (repeatable); a "
                 "kernel switch is set in every configuration")
      ->take_all()
      ->allow_extra_args(false)
      ->required()
      ->type_name("PATH=V1,V2,...");
  return {sw, [ex] { return cmd_sweep(*ex); }};
}

}  // namespace schedlab::cli
