// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// The scheduler model. One Kernel per simulated run. Member functions carry the kernel's
// function names and live in the file that holds them in kernel/sched/: core.cpp (rq,
// schedule, try_to_wake_up, tick), fair.cpp (EEVDF), fair_wakeup.cpp (select_task_rq_fair and
// the idle-CPU search), fair_balance.cpp (balancing), idle.cpp, pelt.cpp, topology.cpp.
#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <vector>

#include "kernel/features.h"
#include "kernel/sched.h"
#include "kernel/trace.h"
#include "kernel/tunables.h"
#include "machine/costs.h"
#include "machine/topology.h"
#include "sim/event_queue.h"
#include "sim/random.h"

namespace schedlab::kernel {

// What Kernel::idle_exit_latency() says of a CPU in no idle state.
inline constexpr Time kNotInIdleState = ~Time{0};

// sched_feat(NAME): the feature test, spelled as kernel/sched/sched.h spells it, in every file of
// the model (k.sched_feat(NAME) outside Kernel's members). The member below is declared with its
// name in parentheses so that this macro leaves it alone.
#define sched_feat(x) sched_feat(__SCHED_FEAT_##x)

// Event kinds of the kernel's own timers (the simulation owns the others).
enum KernelEvent : u32 { EV_TICK = 1, EV_IPI = 2, EV_TICK_REMOTE = 3, EV_KERNEL_LAST = 15 };

class Kernel {
 public:
  Kernel(const Topology &topo, const MachineCosts &costs, const KernelConfig &cfg,
         sim::EventQueue &events);
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;
  ~Kernel();

  // ---- Interface for the simulation and the workload ----
  void set_hooks(CpuHooks *h) { hooks_ = h; }
  void add_tracer(TraceSink *t) {
    tracers_.push_back(t);
    load_tp_ = load_tp_ || t->traces_pelt();
    print_tp_ = print_tp_ || t->traces_print();
  }
  // Whether some tracer takes the print event (trace_marker_write()).
  bool traces_print() const { return print_tp_; }
  // The task running on cpu writes `buf` to trace_marker: the print event.
  void trace_marker_write(int cpu, std::string_view buf) const {
    for (TraceSink *t : tracers_) t->print(clock_, cpu, cpu_rq(cpu)->curr, buf);
  }
  void set_clock(Time now) {
    clock_ = now;
    // Once per event: the balancer reads jiffies many times. A division by a constant is a
    // multiplication, and HZ=1000 is the default (a 64-bit div per event: ~2 % of the samples).
    jiffies_ = tick_nsec_ == 1000000 ? now / 1000000 : now / tick_nsec_;
  }
  Time clock() const { return clock_; }
  // A new task in TASK_NEW, not yet runnable (sched_fork()).
  task_struct *create_task(const std::string &comm, int nice, int policy, const CpuMask &allowed);
  // Forked by whatever runs on this_cpu (wake_up_new_task()).
  void wake_up_new_task(task_struct *p, int this_cpu);
  // Wakes p from the context of this_cpu (an hrtimer firing there, or a task running there).
  bool try_to_wake_up(task_struct *p, int wake_flags, int this_cpu);
  // Hardirq context (an hrtimer's callback) around what the machine does from an interrupt:
  // tracers print it in the hardirq flag column, as ftrace does.
  void irq_enter() { hardirq_count_++; }
  void irq_exit() { hardirq_count_--; }
  bool in_hardirq() const { return hardirq_count_ > 0; }
  // SCHED_SOFTIRQ: periodic and NOHZ idle balancing run in it, after the tick's interrupt.
  bool in_serving_softirq() const { return softirq_count_ > 0; }
  // smp_processor_id() of the code being run: the CPU a tracepoint fires on.
  int this_cpu() const { return this_cpu_; }
  // The task running on cpu blocks (it has set its state) or exits.
  void block_current(int cpu);
  void do_exit(int cpu);
  // sched_yield() by the task running on cpu: it stays runnable, the CPU reschedules.
  void sys_sched_yield(int cpu);
  // Dispatches EV_TICK / EV_IPI timers.
  void handle_event(u32 kind, u32 arg);
  // Reschedules every CPU whose need_resched was set by the event just handled on it.
  void run_preempt_points();

