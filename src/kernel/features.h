// SPDX-License-Identifier: GPL-2.0-only
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
#define SCHEDLAB_SCHED_FEATURES(SCHED_FEAT)                                                      \
  /* EEVDF placement and preemption (fair.c) */                                                  \
  SCHED_FEAT(PLACE_LAG, true)                                                                    \
  SCHED_FEAT(PLACE_DEADLINE_INITIAL, true)                                                       \
  SCHED_FEAT(PLACE_REL_DEADLINE, true)                                                           \
  SCHED_FEAT(RUN_TO_PARITY, true)                                                                \
  SCHED_FEAT(PREEMPT_SHORT, true)                                                                \
  SCHED_FEAT(DELAY_DEQUEUE, true)                                                                \
  SCHED_FEAT(DELAY_ZERO, true)                                                                   \
  SCHED_FEAT(WAKEUP_PREEMPTION, true)                                                            \
  /* Wakeup path (core.c, fair.c) */                                                             \
  SCHED_FEAT(TTWU_QUEUE, true)                                                                   \
  SCHED_FEAT(SIS_UTIL, true)                                                                     \
  SCHED_FEAT(WA_IDLE, true)                                                                      \
  SCHED_FEAT(WA_WEIGHT, true)                                                                    \
  SCHED_FEAT(WA_BIAS, true)                                                                      \
  /* PELT: a CPU is at least as busy as its queued tasks were at their last sleeps */            \
  SCHED_FEAT(UTIL_EST, true)                                                                     \
  /* Load balancing (fair.c) */                                                                  \
  SCHED_FEAT(LB_MIN, false)                                                                      \
  /* task_hot(): SMT siblings share their caches, so nothing is cache hot at the SMT level,      \
     checked before the core-cookie test (in 6.12.y and 6.18.y; a schedlab switch) */            \
  SCHED_FEAT(TASK_HOT_SMT_EARLY_OUT, true)                                                       \
  /* "Bump sd->max_newidle_lb_cost when newidle balance fails" (6.17, 6.18.0-2; reverted         \
     in 6.18.3 and in the kernels modelled); off = plain max tracking */                         \
  SCHED_FEAT(NEWIDLE_BUMP_ON_FAIL, false)                                                        \
  /* Newidle balance a domain only with the probability that it has recently paid off (as in the \
     kernel's features.h of 6.12.117, 6.18.5+ and 6.19); off = every time */                     \
  SCHED_FEAT(NI_RANDOM, true)                                                                    \
  /* "sched: Update rq->avg_idle when a task is moved to an idle CPU" (tip 4b603f1551a7) and     \
     its follow-up "Skip rq->avg_idle update without a valid idle stamp" */                      \
  SCHED_FEAT(AVG_IDLE_ON_IDLE_EXIT, false)                                                       \
  SCHED_FEAT(AVG_IDLE_STAMP_GUARD, false)                                                        \
  /* Core scheduling patches under study; off = the kernel as released. Sieber, "[PATCH 0/4]     \
     sched/fair: Core sched wake up path improvements" (Sep 2025): */                            \
  SCHED_FEAT(CORE_COOKIE_SELECT_IDLE_CPU, false)   /* 1/4: __select_idle_cpu core match */       \
  SCHED_FEAT(CORE_COOKIE_FIND_DST_FALLBACK, false) /* 2/4: idlest CPU without a match */         \
  SCHED_FEAT(CORE_COOKIE_WAKE_AFFINE, false)       /* 3/4: cookie checks in wake_affine */       \
  /* "sched/fair: Add more core cookie check in wake up fast path" (Nov 2025), as posted,        \
     and the two alternatives of its review (enable at most one of the three): */                \
  SCHED_FEAT(CORE_COOKIE_FASTPATH, false)                                                        \
  SCHED_FEAT(CORE_COOKIE_FASTPATH_CPU_MATCH, false)                                              \
  SCHED_FEAT(CORE_COOKIE_FASTPATH_IDLE_CORES, false)                                             \
  /* Sieber, "sched/core: Push tasks on force idle" (Nov 2025; code not public, INFERRED         \
     design, docs/model.md): a forced-idle CPU pushes tasks stuck behind it to a CPU where       \
     they can run, after cookie stealing fails */                                                \
  SCHED_FEAT(CORE_PUSH_FORCEIDLE, false)                                                         \
  /* "force idle aware load balancing" (Nov 2025; INFERRED), in three independent parts:         \
     forced-idle CPUs count as idle for balancing; detach prefers tasks whose cookie the         \
     destination core runs; the cookie check of task_hot() applies at the SMT level too */       \
  SCHED_FEAT(FI_IDLE_FOR_LB, false)                                                              \
  SCHED_FEAT(LB_COOKIE_PREF, false)                                                              \
  SCHED_FEAT(LB_COOKIE_SMT, false)

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

// Empty if the combination is one the kernel could be built with, else why not.
std::string validate_features(const Features &f);

}  // namespace schedlab::kernel
