// schedlab: the command line. Thin: parse, call, print.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "experiment/result_json.h"
#include "experiment/simulation.h"
#include "experiment/summary.h"
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

int cmd_run(const std::string &file, const std::string &config, std::optional<u64> seed,
            const std::string &json, const std::vector<std::string> &features,
            const std::vector<std::string> &tunables) {
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
  experiment::Simulation sim(s, choice.name, choice.kernel, seed.value_or(s.seed));
  const experiment::RunResult r = sim.run();
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
  run->add_option("--feature", features, "Override a scheduler feature: NAME=true|false")
      ->take_all();
  run->add_option("--tunable", tunables, "Override a tunable: NAME=INTEGER")->take_all();
  for (auto *o : {run}) o->allow_extras(false);

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
    return cmd_run(file, config, seed, json, features, tunables);
  }
  if (help->parsed()) return cmd_help(topic, app);
  return 0;
}