  int nr_cpu_ids() const { return nr_cpus_; }
  const Topology &topology() const { return topo_; }
  const KernelConfig &config() const { return cfg_; }
  // Whether a feature is on (features are fixed for a run).
  bool(sched_feat)(sched_feat_id f) const { return cfg_.features.on[f]; }
  struct rq *cpu_rq(int cpu) {
    return &rqs_[static_cast<std::size_t>(cpu)];
  }
  const struct rq *cpu_rq(int cpu) const { return &rqs_[static_cast<std::size_t>(cpu)]; }
  const std::vector<std::unique_ptr<task_struct>> &tasks() const { return tasks_; }
  u64 sysctl_sched_base_slice() const { return sysctl_sched_base_slice_; }
  u64 tick_nsec() const { return tick_nsec_; }

  // ---- core.c ----
  // Branch-free: balancing tests many CPUs at a time, and which are idle changes too often for
  // the branch predictor.
  bool idle_cpu(int cpu) const {
    const struct rq *rq = cpu_rq(cpu);
    return (rq->curr == rq->idle) & (rq->nr_running == 0) & (rq->ttwu_pending == 0);
  }
  // idle_get_state(rq)->exit_latency: kNotInIdleState when the CPU is in no idle state.
  Time idle_exit_latency(int cpu) const {
    const int s = cpuidle_[cpu].state;
    return s < 0 ? kNotInIdleState : costs_.idle_exit_latency_ns[s];
  }
  // No vCPU preemption on bare metal. Counts its uses inside select_idle_sibling(): the
  // idle-CPU search work a placement costs.
  bool available_idle_cpu(int cpu) const {
    if (in_sis_) sis_.idle_tests++;
    return idle_cpu(cpu);
  }
  // Which step of select_idle_sibling() chose the CPU (schedstat-like counters, read by no
  // decision).
  enum SisStep { SIS_TARGET, SIS_PREV, SIS_RECENT, SIS_SMT, SIS_SCAN, SIS_FALLBACK, NR_SIS_STEPS };
  static constexpr const char *kSisStepNames[NR_SIS_STEPS] = {"target", "prev", "recent_used",
                                                              "smt",    "scan", "fallback"};
  struct SisStats {
    u64 calls = 0;       // select_idle_sibling() calls
    u64 idle_tests = 0;  // available_idle_cpu() tests made by them (cookie checks included)
    std::array<u64, NR_SIS_STEPS> by_step{};
    // Choices whose core then ran another cookie than the task's (sched_core_cookie_match()
    // false): the task will wait for the core or force its sibling idle. In all, and by step.
    u64 cookie_mismatch = 0;
    std::array<u64, NR_SIS_STEPS> cookie_mismatch_by_step{};
  };
  SisStats sis_stats() const { return sis_; }
  bool sched_idle_cpu(int cpu) const;
  bool cpus_share_cache(int a, int b) const;
  bool cpus_share_resources(int a, int b) const;
  void resched_curr(struct rq *rq);
  void enqueue_task(struct rq *rq, task_struct *p, int flags);
  bool dequeue_task(struct rq *rq, task_struct *p, int flags);
  void activate_task(struct rq *rq, task_struct *p, int flags);
  void deactivate_task(struct rq *rq, task_struct *p, int flags);
  void set_task_cpu(task_struct *p, int new_cpu);
  int select_task_rq(task_struct *p, int cpu, int *wake_flags);
  void __schedule(int cpu, bool preempt);
  void schedule_loop(int cpu, bool preempt);  // schedule(): __schedule() while need_resched
  void sched_tick(int cpu);
  // NO_HZ_FULL (the nohz_full= CPUs; kernel/time/tick-sched.c and core.c).
  bool tick_nohz_full_cpu(int cpu) const { return nohz_full_on_ && nohz_full_.test(cpu); }
  bool sched_can_stop_tick(const struct rq *rq) const;
  void sched_update_tick_dependency(struct rq *rq);
  void sched_tick_remote();
  void tick_remote_needed();
  // Whether the CPU's periodic tick runs; how many ticks it has taken (the LOC line of
  // /proc/interrupts, scheduler ticks only), remote ticks apart.
  bool tick_running(int cpu) const { return tick_on_.test(cpu); }
  u64 nr_ticks(int cpu) const { return cpu_rq(cpu)->nr_ticks; }
  u64 nr_remote_ticks(int cpu) const { return cpu_rq(cpu)->nr_remote_ticks; }
  void wakeup_preempt(struct rq *rq, task_struct *p, int flags);
  // Test helpers: put p on cpu's queue / make it the running task without the wakeup path.
  void test_enqueue(task_struct *p, int cpu);
  void test_run(task_struct *p, int cpu);

