// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// sysctl-style tunables with the kernel's defaults. Units are in the names.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/features.h"

namespace schedlab::kernel {

// SCHED_TUNABLE(name, default, min, max, meaning)
#define SCHEDLAB_SCHED_TUNABLES(T)                                                                 \
  T(base_slice_ns, 0, 0, 100000000,                                                                \
    "sysctl_sched_base_slice; 0 = the kernel's default, 0.70 ms scaled by sched_tunable_scaling")  \
  T(normalized_base_slice_ns, 700000, 100000, 100000000,                                           \
    "base slice before CPU-count scaling (0.70 ms since 6.15 and 6.12.y; 0.75 ms before)")         \
  T(tunable_scaling, 1, 0, 2, "sysctl_sched_tunable_scaling: 0 none, 1 log, 2 linear")             \
  T(migration_cost_ns, 500000, 0, 1000000000, "sysctl_sched_migration_cost")                       \
  T(nr_migrate, 32, 1, 4096, "sysctl_sched_nr_migrate")                                            \
  T(hz, 1000, 100, 1000, "CONFIG_HZ: tick frequency (100, 250, 300 or 1000)")                      \
  T(timer_slack_ns, 50000, 0, 100000000,                                                           \
    "default task timer slack: sleeps end up to this much late (hrtimer range)")                   \
  T(core_push_forceidle_max, 1, 1, 1024,                                                           \
    "CORE_PUSH_FORCEIDLE: tasks pushed away per forced-idle event (INFERRED design)")              \
  T(core_push_forceidle_scope, 0, 0, 1,                                                            \
    "CORE_PUSH_FORCEIDLE: where to look for a target: 0 the LLC, 1 every domain")                  \
  T(core_push_forceidle_busy, 0, 0, 1,                                                             \
    "CORE_PUSH_FORCEIDLE: 1 also pushes to a busy CPU whose core runs the task's cookie and that " \
    "has fewer tasks")                                                                             \
  T(core_push_forceidle_tick, 0, 0, 1,                                                             \
    "CORE_PUSH_FORCEIDLE: 1 also pushes from the running sibling's tick while the forced idle "    \
    "lasts")

enum sched_tunable_id {
#define SCHEDLAB_ENUM(name, def, lo, hi, doc) TUNABLE_##name,
  SCHEDLAB_SCHED_TUNABLES(SCHEDLAB_ENUM)
#undef SCHEDLAB_ENUM
      __SCHED_TUNABLE_NR
};

struct TunableInfo {
  std::string_view name;
  std::int64_t default_value, min, max;
  std::string_view doc;
};

inline constexpr std::array<TunableInfo, __SCHED_TUNABLE_NR> kTunables = {{
#define SCHEDLAB_INFO(name, def, lo, hi, doc) {#name, def, lo, hi, doc},
    SCHEDLAB_SCHED_TUNABLES(SCHEDLAB_INFO)
#undef SCHEDLAB_INFO
}};

struct Tunables {
  std::array<std::int64_t, __SCHED_TUNABLE_NR> v{};
  Tunables() {
    for (int i = 0; i < __SCHED_TUNABLE_NR; i++) v[i] = kTunables[i].default_value;
  }
  std::int64_t operator[](sched_tunable_id id) const { return v[id]; }
};

std::optional<sched_tunable_id> find_tunable(std::string_view name);

// Empty if `v` is a value the tunable can take, else why not ("must be between 1 and 4096, got
// 0"): the one check of a tunable's value, for the scenario file and the command line alike.
std::string check_tunable(sched_tunable_id id, std::int64_t v);

// Kernel versions whose behaviour differs in ways the model reproduces (docs/model.md).
enum class KernelVersion { V6_12, V6_18 };

struct KernelConfig {
  KernelVersion version = KernelVersion::V6_18;
  Features features;
  Tunables tunables;
  // The nohz_full= boot parameter (CONFIG_NO_HZ_FULL): these CPUs stop their tick while they
  // run a lone task. Empty: none, every busy CPU ticks (NO_HZ idle only).
  std::vector<int> nohz_full;
  // Whether the scenario's kernel threads ([[group]] kthread = true) run: a configuration can
  // leave them out to show what they change.
  bool kthreads = true;
};

}  // namespace schedlab::kernel
