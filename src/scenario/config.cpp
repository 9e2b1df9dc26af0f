// SPDX-License-Identifier: GPL-2.0-only
#include "scenario/config.h"

#include <stdexcept>

#include "kernel/features.h"

namespace schedlab::scenario {

std::string task_name(const TaskGroupSpec &g, int i) {
  if (g.per_cpu) return g.name + "/" + std::to_string(i);
  return g.count == 1 ? g.name : g.name + "-" + std::to_string(i);
}

kernel::KernelConfig apply_config(const Scenario &s, const ConfigSpec *config) {
  kernel::KernelConfig k = s.kernel;
  if (!config) return k;
  for (auto [id, on] : config->features) k.features.on[id] = on;
  for (auto [id, v] : config->tunables) k.tunables.v[id] = v;
  if (config->nohz_full) k.nohz_full = *config->nohz_full;
  if (config->kthreads) k.kthreads = *config->kthreads;
  return k;
}

ConfigChoice choose_config(const Scenario &s, const std::string &name,
                           const std::vector<KeyOverride> &kernel_params) {
  ConfigChoice c;
  const ConfigSpec *spec = nullptr;
  if (!s.configs.empty()) {
    if (name.empty()) {
      spec = &s.configs.front();
    } else {
      for (const auto &cs : s.configs)
        if (cs.name == name) spec = &cs;
      if (!spec) {
        std::string names;
        for (const auto &cs : s.configs) names += (names.empty() ? "\"" : ", \"") + cs.name + "\"";
        throw std::invalid_argument("--config: no configuration named \"" + name + "\" in " +
                                    s.file + " (it has " + names + ")");
      }
    }
  } else if (!name.empty() && name != "default") {
    throw std::invalid_argument("--config: " + s.file +
                                " declares no configurations; omit --config");
  }
  c.name = spec ? spec->name : "default";
  c.kernel = apply_config(s, spec);
  auto check_features = [&](const std::string &where) {
    const std::string why = kernel::validate_features(c.kernel.features);
    if (!why.empty()) throw std::invalid_argument(where + ": " + why);
  };
  check_features(s.file + ": configuration \"" + c.name + "\"");
  // The command line's switches, checked in one place (scenario/overrides.h).
  std::string feature_options;
  for (const KeyOverride &p : kernel_params) {
    apply_kernel_param(c.kernel, p);
    if (!p.path.starts_with("kernel.features.")) continue;
    const std::string option = p.given.substr(0, p.given.find(' '));
    if (feature_options.find(option) == std::string::npos)
      feature_options += (feature_options.empty() ? "" : ", ") + option;
  }
  if (!feature_options.empty()) check_features(feature_options);
  return c;
}

ConfigChoice choose_config(const Scenario &s, const std::string &name,
                           const std::vector<std::string> &feature_overrides,
                           const std::vector<std::string> &tunable_overrides) {
  std::vector<KeyOverride> params;
  for (const std::string &o : feature_overrides) params.push_back(parse_param("--feature", o));
  for (const std::string &o : tunable_overrides) params.push_back(parse_param("--tunable", o));
  return choose_config(s, name, params);
}

}  // namespace schedlab::scenario