  // ---- fair.c: EEVDF ----
  u64 avg_vruntime(struct cfs_rq *cfs_rq);
  bool vruntime_eligible(const struct cfs_rq *cfs_rq, u64 vruntime) const;
  bool entity_eligible(struct cfs_rq *cfs_rq, sched_entity *se) const;
  void update_curr(struct cfs_rq *cfs_rq);
  void place_entity(struct cfs_rq *cfs_rq, sched_entity *se, int flags);
  void enqueue_task_fair(struct rq *rq, task_struct *p, int flags);
  bool dequeue_task_fair(struct rq *rq, task_struct *p, int flags);
  bool dequeue_entities(struct rq *rq, sched_entity *se, int flags);
  void util_est_enqueue(struct cfs_rq *cfs_rq, const task_struct *p);
  void util_est_dequeue(struct cfs_rq *cfs_rq, const task_struct *p);
  void util_est_update(struct cfs_rq *cfs_rq, task_struct *p, bool task_sleep);
  sched_entity *pick_eevdf(struct cfs_rq *cfs_rq, bool protect = true);
  task_struct *pick_task_fair(struct rq *rq);
  void put_prev_task_fair(struct rq *rq, task_struct *prev);
  void set_next_task_fair(struct rq *rq, task_struct *p);
  void task_tick_fair(struct rq *rq, task_struct *curr);
  void check_preempt_wakeup_fair(struct rq *rq, task_struct *p, int wake_flags);
  void yield_task_fair(struct rq *rq);
  void migrate_task_rq_fair(task_struct *p, int new_cpu);
  u64 calc_delta_fair(u64 delta, const sched_entity *se) const;

  // ---- fair.c: wakeup placement ----
  int select_task_rq_fair(task_struct *p, int prev_cpu, int wake_flags);
  void record_wakee(task_struct *p, task_struct *current);
  bool wake_wide(task_struct *p, task_struct *current, int this_cpu) const;
  int wake_affine(sched_domain *sd, task_struct *p, int this_cpu, int prev_cpu, bool sync);
  int wake_affine_idle(task_struct *p, int this_cpu, int prev_cpu, bool sync);
  int wake_affine_weight(sched_domain *sd, task_struct *p, int this_cpu, int prev_cpu, bool sync);
  int select_idle_sibling(task_struct *p, int prev, int target);
  int __select_idle_sibling(task_struct *p, int prev, int target);
  int select_idle_smt(task_struct *p, sched_domain *sd, int target);
  int select_idle_core(task_struct *p, int core, CpuMask &cpus, int *idle_cpu);
  int select_idle_cpu(task_struct *p, sched_domain *sd, bool has_idle_core, int target);
  int __select_idle_cpu(int cpu, task_struct *p);
  bool test_idle_cores(int cpu) const;
  void set_idle_cores(int cpu, int val);
  void __update_idle_core(struct rq *rq);
  int sched_balance_find_dst_cpu(sched_domain *sd, task_struct *p, int cpu, int prev_cpu,
                                 int sd_flag);
  const sched_group *sched_balance_find_dst_group(sched_domain *sd, task_struct *p, int this_cpu);
  int sched_balance_find_dst_group_cpu(const sched_group *group, task_struct *p, int this_cpu);
  bool sched_smt_active() const { return smt_active_; }

