// SPDX-License-Identifier: GPL-2.0-only
// kernel/sched/fair.c: where a waking or new task goes. select_task_rq_fair(), wake_affine(),
// the fast path select_idle_sibling() and the fork/exec slow path
// sched_balance_find_dst_cpu().
#include <algorithm>
#include <climits>

#include "kernel/group_stats.h"
#include "kernel/kernel.h"

namespace schedlab::kernel {

// ---------------------------------------------------------------------------------------------
// select_task_rq_fair()

void Kernel::record_wakee(task_struct *p, task_struct *current) {
  // Halve the flip count once a second so that it tracks recent behaviour.
  if (jiffies() > current->wakee_flip_decay_ts + hz_) {
    current->wakee_flips >>= 1;
    current->wakee_flip_decay_ts = jiffies();
  }
  if (current->last_wakee != p) {
    current->last_wakee = p;
    current->wakee_flips++;
  }
}

// Many-to-many wakeup patterns (a waker that flips between many wakees, each of which flips
// too) are spread instead of pulled onto the waker's LLC.
bool Kernel::wake_wide(task_struct *p, task_struct *current, int this_cpu) const {
  unsigned int master = current->wakee_flips;
  unsigned int slave = p->wakee_flips;
  const unsigned int factor = static_cast<unsigned int>(sd_llc_size(this_cpu));
  if (master < slave) std::swap(master, slave);
  if (slave < factor || master < slave * factor) return false;
  return true;
}

int Kernel::select_task_rq_fair(task_struct *p, int prev_cpu, int wake_flags) {
  const int cpu = this_cpu_;
  task_struct *current = cpu_rq(cpu)->curr;
  // The kernel tests PF_EXITING. MODEL: TASK_DEAD, the same here: an exiting task of the model
  // wakes nobody between the two.
  const bool sync = (wake_flags & WF_SYNC) && !(current->__state & TASK_DEAD);
  int new_cpu = prev_cpu;
  bool want_affine = false;
  const int sd_flag = wake_flags & 0xF;  // WF_EXEC, WF_FORK, WF_TTWU map onto SD_BALANCE_*

  if (wake_flags & WF_TTWU) {
    record_wakee(p, current);
    want_affine = !wake_wide(p, current, cpu) && p->cpus_mask.test(cpu);
  }

  sched_domain *sd = nullptr;
  for (const auto &tmp_ptr : domains_[cpu]) {
    sched_domain *tmp = tmp_ptr.get();
    // An affine wakeup stops at the first domain spanning both the waker and prev.
    if (want_affine && (tmp->flags & SD_WAKE_AFFINE) && tmp->span.test(prev_cpu)) {
      if (cpu != prev_cpu) new_cpu = wake_affine(tmp, p, cpu, prev_cpu, sync);
      sd = nullptr;
      break;
    }
    if (tmp->flags & sd_flag)
      sd = tmp;
    else if (!want_affine)
      break;
  }

  if (sd) return sched_balance_find_dst_cpu(sd, p, cpu, prev_cpu, sd_flag);
  if (wake_flags & WF_TTWU) return select_idle_sibling(p, prev_cpu, new_cpu);
  return new_cpu;
}

// ---------------------------------------------------------------------------------------------
// wake_affine()

int Kernel::wake_affine_idle(task_struct *p, int this_cpu, int prev_cpu, bool sync) {
  // [PATCH 3/4]: an idle CPU only counts if p could run there without forcing a sibling idle.
  const bool cookies = sched_feat(CORE_COOKIE_WAKE_AFFINE);
  auto match = [&](int cpu, bool s) {
    return !cookies || sched_core_cookie_match(cpu_rq(cpu), p, s);
  };
  // An idle waker CPU sharing the cache with prev: prev if it is idle too (its cache is warm),
  // else the waker's.
  if (available_idle_cpu(this_cpu) && cpus_share_cache(this_cpu, prev_cpu) &&
      match(this_cpu, false))
    return available_idle_cpu(prev_cpu) && match(prev_cpu, false) ? prev_cpu : this_cpu;
  if (sync) {
    const struct rq *rq = cpu_rq(this_cpu);
    if (rq->nr_running - rq->cfs.h_nr_delayed == 1 && match(this_cpu, true)) return this_cpu;
  }
  if (available_idle_cpu(prev_cpu) && match(prev_cpu, false)) return prev_cpu;
  return nr_cpus_;  // nr_cpumask_bits: no opinion
}

int Kernel::wake_affine_weight(sched_domain *sd, task_struct *p, int this_cpu, int prev_cpu,
                               bool sync) {
  s64 this_eff_load = static_cast<s64>(cpu_load(this_cpu));
  if (sync) {
    const s64 current_load = static_cast<s64>(cpu_rq(this_cpu)->curr->se.avg.load_avg);
    if (current_load > this_eff_load) return this_cpu;
    this_eff_load -= current_load;
  }
  // MODEL: task_h_load() is the task's load: no task groups (autogroups scale it by h_load in
  // the kernel; docs/model.md item 13).
  const s64 task_load = static_cast<s64>(p->se.avg.load_avg);
  this_eff_load += task_load;
  if (sched_feat(WA_BIAS)) this_eff_load *= 100;
  this_eff_load *= static_cast<s64>(cpu_rq(prev_cpu)->cpu_capacity);

  s64 prev_eff_load = static_cast<s64>(cpu_load(prev_cpu)) - task_load;
  if (sched_feat(WA_BIAS)) prev_eff_load *= 100 + (sd->imbalance_pct - 100) / 2;
  prev_eff_load *= static_cast<s64>(cpu_rq(this_cpu)->cpu_capacity);
  // A sync wakeup breaks a tie in favour of the waker's CPU.
  if (sync) prev_eff_load += 1;
  return this_eff_load < prev_eff_load ? this_cpu : nr_cpus_;
}

int Kernel::wake_affine(sched_domain *sd, task_struct *p, int this_cpu, int prev_cpu, bool sync) {
  int target = nr_cpus_;
  if (sched_feat(WA_IDLE)) target = wake_affine_idle(p, this_cpu, prev_cpu, sync);
  if (sched_feat(WA_WEIGHT) && target == nr_cpus_)
    target = wake_affine_weight(sd, p, this_cpu, prev_cpu, sync);
  if (target != this_cpu) return prev_cpu;
  cpu_rq(this_cpu)->ttwu_move_affine++;  // schedstat_inc(sd->ttwu_move_affine)
  return target;
}

// ---------------------------------------------------------------------------------------------
// Idle-core hint

bool Kernel::test_idle_cores(int cpu) const {
  const sched_domain_shared *sds = sd_llc_shared(cpu);
  return sds && sds->has_idle_cores;
}

void Kernel::set_idle_cores(int cpu, int val) {
  sched_domain_shared *sds = sd_llc_shared(cpu);
  if (sds) sds->has_idle_cores = val;
}

void Kernel::__update_idle_core(struct rq *rq) {
  const int core = rq->cpu;
  if (test_idle_cores(core)) return;
  bool all_idle = true;
  for (const int cpu : cpu_smt_cpus(core))
    if (cpu != core && !available_idle_cpu(cpu)) all_idle = false;
  if (all_idle) set_idle_cores(core, 1);
}

// ---------------------------------------------------------------------------------------------
// select_idle_sibling() and its helpers

int Kernel::__select_idle_cpu(int cpu, task_struct *p) {
  if (!(available_idle_cpu(cpu) || sched_idle_cpu(cpu))) return -1;
  // [PATCH 1/4] accepts a whole idle core whatever its stale core cookie.
  const bool match = sched_feat(CORE_COOKIE_SELECT_IDLE_CPU)
                         ? sched_core_cookie_match(cpu_rq(cpu), p)
                         : sched_cpu_cookie_match(cpu_rq(cpu), p);
  return match ? cpu : -1;
}

// The cookie test the wakeup fast path applies to an idle target, prev or recent CPU: none in
// the released kernels; "Add more core cookie check in wake up fast path" as posted (the core
// runs p's cookie or is entirely idle), or one of the two alternatives from its review.
bool Kernel::sis_fastpath_cookie_ok(int cpu, task_struct *p, int target) {
  const struct rq *rq = cpu_rq(cpu);
  if (sched_feat(CORE_COOKIE_FASTPATH)) return sched_core_cookie_match(rq, p);
  if (sched_feat(CORE_COOKIE_FASTPATH_CPU_MATCH)) return __select_idle_cpu(cpu, p) == cpu;
  if (sched_feat(CORE_COOKIE_FASTPATH_IDLE_CORES))
    return test_idle_cores(target) ? sched_core_cookie_match(rq, p) : sched_cpu_cookie_match(rq, p);
  return true;
}

int Kernel::select_idle_core(task_struct *, int core, CpuMask &cpus, int *idle_cpu) {
  bool idle = true;
  for (const int cpu : cpu_smt_cpus(core)) {
    if (!available_idle_cpu(cpu)) {
      idle = false;
      if (*idle_cpu == -1) {
        if (sched_idle_cpu(cpu) && cpus.test(cpu)) {
          *idle_cpu = cpu;
          break;
        }
        continue;
      }
      break;
    }
    if (*idle_cpu == -1 && cpus.test(cpu)) *idle_cpu = cpu;
  }
  if (idle) return core;
  cpus.andnot(cpu_smt_mask(core));
  return -1;
}

int Kernel::select_idle_smt(task_struct *p, sched_domain *sd, int target) {
  // [PATCH 1/4]: the siblings share the core cookie, so one check covers them all.
  if (sched_feat(CORE_COOKIE_SELECT_IDLE_CPU) && !sched_core_cookie_match(cpu_rq(target), p))
    return -1;
  const bool checked = sched_feat(CORE_COOKIE_FASTPATH) ||
                       sched_feat(CORE_COOKIE_FASTPATH_CPU_MATCH) ||
                       sched_feat(CORE_COOKIE_FASTPATH_IDLE_CORES);
  for (const int cpu : cpu_smt_cpus(target)) {
    if (cpu == target || !p->cpus_mask.test(cpu)) continue;
    // The sibling may sit outside the LLC domain when the domain was cut by isolation.
    if (!sd->span.test(cpu)) continue;
    if (checked ? __select_idle_cpu(cpu, p) == cpu : available_idle_cpu(cpu) || sched_idle_cpu(cpu))
      return cpu;
  }
  return -1;
}

int Kernel::select_idle_cpu(task_struct *p, sched_domain *sd, bool has_idle_core, int target) {
  // The kernel's per-CPU select_rq_mask: a scratch mask, not a new one per wakeup.
  CpuMask &cpus = select_rq_mask_;
  cpus = sd->span;
  cpus &= p->cpus_mask;
  int idle_cpu = -1;
  int nr = INT_MAX;

  if (sched_feat(SIS_UTIL)) {
    const sched_domain_shared *sd_share = sd_llc_shared(target);
    if (sd_share) {
      // The "+1" because the loop pre-decrements; 1 means the LLC is too busy to scan.
      nr = sd_share->nr_idle_scan + 1;
      if (nr == 1) return -1;
    }
  }

  int result = -2;  // -2: keep scanning
  auto visit = [&](int cpu) {
    if (!cpus.test(cpu)) return true;  // removed by an earlier select_idle_core()
    if (has_idle_core) {
      const int i = select_idle_core(p, cpu, cpus, &idle_cpu);
      if (i >= 0) {
        result = i;
        return false;
      }
    } else {
      if (--nr <= 0) {
        result = -1;
        return false;
      }
      idle_cpu = __select_idle_cpu(cpu, p);
      if (idle_cpu >= 0) return false;
    }
    return true;
  };

  if (cluster_active_) {
    sched_domain *sd_cluster = lowest_flag_domain(target, SD_CLUSTER);
    if (sd_cluster) {
      CpuMask cluster = sd_cluster->span;
      cluster.for_each_wrap(target + 1 < nr_cpus_ ? target + 1 : 0,
                            [&](int cpu) { return visit(cpu); });
      if (result != -2) return result;
      if (idle_cpu >= 0 && !has_idle_core) return idle_cpu;
      cpus.andnot(cluster);
    }
  }

  cpus.for_each_wrap(target + 1 < nr_cpus_ ? target + 1 : 0, [&](int cpu) { return visit(cpu); });
  if (result != -2) return result;
  // A full idle-core scan found none: the hint was stale.
  if (has_idle_core) set_idle_cores(target, 0);
  return idle_cpu;
}

int Kernel::select_idle_sibling(task_struct *p, int prev, int target) {
  sis_.calls++;
  in_sis_ = true;
  const int cpu = __select_idle_sibling(p, prev, target);
  in_sis_ = false;
  sis_.by_step[sis_step_]++;
  if (sched_core_active_ && !sched_core_cookie_match(cpu_rq(cpu), p)) {
    sis_.cookie_mismatch++;
    sis_.cookie_mismatch_by_step[sis_step_]++;
  }
  return cpu;
}

int Kernel::__select_idle_sibling(task_struct *p, int prev, int target) {
  // MODEL: symmetric capacity only, so asym_fits_cpu() is always true and the
  // SD_ASYM_CPUCAPACITY branch never runs (docs/model.md).

  // (1) The target (the waker's CPU or prev) is idle.
  if ((available_idle_cpu(target) || sched_idle_cpu(target)) &&
      sis_fastpath_cookie_ok(target, p, target)) {
    sis_step_ = SIS_TARGET;
    return target;
  }

  // (2) prev is idle and shares the cache with target: its cache may still be warm.
  int prev_aff = -1;
  if (prev != target && cpus_share_cache(prev, target) &&
      (available_idle_cpu(prev) || sched_idle_cpu(prev)) &&
      sis_fastpath_cookie_ok(prev, p, target)) {
    if (!cluster_active_ || cpus_share_resources(prev, target)) {
      sis_step_ = SIS_PREV;
      return prev;
    }
    prev_aff = prev;
  }

  // (3) Per-CPU kthread stacking: MODEL: wakers here are never per-CPU kthreads.

  // (4) The CPU the task used before prev.
  int recent_used_cpu = p->recent_used_cpu;
  p->recent_used_cpu = prev;
  if (recent_used_cpu != prev && recent_used_cpu != target &&
      cpus_share_cache(recent_used_cpu, target) &&
      (available_idle_cpu(recent_used_cpu) || sched_idle_cpu(recent_used_cpu)) &&
      sis_fastpath_cookie_ok(recent_used_cpu, p, target) && p->cpus_mask.test(recent_used_cpu)) {
    if (!cluster_active_ || cpus_share_resources(recent_used_cpu, target)) {
      sis_step_ = SIS_RECENT;
      return recent_used_cpu;
    }
  } else {
    recent_used_cpu = -1;
  }

  // (6) Scan the target's LLC.
  sched_domain *sd = sd_llc(target);
  if (!sd) {
    sis_step_ = SIS_FALLBACK;
    return target;
  }

  bool has_idle_core = false;
  if (sched_smt_active()) {
    has_idle_core = test_idle_cores(target);
    // (7) No idle core anywhere: an idle sibling of prev keeps the cache warm.
    if (!has_idle_core && cpus_share_cache(prev, target)) {
      const int i = select_idle_smt(p, sd, prev);
      if (i >= 0) {
        sis_step_ = SIS_SMT;
        return i;
      }
    }
  }

  // (8)
  const int i = select_idle_cpu(p, sd, has_idle_core, target);
  if (i >= 0) {
    sis_step_ = SIS_SCAN;
    return i;
  }

  // (9) Nothing idle: fall back to what looked best before the scan.
  sis_step_ = SIS_FALLBACK;
  if (prev_aff >= 0) return prev_aff;
  if (recent_used_cpu >= 0) return recent_used_cpu;
  return target;
}

// ---------------------------------------------------------------------------------------------
// Slow path: sched_balance_find_dst_cpu() for fork and exec

// The CPU p last ran on still counts p's load, blocked or queued: take it out (a new task has
// none).
static unsigned long cpu_load_without(const Kernel &k, int cpu, const task_struct *p) {
  if (cpu != p->cpu || !p->se.avg.last_update_time) return k.cpu_load(cpu);
  unsigned long load = k.cpu_rq(cpu)->cfs.avg.load_avg;
  sub_positive(load, p->se.avg.load_avg);  // MODEL: task_h_load() without groups (item 13)
  return load;
}

static unsigned long cpu_runnable_without(const Kernel &k, int cpu, const task_struct *p) {
  unsigned long runnable = k.cpu_rq(cpu)->cfs.avg.runnable_avg;  // cpu_runnable()
  if (cpu == p->cpu && p->se.avg.last_update_time) sub_positive(runnable, p->se.avg.runnable_avg);
  return runnable;
}

// Idle once p is not counted; the caller has tested nr_running without p.
static bool idle_cpu_without(const Kernel &k, int cpu, const task_struct *p) {
  const struct rq *rq = k.cpu_rq(cpu);
  if (rq->curr != rq->idle && rq->curr != p) return false;
  return !rq->ttwu_pending;
}

// The fork/exec-time group statistics, with p's own contribution taken out.
static void update_sg_wakeup_stats(const Kernel &k, const sched_domain *sd,
                                   const sched_group &group, const task_struct *p,
                                   sg_lb_stats &sgs) {
  group.for_each_cpu([&](int i) {
    if (!p->cpus_mask.test(i)) return;
    const struct rq *rq = k.cpu_rq(i);
    const bool local = p->cpu == i && p->on_rq;
    sgs.group_load += cpu_load_without(k, i, p);
    sgs.group_util += k.cpu_util_without(i, p);
    sgs.group_runnable += cpu_runnable_without(k, i, p);
    const unsigned int nr_running = rq->nr_running - (local ? 1 : 0);
    sgs.sum_nr_running += nr_running;
    if (!nr_running && idle_cpu_without(k, i, p)) sgs.idle_cpus++;
  });
  sgs.group_capacity = static_cast<unsigned long>(group.weight) * SCHED_CAPACITY_SCALE;
  sgs.group_weight = static_cast<unsigned int>(group.weight);
  sgs.type = group_classify(sd->imbalance_pct, sgs);
  if (sgs.type == group_fully_busy || sgs.type == group_overloaded)
    sgs.avg_load = sgs.group_load * SCHED_CAPACITY_SCALE / sgs.group_capacity;
}

static bool update_pick_idlest(const sg_lb_stats &idlest, const sg_lb_stats &sgs) {
  if (sgs.type < idlest.type) return true;
  if (sgs.type > idlest.type) return false;
  switch (sgs.type) {
    case group_overloaded:
    case group_fully_busy:
      return sgs.avg_load < idlest.avg_load;
    case group_has_spare:
      if (idlest.idle_cpus > sgs.idle_cpus) return false;
      if (idlest.idle_cpus == sgs.idle_cpus && idlest.group_util <= sgs.group_util) return false;
      return true;
    default:
      return false;
  }
}

const sched_group *Kernel::sched_balance_find_dst_group(sched_domain *sd, task_struct *p,
                                                        int this_cpu) {
  const sched_group *idlest = nullptr, *local = nullptr;
  sg_lb_stats local_sgs, idlest_sgs;
  idlest_sgs.type = group_overloaded;
  idlest_sgs.avg_load = ~0UL;
  for (const sched_group &group : sd->groups) {
    if (!group.span.intersects(p->cpus_mask)) continue;
    // Core scheduling: only groups with a CPU where p could run without forcing idle.
    if (!sched_group_cookie_match(cpu_rq(this_cpu), p, &group)) continue;
    const bool local_group = group.contains(this_cpu);
    sg_lb_stats sgs;
    update_sg_wakeup_stats(*this, sd, group, p, sgs);
    if (local_group) {
      local = &group;
      local_sgs = sgs;
      continue;
    }
    if (!idlest || update_pick_idlest(idlest_sgs, sgs)) {
      idlest = &group;
      idlest_sgs = sgs;
    }
  }
  if (!idlest) return nullptr;
  if (!local) return idlest;
  if (local_sgs.type < idlest_sgs.type) return nullptr;
  if (idlest_sgs.type < local_sgs.type) return idlest;

  switch (local_sgs.type) {
    case group_overloaded:
    case group_fully_busy: {
      // Stay local unless the idlest group is clearly less loaded.
      const unsigned long imbalance = SCHED_CAPACITY_SCALE * (sd->imbalance_pct - 100) / 100;
      if (idlest_sgs.avg_load >= local_sgs.avg_load + imbalance) return nullptr;
      if (100 * local_sgs.avg_load <= sd->imbalance_pct * idlest_sgs.avg_load) return nullptr;
      if ((sd->flags & SD_NUMA) && idlest_sgs.avg_load + imbalance >= local_sgs.avg_load)
        return nullptr;
      return idlest;
    }
    case group_has_spare:
      // MODEL: the NUMA imbalance allowance (imb_numa_nr) is not modelled (docs/model.md).
      if (local_sgs.idle_cpus >= idlest_sgs.idle_cpus) return nullptr;
      return idlest;
    default:
      return nullptr;
  }
}

// cookie_pass: 0 = the released kernel (CPUs without a cookie match are skipped);
// [PATCH 2/4] makes two passes, 1 = matching CPUs only (-1 if there is none), 2 = the others.
static int find_dst_group_cpu(const Kernel &k, const sched_group *group, task_struct *p,
                              int this_cpu, int cookie_pass);

int Kernel::sched_balance_find_dst_group_cpu(const sched_group *group, task_struct *p,
                                             int this_cpu) {
  if (group->weight == 1) return group->cpus[0];
  if (!sched_feat(CORE_COOKIE_FIND_DST_FALLBACK))
    return find_dst_group_cpu(*this, group, p, this_cpu, 0);
  const int cpu = find_dst_group_cpu(*this, group, p, this_cpu, 1);
  return cpu >= 0 ? cpu : find_dst_group_cpu(*this, group, p, this_cpu, 2);
}

static int find_dst_group_cpu(const Kernel &k, const sched_group *group, task_struct *p,
                              int this_cpu, int cookie_pass) {
  // With the two-pass patch, this_cpu is the answer only once some CPU passed the filter.
  int least_loaded_cpu = cookie_pass ? -1 : this_cpu;
  unsigned long min_load = ~0UL;
  int shallowest_idle_cpu = -1;
  Time min_exit_latency = kNotInIdleState;
  u64 latest_idle_timestamp = 0;
  bool have_idle = false;
  int result = -1;
  group->for_each_cpu([&](int i) {
    if (result >= 0 || !p->cpus_mask.test(i)) return;
    const struct rq *rq = k.cpu_rq(i);
    const bool match = k.sched_core_cookie_match(rq, p);
    if (cookie_pass == 2 ? match : !match) return;
    if (least_loaded_cpu < 0) least_loaded_cpu = this_cpu;
    if (k.sched_idle_cpu(i)) {
      result = i;
      return;
    }
    if (k.available_idle_cpu(i)) {
      // The idle CPU in the shallowest state, then the most recently idled. MODEL: without
      // [machine.idle] no CPU is in a state, so the first one wins and then the most recently
      // idled (docs/model.md).
      const Time exit = k.idle_exit_latency(i);
      if (exit != kNotInIdleState && exit < min_exit_latency) {
        have_idle = true;
        min_exit_latency = exit;
        latest_idle_timestamp = rq->idle_stamp;
        shallowest_idle_cpu = i;
      } else if ((exit == kNotInIdleState || exit == min_exit_latency) &&
                 (!have_idle || rq->idle_stamp > latest_idle_timestamp)) {
        have_idle = true;
        latest_idle_timestamp = rq->idle_stamp;
        shallowest_idle_cpu = i;
      }
    } else if (shallowest_idle_cpu == -1) {
      const unsigned long load = k.cpu_load(i);
      if (load < min_load) {
        min_load = load;
        least_loaded_cpu = i;
      }
    }
  });
  if (result >= 0) return result;
  return shallowest_idle_cpu != -1 ? shallowest_idle_cpu : least_loaded_cpu;
}

int Kernel::sched_balance_find_dst_cpu(sched_domain *sd, task_struct *p, int cpu, int prev_cpu,
                                       int sd_flag) {
  if (!sd->span.intersects(p->cpus_mask)) return prev_cpu;
  int new_cpu = cpu;
  while (sd) {
    if (!(sd->flags & sd_flag)) {
      sd = sd->child;
      continue;
    }
    const sched_group *group = sched_balance_find_dst_group(sd, p, cpu);
    if (!group) {
      sd = sd->child;
      continue;
    }
    new_cpu = sched_balance_find_dst_group_cpu(group, p, cpu);
    if (new_cpu == cpu) {
      sd = sd->child;
      continue;
    }
    // Descend from the new CPU's domain just below the level we were at.
    cpu = new_cpu;
    const int weight = sd->span_weight;
    sd = nullptr;
    for (const auto &tmp : domains_[cpu]) {
      if (weight <= tmp->span_weight) break;
      if (tmp->flags & sd_flag) sd = tmp.get();
    }
  }
  return new_cpu;
}

}  // namespace schedlab::kernel
