// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Idle-state tables a scenario can name instead of listing its states ([machine.idle] states =
// "icx"): intel_idle's tables for Intel server CPUs, as drivers/idle/intel_idle.c of 6.12
// declares them (exit latency and target residency in microseconds; the polling state 0 that
// cpuidle adds on x86 is left out, see docs/model.md).
#include <optional>
#include <string_view>
#include <vector>

#include "sim/time.h"

namespace schedlab {

struct IdleStateSpec {
  const char *name;
  Time exit_latency_ns;
  Time target_residency_ns;
};

struct IdlePreset {
  const char *name;         // what [machine.idle] states names
  const char *description;  // the CPU and the kernel table it comes from
  std::vector<IdleStateSpec> states;
};

inline const std::vector<IdlePreset> &idle_presets() {
  static const std::vector<IdlePreset> kPresets = {
      {"skx",
       "Skylake-SP / Cascade Lake-SP Xeon (intel_idle.c skx_cstates)",
       {{"C1", 2'000, 2'000}, {"C1E", 10'000, 20'000}, {"C6", 133'000, 600'000}}},
      {"icx",
       "Ice Lake-SP Xeon (intel_idle.c icx_cstates)",
       {{"C1", 1'000, 1'000}, {"C1E", 4'000, 4'000}, {"C6", 170'000, 600'000}}},
      {"spr",
       "Sapphire Rapids Xeon (intel_idle.c spr_cstates)",
       {{"C1", 1'000, 1'000}, {"C1E", 2'000, 4'000}, {"C6", 290'000, 800'000}}},
  };
  return kPresets;
}

inline const IdlePreset *find_idle_preset(std::string_view name) {
  for (const IdlePreset &p : idle_presets())
    if (name == p.name) return &p;
  return nullptr;
}

}  // namespace schedlab