  // ---- fair.c: balancing (fair_balance.cpp) ----
  enum cpu_idle_type { __CPU_NOT_IDLE = 0, CPU_IDLE, CPU_NEWLY_IDLE };
  void sched_balance_trigger(struct rq *rq);
  void sched_balance_domains(struct rq *rq, cpu_idle_type idle);
  int sched_balance_rq(int this_cpu, struct rq *this_rq, sched_domain *sd, cpu_idle_type idle,
                       bool *continue_balancing);
  void update_idle_cpu_scan(sched_domain *sd, int dst_cpu, unsigned long sum_util);
  int sched_balance_newidle(struct rq *rq);
  bool task_hot(task_struct *p, sched_domain *sd, int dst_cpu, int src_cpu) const;
  void nohz_balancer_kick(struct rq *rq);
  void active_load_balance_cpu_stop(struct rq *busiest_rq);
  void nohz_balance_enter_idle(struct rq *rq);
  void nohz_balance_exit_idle(struct rq *rq);
  // The work a NOHZ kick asks of the idle balancer (nohz_flags()).
  static constexpr unsigned int NOHZ_BALANCE_KICK = 1, NOHZ_STATS_KICK = 2, NOHZ_NEXT_KICK = 4;
  void kick_ilb(int this_cpu, unsigned int flags);
  void nohz_idle_balance(int ilb_cpu, unsigned int flags);
  void sched_balance_update_blocked_averages(int cpu);
  bool update_nohz_stats(struct rq *rq);
  void nohz_newidle_balance(struct rq *this_rq);
  void nohz_run_idle_balance(int cpu);
  // A domain's balance interval in jiffies, for a busy or an idle CPU.
  u64 get_sd_balance_interval(const sched_domain *sd, bool busy) const;
  bool rd_overloaded() const { return rd_overloaded_; }
  u64 nohz_next_balance() const { return nohz_next_balance_; }
  // Seeds the kernel's own random draws (NI_RANDOM), one stream per CPU.
  void seed_random(u64 seed);
  const std::vector<std::unique_ptr<sched_domain>> &domains(int cpu) const { return domains_[cpu]; }

  // ---- core.c / core_sched.c: core scheduling ----
  bool sched_core_enabled(const struct rq *rq) const {
    return sched_core_active_ && rq->core_enabled;
  }
  // prctl(PR_SCHED_CORE, cmd, pid, type, 0) run by `current`; target nullptr = current.
  // Returns 0 or a negative errno (-ENODEV, -EINVAL, -ENOMEM), as the kernel does.
  enum {
    PR_SCHED_CORE_GET = 0,
    PR_SCHED_CORE_CREATE = 1,
    PR_SCHED_CORE_SHARE_TO = 2,
    PR_SCHED_CORE_SHARE_FROM = 3
  };
  enum { PIDTYPE_PID = 0, PIDTYPE_TGID = 1, PIDTYPE_PGID = 2 };
  int sched_core_share_pid(unsigned int cmd, task_struct *target, int type, task_struct *current);
  unsigned long sched_core_update_cookie(task_struct *p, unsigned long cookie);
  void sched_core_free(task_struct *p);
  // copy_process(): a child starts with its parent's cookie (sched_core_fork()).
  void sched_core_fork(task_struct *child, const task_struct *parent);
  int nr_core_cookies() const { return static_cast<int>(cookie_refs_.size()); }
  void sched_core_enqueue(struct rq *rq, task_struct *p);
  void sched_core_dequeue(struct rq *rq, task_struct *p, int flags);
  task_struct *sched_core_find(struct rq *rq, unsigned long cookie);
  task_struct *sched_core_next(struct rq *rq, task_struct *p, unsigned long cookie);
  bool prio_less(task_struct *a, task_struct *b, bool in_fi);
  bool cfs_prio_less(task_struct *a, task_struct *b, bool in_fi);
  void task_vruntime_update(struct rq *rq, task_struct *p, bool in_fi);
  void sched_core_account_forceidle(struct rq *rq);
  void sched_core_tick(struct rq *rq);
  void task_tick_core(struct rq *rq, task_struct *curr);
  void sched_core_balance(struct rq *rq);
  int sched_core_push_forceidle(struct rq *rq);
  // idle_cpu() as load balancing sees it: with FI_IDLE_FOR_LB a forced-idle CPU counts too.
  bool lb_idle_cpu(int cpu) const {
    const bool idle = idle_cpu(cpu);
    const bool fi = sched_feat(FI_IDLE_FOR_LB) && sched_core_forceidle(cpu);
    return idle | fi;  // both are cheap: no branch on which CPUs are idle
  }
  // The fair tasks balancing counts on a CPU: cfs.h_nr_queued (delayed-dequeue sleepers
  // included) in 6.12.y; cfs.h_nr_runnable since 6.14.
  unsigned int lb_h_nr_running(const struct rq *rq) const {
    const unsigned int delayed = cfg_.version == KernelVersion::V6_12 ? rq->cfs.h_nr_delayed : 0;
    return rq->cfs.h_nr_runnable + delayed;
  }
  bool steal_cookie_task(int cpu, sched_domain *sd);
  bool try_steal_cookie(int this_cpu, int that);
  // The three cookie-match helpers of kernel/sched/sched.h.
  bool sched_cpu_cookie_match(const struct rq *rq, const task_struct *p) const;
  bool sched_core_cookie_match(const struct rq *rq, const task_struct *p, bool sync = false) const;
  bool sched_group_cookie_match(const struct rq *rq, const task_struct *p,
                                const sched_group *group) const;
  // Whether cpu is forced idle right now (rq->core->core_forceidle_count && curr is idle &&
  // nr_running), as the tracepoint reports it.
  bool sched_core_forceidle(int cpu) const;

