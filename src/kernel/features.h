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

// SCHED_FEAT(name, default, meaning, patch): `meaning` is one line on what the switch does when
// on (`schedlab help features` prints it); `patch` names the patch a schedlab switch models, and
// is empty for the kernel's own switches.
#define SCHEDLAB_SCHED_FEATURES(SCHED_FEAT)                                                        \
  /* EEVDF placement and preemption (fair.c) */                                                    \
  SCHED_FEAT(PLACE_LAG, true, "keep a task's lag across sleep and wakeup (EEVDF placement)", "")   \
  SCHED_FEAT(PLACE_DEADLINE_INITIAL, true, "a new task starts with half a slice to its deadline",  \
             "")                                                                                   \
  SCHED_FEAT(PLACE_REL_DEADLINE, true, "keep a task's relative deadline across a migration", "")   \
  SCHED_FEAT(RUN_TO_PARITY, true,                                                                  \
             "no wakeup preemption until the running task reaches 0-lag or ends its slice", "")    \
  SCHED_FEAT(PREEMPT_SHORT, true, "a waking task with a shorter slice may preempt regardless", "") \
  SCHED_FEAT(DELAY_DEQUEUE, true,                                                                  \
             "a sleeper with negative lag stays queued until it is picked or woken", "")           \
  SCHED_FEAT(DELAY_ZERO, true, "clip a delayed sleeper's lag to 0 on dequeue or wakeup", "")       \
  SCHED_FEAT(WAKEUP_PREEMPTION, true, "a wakeup may preempt the running task", "")                 \
  /* Wakeup path (core.c, fair.c) */                                                               \
  SCHED_FEAT(TTWU_QUEUE, true, "queue a remote wakeup on the target CPU's wake list (an IPI)", "") \
  SCHED_FEAT(SIS_UTIL, true, "limit select_idle_cpu()'s LLC scan by how busy the LLC is", "")      \
  SCHED_FEAT(WA_IDLE, true, "wake_affine() prefers an idle waker or previous CPU", "")             \
  SCHED_FEAT(WA_WEIGHT, true, "wake_affine() compares the two CPUs' loads", "")                    \
  SCHED_FEAT(WA_BIAS, true, "wake_affine()'s load test leans to the waker's CPU", "")              \
  /* PELT: a CPU is at least as busy as its queued tasks were at their last sleeps */              \
  SCHED_FEAT(UTIL_EST, true, "utilization estimates: a task's util as of its last sleeps", "")     \
  /* Load balancing (fair.c) */                                                                    \
  SCHED_FEAT(LB_MIN, false,                                                                        \
             "detach_tasks() skips tasks of load below 16 until balancing has failed", "")         \
  /* task_hot(): SMT siblings share their caches, so nothing is cache hot at the SMT level,        \
     checked before the core-cookie test (in 6.12.y and 6.18.y; a schedlab switch) */              \
  SCHED_FEAT(TASK_HOT_SMT_EARLY_OUT, true,                                                         \
             "task_hot(): nothing is cache hot at the SMT level, tested before the cookie", "")    \
  /* "Bump sd->max_newidle_lb_cost when newidle balance fails" (6.17, 6.18.0-2; reverted           \
     in 6.18.3 and in the kernels modelled); off = plain max tracking */                           \
  SCHED_FEAT(NEWIDLE_BUMP_ON_FAIL, false,                                                          \
             "a failed newidle balance raises the domain's max_newidle_lb_cost",                   \
             "sched/fair: Bump sd->max_newidle_lb_cost when newidle balance fails (6.17)")         \
  /* Newidle balance a domain only with the probability that it has recently paid off (as in the   \
     kernel's features.h of 6.12.117, 6.18.5+ and 6.19); off = every time */                       \
  SCHED_FEAT(NI_RANDOM, true,                                                                      \
             "newidle-balance a domain with the probability that it has recently paid off", "")    \
  /* "sched: Update rq->avg_idle when a task is moved to an idle CPU" (tip 4b603f1551a7) and       \
     its follow-up "Skip rq->avg_idle update without a valid idle stamp" */                        \
  SCHED_FEAT(AVG_IDLE_ON_IDLE_EXIT, false,                                                         \
             "sample rq->avg_idle whenever the idle task is switched out, not on wakeups only",    \
             "sched: Update rq->avg_idle when a task is moved to an idle CPU (tip 4b603f1551a7)")  \
  SCHED_FEAT(AVG_IDLE_STAMP_GUARD, false,                                                          \
             "with AVG_IDLE_ON_IDLE_EXIT: sample only after newidle stamped the CPU idle",         \
             "sched: Skip rq->avg_idle update without a valid idle stamp")                         \
  /* Core scheduling patches under study; off = the kernel as released. Sieber, "[PATCH 0/4]       \
     sched/fair: Core sched wake up path improvements" (Sep 2025): */                              \
  SCHED_FEAT(CORE_COOKIE_SELECT_IDLE_CPU, false,                                                   \
             "__select_idle_cpu() tests the task's cookie against the core's, not the CPU's",      \
             "Sieber, sched/fair: Core sched wake up path improvements, 1/4 (Sep 2025)")           \
  SCHED_FEAT(CORE_COOKIE_FIND_DST_FALLBACK, false,                                                 \
             "find the idlest CPU among cookie matches first, then among the others",              \
             "Sieber, sched/fair: Core sched wake up path improvements, 2/4 (Sep 2025)")           \
  SCHED_FEAT(CORE_COOKIE_WAKE_AFFINE, false, "wake_affine() checks the cores' cookies too",        \
             "Sieber, sched/fair: Core sched wake up path improvements, 3/4 (Sep 2025)")           \
  /* "sched/fair: Add more core cookie check in wake up fast path" (Nov 2025), as posted,          \
     and the two alternatives of its review (enable at most one of the three): */                  \
  SCHED_FEAT(CORE_COOKIE_FASTPATH, false,                                                          \
             "the wakeup fast path takes an idle CPU only where its core runs the task's cookie",  \
             "sched/fair: Add more core cookie check in wake up fast path (Nov 2025), as posted")  \
  SCHED_FEAT(CORE_COOKIE_FASTPATH_CPU_MATCH, false,                                                \
             "as CORE_COOKIE_FASTPATH, with __select_idle_cpu()'s cookie test",                    \
             "review alternative of the wake up fast path cookie check (Nov 2025)")                \
  SCHED_FEAT(CORE_COOKIE_FASTPATH_IDLE_CORES, false,                                               \
             "as CORE_COOKIE_FASTPATH while the LLC has idle cores, else the CPU's cookie",        \
             "review alternative of the wake up fast path cookie check (Nov 2025)")                \
  /* Sieber, "sched/core: Push tasks on force idle" (Nov 2025; code not public, INFERRED           \
     design, docs/model.md): a forced-idle CPU pushes tasks stuck behind it to a CPU where         \
     they can run, after cookie stealing fails */                                                  \
  SCHED_FEAT(CORE_PUSH_FORCEIDLE, false,                                                           \
             "a forced-idle CPU pushes tasks stuck behind it to a CPU where they can run",         \
             "Sieber, sched/core: Push tasks on force idle (Nov 2025; INFERRED design)")           \
  /* "force idle aware load balancing" (Nov 2025; INFERRED), in three independent parts:           \
     forced-idle CPUs count as idle for balancing; detach prefers tasks whose cookie the           \
     destination core runs; the cookie check of task_hot() applies at the SMT level too */         \
  SCHED_FEAT(FI_IDLE_FOR_LB, false, "load balancing counts a forced-idle CPU as idle",             \
             "force idle aware load balancing (Nov 2025; INFERRED design)")                        \
  SCHED_FEAT(LB_COOKIE_PREF, false,                                                                \
             "detach_tasks() tries first the tasks whose cookie the destination core runs",        \
             "force idle aware load balancing (Nov 2025; INFERRED design)")                        \
  SCHED_FEAT(LB_COOKIE_SMT, false, "task_hot()'s cookie test applies at the SMT level too",        \
             "force idle aware load balancing (Nov 2025; INFERRED design)")

enum sched_feat_id {
#define SCHEDLAB_ENUM(name, def, doc, patch) __SCHED_FEAT_##name,
  SCHEDLAB_SCHED_FEATURES(SCHEDLAB_ENUM)
#undef SCHEDLAB_ENUM
      __SCHED_FEAT_NR
};

struct FeatureInfo {
  std::string_view name;
  bool default_value;
  std::string_view doc;    // one line: what the switch does when on
  std::string_view patch;  // the patch it models; empty for the kernel's own switches
};

inline constexpr std::array<FeatureInfo, __SCHED_FEAT_NR> kFeatures = {{
#define SCHEDLAB_INFO(name, def, doc, patch) {#name, def, doc, patch},
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
