// SPDX-License-Identifier: GPL-2.0-only
#include "kernel/tunables.h"

namespace schedlab::kernel {

std::optional<sched_tunable_id> find_tunable(std::string_view name) {
  for (int i = 0; i < __SCHED_TUNABLE_NR; i++)
    if (kTunables[i].name == name) return static_cast<sched_tunable_id>(i);
  return std::nullopt;
}

}  // namespace schedlab::kernel