  void update_rq_avg_idle(struct rq *rq);

  // ---- idle.c ----
  void put_prev_task_idle(struct rq *rq, task_struct *prev);
  void set_next_task_idle(struct rq *rq, task_struct *next);

  // ---- pelt.c ----
  void update_load_avg(struct cfs_rq *cfs_rq, sched_entity *se, int flags);
  // Within a microsecond of the last update with nothing removed, PELT has nothing to add: the
  // common case when the balance softirq follows the tick's update of a busy CPU.
  void update_cfs_rq_load_avg(struct cfs_rq *cfs_rq) {
    if (!cfs_rq->removed.nr && clock_ - cfs_rq->avg.last_update_time < 1024) return;
    __update_cfs_rq_load_avg(cfs_rq);
  }
  void __update_cfs_rq_load_avg(struct cfs_rq *cfs_rq);
  void attach_entity_load_avg(struct cfs_rq *cfs_rq, sched_entity *se);
  void remove_entity_load_avg(sched_entity *se, struct cfs_rq *old);
  void post_init_entity_util_avg(task_struct *p);
  // cpu_util(): the CPU's fair utilisation, util_avg or (UTIL_EST) the estimate of its queued
  // tasks if larger, capped at its capacity. boost also takes the runnable average, so that a
  // CPU whose tasks wait counts as busy as they are runnable (the balancer's migrate_util).
  // With p, as if p moved to dst_cpu (-1: as if p were gone from its CPU).
  unsigned long cpu_util(int cpu, const task_struct *p, int dst_cpu, bool boost) const;
  unsigned long cpu_util_cfs(int cpu) const { return cpu_util(cpu, nullptr, -1, false); }
  unsigned long cpu_util_cfs_boost(int cpu) const { return cpu_util(cpu, nullptr, -1, true); }
  // p's utilisation taken out of the CPU it last ran on (fork/exec-time group statistics).
  unsigned long cpu_util_without(int cpu, const task_struct *p) const;
  unsigned long cpu_load(int cpu) const { return cpu_rq(cpu)->cfs.avg.load_avg; }

  // ---- topology.c ----
  sched_domain *sd_llc(int cpu) const { return per_cpu_sd_llc_[cpu]; }
  int sd_llc_size(int cpu) const { return per_cpu_sd_llc_size_[cpu]; }
  int sd_llc_id(int cpu) const { return per_cpu_sd_llc_id_[cpu]; }
  sched_domain_shared *sd_llc_shared(int cpu) const { return per_cpu_sd_llc_shared_[cpu]; }
  const CpuMask &cpu_smt_mask(int cpu) const { return topo_.smt_mask(cpu); }
  // cpu_smt_mask() as lists (machine/topology.h): ascending, and from cpu round.
  std::span<const int> cpu_smt_cpus(int cpu) const { return topo_.smt_cpus(cpu); }
  std::span<const int> cpu_smt_wrap(int cpu) const { return topo_.smt_wrap(cpu); }
  sched_domain *highest_flag_domain(int cpu, int flag) const;
  sched_domain *lowest_flag_domain(int cpu, int flag) const;

