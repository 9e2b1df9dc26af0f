// SPDX-License-Identifier: GPL-2.0-only
#include "kernel/tunables.h"

namespace schedlab::kernel {

std::optional<sched_tunable_id> find_tunable(std::string_view name) {
  for (int i = 0; i < __SCHED_TUNABLE_NR; i++)
    if (kTunables[i].name == name) return static_cast<sched_tunable_id>(i);
  return std::nullopt;
}

std::string check_tunable(sched_tunable_id id, std::int64_t v) {
  if (id == TUNABLE_hz) {
    // CONFIG_HZ is a build choice with a fixed menu, not a range.
    if (v == 100 || v == 250 || v == 300 || v == 1000) return "";
    return "must be one of 100, 250, 300, 1000, got " + std::to_string(v);
  }
  const TunableInfo &t = kTunables[id];
  if (v >= t.min && v <= t.max) return "";
  return "must be between " + std::to_string(t.min) + " and " + std::to_string(t.max) + ", got " +
         std::to_string(v);
}

}  // namespace schedlab::kernel
