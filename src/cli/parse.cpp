// SPDX-License-Identifier: GPL-2.0-only
#include <cstdio>

#include "cli/commands.h"
#include "scenario/limits.h"
#include "scenario/scenario.h"

namespace schedlab::cli {

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

int apply_max_work(const char *cmd, const LoadLimitArgs &a) {
  if (!a.max_work.empty()) {
    const auto v = parse_u64(a.max_work);
    if (!v || *v < 1) {
      std::fprintf(stderr, "schedlab %s: --max-work %s: expected an integer from 1 to 2^64-1\n",
                   cmd, a.max_work.c_str());
      return kExitBadInput;
    }
    scenario::set_max_work(*v);
  }
  if (!a.max_duration.empty()) {
    std::string why;
    const auto d = scenario::parse_duration(a.max_duration, &why);
    if (!d) {
      std::fprintf(stderr, "schedlab %s: --max-duration %s: %s\n", cmd, a.max_duration.c_str(),
                   why.c_str());
      return kExitBadInput;
    }
    scenario::set_max_duration_ns(*d);
  }
  return 0;
}

void add_run_limit_options(CLI::App *c, RunLimitArgs &a) {
  c->add_option("--max-events", a.max_events,
                "Fail a run (exit 2, no result written) that handles more than N simulator "
                "events (default: no limit)")
      ->type_name("N");
  c->add_option("--max-wall", a.max_wall,
                "Stop after this much wall-clock time (e.g. 30s) as Ctrl-C does: write what "
                "finished, marked partial, exit 130")
      ->type_name("DURATION");
}

std::optional<u64> max_events(const char *cmd, const RunLimitArgs &a) {
  if (a.max_events.empty()) return 0;
  const auto v = parse_u64(a.max_events);
  if (!v || *v < 1) {
    std::fprintf(stderr, "schedlab %s: --max-events %s: expected an integer from 1 to 2^64-1\n",
                 cmd, a.max_events.c_str());
    return std::nullopt;
  }
  return v;
}

void add_kernel_param_options(CLI::App *c, KernelParamArgs &a, bool with_param) {
  // One value per occurrence, so "--feature X=true FILE" does not take FILE as a second one.
  c->add_option("--feature", a.features,
                "Set a scheduler feature in every configuration: NAME=true|false (short for "
                "--param kernel.features.NAME=V)")
      ->take_all()
      ->allow_extra_args(false)
      ->type_name("NAME=BOOL");
  c->add_option("--tunable", a.tunables,
                "Set a tunable in every configuration: NAME=INTEGER (short for --param "
                "kernel.tunables.NAME=V)")
      ->take_all()
      ->allow_extra_args(false)
      ->type_name("NAME=N");
  if (with_param)
    c->add_option("--param", a.params,
                  "Set a kernel switch in every configuration: kernel.features.NAME=BOOL or "
                  "kernel.tunables.NAME=INTEGER")
        ->take_all()
        ->allow_extra_args(false)
        ->type_name("PATH=V");
}

std::vector<scenario::KeyOverride> kernel_params(const KernelParamArgs &a) {
  std::vector<scenario::KeyOverride> out;
  for (const auto &f : a.features) out.push_back(scenario::parse_param("--feature", f));
  for (const auto &t : a.tunables) out.push_back(scenario::parse_param("--tunable", t));
  for (const auto &p : a.params) {
    out.push_back(scenario::parse_param("--param", p));
    if (!scenario::is_kernel_param(out.back().path))
      throw std::invalid_argument(
          out.back().given +
          ": expected kernel.features.NAME or kernel.tunables.NAME (sweep sets other keys)");
  }
  for (std::size_t i = 0; i < out.size(); i++)
    for (std::size_t j = 0; j < i; j++)
      if (out[i].path == out[j].path)
        throw std::invalid_argument(out[j].given + " and " + out[i].given + " set the same switch");
  return out;
}

void add_max_work_option(CLI::App *c, LoadLimitArgs &a) {
  c->add_option("--max-work", a.max_work,
                "Refuse scenarios that ask for more phase executions than this (tasks x loops x "
                "phases; default 1000000000)")
      ->type_name("N");
  c->add_option("--max-duration", a.max_duration,
                "Refuse scenarios whose simulated duration is longer than this (default 30 days, "
                "2592000s)")
      ->type_name("DURATION");
}

}  // namespace schedlab::cli