 private:
  friend class KernelTestAccess;
  void build_sched_domains();
  void init_rq(int cpu);
  void ttwu_queue(task_struct *p, int cpu, int wake_flags, int this_cpu);
  bool ttwu_queue_cond(task_struct *p, int cpu, int this_cpu) const;
  void ttwu_do_activate(struct rq *rq, task_struct *p, int wake_flags);
  void sched_ttwu_pending(struct rq *rq);
  void send_ipi(int cpu);
  // drivers/cpuidle (cpuidle.cpp): the menu governor's choice when a CPU goes idle, and what it
  // learns when the CPU leaves the state. Only with idle states (MachineCosts::nr_idle_states).
  void cpuidle_select(int cpu);
  void cpuidle_reflect(int cpu);

 public:
  // The sleep hrtimers armed on each CPU, for the governor's next-timer-event
  // (tick_nohz_get_sleep_length()). The engine reports each sleep timer it arms and each that
  // fires; only kept with idle states.
  void hrtimer_start(int cpu, Time expires) {
    if (costs_.nr_idle_states) cpuidle_[cpu].timers.insert(expires);
  }
  void hrtimer_expired(int cpu, Time expires) {
    if (!costs_.nr_idle_states) return;
    auto &t = cpuidle_[cpu].timers;
    if (const auto it = t.find(expires); it != t.end()) t.erase(it);
  }

 private:
  void emit_switch(int cpu, task_struct *prev, unsigned int prev_state, task_struct *next);
  task_struct *pick_next_task(struct rq *rq, task_struct *prev);
  task_struct *__pick_next_task(struct rq *rq, task_struct *prev);
  task_struct *pick_task(struct rq *rq);
  void put_prev_set_next_task(struct rq *rq, task_struct *prev, task_struct *next);
  void sched_core_get();
  void sched_core_put();
  void __sched_core_set(task_struct *p, unsigned long cookie);
  void sched_core_put_cookie(unsigned long cookie);
  void se_fi_update(sched_entity *se, unsigned int fi_seq, bool forceidle);
  void forceidle_trace_update(struct rq *rq);
  void run_core_balance_callback(struct rq *rq);
  bool sis_fastpath_cookie_ok(int cpu, task_struct *p, int target);
  void detach_entity_load_avg(struct cfs_rq *cfs_rq, sched_entity *se);

