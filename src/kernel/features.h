#pragma once
// Scheduler feature switches, in the style of kernel/sched/features.h. Names and defaults are
// the kernel's (6.12-6.18 era, see docs/model.md); patches under study are features too,
// default off, so a configuration is "the kernel plus these switches".
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace schedlab::kernel {

// SCHED_FEAT(name, default)
#define SCHEDLAB_SCHED_FEATURES(SCHED_FEAT)     \
  /* EEVDF placement and preemption (fair.c) */ \
  SCHED_FEAT(PLACE_LAG, true)                   \
  SCHED_FEAT(PLACE_DEADLINE_INITIAL, true)      \
  SCHED_FEAT(PLACE_REL_DEADLINE, true)          \
  SCHED_FEAT(RUN_TO_PARITY, true)               \
  SCHED_FEAT(PREEMPT_SHORT, true)               \
  SCHED_FEAT(DELAY_DEQUEUE, true)               \
  SCHED_FEAT(DELAY_ZERO, true)                  \
  SCHED_FEAT(WAKEUP_PREEMPTION, true)           \
  /* Wakeup path (core.c, fair.c) */            \
  SCHED_FEAT(TTWU_QUEUE, true)                  \
  SCHED_FEAT(SIS_UTIL, true)                    \
  SCHED_FEAT(WA_IDLE, true)                     \
  SCHED_FEAT(WA_WEIGHT, true)                   \
  SCHED_FEAT(WA_BIAS, true)

enum sched_feat_id {
#define SCHEDLAB_ENUM(name, def) __SCHED_FEAT_##name,
  SCHEDLAB_SCHED_FEATURES(SCHEDLAB_ENUM)
#undef SCHEDLAB_ENUM
      __SCHED_FEAT_NR
};

struct FeatureInfo {
  std::string_view name;
  bool default_value;
};

inline constexpr std::array<FeatureInfo, __SCHED_FEAT_NR> kFeatures = {{
#define SCHEDLAB_INFO(name, def) {#name, def},
    SCHEDLAB_SCHED_FEATURES(SCHEDLAB_INFO)
#undef SCHEDLAB_INFO
}};

struct Features {
  std::array<bool, __SCHED_FEAT_NR> on{};
  Features() {
    for (int i = 0; i < __SCHED_FEAT_NR; i++) on[i] = kFeatures[i].default_value;
  }
};

std::optional<sched_feat_id> find_feature(std::string_view name);

}  // namespace schedlab::kernel
