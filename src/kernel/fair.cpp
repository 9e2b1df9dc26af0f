// SPDX-License-Identifier: GPL-2.0-only
// kernel/sched/fair.c: the EEVDF fair class (entity placement, pick, preemption, tick).
#include <algorithm>
#include <cassert>

#include "kernel/kernel.h"

namespace schedlab::kernel {

namespace {

inline u64 mul_u64_u32_shr(u64 a, u64 mul, unsigned shift) {
  return static_cast<u64>((static_cast<unsigned __int128>(a) * mul) >> shift);
}

inline int fls32(u32 x) {
  return x ? 32 - __builtin_clz(x) : 0;
}

inline s64 entity_key(const struct cfs_rq *cfs_rq, const sched_entity *se) {
  return static_cast<s64>(se->vruntime - cfs_rq->zero_vruntime);
}

inline s64 div_s64(s64 a, s64 b) {
  return a / b;
}

}  // namespace

// __calc_delta(): delta * NICE_0_LOAD / weight in the kernel's 32-bit fixed point, so that
// vruntimes advance by exactly the kernel's (rounded) amounts.
u64 Kernel::calc_delta_fair(u64 delta, const sched_entity *se) const {
  if (se->weight == NICE_0_LOAD) return delta;
  const u64 inv_weight = (u64{1} << 32) / se->weight;  // sched_prio_to_wmult[]
  u64 fact = NICE_0_LOAD * inv_weight;
  int shift = 32;
  const u32 fact_hi = static_cast<u32>(fact >> 32);
  if (fact_hi) {
    const int fs = fls32(fact_hi);
    shift -= fs;
    fact >>= fs;
  }
  return mul_u64_u32_shr(delta, fact, static_cast<unsigned>(shift));
}

// ---------------------------------------------------------------------------------------------
// avg_vruntime (V), eligibility, zero_vruntime

void Kernel::avg_vruntime_add(struct cfs_rq *cfs_rq, sched_entity *se) {
  const s64 w = static_cast<s64>(se->weight);
  cfs_rq->avg_vruntime += entity_key(cfs_rq, se) * w;
  cfs_rq->avg_load += static_cast<u64>(w);
}

void Kernel::avg_vruntime_sub(struct cfs_rq *cfs_rq, sched_entity *se) {
  const s64 w = static_cast<s64>(se->weight);
  cfs_rq->avg_vruntime -= entity_key(cfs_rq, se) * w;
  cfs_rq->avg_load -= static_cast<u64>(w);
}

// The queue's sums of w_i (v_i - v0) and of w_i with curr included: the numerator and
// denominator of V - v0.
static void avg_vruntime_sums(const struct cfs_rq *cfs_rq, s64 *avg, s64 *load) {
  const sched_entity *curr = cfs_rq->curr;
  *avg = cfs_rq->avg_vruntime;
  *load = static_cast<s64>(cfs_rq->avg_load);
  if (curr && curr->on_rq) {
    const s64 w = static_cast<s64>(curr->weight);
    *avg += entity_key(cfs_rq, curr) * w;
    *load += w;
  }
}

// V, and the new v0: the sums are rebased on V (rounded towards -inf), so that zero_vruntime
// follows the 0-lag point. With only curr queued, V is curr's vruntime. Rebasing leaves every
// eligibility test and placement as it was (the sums stay exact); what it moves is the
// baseline that core scheduling's cfs_prio_less() snapshots.
u64 Kernel::avg_vruntime(struct cfs_rq *cfs_rq) {
  const sched_entity *curr = cfs_rq->curr;
  s64 delta = 0;
  if (cfs_rq->avg_load) {
    s64 avg, load;
    avg_vruntime_sums(cfs_rq, &avg, &load);
    if (avg < 0) avg -= (load - 1);  // round towards -inf, as the kernel does
    delta = div_s64(avg, load);
  } else if (curr && curr->on_rq) {
    delta = static_cast<s64>(curr->vruntime - cfs_rq->zero_vruntime);
  }
  // update_zero_vruntime(): v0' = v0 + d, so sum w_i (v_i - v0') = sum - d W.
  cfs_rq->avg_vruntime -= static_cast<s64>(cfs_rq->avg_load) * delta;
  cfs_rq->zero_vruntime += static_cast<u64>(delta);
  return cfs_rq->zero_vruntime;
}

// Eligible iff vruntime <= V, tested without dividing: sum w_i (v_i - v0) >= (v - v0) sum w_i.
bool Kernel::vruntime_eligible(const struct cfs_rq *cfs_rq, u64 vruntime) const {
  s64 avg, load;
  avg_vruntime_sums(cfs_rq, &avg, &load);
  return avg >= static_cast<s64>(vruntime - cfs_rq->zero_vruntime) * load;
}

bool Kernel::entity_eligible(struct cfs_rq *cfs_rq, sched_entity *se) const {
  return vruntime_eligible(cfs_rq, se->vruntime);
}

void Kernel::__enqueue_entity(struct cfs_rq *cfs_rq, sched_entity *se) {
  avg_vruntime_add(cfs_rq, se);
  cfs_rq->tasks_timeline.insert(se);
}

void Kernel::__dequeue_entity(struct cfs_rq *cfs_rq, sched_entity *se) {
  cfs_rq->tasks_timeline.erase(se);
  avg_vruntime_sub(cfs_rq, se);
}

// ---------------------------------------------------------------------------------------------
// Slices, deadlines, lag

bool Kernel::update_deadline(struct cfs_rq *cfs_rq, sched_entity *se) {
  if (static_cast<s64>(se->vruntime - se->deadline) < 0) return false;
  if (!se->custom_slice) se->slice = sysctl_sched_base_slice_;
  se->deadline = se->vruntime + calc_delta_fair(se->slice, se);
  avg_vruntime(cfs_rq);  // a slice boundary moves zero_vruntime up to V
  return true;
}

// The lag an entity keeps is clamped: to twice its slice, at least a tick, in 6.12.y; to the
// queue's longest slice plus a tick in 6.18.y ("sched/fair: Fix lag clamp", 6.18.17).
void Kernel::update_entity_lag(struct cfs_rq *cfs_rq, sched_entity *se) {
  const u64 bound = cfg_.version == KernelVersion::V6_12 ? std::max<u64>(2 * se->slice, tick_nsec_)
                                                         : cfs_rq_max_slice(cfs_rq) + tick_nsec_;
  const s64 lag = static_cast<s64>(avg_vruntime(cfs_rq) - se->vruntime);
  const s64 limit = static_cast<s64>(calc_delta_fair(bound, se));
  se->vlag = std::clamp(lag, -limit, limit);
}

u64 Kernel::cfs_rq_min_slice(struct cfs_rq *cfs_rq) const {
  u64 min_slice = ~u64{0};
  if (cfs_rq->curr && cfs_rq->curr->on_rq) min_slice = cfs_rq->curr->slice;
  if (const sched_entity *root = cfs_rq->tasks_timeline.root())
    min_slice = std::min(min_slice, root->min_slice);
  return min_slice;
}

u64 Kernel::cfs_rq_max_slice(struct cfs_rq *cfs_rq) const {
  u64 max_slice = 0;
  if (cfs_rq->curr && cfs_rq->curr->on_rq) max_slice = cfs_rq->curr->slice;
  if (const sched_entity *root = cfs_rq->tasks_timeline.root())
    max_slice = std::max(max_slice, root->max_slice);
  return max_slice;
}

// 6.17+: a picked entity is protected from wakeup preemption until vprot (RUN_TO_PARITY).
void Kernel::set_protect_slice(struct cfs_rq *cfs_rq, sched_entity *se) {
  u64 slice = sched_feat(RUN_TO_PARITY)
                  ? cfs_rq_min_slice(cfs_rq)
                  : static_cast<u64>(cfg_.tunables[TUNABLE_normalized_base_slice_ns]);
  slice = std::min(slice, se->slice);
  se->vprot = se->deadline;
  if (slice != se->slice)
    se->vprot = min_vruntime(se->vprot, se->vruntime + calc_delta_fair(slice, se));
}

bool Kernel::protect_slice(const sched_entity *se) const {
  return static_cast<s64>(se->vprot - se->vruntime) > 0;
}

void Kernel::update_protect_slice(struct cfs_rq *cfs_rq, sched_entity *se) {
  const u64 slice = cfs_rq_min_slice(cfs_rq);
  se->vprot = min_vruntime(se->vprot, se->vruntime + calc_delta_fair(slice, se));
}

void Kernel::place_entity(struct cfs_rq *cfs_rq, sched_entity *se, int flags) {
  const u64 vruntime = avg_vruntime(cfs_rq);
  s64 lag = 0;
  if (!se->custom_slice) se->slice = sysctl_sched_base_slice_;
  u64 vslice = calc_delta_fair(se->slice, se);

  // Keep the entity's lag across the sleep. Adding it to the queue moves V by its own
  // weight's share, so inflate the lag first: v_i = V' - lag * (W + w_i) / W.
  if (sched_feat(PLACE_LAG) && cfs_rq->nr_queued && se->vlag) {
    const sched_entity *curr = cfs_rq->curr;
    lag = se->vlag;
    s64 load = static_cast<s64>(cfs_rq->avg_load);
    if (curr && curr->on_rq) load += static_cast<s64>(curr->weight);
    lag *= load + static_cast<s64>(se->weight);
    if (!load) load = 1;
    lag = div_s64(lag, load);
  }
  se->vruntime = vruntime - static_cast<u64>(lag);

  if (sched_feat(PLACE_REL_DEADLINE) && se->rel_deadline) {
    se->deadline += se->vruntime;
    se->rel_deadline = false;
    return;
  }
  // A new task has not earned a full slice of service yet: start it at half.
  if (sched_feat(PLACE_DEADLINE_INITIAL) && (flags & ENQUEUE_INITIAL)) vslice /= 2;
  se->deadline = se->vruntime + vslice;
}

// ---------------------------------------------------------------------------------------------
// update_curr()

void Kernel::update_curr(struct cfs_rq *cfs_rq) {
  sched_entity *curr = cfs_rq->curr;
  if (!curr) return;
  const s64 delta_exec = static_cast<s64>(clock_ - curr->exec_start);
  if (delta_exec <= 0) return;
  curr->exec_start = clock_;
  curr->sum_exec_runtime += static_cast<u64>(delta_exec);
  curr->vruntime += calc_delta_fair(static_cast<u64>(delta_exec), curr);
  const bool resched = update_deadline(cfs_rq, curr);
  if (cfs_rq->nr_queued == 1) return;
  bool preempt_now;
  if (cfg_.version == KernelVersion::V6_12) {
    // did_preempt_short(): a shorter-slice wakee cancelled the protection and curr is no
    // longer eligible.
    preempt_now = sched_feat(PREEMPT_SHORT) && curr->vlag != static_cast<s64>(curr->deadline) &&
                  !entity_eligible(cfs_rq, curr);
  } else {
    preempt_now = !protect_slice(curr);
  }
  // MODEL: resched_curr_lazy() acts as resched_curr(): user-mode tasks are preempted at the
  // next interrupt return either way (docs/model.md).
  if (resched || preempt_now) resched_curr(cpu_rq(curr->task->cpu));
}

// yield_task_fair(): an eligible yielder forfeits the rest of its request (its vruntime jumps
// to its deadline, which moves one slice on), so it is neither eligible nor protected and the
// pick goes to another task. An ineligible one is left alone: core scheduling may run it while
// ineligible, and a yield loop would otherwise push its vruntime far ahead. This is upstream
// commit 79104becf42b ("sched/fair: Forfeit vruntime on yield", also in stable 6.12.63+);
// before it, yield only moved the deadline. MODEL: no buddies to clear (the model has none).
void Kernel::yield_task_fair(struct rq *rq) {
  if (rq->nr_running == 1) return;  // alone in the tree: nothing to yield to
  sched_entity *se = &rq->curr->se;
  struct cfs_rq *cfs_rq = cfs_rq_of(se);
  update_curr(cfs_rq);
  if (entity_eligible(cfs_rq, se)) {
    se->vruntime = se->deadline;
    update_deadline(cfs_rq, se);  // a new slice, and zero_vruntime moves up to V
  }
}

// ---------------------------------------------------------------------------------------------
// util_est: a task's utilisation as of its recent sleeps, so that a task that has just woken
// (whose util_avg decayed while it slept) counts for what it needs. The run queue's estimate is
// the sum over its queued tasks.

namespace {
constexpr unsigned int UTIL_EST_WEIGHT_SHIFT = 2;  // a new sample weighs 1/4
constexpr unsigned int UTIL_EST_MARGIN = SCHED_CAPACITY_SCALE / 100;
}  // namespace

void Kernel::util_est_enqueue(struct cfs_rq *cfs_rq, const task_struct *p) {
  if (!sched_feat(UTIL_EST)) return;
  cfs_rq->avg.util_est += static_cast<u32>(_task_util_est(p));
  trace_sched_util_est_cfs_tp(cfs_rq);
}

void Kernel::util_est_dequeue(struct cfs_rq *cfs_rq, const task_struct *p) {
  if (!sched_feat(UTIL_EST)) return;
  sub_positive(cfs_rq->avg.util_est, static_cast<u32>(_task_util_est(p)));
  trace_sched_util_est_cfs_tp(cfs_rq);
}

// At a sleep: a rise is taken at once, a fall through the moving average, and only when the
// sample is trustworthy (util_avg moved since the last one, the task was not kept waiting).
void Kernel::util_est_update(struct cfs_rq *cfs_rq, task_struct *p, bool task_sleep) {
  if (!sched_feat(UTIL_EST)) return;
  if (!task_sleep) return;                 // a migration or a requeue completes no activation
  assert(cfs_rq == &cpu_rq(p->cpu)->cfs);  // rq_of(cfs_rq) is p's CPU
  (void)cfs_rq;
  u32 ewma = p->se.avg.util_est;
  if (ewma & UTIL_AVG_UNCHANGED) return;
  const u32 dequeued = static_cast<u32>(task_util(p));
  if (ewma <= dequeued) {
    ewma = dequeued;
  } else if (const u32 last_ewma_diff = ewma - dequeued; last_ewma_diff >= UTIL_EST_MARGIN) {
    // No idle time seen on this CPU: the sample says nothing about the task. (The flag stays
    // clear, as in the kernel, so the next sleep samples again.)
    if (dequeued > cpu_rq(p->cpu)->cpu_capacity) return;
    // Waiting for the CPU kept util_avg below what the task wanted: keep the estimate.
    if (dequeued + UTIL_EST_MARGIN >= task_runnable(p)) {
      ewma <<= UTIL_EST_WEIGHT_SHIFT;
      ewma -= last_ewma_diff;
      ewma >>= UTIL_EST_WEIGHT_SHIFT;
    }
  }
  p->se.avg.util_est = ewma | UTIL_AVG_UNCHANGED;
  trace_sched_util_est_se_tp(&p->se);
}

// ---------------------------------------------------------------------------------------------
// Enqueue / dequeue

void Kernel::enqueue_entity(struct cfs_rq *cfs_rq, sched_entity *se, int flags) {
  const bool curr = cfs_rq->curr == se;
  if (curr) place_entity(cfs_rq, se, flags);
  update_curr(cfs_rq);
  update_load_avg(cfs_rq, se, /*DO_ATTACH*/ 1);
  if (!curr) place_entity(cfs_rq, se, flags);
  cfs_rq->load_weight += se->weight;
  cfs_rq->nr_queued++;
  if (!curr) __enqueue_entity(cfs_rq, se);
  se->on_rq = true;
}

void Kernel::requeue_delayed_entity(sched_entity *se) {
  struct cfs_rq *cfs_rq = cfs_rq_of(se);
  if (sched_feat(DELAY_ZERO)) {
    update_entity_lag(cfs_rq, se);
    if (se->vlag > 0) {
      // A positive lag means it waited long enough; re-place it as a fresh wakeup would be.
      cfs_rq->nr_queued--;
      if (se != cfs_rq->curr) __dequeue_entity(cfs_rq, se);
      se->vlag = 0;
      place_entity(cfs_rq, se, 0);
      if (se != cfs_rq->curr) __enqueue_entity(cfs_rq, se);
      cfs_rq->nr_queued++;
    }
  }
  update_load_avg(cfs_rq, se, 0);
  se->sched_delayed = false;
  cfs_rq->h_nr_delayed--;
  cfs_rq->h_nr_runnable++;
}

void Kernel::enqueue_task_fair(struct rq *rq, task_struct *p, int flags) {
  sched_entity *se = &p->se;
  // A delayed sleeper left the queue's estimate when it went to sleep; it joins again when it
  // wakes, not when it merely changes queues while still asleep.
  if (!se->sched_delayed || (flags & ENQUEUE_DELAYED)) util_est_enqueue(&rq->cfs, p);
  if (flags & ENQUEUE_DELAYED) {
    requeue_delayed_entity(se);
    return;
  }
  enqueue_entity(&rq->cfs, se, flags);
  // Not a wakeup but still delayed: a delayed sleeper the balancer moved here, queued but not
  // runnable until it wakes or is picked.
  if (se->sched_delayed)
    rq->cfs.h_nr_delayed++;
  else
    rq->cfs.h_nr_runnable++;
  if (p->policy == SCHED_IDLE) rq->cfs.h_nr_idle++;
  rq->nr_running++;
  rq->cfs_tasks.push_front(p);
  if (rq->nr_running >= 2) rd_overloaded_ = true;  // add_nr_running(): set_rd_overloaded()
}

bool Kernel::dequeue_entity(struct cfs_rq *cfs_rq, sched_entity *se, int flags) {
  const bool sleep = flags & DEQUEUE_SLEEP;
  update_curr(cfs_rq);
  if (!(flags & DEQUEUE_DELAYED)) {
    const bool delay = sleep && !(flags & DEQUEUE_SPECIAL);
    // DELAY_DEQUEUE: a sleeper that still owes service (negative lag) stays queued until it
    // is picked, so that it pays its debt instead of shedding it by sleeping.
    if (sched_feat(DELAY_DEQUEUE) && delay && !entity_eligible(cfs_rq, se)) {
      update_load_avg(cfs_rq, se, 0);
      se->sched_delayed = true;
      cfs_rq->h_nr_runnable--;
      cfs_rq->h_nr_delayed++;
      return false;
    }
  }
  update_load_avg(cfs_rq, se, 0);
  // A queued task moving to another CPU takes its load along (DO_DETACH).
  if (task_of(se)->on_rq == TASK_ON_RQ_MIGRATING) detach_entity_load_avg(cfs_rq, se);
  update_entity_lag(cfs_rq, se);
  if (sched_feat(PLACE_REL_DEADLINE) && !sleep) {
    se->deadline -= se->vruntime;
    se->rel_deadline = true;
  }
  if (se != cfs_rq->curr) __dequeue_entity(cfs_rq, se);
  se->on_rq = false;
  cfs_rq->load_weight -= se->weight;
  cfs_rq->nr_queued--;
  if (se->sched_delayed) {
    cfs_rq->h_nr_delayed--;
    if (flags & DEQUEUE_DELAYED) {
      // finish_delayed_dequeue_entity(): the sleep completes.
      se->sched_delayed = false;
      cfs_rq->h_nr_runnable++;  // undone just below, with the rest of the dequeue
      if (sched_feat(DELAY_ZERO) && se->vlag > 0) se->vlag = 0;
    }
    // Otherwise the balancer is moving a delayed sleeper: it stays delayed where it goes.
  }
  return true;
}

// The task leaves the queue's estimate even when DELAY_DEQUEUE keeps it queued, and a sleep
// samples its utilisation (before the dequeue's own PELT update, as in the kernel).
bool Kernel::dequeue_task_fair(struct rq *rq, task_struct *p, int flags) {
  if (!p->se.sched_delayed) util_est_dequeue(&rq->cfs, p);
  util_est_update(&rq->cfs, p, flags & DEQUEUE_SLEEP);
  return dequeue_entities(rq, &p->se, flags);
}

bool Kernel::dequeue_entities(struct rq *rq, sched_entity *se, int flags) {
  task_struct *p = task_of(se);
  const bool was_sched_idle = sched_idle_cpu(rq->cpu);
  if (!dequeue_entity(&rq->cfs, se, flags)) return false;
  if (!se->sched_delayed) rq->cfs.h_nr_runnable--;  // a moving delayed sleeper was not runnable
  if (p->policy == SCHED_IDLE) rq->cfs.h_nr_idle--;
  rq->nr_running--;
  // Only SCHED_IDLE tasks left: balance at the next tick, to pull more important work.
  if (!was_sched_idle && sched_idle_cpu(rq->cpu)) rq->next_balance = jiffies();
  rq->cfs_tasks.erase(p);
  if (flags & DEQUEUE_DELAYED) p->on_rq = 0;  // __block_task(): the delayed sleep completes
  return true;
}

// ---------------------------------------------------------------------------------------------
// Pick

sched_entity *Kernel::pick_eevdf(struct cfs_rq *cfs_rq, bool protect) {
  sched_entity *curr = cfs_rq->curr;
  if (cfs_rq->nr_queued == 1) {
    if (curr && curr->on_rq) return curr;
    return cfs_rq->tasks_timeline.root();
  }
  if (curr && (!curr->on_rq || !entity_eligible(cfs_rq, curr))) curr = nullptr;
  if (curr) {
    if (cfg_.version == KernelVersion::V6_12) {
      // 6.12-6.16 RUN_TO_PARITY: the deadline stashed in vlag at pick marks the slice as
      // untouched; until it is refreshed curr keeps the CPU.
      if (sched_feat(RUN_TO_PARITY) && curr->vlag == static_cast<s64>(curr->deadline)) return curr;
    } else if (protect && protect_slice(curr)) {
      return curr;
    }
  }
  // The eligible entity with the earliest deadline (ties: the earlier queued). Heap search:
  // go left while the left subtree holds an eligible vruntime, else take this node if it is
  // eligible, else go right.
  sched_entity *best = nullptr;
  for (sched_entity *node = cfs_rq->tasks_timeline.root(); node;) {
    const sched_entity *left = node->run_node.left;
    if (left && vruntime_eligible(cfs_rq, left->min_vruntime)) {
      node = node->run_node.left;
      continue;
    }
    if (entity_eligible(cfs_rq, node)) {
      best = node;
      break;
    }
    node = node->run_node.right;
  }
  if (!best || (curr && entity_before(curr, best))) best = curr;
  return best;
}

task_struct *Kernel::pick_task_fair(struct rq *rq) {
  struct cfs_rq *cfs_rq = &rq->cfs;
  for (;;) {
    if (!cfs_rq->nr_queued) return nullptr;
    if (cfs_rq->curr && cfs_rq->curr->on_rq) update_curr(cfs_rq);
    sched_entity *se = pick_eevdf(cfs_rq);
    assert(se);
    if (se->sched_delayed) {
      // pick_next_entity(): a delayed sleeper reached the front; its sleep completes now
      // (dequeue_entities(), not dequeue_task_fair(): util_est saw this sleep when it began).
      dequeue_entities(rq, se, DEQUEUE_SLEEP | DEQUEUE_DELAYED);
      continue;
    }
    return task_of(se);
  }
}

void Kernel::set_next_entity(struct cfs_rq *cfs_rq, sched_entity *se) {
  if (se->on_rq) {
    __dequeue_entity(cfs_rq, se);
    update_load_avg(cfs_rq, se, 0);
    if (cfg_.version == KernelVersion::V6_12)
      se->vlag = static_cast<s64>(se->deadline);  // the RUN_TO_PARITY stash
    else
      set_protect_slice(cfs_rq, se);
  }
  se->exec_start = clock_;
  cfs_rq->curr = se;
  se->prev_sum_exec_runtime = se->sum_exec_runtime;
}

void Kernel::put_prev_entity(struct cfs_rq *cfs_rq, sched_entity *prev) {
  if (prev->on_rq) {
    update_curr(cfs_rq);
    __enqueue_entity(cfs_rq, prev);
    update_load_avg(cfs_rq, prev, 0);
  }
  cfs_rq->curr = nullptr;
}

void Kernel::put_prev_task_fair(struct rq *rq, task_struct *prev) {
  put_prev_entity(&rq->cfs, &prev->se);
}

void Kernel::set_next_task_fair(struct rq *rq, task_struct *p) {
  // The picked task moves to the head of cfs_tasks: balancing tries it last.
  if (p->on_rq == TASK_ON_RQ_QUEUED) rq->cfs_tasks.move_to_front(p);
  set_next_entity(&rq->cfs, &p->se);
}

void Kernel::task_tick_fair(struct rq *rq, task_struct *curr) {
  struct cfs_rq *cfs_rq = &rq->cfs;
  update_curr(cfs_rq);
  update_load_avg(cfs_rq, &curr->se, 0);
  task_tick_core(rq, curr);
}

// ---------------------------------------------------------------------------------------------
// Core scheduling in the fair class

// A lone task whose sibling is forced idle is re-evaluated once it has used half its slice:
// the two siblings then act as one runqueue with (at least) two tasks.
void Kernel::task_tick_core(struct rq *rq, task_struct *curr) {
  constexpr u64 MIN_NR_TASKS_DURING_FORCEIDLE = 2;
  if (!sched_core_enabled(rq)) return;
  const sched_entity *se = &curr->se;
  // CORE_PUSH_FORCEIDLE with core_push_forceidle_tick: forced-idle siblings (which take no
  // tick) retry their push from this tick while the forced idle lasts. INFERRED option.
  if (rq->core->core_forceidle_count && sched_feat(CORE_PUSH_FORCEIDLE) &&
      cfg_.tunables[TUNABLE_core_push_forceidle_tick]) {
    for (const int s : cpu_smt_cpus(rq->cpu))
      if (s != rq->cpu && sched_core_forceidle(s)) sched_core_push_forceidle(cpu_rq(s));
  }
  if (rq->core->core_forceidle_count && rq->cfs.nr_queued == 1 &&
      (se->sum_exec_runtime - se->prev_sum_exec_runtime) * MIN_NR_TASKS_DURING_FORCEIDLE >
          se->slice)
    resched_curr(rq);
}

// Snapshot the queue's zero_vruntime as the baseline cross-sibling comparisons use. During a
// forced-idle episode (forceidle) it is taken once per episode and then stays frozen.
void Kernel::se_fi_update(sched_entity *se, unsigned int fi_seq, bool forceidle) {
  struct cfs_rq *cfs_rq = cfs_rq_of(se);
  if (forceidle) {
    if (cfs_rq->forceidle_seq == fi_seq) return;
    cfs_rq->forceidle_seq = fi_seq;
  }
  cfs_rq->zero_vruntime_fi = cfs_rq->zero_vruntime;
}

// Tasks on different CPUs are compared by vruntime relative to their own queue's snapshot:
// a is less important if it has received more service (not the EEVDF deadline). MODEL: the
// hierarchy is flat, so the tasks' own entities are compared (docs/model.md item 13).
bool Kernel::cfs_prio_less(task_struct *a, task_struct *b, bool in_fi) {
  sched_entity *sea = &a->se, *seb = &b->se;
  struct cfs_rq *cfs_rqa = cfs_rq_of(sea), *cfs_rqb = cfs_rq_of(seb);
  const unsigned int fi_seq = cpu_rq(a->cpu)->core->core_forceidle_seq;
  se_fi_update(sea, fi_seq, in_fi);
  se_fi_update(seb, fi_seq, in_fi);
  const s64 delta = static_cast<s64>(sea->vruntime - seb->vruntime) +
                    static_cast<s64>(cfs_rqb->zero_vruntime_fi - cfs_rqa->zero_vruntime_fi);
  return delta > 0;
}

// ---------------------------------------------------------------------------------------------
// Wakeup preemption: check_preempt_wakeup_fair() (wakeup_preempt_fair() in 6.19)

void Kernel::check_preempt_wakeup_fair(struct rq *rq, task_struct *p, int wake_flags) {
  task_struct *curr = rq->curr;
  sched_entity *se = &curr->se, *pse = &p->se;
  struct cfs_rq *cfs_rq = &rq->cfs;
  if (se == pse) return;
  if (curr->need_resched) return;
  if (!sched_feat(WAKEUP_PREEMPTION)) return;

  bool do_preempt_short = false;
  const bool curr_idle = curr->policy == SCHED_IDLE, p_idle = p->policy == SCHED_IDLE;
  if (curr_idle && !p_idle) {
    do_preempt_short = true;  // anything beats a SCHED_IDLE task
  } else {
    if (curr_idle != p_idle) return;
    if (p->policy != SCHED_NORMAL) return;  // BATCH and IDLE wakees never preempt
    update_curr(cfs_rq);
    if (cfg_.version == KernelVersion::V6_12) {
      // do_preempt_short(): a shorter slice cancels curr's RUN_TO_PARITY stash.
      if (sched_feat(PREEMPT_SHORT) && pse->slice < se->slice && entity_eligible(cfs_rq, pse) &&
          (entity_before(pse, se) || !entity_eligible(cfs_rq, se)) &&
          se->vlag == static_cast<s64>(se->deadline))
        cancel_protect_slice(se);
      if (pick_eevdf(cfs_rq) != pse) return;
      resched_curr(rq);
      return;
    }
    do_preempt_short = sched_feat(PREEMPT_SHORT) && pse->slice < se->slice;
    // 6.18.33+: unless a shorter slice overrides curr's protection, a forked task does not
    // preempt (exec often follows fork: little shared data), nor does a wakee still delayed
    // (a sleeper the balancer moved), which is not eligible.
    if (!do_preempt_short && ((wake_flags & WF_FORK) || pse->sched_delayed)) return;
    // pick_next_entity(): a delayed sleeper that comes up completes its sleep, then the pick is
    // made again.
    sched_entity *nse;
    for (;;) {
      nse = pick_eevdf(cfs_rq, !do_preempt_short);
      if (!nse->sched_delayed) break;
      dequeue_entities(rq, nse, DEQUEUE_SLEEP | DEQUEUE_DELAYED);
      nse = nullptr;
      if (!cfs_rq->nr_queued) break;
    }
    if (nse != pse) {
      // Curr keeps the CPU, protected no longer than the shortest queued slice allows.
      if (sched_feat(RUN_TO_PARITY)) update_protect_slice(cfs_rq, se);
      return;
    }
  }
  if (do_preempt_short) cancel_protect_slice(se);
  resched_curr(rq);
}

// A non-idle wakee preempting a SCHED_IDLE curr, or a shorter slice on 6.17+, ends curr's
// protection, so that the pick that follows may take another entity.
void Kernel::cancel_protect_slice(sched_entity *se) {
  if (cfg_.version == KernelVersion::V6_12) {
    // 6.12-6.16: the stash in vlag no longer matches the deadline.
    if (se->vlag == static_cast<s64>(se->deadline)) se->vlag = static_cast<s64>(se->deadline) + 1;
  } else if (protect_slice(se)) {
    se->vprot = se->vruntime;
  }
}

void Kernel::migrate_task_rq_fair(task_struct *p, int new_cpu) {
  (void)new_cpu;
  sched_entity *se = &p->se;
  if (p->on_rq != TASK_ON_RQ_MIGRATING) {
    // A waking task leaves its blocked load behind; it is attached to the new queue at enqueue.
    remove_entity_load_avg(se, &cpu_rq(p->cpu)->cfs);
    se->avg.last_update_time = 0;
  }
  se->exec_start = 0;
}

}  // namespace schedlab::kernel