  void tick_restart(int cpu);
  void tick_stop(int cpu);
  // fair.c internals
  void __enqueue_entity(struct cfs_rq *cfs_rq, sched_entity *se);
  void __dequeue_entity(struct cfs_rq *cfs_rq, sched_entity *se);
  void avg_vruntime_add(struct cfs_rq *cfs_rq, sched_entity *se);
  void avg_vruntime_sub(struct cfs_rq *cfs_rq, sched_entity *se);
  bool update_deadline(struct cfs_rq *cfs_rq, sched_entity *se);
  void update_entity_lag(struct cfs_rq *cfs_rq, sched_entity *se);
  void enqueue_entity(struct cfs_rq *cfs_rq, sched_entity *se, int flags);
  bool dequeue_entity(struct cfs_rq *cfs_rq, sched_entity *se, int flags);
  void set_next_entity(struct cfs_rq *cfs_rq, sched_entity *se);
  void put_prev_entity(struct cfs_rq *cfs_rq, sched_entity *prev);
  void requeue_delayed_entity(sched_entity *se);
  void set_protect_slice(struct cfs_rq *cfs_rq, sched_entity *se);
  bool protect_slice(const sched_entity *se) const;
  void update_protect_slice(struct cfs_rq *cfs_rq, sched_entity *se);
  void cancel_protect_slice(sched_entity *se);
  u64 cfs_rq_min_slice(struct cfs_rq *cfs_rq) const;
  u64 cfs_rq_max_slice(struct cfs_rq *cfs_rq) const;
  struct cfs_rq *cfs_rq_of(sched_entity *se) {
    return &cpu_rq(se->task->cpu)->cfs;
  }
  // cpu_of(rq_of(cfs_rq)): one fair queue per CPU, inside its run queue.
  int cfs_rq_cpu(const struct cfs_rq *cfs_rq) const {
    const auto bytes =
        reinterpret_cast<const char *>(cfs_rq) - reinterpret_cast<const char *>(&rqs_.front().cfs);
    return static_cast<int>(bytes / static_cast<std::ptrdiff_t>(sizeof(struct rq)));
  }
  // The load-tracking tracepoints (trace.h): bare tracepoints, like the kernel's static keys
  // off until a sink asks for them.
  enum class LoadTp { pelt_cfs, pelt_se, util_est_cfs, util_est_se };
  void trace_pelt_cfs_tp(const struct cfs_rq *cfs_rq) {
    if (load_tp_) [[unlikely]]
      emit_load_tp(LoadTp::pelt_cfs, cfs_rq, nullptr);
  }
  void trace_pelt_se_tp(const sched_entity *se) {
    if (load_tp_) [[unlikely]]
      emit_load_tp(LoadTp::pelt_se, nullptr, se->task);
  }
  void trace_sched_util_est_cfs_tp(const struct cfs_rq *cfs_rq) {
    if (load_tp_) [[unlikely]]
      emit_load_tp(LoadTp::util_est_cfs, cfs_rq, nullptr);
  }
  void trace_sched_util_est_se_tp(const sched_entity *se) {
    if (load_tp_) [[unlikely]]
      emit_load_tp(LoadTp::util_est_se, nullptr, se->task);
  }
  [[gnu::cold, gnu::noinline]] void emit_load_tp(LoadTp tp, const struct cfs_rq *cfs_rq,
                                                 const task_struct *p);

  const Topology &topo_;
  const MachineCosts costs_;
  const KernelConfig cfg_;
  sim::EventQueue &events_;
  CpuHooks *hooks_ = nullptr;
  std::vector<TraceSink *> tracers_;
  bool load_tp_ = false;   // some tracer takes the load-tracking tracepoints
  bool print_tp_ = false;  // some tracer takes the print event
  Time clock_ = 0;
  int hardirq_count_ = 0;
  int softirq_count_ = 0;
  int nr_cpus_;
  bool smt_active_;
  bool cluster_active_;
  u64 sysctl_sched_base_slice_;
  u64 tick_nsec_;
  u64 jiffies_ = 0;  // clock_ / tick_nsec_
  u64 jiffies() const { return jiffies_; }
  u64 hz_ = 0;  // CONFIG_HZ
  // max_load_balance_interval: HZ * online CPUs / 10 jiffies (update_max_interval()).
  u64 max_load_balance_interval_ = 0;
  u64 nohz_blocked_period_ = 0;  // LOAD_AVG_PERIOD ms in jiffies: between NOHZ stats passes

