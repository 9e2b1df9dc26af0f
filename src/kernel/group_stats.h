// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Sched group statistics and classification shared by load balancing (update_sg_lb_stats)
// and the fork/exec slow path (update_sg_wakeup_stats), as in kernel/sched/fair.c.

namespace schedlab::kernel {

// Lowest = least busy.
enum group_type {
  group_has_spare = 0,
  group_fully_busy,
  group_misfit_task,
  group_smt_balance,
  group_asym_packing,
  group_imbalanced,
  group_overloaded
};

struct sg_lb_stats {
  unsigned long avg_load = 0;
  unsigned long group_load = 0;
  unsigned long group_capacity = 0;
  unsigned long group_util = 0;
  unsigned long group_runnable = 0;
  unsigned int sum_nr_running = 0;
  unsigned int sum_h_nr_running = 0;
  unsigned int idle_cpus = 0;
  unsigned int group_weight = 0;
  group_type type = group_has_spare;
  bool group_smt_balance = false;
};

inline bool group_has_capacity(unsigned int imbalance_pct, const sg_lb_stats &s) {
  if (s.sum_nr_running < s.group_weight) return true;
  if (s.group_capacity * imbalance_pct < s.group_runnable * 100) return false;
  if (s.group_capacity * 100 > s.group_util * imbalance_pct) return true;
  return false;
}

inline bool group_is_overloaded(unsigned int imbalance_pct, const sg_lb_stats &s) {
  if (s.sum_nr_running <= s.group_weight) return false;
  if (s.group_capacity * 100 < s.group_util * imbalance_pct) return true;
  if (s.group_capacity * imbalance_pct < s.group_runnable * 100) return true;
  return false;
}

// MODEL: no group_imbalanced (affinity-failure propagation), asym packing or misfit
// (docs/model.md).
inline group_type group_classify(unsigned int imbalance_pct, const sg_lb_stats &s) {
  if (group_is_overloaded(imbalance_pct, s)) return group_overloaded;
  if (s.group_smt_balance) return group_smt_balance;
  if (!group_has_capacity(imbalance_pct, s)) return group_fully_busy;
  return group_has_spare;
}

}  // namespace schedlab::kernel
