// SPDX-License-Identifier: GPL-2.0-only
// kernel/sched/core.c: runqueues, __schedule(), try_to_wake_up(), the tick.
#include <algorithm>
#include <cassert>
#include <utility>

#include "kernel/kernel.h"
#include "kernel/pelt_div.h"

namespace schedlab::kernel {

const int sched_prio_to_weight[40] = {
    /* -20 */ 88761, 71755, 56483, 46273, 36291,
    /* -15 */ 29154, 23254, 18705, 14949, 11916,
    /* -10 */ 9548,  7620,  6100,  4904,  3906,
    /*  -5 */ 3121,  2501,  1991,  1586,  1277,
    /*   0 */ 1024,  820,   655,   526,   423,
    /*   5 */ 335,   272,   215,   172,   137,
    /*  10 */ 110,   87,    70,    56,    45,
    /*  15 */ 36,    29,    23,    18,    15,
};

static int ilog2(unsigned v) {
  return 31 - __builtin_clz(v);
}

Kernel::Kernel(const Topology &topo, const MachineCosts &costs, const KernelConfig &cfg,
               sim::EventQueue &events)
    : topo_(topo), costs_(costs), cfg_(cfg), events_(events), nr_cpus_(topo.nr_cpus()) {
  smt_active_ = topo.threads_per_core() > 1;
  cluster_active_ = topo.spec().clusters_per_llc > 1;
  const auto &t = cfg_.tunables;
  // sched_update_scaling(): the effective slice grows with the CPU count, capped at 8 CPUs.
  unsigned factor = 1;
  unsigned cpus = static_cast<unsigned>(std::min(nr_cpus_, 8));
  if (t[TUNABLE_tunable_scaling] == 1) factor = 1 + ilog2(cpus);
  if (t[TUNABLE_tunable_scaling] == 2) factor = cpus;
  sysctl_sched_base_slice_ = t[TUNABLE_base_slice_ns] != 0
                                 ? static_cast<u64>(t[TUNABLE_base_slice_ns])
                                 : static_cast<u64>(t[TUNABLE_normalized_base_slice_ns]) * factor;
  const u64 hz = static_cast<u64>(t[TUNABLE_hz]);
  hz_ = hz;
  tick_nsec_ = (NSEC_PER_SEC + hz / 2) / hz;
  max_load_balance_interval_ = std::max<u64>(1, hz * static_cast<u64>(nr_cpus_) / 10);
  nohz_blocked_period_ = (pelt::LOAD_AVG_PERIOD * hz + 999) / 1000;  // msecs_to_jiffies(32)

  rqs_.resize(nr_cpus_);
  idle_tasks_.resize(nr_cpus_);
  tick_on_ = tick_cpus_ = nohz_idle_cpus_ = CpuMask(nr_cpus_);
  tick_timer_ = events_.make_timer(EV_TICK, 0);
  events_.set_lane(tick_timer_);  // re-armed every jiffy while any CPU ticks
  ipi_timer_.resize(nr_cpus_);
  cpuidle_.resize(nr_cpus_);
  for (int cpu = 0; cpu < nr_cpus_; cpu++) init_rq(cpu);
  nohz_nr_cpus_ = nr_cpus_;  // the machine starts idle, every tick stopped
  build_sched_domains();
  nohz_full_ = CpuMask::of(nr_cpus_, cfg_.nohz_full);
  if (!nohz_full_.empty()) {
    // The scenario reader leaves at least one housekeeping CPU (a kernel would take the boot
    // CPU back from nohz_full= with a warning).
    nohz_full_on_ = true;
    nohz_housekeeper_ = 0;
    while (nohz_full_.test(nohz_housekeeper_)) nohz_housekeeper_++;
    assert(nohz_housekeeper_ < nr_cpus_);
    // sched_tick_start() queues the remote tick HZ jiffies after each nohz_full CPU comes
    // online. MODEL: all of them boot at time 0, so one event at every whole second serves them
    // all (docs/model.md); it is queued only while some CPU needs it (tick_remote_needed()),
    // so that it never keeps a run going on its own.
    tick_remote_timer_ = events_.make_timer(EV_TICK_REMOTE, 0);
  }
}

Kernel::~Kernel() = default;

void Kernel::init_rq(int cpu) {
  struct rq *rq = &rqs_[static_cast<std::size_t>(cpu)];
  rq->cpu = cpu;
  const u64 migration_cost = static_cast<u64>(cfg_.tunables[TUNABLE_migration_cost_ns]);
  rq->avg_idle = 2 * migration_cost;
  rq->max_idle_balance_cost = migration_cost;
  auto idle = std::make_unique<task_struct>();
  idle->pid = 0;
  idle->comm = "swapper/" + std::to_string(cpu);
  idle->is_idle_task = true;
  idle->__state = TASK_RUNNING;
  idle->cpu = cpu;
  idle->on_cpu = 1;
  idle->cpus_mask = CpuMask(nr_cpus_);
  idle->cpus_mask.set(cpu);
  idle->nr_cpus_allowed = 1;
  idle->se.task = idle.get();
  rq->idle = rq->curr = idle.get();
  idle_tasks_[cpu] = std::move(idle);
  ipi_timer_[cpu] = events_.make_timer(EV_IPI, static_cast<u32>(cpu));
}

task_struct *Kernel::create_task(const std::string &comm, int nice, int policy,
                                 const CpuMask &allowed) {
  auto p = std::make_unique<task_struct>();
  p->pid = next_pid_++;
  p->tgid = p->pid;
  p->comm = comm;
  p->static_nice = nice;
  p->policy = policy;
  p->cpus_mask = allowed;
  p->nr_cpus_allowed = allowed.weight();
  p->se.task = p.get();
  p->se.weight = policy == SCHED_IDLE ? WEIGHT_IDLEPRIO
                                      : static_cast<unsigned long>(sched_prio_to_weight[nice + 20]);
  p->se.slice = sysctl_sched_base_slice_;
  // init_entity_runnable_average(): a new task starts with a full load, no utilisation.
  p->se.avg.load_avg = p->se.weight;
  tasks_.push_back(std::move(p));
  return tasks_.back().get();
}

// ---------------------------------------------------------------------------------------------
// Idle tests and topology helpers

bool Kernel::sched_idle_cpu(int cpu) const {
  const struct rq *rq = cpu_rq(cpu);
  return rq->nr_running > 0 && rq->nr_running == rq->cfs.h_nr_idle;
}

bool Kernel::cpus_share_cache(int a, int b) const {
  return a == b || per_cpu_sd_llc_id_[a] == per_cpu_sd_llc_id_[b];
}

bool Kernel::cpus_share_resources(int a, int b) const {
  return a == b || per_cpu_sd_share_id_[a] == per_cpu_sd_share_id_[b];
}

// ---------------------------------------------------------------------------------------------
// Rescheduling

void Kernel::resched_curr(struct rq *rq) {
  task_struct *curr = rq->curr;
  if (curr->need_resched) return;
  curr->need_resched = true;
  if (rq->cpu == this_cpu_)
    pending_resched_.push_back(rq->cpu);
  else
    send_ipi(rq->cpu);
}

void Kernel::send_ipi(int cpu) {
  // An IPI already on its way covers this one too: it is handled no later than a new one.
  if (events_.armed(ipi_timer_[cpu])) return;
  // A CPU in an idle state acts on it once out of the state.
  Time delay = costs_.wakeup_ipi_ns;
  if (const Time exit = idle_exit_latency(cpu); exit != kNotInIdleState) {
    delay += exit;
    cpu_rq(cpu)->idle_exit_ns += exit;
  }
  events_.arm(ipi_timer_[cpu], clock_ + delay);
}

void Kernel::run_preempt_points() {
  for (std::size_t i = 0; i < pending_resched_.size(); i++) {
    const int cpu = pending_resched_[i];
    if (cpu_rq(cpu)->curr->need_resched) {
      this_cpu_ = cpu;
      schedule_loop(cpu, true);
    }
  }
  pending_resched_.clear();
}

void Kernel::handle_event(u32 kind, u32 arg) {
  const int cpu = static_cast<int>(arg);
  this_cpu_ = cpu;
  struct rq *rq = cpu_rq(cpu);
  switch (kind) {
    case EV_TICK: {
      // One event per jiffy ticks every CPU whose tick runs, in CPU order, each followed by
      // its preemption point, as if each CPU's timer interrupt came in turn.
      // The set is taken first: a tick may stop or start other CPUs' ticks.
      tick_cpus_.copy_from(tick_on_);
      tick_cpus_.for_each([&](int c) {
        this_cpu_ = c;
        sched_tick(c);
        run_preempt_points();
        // tick_nohz_irq_exit(): leaving the tick's interrupt, a nohz_full CPU with nothing
        // that needs the tick stops it (a CPU gone idle stopped it already).
        if (tick_nohz_full_cpu(c) && tick_on_.test(c) && sched_can_stop_tick(cpu_rq(c))) {
          tick_stop(c);
          tick_remote_needed();
        }
      });
      // tick_stop()/tick_restart() keep the count, switch by switch.
      assert(nr_ticking_ == tick_on_.weight());
      if (nr_ticking_) events_.arm(tick_timer_, clock_ + tick_nsec_);
      break;
    }
    case EV_TICK_REMOTE:
      sched_tick_remote();
      break;
    case EV_IPI:
      cpuidle_reflect(cpu);  // out of its idle state, if it was in one
      sched_ttwu_pending(rq);
      // The stopper queued by active balancing runs first: it preempts whatever runs here.
      if (rq->active_balance) active_load_balance_cpu_stop(rq);
      if (rq->curr->need_resched)
        pending_resched_.push_back(cpu);
      else if (rq->curr == rq->idle)
        cpuidle_select(cpu);  // nothing to run: back into the idle loop
      break;
    default:
      assert(false && "not a kernel event");
  }
}

// NO_HZ idle: an idle CPU takes no tick; a busy one ticks on jiffy boundaries, as all CPUs
// share the jiffies clock.
void Kernel::tick_restart(int cpu) {
  if (tick_on_.test(cpu)) return;
  tick_on_.set(cpu);
  if (nr_ticking_++ == 0 && !events_.armed(tick_timer_))
    events_.arm(tick_timer_, (clock_ / tick_nsec_ + 1) * tick_nsec_);
}

void Kernel::tick_stop(int cpu) {
  if (!tick_on_.test(cpu)) return;  // a nohz_full CPU whose lone task goes
  tick_on_.clear(cpu);
  nr_ticking_--;
}

// ---------------------------------------------------------------------------------------------
// Enqueue, dequeue, migration

void Kernel::enqueue_task(struct rq *rq, task_struct *p, int flags) {
  enqueue_task_fair(rq, p, flags);
  if (nohz_full_on_) sched_update_tick_dependency(rq);  // add_nr_running()
  if (sched_core_enabled(rq)) {
    sched_core_enqueue(rq, p);
    forceidle_trace_update(rq);
  }
}

bool Kernel::dequeue_task(struct rq *rq, task_struct *p, int flags) {
  if (sched_core_enabled(rq)) sched_core_dequeue(rq, p, flags);
  const bool done = dequeue_task_fair(rq, p, flags);
  if (sched_core_enabled(rq)) forceidle_trace_update(rq);
  return done;
}

void Kernel::activate_task(struct rq *rq, task_struct *p, int flags) {
  enqueue_task(rq, p, flags);
  p->on_rq = TASK_ON_RQ_QUEUED;
}

void Kernel::deactivate_task(struct rq *rq, task_struct *p, int flags) {
  p->on_rq = (flags & DEQUEUE_SLEEP) ? 0 : TASK_ON_RQ_MIGRATING;
  dequeue_task(rq, p, flags);
}

void Kernel::set_task_cpu(task_struct *p, int new_cpu) {
  if (p->cpu != new_cpu) {
    for (TraceSink *t : tracers_) t->sched_migrate_task(clock_, p, p->cpu, new_cpu);
    migrate_task_rq_fair(p, new_cpu);
    p->se.nr_migrations++;
  }
  p->cpu = new_cpu;
  p->wake_cpu = new_cpu;
}

int Kernel::select_task_rq(task_struct *p, int cpu, int *wake_flags) {
  if (p->nr_cpus_allowed > 1) {
    cpu = select_task_rq_fair(p, cpu, *wake_flags);
    *wake_flags |= WF_RQ_SELECTED;
  } else {
    cpu = p->cpus_mask.first();
  }
  // select_fallback_rq(): MODEL: the first allowed CPU (all CPUs are always online here).
  if (!p->cpus_mask.test(cpu)) cpu = p->cpus_mask.first();
  return cpu;
}

void Kernel::wakeup_preempt(struct rq *rq, task_struct *p, int flags) {
  if (rq->curr == rq->idle) {
    resched_curr(rq);  // the fair class outranks the idle class
    return;
  }
  check_preempt_wakeup_fair(rq, p, flags);
}

// ---------------------------------------------------------------------------------------------
// Wakeups

void Kernel::wake_up_new_task(task_struct *p, int this_cpu) {
  this_cpu_ = this_cpu;
  // sched_fork(): the child starts on the parent's CPU and remembers it.
  p->cpu = p->wake_cpu = p->recent_used_cpu = this_cpu;
  p->__state = TASK_RUNNING;
  for (TraceSink *t : tracers_) t->sched_process_fork(clock_, p);
  int wake_flags = WF_FORK;
  const int cpu = select_task_rq(p, p->cpu, &wake_flags);
  p->cpu = p->wake_cpu = cpu;  // __set_task_cpu(): a fork is not a migration
  struct rq *rq = cpu_rq(cpu);
  post_init_entity_util_avg(p);
  activate_task(rq, p, ENQUEUE_NOCLOCK | ENQUEUE_INITIAL);
  for (TraceSink *t : tracers_) t->sched_wakeup_new(clock_, p, cpu);
  wakeup_preempt(rq, p, wake_flags);
}

bool Kernel::try_to_wake_up(task_struct *p, int wake_flags, int this_cpu) {
  this_cpu_ = this_cpu;
  if (p->__state == TASK_RUNNING || p->__state == TASK_DEAD) return false;
  wake_flags |= WF_TTWU;
  for (TraceSink *t : tracers_) t->sched_waking(clock_, this_cpu, p);

  if (p->on_rq) {
    // ttwu_runnable(): still queued (delayed dequeue), so it wakes where it is.
    struct rq *rq = cpu_rq(p->cpu);
    if (p->se.sched_delayed) enqueue_task(rq, p, ENQUEUE_NOCLOCK | ENQUEUE_DELAYED);
    if (rq->curr != p) wakeup_preempt(rq, p, wake_flags);
    p->__state = TASK_RUNNING;
    rq->ttwu_count++;
    if (p->cpu == this_cpu) rq->ttwu_local++;
    for (TraceSink *t : tracers_) t->sched_wakeup(clock_, p, p->cpu);
    return true;
  }

  p->__state = TASK_WAKING;
  const int cpu = select_task_rq(p, p->wake_cpu, &wake_flags);
  if (p->cpu != cpu) {
    wake_flags |= WF_MIGRATED;
    set_task_cpu(p, cpu);
  }
  cpu_rq(cpu)->ttwu_count++;
  if (cpu == this_cpu) cpu_rq(cpu)->ttwu_local++;
  ttwu_queue(p, cpu, wake_flags, this_cpu);
  return true;
}

bool Kernel::ttwu_queue_cond(task_struct *p, int cpu, int this_cpu) const {
  if (!p->cpus_mask.test(cpu)) return false;
  if (!cpus_share_cache(this_cpu, cpu)) return true;
  if (cpu == this_cpu) return false;
  // An idle target activates the task itself, sparing the (busy) waking CPU the work.
  return cpu_rq(cpu)->nr_running == 0;
}

void Kernel::ttwu_queue(task_struct *p, int cpu, int wake_flags, int this_cpu) {
  struct rq *rq = cpu_rq(cpu);
  if (sched_feat(TTWU_QUEUE) && ttwu_queue_cond(p, cpu, this_cpu)) {
    rq->ttwu_pending = 1;
    rq->wake_list.emplace_back(p, wake_flags);
    send_ipi(cpu);
    return;
  }
  ttwu_do_activate(rq, p, wake_flags);
}

void Kernel::sched_ttwu_pending(struct rq *rq) {
  if (rq->wake_list.empty()) return;
  auto list = std::move(rq->wake_list);
  rq->wake_list.clear();
  for (auto [p, flags] : list) ttwu_do_activate(rq, p, flags);
  rq->ttwu_pending = 0;
}

void Kernel::ttwu_do_activate(struct rq *rq, task_struct *p, int wake_flags) {
  int en_flags = ENQUEUE_WAKEUP | ENQUEUE_NOCLOCK;
  if (wake_flags & WF_MIGRATED) en_flags |= ENQUEUE_MIGRATED;
  activate_task(rq, p, en_flags);
  wakeup_preempt(rq, p, wake_flags);
  p->__state = TASK_RUNNING;
  for (TraceSink *t : tracers_) t->sched_wakeup(clock_, p, rq->cpu);
  // 6.12-6.19: avg_idle is sampled only when a wakeup lands on a CPU with an idle stamp.
  // With AVG_IDLE_ON_IDLE_EXIT it moves to put_prev_task_idle().
  if (!sched_feat(AVG_IDLE_ON_IDLE_EXIT) && rq->idle_stamp) update_rq_avg_idle(rq);
}

// update_rq_avg_idle(): the length of the idle period that just ended, as a 1/8 EWMA,
// clamped so that one long idle period cannot dominate.
void Kernel::update_rq_avg_idle(struct rq *rq) {
  const u64 delta = clock_ - rq->idle_stamp;
  const s64 diff = static_cast<s64>(delta) - static_cast<s64>(rq->avg_idle);
  rq->avg_idle = static_cast<u64>(static_cast<s64>(rq->avg_idle) + diff / 8);
  rq->avg_idle = std::min(rq->avg_idle, 2 * rq->max_idle_balance_cost);
  rq->idle_stamp = 0;
  rq->avg_idle_sum += rq->avg_idle;
  rq->avg_idle_samples++;
}

// schedule(): __schedule() again while the CPU has a reschedule pending, before anything else
// runs here (`do { __schedule(); } while (need_resched());`). A forced-idle CPU that steals a
// task in its balance callback (sched_core_balance()) sets its own need_resched and picks the
// task at once; another CPU's pick in between could steal it back, forever at one instant.
void Kernel::schedule_loop(int cpu, bool preempt) {
  __schedule(cpu, preempt);
  while (cpu_rq(cpu)->curr->need_resched) __schedule(cpu, true);
}

// ---------------------------------------------------------------------------------------------
// Blocking and exit

void Kernel::block_current(int cpu) {
  this_cpu_ = cpu;
  task_struct *p = cpu_rq(cpu)->curr;
  assert(!p->is_idle_task && p->__state != TASK_RUNNING);
  p->timer_cpu = cpu;  // the sleep's hrtimer is armed on this CPU and fires there
  schedule_loop(cpu, false);
}

void Kernel::do_exit(int cpu) {
  this_cpu_ = cpu;
  task_struct *p = cpu_rq(cpu)->curr;
  assert(!p->is_idle_task);
  p->__state = TASK_DEAD;
  for (TraceSink *t : tracers_) t->sched_process_exit(clock_, p);
  schedule_loop(cpu, false);
  sched_core_free(p);  // the task is reaped: its cookie reference goes
}

// do_sched_yield(): the yield hook of the task's class, then schedule() with the task still
// runnable (it is put back and may be picked again).
void Kernel::sys_sched_yield(int cpu) {
  this_cpu_ = cpu;
  struct rq *rq = cpu_rq(cpu);
  assert(!rq->curr->is_idle_task && rq->curr->__state == TASK_RUNNING);
  rq->yld_count++;
  yield_task_fair(rq);
  schedule_loop(cpu, false);
}

// ---------------------------------------------------------------------------------------------
// __schedule()

task_struct *Kernel::__pick_next_task(struct rq *rq, task_struct *prev) {
  for (;;) {
    task_struct *p = pick_task_fair(rq);
    if (p) {
      if (p != prev) {
        if (prev->is_idle_task)
          put_prev_task_idle(rq, prev);
        else
          put_prev_task_fair(rq, prev);
        set_next_task_fair(rq, p);
      }
      return p;
    }
    if (sched_balance_newidle(rq) > 0) continue;
    if (!prev->is_idle_task) {
      put_prev_task_fair(rq, prev);
      set_next_task_idle(rq, rq->idle);
    }
    return rq->idle;
  }
}

void Kernel::__schedule(int cpu, bool preempt) {
  struct rq *rq = cpu_rq(cpu);
  task_struct *prev = rq->curr;
  const unsigned int prev_state = prev->__state;
  rq->sched_count++;

  bool voluntary = false;
  if (!preempt && prev_state != TASK_RUNNING) {
    // block_task(): a sleeper may stay queued as "delayed" (DELAY_DEQUEUE).
    int flags = DEQUEUE_SLEEP | DEQUEUE_NOCLOCK;
    if (prev_state & TASK_DEAD) flags |= DEQUEUE_SPECIAL;
    if (dequeue_task(rq, prev, flags)) prev->on_rq = 0;
    voluntary = true;
  }

  task_struct *next = pick_next_task(rq, prev);
  prev->need_resched = false;
  if (prev == next) {
    if (next->is_idle_task) {
      // Still idle: do_idle() runs again. A CPU that active_load_balance_cpu_stop() left idle
      // (the model's stand-in for the stopper task) stops its tick only now.
      nohz_run_idle_balance(cpu);
      if (!rq->nohz_tick_stopped) nohz_balance_enter_idle(rq);
      if (cpuidle_[cpu].state < 0) cpuidle_select(cpu);
    }
    if (sched_core_enabled(rq)) forceidle_trace_update(rq);
    run_core_balance_callback(rq);  // balance callbacks run whether or not we switched
    return;
  }

  rq->nr_switches++;
  if (!prev->is_idle_task) {
    prev->nr_switches++;
    if (voluntary)
      prev->nr_voluntary_switches++;
    else
      prev->nr_involuntary_switches++;
  }
  if (!next->is_idle_task) next->nr_switches++;
  rq->curr = next;
  prev->on_cpu = 0;
  next->on_cpu = 1;
  next->need_resched = false;
  for (TraceSink *t : tracers_) t->sched_switch(clock_, cpu, prev, prev_state, next);
  if (next->is_idle_task) {
    rq->sched_goidle++;
    tick_stop(cpu);
    nohz_run_idle_balance(cpu);  // do_idle() first, then the tick stops
    nohz_balance_enter_idle(rq);
    cpuidle_select(cpu);
    for (TraceSink *t : tracers_) t->cpu_idle(clock_, cpu, true);
  } else if (prev->is_idle_task) {
    cpuidle_reflect(cpu);
    // tick_nohz_idle_exit(): a nohz_full CPU keeps its tick off for a lone task.
    if (!tick_nohz_full_cpu(cpu) || !sched_can_stop_tick(rq))
      tick_restart(cpu);
    else
      tick_remote_needed();
    for (TraceSink *t : tracers_) t->cpu_idle(clock_, cpu, false);
  }
  if (hooks_) hooks_->cpu_switched(cpu, prev, next);
  if (sched_core_enabled(rq)) forceidle_trace_update(rq);
  run_core_balance_callback(rq);
}

// The balance callback queued by queue_core_balance(), run after the switch.
void Kernel::run_core_balance_callback(struct rq *rq) {
  if (!rq->core_balance_queued) return;
  rq->core_balance_queued = false;
  sched_core_balance(rq);
}

void Kernel::sched_tick(int cpu) {
  struct rq *rq = cpu_rq(cpu);
  rq->nr_ticks++;
  // The timer interrupt's part; balancing is the softirq's, after it.
  irq_enter();
  if (rq->curr != rq->idle) task_tick_fair(rq, rq->curr);
  sched_core_tick(rq);
  irq_exit();
  sched_balance_trigger(rq);
  nohz_balancer_kick(rq);
}

// ---------------------------------------------------------------------------------------------
// NO_HZ_FULL

// A lone fair task needs no tick: nothing can preempt it but a wakeup, which checks for itself.
// (No deadline or RR tasks, nor CFS bandwidth limits, exist in the model.)
bool Kernel::sched_can_stop_tick(const struct rq *rq) const {
  return rq->cfs.h_nr_runnable + rq->cfs.h_nr_delayed <= 1;  // rq->cfs.h_nr_queued
}

// The TICK_DEP_BIT_SCHED dependency: a second task on a nohz_full CPU whose tick is off kicks
// it back on (tick_nohz_dep_set_cpu()). MODEL: the kick's IPI takes no time; the restarted
// tick keeps the jiffy grid (docs/model.md). A CPU still idle restarts it when it picks.
void Kernel::sched_update_tick_dependency(struct rq *rq) {
  const int cpu = rq->cpu;
  if (!tick_nohz_full_cpu(cpu) || tick_on_.test(cpu) || rq->curr == rq->idle) return;
  if (!sched_can_stop_tick(rq)) tick_restart(cpu);
}

// sched_tick_remote(): once a second a housekeeping CPU ticks, in its stead, each nohz_full CPU
// whose tick is off: the running task's accounting and PELT move on (task_tick_fair()), so that
// they are never more than a second stale.
void Kernel::sched_tick_remote() {
  const int saved = this_cpu_;
  bool again = false;
  nohz_full_.for_each([&](int cpu) {
    struct rq *rq = cpu_rq(cpu);
    if (tick_on_.test(cpu) || rq->curr == rq->idle) return;
    this_cpu_ = nohz_housekeeper_;  // a resched is an IPI to the nohz_full CPU
    rq->nr_remote_ticks++;
    task_tick_fair(rq, rq->curr);
    again = true;
  });
  this_cpu_ = saved;
  if (again) tick_remote_needed();
}

// A nohz_full CPU runs a task with its tick off: the remote tick is due at the next whole second.
// (The kernel's work item fires every second regardless; when no such CPU exists it does
// nothing, so here it is not queued.)
void Kernel::tick_remote_needed() {
  if (events_.armed(tick_remote_timer_)) return;
  const Time period = static_cast<Time>(hz_) * tick_nsec_;
  events_.arm(tick_remote_timer_, (clock_ / period + 1) * period);
}

// ---------------------------------------------------------------------------------------------
// Test helpers

void Kernel::test_enqueue(task_struct *p, int cpu) {
  this_cpu_ = cpu;
  p->cpu = p->wake_cpu = cpu;
  p->__state = TASK_RUNNING;
  activate_task(cpu_rq(cpu), p, ENQUEUE_WAKEUP);
}

void Kernel::test_run(task_struct *p, int cpu) {
  test_enqueue(p, cpu);
  struct rq *rq = cpu_rq(cpu);
  rq->curr->need_resched = true;
  __schedule(cpu, true);
  pending_resched_.clear();
}

}  // namespace schedlab::kernel