  std::vector<struct rq> rqs_;  // contiguous: scans of all CPUs stream through them
  std::vector<std::unique_ptr<task_struct>> tasks_;  // pid order; idle tasks live in idle_tasks_
  std::vector<std::unique_ptr<task_struct>> idle_tasks_;
  std::vector<std::vector<std::unique_ptr<sched_domain>>> domains_;  // per CPU, bottom-up
  std::vector<std::unique_ptr<sched_domain_shared>> llc_shared_;
  std::vector<int> group_cpus_;  // sched_group::cpus of every group point into this
  std::vector<sched_domain *> per_cpu_sd_llc_;
  std::vector<int> per_cpu_sd_llc_size_, per_cpu_sd_llc_id_, per_cpu_sd_share_id_;
  std::vector<sched_domain_shared *> per_cpu_sd_llc_shared_;
  // NO_HZ: the ticks of all busy CPUs come from one per-jiffy event (the CPUs share jiffies).
  sim::EventQueue::TimerId tick_timer_ = 0;
  CpuMask tick_on_;
  CpuMask tick_cpus_;  // this jiffy's snapshot of tick_on_
  int nr_ticking_ = 0;
  CpuMask nohz_full_;  // nohz_full= (tick_nohz_full_mask)
  bool nohz_full_on_ = false;
  int nohz_housekeeper_ = 0;  // the housekeeping CPU that runs sched_tick_remote()
  sim::EventQueue::TimerId tick_remote_timer_ = 0;
  std::vector<sim::EventQueue::TimerId> ipi_timer_;
  // struct menu_device and the state a CPU is in (-1: running, or no idle states).
  struct CpuidleDev {
    int state = -1;
    Time entered = 0;
    std::array<u32, 8> intervals_us{};  // the last idle residencies, as menu.c's INTERVALS
    u32 interval_ptr = 0;
    std::multiset<Time> timers;  // expiry of the sleep hrtimers armed on this CPU
  };
  std::vector<CpuidleDev> cpuidle_;
  std::vector<int> pending_resched_;  // CPUs to reschedule at the end of the current event
  int next_pid_ = 1;
  std::vector<sim::Stream> cpu_rng_;  // get_random_u32() per CPU
  bool rd_overloaded_ = false;        // rq->rd->overloaded: some CPU has more than one task
  u64 nohz_next_balance_ = 0;         // nohz.next_balance (jiffies)
  bool nohz_needs_update_ = false;    // nohz.needs_update: a CPU went idle since the last pass
  bool nohz_has_blocked_ = false;     // nohz.has_blocked: idle CPUs may have load to decay
  u64 nohz_next_blocked_ = 0;         // nohz.next_blocked (jiffies): the next stats pass
  int nohz_nr_cpus_ = 0;              // nohz.nr_cpus: CPUs in nohz.idle_cpus_mask
  bool in_sis_ = false;
  CpuMask select_rq_mask_;          // select_idle_cpu()'s scratch set of CPUs to scan
  CpuMask nohz_idle_cpus_;          // NOHZ idle balancing's set of CPUs to balance for, this pass
  bool sched_core_active_ = false;  // the __sched_core_enabled static key
  unsigned long next_cookie_ = 1;
  std::map<unsigned long, int> cookie_refs_;  // live cookies and their reference counts
  int this_cpu_ = 0;                          // smp_processor_id() of the code being run
  SisStep sis_step_ = SIS_TARGET;  // the step of the select_idle_sibling() call in progress
  mutable SisStats sis_;
};

inline unsigned long Kernel::cpu_util(int cpu, const task_struct *p, int dst_cpu,
                                      bool boost) const {
  const struct cfs_rq *cfs_rq = &cpu_rq(cpu)->cfs;
  unsigned long util = cfs_rq->avg.util_avg;
  if (boost) util = std::max(util, cfs_rq->avg.runnable_avg);
  // p's util_avg leaves the CPU it is on, or joins dst_cpu.
  if (p && p->cpu == cpu && dst_cpu != cpu)
    sub_positive(util, task_util(p));
  else if (p && p->cpu != cpu && dst_cpu == cpu)
    util += task_util(p);
  // sched_feat(UTIL_EST), without the test: features are fixed for a run, and with UTIL_EST
  // off no estimate is ever kept, so every one is 0 and the max leaves util as it is.
  unsigned long util_est = cfs_rq->avg.util_est;
  // A waking p is not queued yet, so not in any CPU's sum; a queued or running one is in its
  // CPU's.
  if (dst_cpu == cpu)
    util_est += _task_util_est(p);
  else if (p && (p->on_rq == TASK_ON_RQ_QUEUED || cpu_rq(p->cpu)->curr == p))
    sub_positive(util_est, _task_util_est(p));
  util = std::max(util, util_est);
  return std::min(util, cpu_rq(cpu)->cpu_capacity);
}

inline unsigned long Kernel::cpu_util_without(int cpu, const task_struct *p) const {
  // A task that ran elsewhere, or a new one, has nothing to take out.
  if (p->cpu != cpu || !p->se.avg.last_update_time) p = nullptr;
  return cpu_util(cpu, p, -1, false);
}

}  // namespace schedlab::kernel
