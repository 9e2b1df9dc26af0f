// SPDX-License-Identifier: GPL-2.0-only
// kernel/sched/fair.c: load balancing. Periodic balancing (sched_balance_domains ->
// sched_balance_rq), newidle balancing (sched_balance_newidle), NOHZ idle balancing, and the
// SIS_UTIL statistics the wakeup path reads.
#include <algorithm>
#include <cassert>
#include <climits>

#include "kernel/group_stats.h"
#include "kernel/kernel.h"

namespace schedlab::kernel {

namespace {

constexpr unsigned int SCHED_NR_MIGRATE_BREAK = 32;
constexpr unsigned long MAX_PINNED_INTERVAL = 512;  // ms

enum migration_type { migrate_load = 0, migrate_util, migrate_task, migrate_misfit };

constexpr int LBF_ALL_PINNED = 0x01;
constexpr int LBF_NEED_BREAK = 0x02;
constexpr int LBF_SOME_PINNED = 0x08;
constexpr int LBF_ACTIVE_LB = 0x10;

struct sd_lb_stats {
  const sched_group *busiest = nullptr;
  const sched_group *local = nullptr;
  unsigned long total_load = 0;
  unsigned long total_capacity = 0;
  unsigned long avg_load = 0;
  bool prefer_sibling = false;
  sg_lb_stats busiest_stat, local_stat;
};

struct lb_env {
  sched_domain *sd;
  int src_cpu;
  struct rq *src_rq;
  int dst_cpu;
  struct rq *dst_rq;
  Kernel::cpu_idle_type idle;
  long imbalance = 0;
  // The CPUs still considered: the domain's span until a pinned busiest CPU is dropped.
  const CpuMask *cpus = nullptr;
  CpuMask cpus_storage;
  int flags = 0;
  unsigned int loop = 0, loop_break = SCHED_NR_MIGRATE_BREAK, loop_max = 0;
  migration_type type = migrate_load;
  // env->tasks: what detach_tasks() took off src_rq, attached to dst_rq once it returns. A
  // batch ends at a breather (loop_break), so it holds at most SCHED_NR_MIGRATE_BREAK tasks.
  task_struct *tasks[SCHED_NR_MIGRATE_BREAK];
  unsigned int nr_tasks = 0;
  // Whether cpu is still considered: every CPU of the domain until one is dropped, so the
  // common case needs no bitmap read.
  bool considers(int cpu) const { return cpus == &sd->span || cpus->test(cpu); }
};

// A group's flags are its child domain's: an MC group is a core, an SMT group.
bool smt_group(const sched_domain *sd) {
  return sd->child && (sd->child->flags & SD_SHARE_CPUCAPACITY);
}

// Evens out nr_running per core between two groups of possibly different core counts.
long sibling_imbalance(const lb_env &env, const sd_lb_stats &sds, const Kernel &k,
                       const sg_lb_stats &busiest, const sg_lb_stats &local) {
  if (env.idle == Kernel::__CPU_NOT_IDLE || !busiest.sum_nr_running) return 0;
  (void)k;
  const long ncores_busiest = sds.busiest->cores;
  const long ncores_local = sds.local->cores;
  if (ncores_busiest == ncores_local)
    return std::max<long>(0, static_cast<long>(busiest.sum_nr_running) - local.sum_nr_running);
  long imbalance = std::max<long>(
      0, ncores_local * busiest.sum_nr_running - ncores_busiest * local.sum_nr_running);
  imbalance = (2 * imbalance + ncores_local + ncores_busiest) / (ncores_local + ncores_busiest);
  if (imbalance <= 1 && local.sum_nr_running == 0 && busiest.sum_nr_running > 1) imbalance = 2;
  return imbalance;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Statistics

static void update_sg_lb_stats(Kernel &k, lb_env &env, const sched_group &group, sg_lb_stats &sgs,
                               bool local_group, bool *sg_overloaded) {
  group.for_each_cpu([&](int i) {
    if (!env.considers(i)) return;
    struct rq *rq = k.cpu_rq(i);
    // As the kernel reads them: as of the CPU's last PELT update (its own events and ticks,
    // sched_balance_update_blocked_averages() for idle CPUs).
    sgs.group_load += k.cpu_load(i);
    sgs.group_util += k.cpu_util_cfs(i);
    sgs.group_runnable += rq->cfs.avg.runnable_avg;
    sgs.sum_h_nr_running += k.lb_h_nr_running(rq);
    sgs.sum_nr_running += rq->nr_running;
    *sg_overloaded |= rq->nr_running > 1;
    // A forced-idle CPU is not idle, unless FI_IDLE_FOR_LB says so.
    sgs.idle_cpus += k.lb_idle_cpu(i);
  });
  sgs.group_capacity = static_cast<unsigned long>(group.weight) * SCHED_CAPACITY_SCALE;
  sgs.group_weight = static_cast<unsigned int>(group.weight);
  // A busy SMT core is worth spreading to an idle CPU (smt_balance()).
  if (!local_group && env.idle != Kernel::__CPU_NOT_IDLE && smt_group(env.sd) &&
      sgs.sum_h_nr_running > 1)
    sgs.group_smt_balance = true;
  sgs.type = group_classify(env.sd->imbalance_pct, sgs);
  if (sgs.type == group_overloaded)
    sgs.avg_load = sgs.group_load * SCHED_CAPACITY_SCALE / sgs.group_capacity;
}

static bool update_sd_pick_busiest(const lb_env &env, const sd_lb_stats &sds,
                                   const sg_lb_stats &sgs) {
  const sg_lb_stats &busiest = sds.busiest_stat;
  if (!sgs.sum_h_nr_running) return false;
  if (!sds.busiest) return true;
  if (sgs.type > busiest.type) return true;
  if (sgs.type < busiest.type) return false;
  const bool sg_smt = smt_group(env.sd);
  switch (sgs.type) {
    case group_overloaded:
      return sgs.avg_load > busiest.avg_load;
    case group_smt_balance:
      if (sgs.idle_cpus != 0 || busiest.idle_cpus != 0) goto has_spare;
      [[fallthrough]];
    case group_fully_busy:
      // avg_load is not computed for fully busy groups: the first wins, but SMT groups need
      // more help than groups of single CPUs.
      if (sgs.avg_load < busiest.avg_load) return false;
      if (sgs.avg_load == busiest.avg_load && sg_smt) return false;
      return true;
    case group_has_spare:
    has_spare:
      // The kernel keeps an SMT group with one task from beating a group of single CPUs here
      // (smt_vs_nonsmt_groups()); the groups of a level are alike on these machines, so it
      // never applies: the fewest idle CPUs win, then the most tasks.
      if (sgs.idle_cpus > busiest.idle_cpus) return false;
      if (sgs.idle_cpus == busiest.idle_cpus && sgs.sum_nr_running <= busiest.sum_nr_running)
        return false;
      return true;
    default:
      return false;
  }
}

// groups[0] is the local group by construction; another group can hold dst_cpu too only where
// groups overlap.
[[gnu::always_inline]] static inline bool is_local_group(const lb_env &env, const sched_group &sg) {
  return &sg == &env.sd->groups.front() || (env.sd->groups_overlap && sg.contains(env.dst_cpu));
}

static void update_sd_lb_stats(Kernel &k, lb_env &env, sd_lb_stats &sds, bool *overloaded) {
  unsigned long sum_util = 0;
  bool sg_overloaded = false;
  for (const sched_group &sg : env.sd->groups) {
    const bool local_group = is_local_group(env, sg);
    sg_lb_stats sgs;
    update_sg_lb_stats(k, env, sg, sgs, local_group, &sg_overloaded);
    sds.total_load += sgs.group_load;
    sds.total_capacity += sgs.group_capacity;
    sum_util += sgs.group_util;
    if (local_group) {
      sds.local = &sg;
      sds.local_stat = sgs;
      continue;
    }
    if (update_sd_pick_busiest(env, sds, sgs)) {
      sds.busiest = &sg;
      sds.busiest_stat = sgs;
    }
  }
  sds.prefer_sibling = env.sd->child && (env.sd->child->flags & SD_PREFER_SIBLING);
  if (!env.sd->parent) *overloaded = sg_overloaded;  // the root domain's overload flag
  if (env.idle != Kernel::CPU_NEWLY_IDLE) k.update_idle_cpu_scan(env.sd, env.dst_cpu, sum_util);
}

// SIS_UTIL: the busier the LLC, the fewer CPUs select_idle_cpu() may scan. Integer maths as
// in the kernel: nr = llc_weight * (1 - min(1, (util_avg * pct)^2 / (10000 * 1024^2) * 1024)).
void Kernel::update_idle_cpu_scan(sched_domain *sd, int cpu, unsigned long sum_util) {
  if (!sched_feat(SIS_UTIL)) return;
  const int llc_weight = sd_llc_size(cpu);
  if (sd->span_weight != llc_weight) return;
  sched_domain_shared *sd_share = sd_llc_shared(cpu);
  if (!sd_share) return;
  const u64 x = sum_util / static_cast<u64>(llc_weight);
  const u64 pct = sd->imbalance_pct;
  u64 tmp = x * x * pct * pct / (10000 * SCHED_CAPACITY_SCALE);
  tmp = std::min<u64>(tmp, SCHED_CAPACITY_SCALE);
  const u64 y = (SCHED_CAPACITY_SCALE - tmp) * static_cast<u64>(llc_weight) / SCHED_CAPACITY_SCALE;
  sd_share->nr_idle_scan = static_cast<int>(y);
}

// ---------------------------------------------------------------------------------------------
// How much to move, from where

static void calculate_imbalance(const Kernel &k, lb_env &env, sd_lb_stats &sds) {
  sg_lb_stats &local = sds.local_stat;
  const sg_lb_stats &busiest = sds.busiest_stat;
  if (busiest.type == group_smt_balance) {
    env.type = migrate_task;
    env.imbalance = 1;
    return;
  }
  if (local.type == group_has_spare) {
    if (busiest.type > group_fully_busy && !(env.sd->flags & SD_SHARE_LLC)) {
      // Fill the local group's spare capacity.
      env.type = migrate_util;
      env.imbalance =
          static_cast<long>(std::max(local.group_capacity, local.group_util) - local.group_util);
      if (env.idle != Kernel::__CPU_NOT_IDLE && env.imbalance == 0) {
        env.type = migrate_task;
        env.imbalance = 1;
      }
      return;
    }
    env.type = migrate_task;
    if (busiest.group_weight == 1 || sds.prefer_sibling)
      env.imbalance = sibling_imbalance(env, sds, k, busiest, local);
    else
      env.imbalance = std::max<long>(0, static_cast<long>(local.idle_cpus) - busiest.idle_cpus);
    // MODEL: no NUMA imbalance allowance (adjust_numa_imbalance); docs/model.md.
    env.imbalance >>= 1;  // move half of the difference
    return;
  }
  if (local.type < group_overloaded) {
    local.avg_load = local.group_load * SCHED_CAPACITY_SCALE / local.group_capacity;
    if (local.avg_load >= busiest.avg_load) {
      env.imbalance = 0;
      return;
    }
    sds.avg_load = sds.total_load * SCHED_CAPACITY_SCALE / sds.total_capacity;
    if (local.avg_load >= sds.avg_load) {
      env.imbalance = 0;
      return;
    }
  }
  env.type = migrate_load;
  env.imbalance =
      static_cast<long>(std::min((busiest.avg_load - sds.avg_load) * busiest.group_capacity,
                                 (sds.avg_load - local.avg_load) * local.group_capacity) /
                        SCHED_CAPACITY_SCALE);
}

// With nothing runnable outside the local group no group can be the busiest (the first test of
// update_sd_pick_busiest()), so all that update_sd_lb_stats() would leave behind is the root
// domain's overload flag and SIS_UTIL's scan depth. Nearly half of all balancing (an idle
// CPU's SMT level, its sibling idle too) ends here.
static bool nothing_to_pull(Kernel &k, const lb_env &env, bool *overloaded) {
  // A group's CPUs are read without stopping at the first runnable one: a branch per CPU
  // would be mispredicted, and when something is runnable, update_sd_lb_stats() reads them
  // all anyway.
  for (const sched_group &sg : env.sd->groups) {
    if (is_local_group(env, sg)) continue;
    unsigned int runnable = 0;
    for (int i = 0; i < sg.weight; i++) {
      const int cpu = sg.cpus[i];
      runnable |= k.lb_h_nr_running(k.cpu_rq(cpu)) & -static_cast<unsigned int>(env.considers(cpu));
    }
    if (runnable) return false;
  }
  // The sums below serve only the root domain's overload flag and the LLC's scan depth: an
  // idle SMT level (the commonest case) needs neither.
  const bool scan =
      env.idle != Kernel::CPU_NEWLY_IDLE && env.sd->span_weight == k.sd_llc_size(env.dst_cpu);
  if (env.sd->parent && !scan) return true;
  unsigned long sum_util = 0;
  bool sg_overloaded = false;
  for (const sched_group &sg : env.sd->groups)
    sg.for_each_cpu([&](int i) {
      if (!env.considers(i)) return;
      struct rq *rq = k.cpu_rq(i);
      sum_util += k.cpu_util_cfs(i);
      sg_overloaded |= rq->nr_running > 1;
    });
  if (!env.sd->parent) *overloaded = sg_overloaded;
  if (env.idle != Kernel::CPU_NEWLY_IDLE) k.update_idle_cpu_scan(env.sd, env.dst_cpu, sum_util);
  return true;
}

static const sched_group *sched_balance_find_src_group(Kernel &k, lb_env &env, bool *overloaded) {
  if (nothing_to_pull(k, env, overloaded)) return nullptr;
  sd_lb_stats sds;
  update_sd_lb_stats(k, env, sds, overloaded);
  if (!sds.busiest) return nullptr;
  const sg_lb_stats &busiest = sds.busiest_stat;
  sg_lb_stats &local = sds.local_stat;
  bool force = false;
  if (local.type > busiest.type) return nullptr;
  if (local.type == group_overloaded) {
    if (local.avg_load >= busiest.avg_load) return nullptr;
    sds.avg_load = sds.total_load * SCHED_CAPACITY_SCALE / sds.total_capacity;
    if (local.avg_load >= sds.avg_load) return nullptr;
    if (100 * busiest.avg_load <= env.sd->imbalance_pct * local.avg_load) return nullptr;
  }
  if (sds.prefer_sibling && local.type == group_has_spare &&
      sibling_imbalance(env, sds, k, busiest, local) > 1)
    force = true;
  if (!force && busiest.type != group_overloaded) {
    // Below overload only an idle CPU pulls, and only for a real difference in idleness.
    if (env.idle == Kernel::__CPU_NOT_IDLE) return nullptr;
    const bool smt_vs_nonsmt = false;  // all groups of a level are alike on these machines
    if (!(busiest.type == group_smt_balance && smt_vs_nonsmt)) {
      if (busiest.group_weight > 1 && local.idle_cpus <= busiest.idle_cpus + 1) return nullptr;
      if (busiest.sum_h_nr_running == 1) return nullptr;
    }
  }
  calculate_imbalance(k, env, sds);
  return env.imbalance ? sds.busiest : nullptr;
}

static struct rq *sched_balance_find_src_rq(Kernel &k, lb_env &env, const sched_group *group) {
  struct rq *busiest = nullptr;
  unsigned long busiest_load = 0, busiest_util = 0;
  unsigned int busiest_nr = 0;
  group->for_each_cpu([&](int i) {
    if (!env.considers(i)) return;
    struct rq *rq = k.cpu_rq(i);
    const unsigned int nr_running = k.lb_h_nr_running(rq);
    if (!nr_running) return;
    switch (env.type) {
      case migrate_load: {
        const unsigned long load = k.cpu_load(i);
        // A lone task heavier than the imbalance would just move the imbalance.
        if (nr_running == 1 && load > static_cast<unsigned long>(env.imbalance)) return;
        if (load > busiest_load) busiest_load = load, busiest = rq;  // equal capacities
        break;
      }
      case migrate_util: {
        const unsigned long util = k.cpu_util_cfs_boost(i);
        if (nr_running <= 1) return;
        if (busiest_util < util) busiest_util = util, busiest = rq;
        break;
      }
      case migrate_task:
        if (busiest_nr < nr_running) busiest_nr = nr_running, busiest = rq;
        break;
      case migrate_misfit:
        break;
    }
  });
  return busiest;
}

// ---------------------------------------------------------------------------------------------
// Which tasks may move

bool Kernel::task_hot(task_struct *p, sched_domain *sd, int dst_cpu, int src_cpu) const {
  if (p->policy == SCHED_IDLE) return false;
  // LB_COOKIE_SMT: the cookie counts at the SMT level too (a sibling runs the other cookie).
  if (sched_feat(LB_COOKIE_SMT) && !sched_core_cookie_match(cpu_rq(dst_cpu), p)) return true;
  if (sched_feat(TASK_HOT_SMT_EARLY_OUT) && (sd->flags & SD_SHARE_CPUCAPACITY)) return false;
  const s64 migration_cost = cfg_.tunables[TUNABLE_migration_cost_ns];
  // Core scheduling: a task whose cookie the destination core does not run counts as hot.
  if (!sched_core_cookie_match(cpu_rq(dst_cpu), p)) return true;
  if (migration_cost == 0) return false;
  (void)src_cpu;
  const s64 delta = static_cast<s64>(clock_ - p->se.exec_start);
  return delta < migration_cost;
}

// With PLACE_LAG a task takes its lag along, so one that is not eligible here is not eligible
// on a destination that has anything queued either (6.14+).
static bool task_is_ineligible_on_dst_cpu(Kernel &k, task_struct *p, int dst_cpu) {
  return k.sched_feat(PLACE_LAG) && k.cpu_rq(dst_cpu)->cfs.nr_queued &&
         !k.entity_eligible(&k.cpu_rq(p->cpu)->cfs, &p->se);
}

static bool can_migrate_task(Kernel &k, task_struct *p, lb_env &env) {
  // 6.14+: a delayed-dequeue sleeper moves only with load (it still weighs on its queue's
  // load, but adds nothing runnable). 6.12.y has no such test: it moves like any queued task,
  // the stopper's too. Either way it stays delayed on its new CPU.
  if (p->se.sched_delayed && env.type != migrate_load && k.config().version != KernelVersion::V6_12)
    return false;
  // Eligible tasks go first: an ineligible one may move only once balancing at this level has
  // failed (6.14+). Before the affinity test, so such a task leaves LBF_ALL_PINNED set.
  if (k.config().version != KernelVersion::V6_12 && !env.sd->nr_balance_failed &&
      task_is_ineligible_on_dst_cpu(k, p, env.dst_cpu))
    return false;
  if (!p->cpus_mask.test(env.dst_cpu)) {
    env.flags |= LBF_SOME_PINNED;
    return false;
  }
  env.flags &= ~LBF_ALL_PINNED;
  if (env.src_rq->curr == p) return false;
  if (env.flags & LBF_ACTIVE_LB) return true;  // the stopper moves even a cache-hot task
  // Cache hot tasks stay, until balancing at this level has failed often enough.
  if (!k.task_hot(p, env.sd, env.dst_cpu, env.src_cpu)) return true;
  return env.sd->nr_balance_failed > env.sd->cache_nice_tries;
}

// detach_task() and attach_task(): off the source queue and onto the destination's, where a
// wakeup may preempt. detach_tasks() and the stopper's detach_one_task() share them.
static void detach_task(Kernel &k, const lb_env &env, task_struct *p) {
  k.deactivate_task(env.src_rq, p, DEQUEUE_NOCLOCK);
  k.set_task_cpu(p, env.dst_cpu);
}

static void attach_task(Kernel &k, struct rq *rq, task_struct *p) {
  k.activate_task(rq, p, ENQUEUE_NOCLOCK);
  k.wakeup_preempt(rq, p, 0);
}

static int detach_tasks(Kernel &k, lb_env &env) {
  TaskList &tasks = env.src_rq->cfs_tasks;
  int detached = 0;
  // Source emptied since (a later batch after a breather): no task is tested, so none is pinned.
  if (env.src_rq->nr_running <= 1) {
    env.flags &= ~LBF_ALL_PINNED;
    return 0;
  }
  if (env.imbalance <= 0) return 0;
  if (k.sched_feat(LB_COOKIE_PREF)) {
    // INFERRED: try first the tasks whose cookie the destination core runs (or could run, the
    // core being idle): they go to the tail, where detaching starts, in their LRU order.
    task_struct *last = tasks.back();
    for (task_struct *p = tasks.front(), *next; p; p = next) {
      next = p == last ? nullptr : TaskList::next(p);
      if (k.sched_core_cookie_match(env.dst_rq, p)) tasks.move_to_back(p);
    }
  }
  while (!tasks.empty()) {
    if (env.idle != Kernel::__CPU_NOT_IDLE && env.src_rq->nr_running <= 1) break;
    env.loop++;
    if (env.loop > env.loop_max) break;
    if (env.loop > env.loop_break) {
      env.loop_break += SCHED_NR_MIGRATE_BREAK;
      env.flags |= LBF_NEED_BREAK;
      break;
    }
    task_struct *p = tasks.back();  // the least recently run
    bool move = can_migrate_task(k, p, env);
    if (move) {
      const unsigned shift = std::min(env.sd->nr_balance_failed, 31u);
      switch (env.type) {
        case migrate_load: {
          // MODEL: task_h_load() is the task's load (no task groups; docs/model.md item 13).
          const unsigned long load = std::max<unsigned long>(1, p->se.avg.load_avg);
          // LB_MIN: a task this light hardly changes the imbalance, so it is left where it is
          // until balancing at this level has failed once.
          if (k.sched_feat(LB_MIN) && load < 16 && !env.sd->nr_balance_failed)
            move = false;
          else if ((load >> shift) > static_cast<unsigned long>(env.imbalance))
            move = false;
          else
            env.imbalance -= static_cast<long>(load);
          break;
        }
        case migrate_util: {
          const unsigned long util = task_util_est(p);
          if ((util >> shift) > static_cast<unsigned long>(env.imbalance))
            move = false;
          else
            env.imbalance -= static_cast<long>(util);
          break;
        }
        case migrate_task:
          env.imbalance--;
          break;
        case migrate_misfit:
          move = false;
          break;
      }
    }
    if (!move) {
      // Skipped: rotate it to the head so that the next candidate comes up.
      tasks.move_to_front(p);
      continue;
    }
    // detach_task(): off the source now; attach_tasks() queues the batch on the destination
    // after this returns, so every can_migrate_task() of the batch sees the destination as it
    // was (its core's cookie, its queue for the eligibility test).
    detach_task(k, env, p);
    assert(env.nr_tasks < SCHED_NR_MIGRATE_BREAK);
    env.tasks[env.nr_tasks++] = p;
    detached++;
    // With CONFIG_PREEMPTION, newidle balancing stops after one task to bound its latency.
    if (env.idle == Kernel::CPU_NEWLY_IDLE) break;
    if (env.imbalance <= 0) break;
  }
  return detached;
}

// attach_tasks(): the batch is a list that detach_tasks() pushed at its head and that is
// popped from the head, so the last task detached is queued first.
static int attach_tasks(Kernel &k, lb_env &env) {
  const int n = static_cast<int>(env.nr_tasks);
  while (env.nr_tasks) {
    attach_task(k, env.dst_rq, env.tasks[--env.nr_tasks]);
  }
  return n;
}

// ---------------------------------------------------------------------------------------------
// sched_balance_rq()

static bool is_core_idle(const Kernel &k, int cpu) {
  bool idle = true;
  for (const int s : k.cpu_smt_cpus(cpu))
    if (s != cpu && !k.lb_idle_cpu(s)) idle = false;
  return idle;
}

// Only one CPU of the local group balances a domain: the first idle one (preferring a wholly
// idle core above the SMT level), else the group's first CPU.
static bool should_we_balance(const Kernel &k, const lb_env &env) {
  if (!env.considers(env.dst_cpu)) return false;
  if (env.idle == Kernel::CPU_NEWLY_IDLE)
    return !(env.dst_rq->nr_running > 0 || env.dst_rq->ttwu_pending);
  const sched_group &sg = env.sd->groups.front();
  int idle_smt = -1, first_idle = -1;
  for (int i = 0; i < sg.weight; i++) {
    const int cpu = sg.cpus[i];  // for_each_cpu_and(cpu, group_balance_mask(sg), env->cpus)
    if (!env.considers(cpu) || !k.lb_idle_cpu(cpu)) continue;
    // (The kernel also skips the other threads of such a core; they fail the same test.)
    if (!(env.sd->flags & SD_SHARE_CPUCAPACITY) && !is_core_idle(k, cpu)) {
      if (idle_smt == -1) idle_smt = cpu;
      continue;
    }
    first_idle = cpu;
    break;
  }
  if (first_idle != -1) return first_idle == env.dst_cpu;
  if (idle_smt != -1) return idle_smt == env.dst_cpu;
  return sg.balance_cpu == env.dst_cpu;
}

// need_active_balance(): regular balancing keeps failing to move tasks (cache hot, or a core
// cookie that does not match), so the stopper on busiest is to push one, hot or not. (Of the
// kernel's reasons only imbalanced_active_balance() arises here: no asym packing, misfit or
// reduced capacity.)
static bool need_active_balance(const lb_env &env) {
  return env.type == migrate_task && env.sd->nr_balance_failed > env.sd->cache_nice_tries + 2;
}

// sched_balance_rq(), with the kernel's labels and jumps: redo (another busiest CPU, the last
// one being all pinned), more_balance (another batch from the same busiest after a breather),
// out_balanced and out_all_pinned (nothing to move at this level, so the failures start again),
// out_one_pinned (nothing moved: the balance interval backs off). MODEL: no LBF_DST_PINNED
// retry on another CPU of the local group, and no group imbalance flag for the parent domain
// (docs/model.md).
int Kernel::sched_balance_rq(int this_cpu, struct rq *this_rq, sched_domain *sd, cpu_idle_type idle,
                             bool *continue_balancing) {
  int ld_moved = 0, cur_ld_moved = 0;
  bool active_balance = false;
  const sched_group *group = nullptr;
  struct rq *busiest = nullptr;
  bool overloaded = false;
  lb_env env;
  env.sd = sd;
  env.dst_cpu = this_cpu;
  env.dst_rq = this_rq;
  env.idle = idle;
  env.cpus = &sd->span;
  assert(sd->groups.front().contains(this_cpu));  // the local group comes first
  this_rq->lb_count++;
  this_rq->lb_count_by_idle[idle]++;

redo:
  if (!should_we_balance(*this, env)) {
    *continue_balancing = false;
    goto out_balanced;
  }
  overloaded = rd_overloaded_;
  group = sched_balance_find_src_group(*this, env, &overloaded);
  rd_overloaded_ = overloaded;
  if (!group) goto out_balanced;
  busiest = sched_balance_find_src_rq(*this, env, group);
  if (!busiest) goto out_balanced;
  env.src_cpu = busiest->cpu;
  env.src_rq = busiest;
  ld_moved = 0;
  // Cleared as soon as a task that may run on this_cpu is found.
  env.flags |= LBF_ALL_PINNED;
  if (busiest->nr_running > 1) {
    // With a lone task on busiest the group is still unbalanced: ld_moved stays 0 and counts
    // as a failure below.
    env.loop_max = std::min<unsigned>(static_cast<unsigned>(cfg_.tunables[TUNABLE_nr_migrate]),
                                      busiest->nr_running);
  more_balance:
    cur_ld_moved = detach_tasks(*this, env);
    if (cur_ld_moved) {
      this_rq->lb_gained_by_idle[idle] += static_cast<u64>(cur_ld_moved);
      attach_tasks(*this, env);
      ld_moved += cur_ld_moved;
    }
    if (env.flags & LBF_NEED_BREAK) {
      env.flags &= ~LBF_NEED_BREAK;
      goto more_balance;
    }
    if (env.flags & LBF_ALL_PINNED) {
      // Nothing on busiest may run here: try the other CPUs of the domain, if one is left
      // outside the local group (the group receives, it is not a source).
      env.cpus_storage = *env.cpus;
      env.cpus_storage.clear(busiest->cpu);
      env.cpus = &env.cpus_storage;
      if (!env.cpus->subset_of(sd->groups.front().span)) {
        env.loop = 0;
        env.loop_break = SCHED_NR_MIGRATE_BREAK;
        goto redo;
      }
      goto out_all_pinned;
    }
  }

  if (!ld_moved) {
    // Newidle balancing is too frequent to count its failures.
    if (idle != CPU_NEWLY_IDLE) sd->nr_balance_failed++;
    this_rq->lb_failed++;
    if (need_active_balance(env)) {
      // The stopper would only preempt a task that may not come here.
      if (!busiest->curr->cpus_mask.test(this_cpu)) goto out_one_pinned;
      env.flags &= ~LBF_ALL_PINNED;  // a task that may run here was found
      if (!busiest->active_balance) {
        busiest->active_balance = true;
        busiest->push_cpu = this_cpu;
        busiest->active_balance_sd = sd;
        active_balance = true;
        send_ipi(busiest->cpu);  // stop_one_cpu_nowait()
      }
    }
  } else {
    sd->nr_balance_failed = 0;
    this_rq->lb_moved += static_cast<u64>(ld_moved);
  }
  // Unbalanced: balance again soon, unless a stopper was kicked for a reason now gone.
  if (!active_balance || need_active_balance(env)) sd->balance_interval = sd->min_interval;
  goto out;

out_balanced:
  // (The kernel clears the parent's group imbalance flag here; the model has none.)
out_all_pinned:
  // Balanced at this level, or all pinned here: the parent level may move them.
  sd->nr_balance_failed = 0;
out_one_pinned:
  ld_moved = 0;
  // Newidle balancing ignores balance intervals: backing off would only inflate them.
  if (env.idle == CPU_NEWLY_IDLE) goto out;
  if (((env.flags & LBF_ALL_PINNED) && sd->balance_interval < MAX_PINNED_INTERVAL) ||
      sd->balance_interval < sd->max_interval)
    sd->balance_interval *= 2;
out:
  return ld_moved;
}

// active_load_balance_cpu_stop(): the stopper runs on busiest, so its current task is no longer
// running and may be the one to go: this is how two tasks on the siblings of one core are
// spread to an idle core, each sibling having just one. MODEL: the stopper is not a task here:
// the current task is switched out to the idle task for no time, then busiest picks again
// (docs/model.md). The kernel's "nr_running <= 1" counts the queued stopper, so here it is
// "nothing but the stopper": no task at all. As in the kernel, the target is not re-checked
// for idleness: the stopper preempts and pushes whatever balancing asked for.
void Kernel::active_load_balance_cpu_stop(struct rq *busiest_rq) {
  busiest_rq->active_balance = false;
  const int target_cpu = busiest_rq->push_cpu;
  sched_domain *sd = busiest_rq->active_balance_sd;
  struct rq *target_rq = cpu_rq(target_cpu);
  const int cpu = busiest_rq->cpu;
  // The stopper preempts the current task: it goes back to the queue.
  task_struct *curr = busiest_rq->curr;
  if (!curr->is_idle_task) {
    curr->need_resched = true;
    struct rq *rq = busiest_rq;
    update_curr(&rq->cfs);
    put_prev_set_next_task(rq, curr, rq->idle);
    curr->need_resched = false;
    rq->curr = rq->idle;
    curr->on_cpu = 0;
    rq->idle->on_cpu = 1;
    rq->nr_switches++;
    curr->nr_switches++;
    curr->nr_involuntary_switches++;
    for (TraceSink *t : tracers_) t->sched_switch(clock_, cpu, curr, curr->__state, rq->idle);
    tick_stop(cpu);
    for (TraceSink *t : tracers_) t->cpu_idle(clock_, cpu, true);
    if (hooks_) hooks_->cpu_switched(cpu, curr, rq->idle);
  }
  busiest_rq->stopper_prev = true;
  if (busiest_rq->nr_running > 0 && sd) {  // Is there any task to move?
    lb_env env;
    env.sd = sd;
    env.dst_cpu = target_cpu;
    env.dst_rq = target_rq;
    env.src_cpu = cpu;
    env.src_rq = busiest_rq;
    env.idle = CPU_IDLE;
    env.cpus = &sd->span;
    env.flags = LBF_ACTIVE_LB;
    // The kernel leaves migration_type at zero here, migrate_load: so since 6.14 the stopper
    // may move a delayed sleeper from the tail of cfs_tasks instead of the task it preempted.
    env.type = migrate_load;
    // detach_one_task(), then attach_one_task(): the least recently run task that may go.
    for (task_struct *p = busiest_rq->cfs_tasks.back(); p; p = TaskList::prev(p)) {
      if (!can_migrate_task(*this, p, env)) continue;
      detach_task(*this, env, p);
      attach_task(*this, target_rq, p);
      busiest_rq->lb_active++;
      sd->nr_balance_failed = 0;  // active balancing done
      break;
    }
  }
  // Busiest picks what it runs next (the stopper is done); this_cpu_ is busiest's here.
  resched_curr(busiest_rq);
}

// ---------------------------------------------------------------------------------------------
// Periodic balancing

u64 Kernel::get_sd_balance_interval(const sched_domain *sd, bool busy) const {
  const u64 ms = sd->balance_interval * (busy ? sd->busy_factor : 1);
  // msecs_to_jiffies() rounds up; at HZ=1000 (the default) a jiffy is a millisecond.
  u64 j = hz_ == 1000 ? ms : (ms * hz_ + 999) / 1000;
  if (busy && j > 1) j -= 1;  // a little earlier, so that busy CPUs do not all balance at once
  return std::clamp<u64>(j, 1, max_load_balance_interval_);
}

// max_newidle_lb_cost tracks the most expensive newidle balance of the domain, decaying by
// ~1 % a second so that an old spike is forgotten.
// A domain's newidle success rate, which NI_RANDOM reads: kept whether or not NI_RANDOM is on.
static void update_newidle_stats(sched_domain *sd, unsigned int success) {
  sd->newidle_call++;
  sd->newidle_success += success;
  if (sd->newidle_call >= 1024) {
    sd->newidle_ratio = sd->newidle_success;
    sd->newidle_call /= 2;
    sd->newidle_success /= 2;
  }
}

// A newidle balance of the domain that cost cost (0: the periodic decay check) and, with
// NI_RANDOM, succeeded with that weight.
static bool update_newidle_cost(sched_domain *sd, u64 cost, unsigned int success, u64 jiffies,
                                u64 hz) {
  if (cost) update_newidle_stats(sd, success);
  if (cost > sd->max_newidle_lb_cost) {
    sd->max_newidle_lb_cost = cost;
    sd->last_decay_max_lb_cost = jiffies;
  } else if (jiffies > sd->last_decay_max_lb_cost + hz) {
    sd->max_newidle_lb_cost = sd->max_newidle_lb_cost * 253 / 256;
    sd->last_decay_max_lb_cost = jiffies;
    return true;
  }
  return false;
}

// The tick raises SCHED_SOFTIRQ when a balance is due; sched_balance_softirq() brings this
// CPU's blocked load up to date, then balances its domains.
void Kernel::sched_balance_trigger(struct rq *rq) {
  if (jiffies() >= rq->next_balance) {
    softirq_count_++;
    sched_balance_update_blocked_averages(rq->cpu);
    sched_balance_domains(rq, lb_idle_cpu(rq->cpu) ? CPU_IDLE : __CPU_NOT_IDLE);
    softirq_count_--;
  }
}

// Decays the CPU's fair queue to now, as nothing else does while it is idle; once its load and
// utilisation reach zero, the CPU has no blocked load left. The model has no RT, DL, IRQ or
// HW-pressure averages, so only the fair queue can keep it (others_have_blocked()).
void Kernel::sched_balance_update_blocked_averages(int cpu) {
  struct rq *rq = cpu_rq(cpu);
  rq->last_blocked_load_update_tick = jiffies();
  update_cfs_rq_load_avg(&rq->cfs);
  if (!rq->cfs.avg.load_avg && !rq->cfs.avg.util_avg) rq->has_blocked_load = false;
}

void Kernel::sched_balance_domains(struct rq *rq, cpu_idle_type idle) {
  const int cpu = rq->cpu;
  bool busy = idle != CPU_IDLE && !sched_idle_cpu(cpu);
  const u64 hz = hz_;
  u64 next_balance = jiffies() + 60 * hz;
  bool continue_balancing = true, need_decay = false;
  u64 max_cost = 0;
  // for_each_domain(): up the parent links from the run queue, which is hot already.
  for (sched_domain *sd = rq->sd; sd; sd = sd->parent) {
    // Whether this level decayed (not any level so far): a level visited after balancing
    // stopped below lets the walk go on only if it decayed itself, and the run queue's cost
    // follows only when the last level visited decayed.
    need_decay = update_newidle_cost(sd, 0, 0, jiffies(), hz);
    max_cost += sd->max_newidle_lb_cost;
    if (!continue_balancing) {
      if (need_decay) continue;
      break;
    }
    u64 interval = get_sd_balance_interval(sd, busy);
    if (jiffies() >= sd->last_balance + interval) {
      if (sched_balance_rq(cpu, rq, sd, idle, &continue_balancing)) {
        // We pulled work: we are no longer idle.
        idle = lb_idle_cpu(cpu) ? CPU_IDLE : __CPU_NOT_IDLE;
        busy = idle != CPU_IDLE && !sched_idle_cpu(cpu);
      }
      sd->last_balance = jiffies();
      interval = get_sd_balance_interval(sd, busy);
    }
    next_balance = std::min(next_balance, sd->last_balance + interval);
  }
  if (need_decay)
    rq->max_idle_balance_cost =
        std::max<u64>(static_cast<u64>(cfg_.tunables[TUNABLE_migration_cost_ns]), max_cost);
  rq->next_balance = next_balance;
}

// NOHZ idle balancing. Idle CPUs do not tick; a busy CPU's tick asks one idle CPU to balance
// on behalf of all idle CPUs whose balance is due (NOHZ_BALANCE_KICK), to decay the blocked
// load of idle CPUs every LOAD_AVG_PERIOD jiffies (NOHZ_STATS_KICK), or, when a CPU has gone
// idle since the last pass, to collate their next balance times into nohz.next_balance
// (NOHZ_NEXT_KICK). MODEL: the kick acts at once, without the IPI; the kick conditions are the
// SMT-server ones (docs/model.md).

// The tick has stopped on an idle CPU: it joins nohz.idle_cpus_mask, leaves its LLC's busy
// count (set_cpu_sd_state_idle()), and nohz.next_balance must take its next balance into
// account. Whatever it ran leaves load to decay. MODEL: an idle CPU stops its tick at once
// (docs/model.md).
void Kernel::nohz_balance_enter_idle(struct rq *rq) {
  rq->has_blocked_load = true;
  nohz_has_blocked_ = true;
  if (rq->nohz_tick_stopped) return;  // still in the mask: no busy tick since it last went idle
  rq->nohz_tick_stopped = true;
  nohz_nr_cpus_++;
  sd_llc_shared(rq->cpu)->nr_busy_cpus--;
  nohz_needs_update_ = true;
}

// The first busy tick after idle: the CPU counts as busy again (set_cpu_sd_state_busy()).
void Kernel::nohz_balance_exit_idle(struct rq *rq) {
  if (!rq->nohz_tick_stopped) return;
  rq->nohz_tick_stopped = false;
  nohz_nr_cpus_--;
  sd_llc_shared(rq->cpu)->nr_busy_cpus++;
}

void Kernel::nohz_balancer_kick(struct rq *rq) {
  nohz_balance_exit_idle(rq);
  if (!nohz_nr_cpus_) return;  // no idle CPU to balance for, nor to balance
  const u64 now = jiffies();
  unsigned int flags = 0;
  if (nohz_has_blocked_ && now > nohz_next_blocked_) flags = NOHZ_STATS_KICK;
  // More than one busy CPU in this LLC (by the count the ticks keep, not by who runs what
  // now): an idle CPU may be able to spread them.
  if (now >= nohz_next_balance_ &&
      (rq->nr_running >= 2 || (sd_llc(rq->cpu) && sd_llc_shared(rq->cpu)->nr_busy_cpus > 1)))
    flags = NOHZ_STATS_KICK | NOHZ_BALANCE_KICK;
  if (nohz_needs_update_) flags |= NOHZ_NEXT_KICK;
  if (!flags) return;
  kick_ilb(rq->cpu, flags);
}

// MODEL: the kicked CPU runs the pass at once, in its SCHED_SOFTIRQ, without the IPI.
void Kernel::kick_ilb(int this_cpu, unsigned int flags) {
  // A pass that only decays or collates does not hold off the next balance kick.
  if (flags & NOHZ_BALANCE_KICK) nohz_next_balance_ = jiffies() + 1;
  // find_new_ilb(): an idle housekeeping CPU (HK_TYPE_KERNEL_NOISE: not nohz_full) of
  // nohz.idle_cpus_mask runs the pass.
  for (int c = 0; c < nr_cpus_; c++)
    if (c != this_cpu && cpu_rq(c)->nohz_tick_stopped && idle_cpu(c) && !tick_nohz_full_cpu(c)) {
      softirq_count_++;
      nohz_idle_balance(c, flags);
      softirq_count_--;
      return;
    }
}

// Idle CPUs with blocked load have it decayed at most once a jiffy; returns whether the CPU
// still has some.
bool Kernel::update_nohz_stats(struct rq *rq) {
  if (!rq->has_blocked_load) return false;
  if (!rq->nohz_tick_stopped) return false;
  if (jiffies() <= rq->last_blocked_load_update_tick) return true;
  sched_balance_update_blocked_averages(rq->cpu);
  return rq->has_blocked_load;
}

// _nohz_idle_balance().
void Kernel::nohz_idle_balance(int ilb_cpu, unsigned int flags) {
  const int saved = this_cpu_;
  this_cpu_ = ilb_cpu;
  const u64 now = jiffies();
  // Cleared first: a CPU found with load left sets it again.
  if (flags & NOHZ_STATS_KICK) nohz_has_blocked_ = false;
  if (flags & NOHZ_NEXT_KICK) nohz_needs_update_ = false;
  bool has_blocked_load = false;
  u64 next = now + 60 * hz_;
  bool update_next = false;
  // The idle CPUs of nohz.idle_cpus_mask: busy CPUs (and forced-idle ones, unless
  // FI_IDLE_FOR_LB) are not balanced for. The set cannot change during the pass: balancing
  // pulls only to the CPU it balances for, which has been visited then, and CPUs switch tasks
  // after the event.
  nohz_idle_cpus_.assign([&](int c) {
    const bool in_mask = cpu_rq(c)->nohz_tick_stopped, idle = lb_idle_cpu(c);
    return in_mask & idle;
  });
  // Start after the balancer and end with it, so that the other idle CPUs get the first chance
  // to pull.
  nohz_idle_cpus_.for_each_wrap(ilb_cpu + 1, [&](int c) {
    struct rq *rq = cpu_rq(c);
    if (flags & NOHZ_STATS_KICK) has_blocked_load |= update_nohz_stats(rq);
    if ((flags & NOHZ_BALANCE_KICK) && now >= rq->next_balance) sched_balance_domains(rq, CPU_IDLE);
    // A CPU that has just pulled a task counts too, as in the kernel.
    next = std::min(next, rq->next_balance);
    update_next = true;
    return true;
  });
  if (update_next) nohz_next_balance_ = next;
  if (flags & NOHZ_STATS_KICK) nohz_next_blocked_ = now + nohz_blocked_period_;
  if (has_blocked_load) nohz_has_blocked_ = true;
  this_cpu_ = saved;
}

// The end of a newidle balance that pulled nothing: if the CPU expects to stay idle a while
// and the idle CPUs' blocked load is due for decay, do_idle() is to run a stats pass.
void Kernel::nohz_newidle_balance(struct rq *this_rq) {
  if (this_rq->avg_idle < static_cast<u64>(cfg_.tunables[TUNABLE_migration_cost_ns])) return;
  if (!nohz_has_blocked_ || jiffies() < nohz_next_blocked_) return;
  this_rq->nohz_newilb_kick = true;
}

// do_idle()'s first step: the stats pass newidle balancing asked for. The kernel skips it when
// need_resched() is set by then; here nothing happens between the pick and do_idle().
void Kernel::nohz_run_idle_balance(int cpu) {
  struct rq *rq = cpu_rq(cpu);
  if (!rq->nohz_newilb_kick) return;
  rq->nohz_newilb_kick = false;
  nohz_idle_balance(cpu, NOHZ_STATS_KICK);
}

// ---------------------------------------------------------------------------------------------
// Newidle balancing

void Kernel::seed_random(u64 seed) {
  cpu_rng_.clear();
  for (int cpu = 0; cpu < nr_cpus_; cpu++)
    cpu_rng_.emplace_back(
        seed, std::initializer_list<u64>{0x6b65726e656cULL /* "kernel" */, static_cast<u64>(cpu)});
}

// Entered when a CPU is about to go idle. The idle period is stamped before balancing, so
// that avg_idle measures how long CPUs stay idle; balancing only runs when the CPU expects to
// stay idle longer than balancing costs.
int Kernel::sched_balance_newidle(struct rq *this_rq) {
  const int this_cpu = this_rq->cpu;
  const u64 hz = hz_;
  u64 next_balance = jiffies() + hz;
  if (this_rq->ttwu_pending) return 0;  // a wakeup is on its way: not really idle
  this_rq->idle_stamp = clock_;
  this_rq->newidle_attempts++;
  int pulled_task = 0;
  auto update_next_balance = [&](const sched_domain *sd) {
    next_balance = std::min(next_balance, sd->last_balance + get_sd_balance_interval(sd, false));
  };
  sched_domain *sd = this_rq->sd;
  if (sd && (!rd_overloaded_ || this_rq->avg_idle < sd->max_newidle_lb_cost)) {
    if (rd_overloaded_) this_rq->newidle_skipped_avg_idle++;
    update_next_balance(sd);
    sd = nullptr;
  }
  if (sd) {
    sched_balance_update_blocked_averages(this_cpu);
    u64 curr_cost = 0;
    bool continue_balancing = true;
    for (sched_domain *s = this_rq->sd; s; s = s->parent) {
      update_next_balance(s);
      if (this_rq->avg_idle < curr_cost + s->max_newidle_lb_cost) {
        this_rq->newidle_skipped_avg_idle++;
        break;
      }
      if (s->flags & SD_BALANCE_NEWIDLE) {
        unsigned int weight = 1;
        if (sched_feat(NI_RANDOM)) {
          // Try the domain with probability ~(1 + ratio)/1024; credit a success with the
          // inverse weight, so the ratio stays an unbiased estimate.
          if (cpu_rng_.empty()) seed_random(0);
          const u64 d = cpu_rng_[static_cast<std::size_t>(this_cpu)].uniform_u64(0, 1023);
          const unsigned int w = 1 + s->newidle_ratio;
          if (d > w) {
            update_newidle_stats(s, 0);
            continue;
          }
          weight = (1024 + w / 2) / w;
        }
        pulled_task = sched_balance_rq(this_cpu, this_rq, s, CPU_NEWLY_IDLE, &continue_balancing);
        // MODEL: the balance costs a base plus a part per examined CPU; the kernel measures
        // it with sched_clock, and its first domain's cost also holds the blocked-load update
        // (docs/model.md).
        const u64 cost = costs_.newidle_balance_base_ns +
                         costs_.newidle_balance_per_cpu_ns * static_cast<u64>(s->span_weight);
        curr_cost += cost;
        u64 fed = cost;
        if (sched_feat(NEWIDLE_BUMP_ON_FAIL) && !pulled_task) {
          // 6.17/6.18: a failed attempt makes the domain look 50 % dearer, capped.
          fed = std::min<u64>(s->max_newidle_lb_cost * 3 / 2 + 1,
                              static_cast<u64>(cfg_.tunables[TUNABLE_migration_cost_ns]) + 200);
          fed = std::max(fed, cost);
        }
        update_newidle_cost(s, fed, pulled_task ? weight : 0, jiffies(), hz);
      }
      if (pulled_task || !continue_balancing || this_rq->nr_running > 0) break;
    }
    if (curr_cost > this_rq->max_idle_balance_cost) this_rq->max_idle_balance_cost = curr_cost;
    this_rq->newidle_cost_ns += curr_cost;
    this_rq->newidle_stall_ns += curr_cost;
    if (lb_h_nr_running(this_rq) && !pulled_task) pulled_task = 1;
  }
  if (this_rq->next_balance > next_balance) this_rq->next_balance = next_balance;
  if (pulled_task) {
    this_rq->idle_stamp = 0;
    this_rq->newidle_pulled++;
  } else {
    nohz_newidle_balance(this_rq);
  }
  return pulled_task;
}

}  // namespace schedlab::kernel