// =============================================================================================
// Core scheduling (CONFIG_SCHED_CORE): the core tree, the core-wide pick, cookie stealing.

namespace schedlab::kernel {

namespace {
// __task_prio(): lower is more important. Only the fair and idle classes exist here.
int task_prio(const task_struct *p) {
  return p->is_idle_task ? 140 : 119;
}
}  // namespace

// prio_less(a, b): a is less important than b.
bool Kernel::prio_less(task_struct *a, task_struct *b, bool in_fi) {
  const int pa = task_prio(a), pb = task_prio(b);
  if (pa != pb) return pa > pb;
  if (pa == 140) return false;
  return cfs_prio_less(a, b, in_fi);
}

void Kernel::task_vruntime_update(struct rq *rq, task_struct *p, bool in_fi) {
  if (p->is_idle_task) return;
  se_fi_update(&p->se, rq->core->core_forceidle_seq, in_fi);
}

void Kernel::sched_core_enqueue(struct rq *rq, task_struct *p) {
  if (p->se.sched_delayed) return;
  rq->core->core_task_seq++;
  if (!p->core_cookie || p->core_node_queued) return;
  // Ordered by cookie, then by priority at insertion: the tree is not re-sorted as vruntimes
  // move, as in the kernel. Equal keys go after the existing ones. MODEL: a scan from the
  // front, where the kernel descends an rbtree: once priorities have moved the two may place
  // a task differently among its cookie's (docs/model.md item 22).
  const bool in_fi = rq->core->core_forceidle_count != 0;
  auto less = [&](task_struct *a, task_struct *b) {
    if (a->core_cookie != b->core_cookie) return a->core_cookie < b->core_cookie;
    return prio_less(b, a, in_fi);
  };
  auto it = rq->core_tree.begin();
  while (it != rq->core_tree.end() && !less(p, *it)) ++it;
  rq->core_tree.insert(it, p);
  p->core_node_queued = true;
}

void Kernel::sched_core_dequeue(struct rq *rq, task_struct *p, int flags) {
  if (p->se.sched_delayed) return;
  rq->core->core_task_seq++;
  if (p->core_node_queued) {
    for (auto it = rq->core_tree.begin(); it != rq->core_tree.end(); ++it)
      if (*it == p) {
        rq->core_tree.erase(it);
        break;
      }
    p->core_node_queued = false;
  }
  // The last task leaving a forced-idle CPU (migrated away): reschedule it, to end the
  // forced idle and account for it.
  if (!(flags & DEQUEUE_SAVE) && rq->nr_running == 1 && rq->core->core_forceidle_count &&
      rq->curr == rq->idle)
    resched_curr(rq);
}

task_struct *Kernel::sched_core_find(struct rq *rq, unsigned long cookie) {
  for (task_struct *p : rq->core_tree)
    if (p->core_cookie == cookie) return p;
  return nullptr;
}

task_struct *Kernel::sched_core_next(struct rq *rq, task_struct *p, unsigned long cookie) {
  bool after = false;
  for (task_struct *q : rq->core_tree) {
    if (after) return q->core_cookie == cookie ? q : nullptr;
    if (q == p) after = true;
  }
  return nullptr;
}

task_struct *Kernel::pick_task(struct rq *rq) {
  task_struct *p = pick_task_fair(rq);
  return p ? p : rq->idle;
}

void Kernel::put_prev_set_next_task(struct rq *rq, task_struct *prev, task_struct *next) {
  if (prev == next) return;
  if (prev->is_idle_task)
    put_prev_task_idle(rq, prev);
  else
    put_prev_task_fair(rq, prev);
  if (next->is_idle_task)
    set_next_task_idle(rq, next);
  else
    set_next_task_fair(rq, next);
}

// The core-wide pick. One CPU of a core picks for all its siblings and leaves each sibling's
// choice in rq_i->core_pick; the sibling, rescheduled, takes it without picking again. Three
// counters say whether such a left choice may still be taken:
//   core->core_task_seq   moves on every enqueue and dequeue on any sibling
//                         (sched_core_enqueue/dequeue) and at every core-wide pick: the
//                         version of the core's set of queued tasks;
//   core->core_pick_seq   the core_task_seq the last core-wide pick was made on;
//   rq->core_sched_seq    the core_pick_seq this CPU last acted on (took or made).
// A sibling takes its core_pick only when the pick is current (pick_seq == task_seq: nothing
// was queued or dequeued since, so the task pointers are still valid), when it has not acted on
// that pick yet (pick_seq != sched_seq), and when a choice was left for it. Otherwise it makes
// a core-wide pick of its own. A pick itself bumps core_task_seq, so that two picks on one set
// of tasks (a preemption picks again with nothing en/dequeued) get distinct pick_seq values: a
// sibling that acted on the first pick still takes the choice the second left it.
task_struct *Kernel::pick_next_task(struct rq *rq, task_struct *prev) {
  // The stopper's stand-in is the idle task: prev was really the stop-class stopper.
  const bool after_stopper = std::exchange(rq->stopper_prev, false);
  if (!sched_core_enabled(rq)) return __pick_next_task(rq, prev);
  const int cpu = rq->cpu;
  struct rq *core = rq->core;
  const std::span<const int> smt = cpu_smt_wrap(cpu);  // for_each_cpu_wrap(i, smt_mask, cpu)
  task_struct *next = nullptr;

  // A sibling already made a core-wide selection for us, and nothing was en/dequeued since.
  if (core->core_pick_seq == core->core_task_seq && core->core_pick_seq != rq->core_sched_seq &&
      rq->core_pick) {
    rq->core_sched_seq = core->core_pick_seq;
    next = rq->core_pick;
    rq->core_pick = nullptr;
  } else {
    // prev_balance(): the classes from prev's down to (not including) idle balance in turn,
    // so balance_fair() runs newidle balance when nothing is queued here, unless prev is the
    // idle task (a pick on an idle CPU, such as a sibling's core-wide one, does not balance).
    if (!rq->nr_running && (!prev->is_idle_task || after_stopper)) sched_balance_newidle(rq);

    bool need_sync = core->core_cookie != 0;
    core->core_cookie = 0;
    bool fi_before = false;
    if (core->core_forceidle_count) {
      // Leaving a forced-idle episode: bring its accounting up to date.
      sched_core_account_forceidle(rq);
      core->core_forceidle_start = 0;
      core->core_forceidle_count = 0;
      core->core_forceidle_occupation = 0;
      need_sync = true;
      fi_before = true;
    }
    core->core_task_seq++;  // this pick gets a pick_seq of its own

    bool core_wide = true;
    if (!need_sync) {
      // Nobody on the core is tagged: a plain local pick, unless it picks a tagged task.
      next = pick_task(rq);
      if (!next->core_cookie) {
        rq->core_pick = nullptr;
        task_vruntime_update(rq, next, false);
        core_wide = false;
      }
    }
    if (core_wide) {
      task_struct *max = nullptr;
      for (const int i : smt) {
        struct rq *rq_i = cpu_rq(i);
        task_struct *p = pick_task(rq_i);
        rq_i->core_pick = p;
        if (!max || prio_less(max, p, fi_before)) max = p;
      }
      const unsigned long cookie = core->core_cookie = max->core_cookie;

      unsigned int occ = 0;
      for (const int i : smt) {
        struct rq *rq_i = cpu_rq(i);
        task_struct *p = rq_i->core_pick;
        if (!(p->is_idle_task || p->core_cookie == cookie)) {  // !cookie_equals(p, cookie)
          p = cookie ? sched_core_find(rq_i, cookie) : nullptr;
          if (!p) p = rq_i->idle;
        }
        rq_i->core_pick = p;
        if (p == rq_i->idle) {
          if (rq_i->nr_running) {
            core->core_forceidle_count++;
            if (!fi_before) core->core_forceidle_seq++;
          }
        } else {
          occ++;
        }
      }
      if (core->core_forceidle_count) {
        core->core_forceidle_start = clock_;
        core->core_forceidle_occupation = occ;
      }
      // The siblings' choices are current now; this CPU has acted on them.
      core->core_pick_seq = core->core_task_seq;
      next = rq->core_pick;
      rq->core_sched_seq = core->core_pick_seq;
      for (TraceSink *t : tracers_)
        t->sched_core_pick(clock_, cpu, max, cookie, core->core_forceidle_count);

      for (const int i : smt) {
        struct rq *rq_i = cpu_rq(i);
        // Snapshot the vruntime baselines, unless we stay in the same forced-idle episode.
        if (!(fi_before && core->core_forceidle_count))
          task_vruntime_update(rq_i, rq_i->core_pick, core->core_forceidle_count != 0);
        rq_i->core_pick->core_occupation = occ;
        if (i == cpu || rq_i->curr == rq_i->core_pick) {
          rq_i->core_pick = nullptr;
          continue;
        }
        resched_curr(rq_i);  // the sibling takes the fast path above
      }
    }
  }

  put_prev_set_next_task(rq, prev, next);
  // queue_core_balance(): a forced-idle CPU tries to steal a task of the core's cookie.
  if (core->core_forceidle_count && next == rq->idle && core->core_cookie && rq->nr_running)
    rq->core_balance_queued = true;
  return next;
}

bool Kernel::try_steal_cookie(int this_cpu, int that) {
  struct rq *dst = cpu_rq(this_cpu), *src = cpu_rq(that);
  const unsigned long cookie = dst->core->core_cookie;
  if (!cookie) return false;
  if (dst->curr != dst->idle) return false;
  for (task_struct *p = sched_core_find(src, cookie); p; p = sched_core_next(src, p, cookie)) {
    if (p == src->core_pick || p == src->curr) continue;
    if (!p->cpus_mask.test(this_cpu)) continue;
    // Do not break up a core that is better occupied than ours.
    if (p->core_occupation > dst->idle->core_occupation) continue;
    // move_queued_task_locked()
    deactivate_task(src, p, 0);
    set_task_cpu(p, this_cpu);
    activate_task(dst, p, 0);
    resched_curr(dst);
    dst->core_stolen++;
    return true;
  }
  return false;
}

bool Kernel::steal_cookie_task(int cpu, sched_domain *sd) {
  bool stolen = false;
  sd->span.for_each_wrap(cpu + 1 < nr_cpus_ ? cpu + 1 : 0, [&](int i) {
    if (i == cpu) return true;
    if (cpu_rq(cpu)->curr->need_resched) return false;
    if (try_steal_cookie(cpu, i)) {
      stolen = true;
      return false;
    }
    return true;
  });
  return stolen;
}

void Kernel::sched_core_balance(struct rq *rq) {
  for (const auto &sd : domains_[rq->cpu]) {
    if (rq->curr->need_resched) return;
    if (steal_cookie_task(rq->cpu, sd.get())) return;
  }
  // Nothing of the core's cookie to pull: push away what is stuck here instead.
  if (sched_feat(CORE_PUSH_FORCEIDLE) && !rq->curr->need_resched) sched_core_push_forceidle(rq);
}

// INFERRED (the patch is not public): each queued task whose cookie the core does not run
// goes, best first, to the nearest CPU outside this core where it can run at once: idle (or
// running only SCHED_IDLE work) and with a core that runs its cookie or is wholly idle.
int Kernel::sched_core_push_forceidle(struct rq *rq) {
  const int cpu = rq->cpu;
  const unsigned long cookie = rq->core->core_cookie;
  const int max = static_cast<int>(cfg_.tunables[TUNABLE_core_push_forceidle_max]);
  const bool llc_only = cfg_.tunables[TUNABLE_core_push_forceidle_scope] == 0;
  const bool allow_busy = cfg_.tunables[TUNABLE_core_push_forceidle_busy] != 0;
  // Best first: earliest virtual deadline.
  std::vector<task_struct *> stuck;
  rq->cfs.tasks_timeline.for_each([&](sched_entity *se) {
    task_struct *p = task_of(se);
    if (p != rq->core_pick && !se->sched_delayed && p->core_cookie != cookie) stuck.push_back(p);
  });
  std::stable_sort(stuck.begin(), stuck.end(), [](task_struct *a, task_struct *b) {
    return static_cast<s64>(a->se.deadline - b->se.deadline) < 0;
  });
  int pushed = 0;
  for (task_struct *p : stuck) {
    int dst = -1;
    for (const auto &sd : domains_[cpu]) {
      if (sd->flags & SD_SHARE_CPUCAPACITY) continue;  // the siblings share this core's cookie
      if (llc_only && !(sd->flags & SD_SHARE_LLC)) break;
      sd->span.for_each_wrap(cpu + 1 < nr_cpus_ ? cpu + 1 : 0, [&](int c) {
        if (topo_.cpu(c).core == topo_.cpu(cpu).core || !p->cpus_mask.test(c)) return true;
        if ((available_idle_cpu(c) || sched_idle_cpu(c)) && sched_core_cookie_match(cpu_rq(c), p)) {
          dst = c;
          return false;
        }
        return true;
      });
      if (dst >= 0) break;
    }
    if (dst < 0 && allow_busy) {
      // Second choice: a CPU whose core runs p's cookie and that has fewer tasks than here.
      for (const auto &sd : domains_[cpu]) {
        if (sd->flags & SD_SHARE_CPUCAPACITY) continue;
        if (llc_only && !(sd->flags & SD_SHARE_LLC)) break;
        sd->span.for_each_wrap(cpu + 1 < nr_cpus_ ? cpu + 1 : 0, [&](int c) {
          if (topo_.cpu(c).core == topo_.cpu(cpu).core || !p->cpus_mask.test(c)) return true;
          const struct rq *r = cpu_rq(c);
          if (sched_core_enabled(r) && r->core->core_cookie == p->core_cookie &&
              r->nr_running + 1 < rq->nr_running) {
            dst = c;
            return false;
          }
          return true;
        });
        if (dst >= 0) break;
      }
    }
    if (dst < 0) continue;
    struct rq *dst_rq = cpu_rq(dst);
    deactivate_task(rq, p, DEQUEUE_NOCLOCK);
    set_task_cpu(p, dst);
    activate_task(dst_rq, p, ENQUEUE_NOCLOCK);
    wakeup_preempt(dst_rq, p, 0);
    rq->core_pushed++;
    if (++pushed >= max) break;
  }
  return pushed;
}

}  // namespace schedlab::kernel
