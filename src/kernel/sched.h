// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// The scheduler's state, named as in kernel/sched/sched.h and include/linux/sched.h so that a
// kernel developer finds each field where they expect it. Only what the model uses is here.
#include <sched.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "kernel/stats.h"
#include "kernel/timeline.h"
#include "machine/cpumask.h"
#include "sim/time.h"

namespace schedlab::kernel {

inline constexpr unsigned long NICE_0_LOAD = 1024;
inline constexpr unsigned long SCHED_CAPACITY_SCALE = 1024;
inline constexpr int SCHED_CAPACITY_SHIFT = 10;
inline constexpr unsigned long WEIGHT_IDLEPRIO = 3;
extern const int sched_prio_to_weight[40];

// Policies (uapi/linux/sched.h numbering); glibc's <sched.h> defines SCHED_BATCH (3) and
// SCHED_IDLE (5) with the kernel's values, but not SCHED_NORMAL.
inline constexpr int SCHED_NORMAL = 0;

// Task states (a subset of include/linux/sched.h).
inline constexpr unsigned int TASK_RUNNING = 0x0000;
inline constexpr unsigned int TASK_INTERRUPTIBLE = 0x0001;
inline constexpr unsigned int TASK_DEAD = 0x0080;
inline constexpr unsigned int TASK_WAKING = 0x0200;
inline constexpr unsigned int TASK_NEW = 0x0800;

// task_struct::on_rq
inline constexpr int TASK_ON_RQ_QUEUED = 1;
inline constexpr int TASK_ON_RQ_MIGRATING = 2;

// Wake flags (kernel/sched/sched.h).
inline constexpr int WF_EXEC = 0x02;
inline constexpr int WF_FORK = 0x04;
inline constexpr int WF_TTWU = 0x08;
inline constexpr int WF_SYNC = 0x10;
inline constexpr int WF_MIGRATED = 0x20;
inline constexpr int WF_RQ_SELECTED = 0x80;

// Enqueue/dequeue flags.
inline constexpr int DEQUEUE_SLEEP = 0x01;
inline constexpr int DEQUEUE_SAVE = 0x02;
inline constexpr int DEQUEUE_MOVE = 0x04;
inline constexpr int DEQUEUE_NOCLOCK = 0x08;
inline constexpr int DEQUEUE_SPECIAL = 0x10;
inline constexpr int DEQUEUE_MIGRATING = 0x100;
inline constexpr int DEQUEUE_DELAYED = 0x200;
inline constexpr int ENQUEUE_WAKEUP = 0x01;
inline constexpr int ENQUEUE_RESTORE = 0x02;
inline constexpr int ENQUEUE_MOVE = 0x04;
inline constexpr int ENQUEUE_NOCLOCK = 0x08;
inline constexpr int ENQUEUE_INITIAL = 0x80;
inline constexpr int ENQUEUE_MIGRATING = 0x100;
inline constexpr int ENQUEUE_DELAYED = 0x200;
inline constexpr int ENQUEUE_MIGRATED = 0x40000;

// Sched domain flags (include/linux/sched/sd_flags.h).
inline constexpr int SD_BALANCE_NEWIDLE = 1 << 0;
inline constexpr int SD_BALANCE_EXEC = 1 << 1;
inline constexpr int SD_BALANCE_FORK = 1 << 2;
inline constexpr int SD_BALANCE_WAKE = 1 << 3;
inline constexpr int SD_WAKE_AFFINE = 1 << 4;
inline constexpr int SD_ASYM_CPUCAPACITY = 1 << 5;
inline constexpr int SD_SHARE_CPUCAPACITY = 1 << 7;
inline constexpr int SD_CLUSTER = 1 << 8;
inline constexpr int SD_SHARE_LLC = 1 << 9;
inline constexpr int SD_SERIALIZE = 1 << 10;
inline constexpr int SD_PREFER_SIBLING = 1 << 12;
inline constexpr int SD_NUMA = 1 << 14;

// PELT (kernel/sched/pelt.h, sched-pelt.h).
struct sched_avg {
  u64 last_update_time = 0;
  u64 load_sum = 0;
  u64 runnable_sum = 0;
  u32 util_sum = 0;
  u32 period_contrib = 0;
  unsigned long load_avg = 0;
  unsigned long runnable_avg = 0;
  unsigned long util_avg = 0;
  // util_est: a task's estimated utilisation (a moving average of util_avg at its past sleeps,
  // with UTIL_AVG_UNCHANGED while util_avg has not moved since it was last sampled); a run
  // queue's is the sum of its queued tasks' estimates.
  u32 util_est = 0;
};
// Set in a task's util_est until PELT next updates its util_avg (kernel/sched/pelt.h).
inline constexpr u32 UTIL_AVG_UNCHANGED = 0x80000000;

// v -= d, clamped at 0 (the kernel's sub_positive() / lsub_positive()).
template <typename T>
void sub_positive(T &v, T d) {
  v = v > d ? v - d : 0;
}

struct task_struct;

struct sched_entity {
  task_struct *task = nullptr;         // container_of(se, struct task_struct, se)
  unsigned long weight = NICE_0_LOAD;  // se->load.weight, already scale_load_down()ed
  u64 vruntime = 0;
  u64 deadline = 0;
  u64 vprot = 0;  // 6.17+: slice protection end (vruntime)
  s64 vlag = 0;   // 6.12-6.16 also stashes the deadline here while running (RUN_TO_PARITY)
  u64 slice = 0;
  u64 exec_start = 0;
  u64 sum_exec_runtime = 0;
  u64 prev_sum_exec_runtime = 0;
  u64 nr_migrations = 0;
  bool on_rq = false;
  bool sched_delayed = false;
  bool rel_deadline = false;
  bool custom_slice = false;
  sched_avg avg;
  // The entity's node in its cfs_rq's tasks_timeline, with the subtree minima the tree keeps.
  rb_run_node run_node;
  u64 min_vruntime = 0;
  u64 min_slice = 0;
  u64 max_slice = 0;
};

inline bool entity_before(const sched_entity *a, const sched_entity *b) {
  return static_cast<s64>(a->deadline - b->deadline) < 0;
}

struct task_struct {
  int pid = 0;
  std::string comm;
  int tgid = 0;
  int static_nice = 0;
  int policy = SCHED_NORMAL;
  unsigned int __state = TASK_NEW;
  int on_rq = 0;
  int on_cpu = 0;
  int cpu = 0;  // task_cpu()
  int wake_cpu = 0;
  int recent_used_cpu = 0;
  unsigned int wakee_flips = 0;
  u64 wakee_flip_decay_ts = 0;
  task_struct *last_wakee = nullptr;
  CpuMask cpus_mask;
  int nr_cpus_allowed = 0;
  bool is_idle_task = false;
  bool kthread = false;       // PF_KTHREAD
  bool need_resched = false;  // TIF_NEED_RESCHED
  sched_entity se;
  // Model bookkeeping, not kernel state: CPU whose hrtimer will wake the task, and the last
  // CPU it ran on (for the machine's cache-refill penalty).
  int timer_cpu = 0;
  int last_ran_cpu = -1;
  int pgid = 0;  // process group
  // Core scheduling (CONFIG_SCHED_CORE).
  unsigned long core_cookie = 0;  // 0 = untagged
  bool core_node_queued = false;  // in its rq's core_tree
  unsigned int core_occupation = 0;
  u64 core_forceidle_sum = 0;  // se.stats.core_forceidle_sum
  u64 nr_switches = 0, nr_voluntary_switches = 0, nr_involuntary_switches = 0;
  // se.group_node: the task's place in its rq's cfs_tasks list.
  task_struct *group_prev = nullptr, *group_next = nullptr;
};

// A task's PELT utilisation and runnable average, and its util_est (fair.c).
inline unsigned long task_util(const task_struct *p) {
  return p->se.avg.util_avg;
}
inline unsigned long task_runnable(const task_struct *p) {
  return p->se.avg.runnable_avg;
}
inline unsigned long _task_util_est(const task_struct *p) {
  return p->se.avg.util_est & ~UTIL_AVG_UNCHANGED;
}
inline unsigned long task_util_est(const task_struct *p) {
  return std::max(task_util(p), _task_util_est(p));
}

// rq->cfs_tasks: the queued fair tasks as the kernel's list_head through se.group_node, so
// that queueing, picking (which moves the task to the front) and the balancer's rotation are
// O(1) however long the queue is. Front: most recently picked or queued.
class TaskList {
 public:
  bool empty() const { return !head_; }
  task_struct *front() const { return head_; }
  task_struct *back() const { return tail_; }
  static task_struct *next(const task_struct *p) { return p->group_next; }
  static task_struct *prev(const task_struct *p) { return p->group_prev; }

  void push_front(task_struct *p) {  // list_add()
    p->group_prev = nullptr;
    p->group_next = head_;
    (head_ ? head_->group_prev : tail_) = p;
    head_ = p;
  }
  void push_back(task_struct *p) {  // list_add_tail()
    p->group_next = nullptr;
    p->group_prev = tail_;
    (tail_ ? tail_->group_next : head_) = p;
    tail_ = p;
  }
  void erase(task_struct *p) {  // list_del()
    (p->group_prev ? p->group_prev->group_next : head_) = p->group_next;
    (p->group_next ? p->group_next->group_prev : tail_) = p->group_prev;
    p->group_prev = p->group_next = nullptr;
  }
  void move_to_front(task_struct *p) {  // list_move()
    erase(p);
    push_front(p);
  }
  void move_to_back(task_struct *p) {  // list_move_tail()
    erase(p);
    push_back(p);
  }

 private:
  task_struct *head_ = nullptr, *tail_ = nullptr;
};

struct cfs_rq {
  // Field order: what the balancer's per-CPU statistics read (the counts, curr, avg and
  // removed) comes first, so that a remote CPU's queue costs it few cache lines.
  unsigned long load_weight = 0;  // cfs_rq->load.weight: queued entities incl. curr
  unsigned int nr_queued = 0;     // nr_running in 6.12: includes delayed entities
  unsigned int h_nr_runnable = 0;
  unsigned int h_nr_idle = 0;
  unsigned int h_nr_delayed = 0;
  sched_entity *curr = nullptr;
  sched_avg avg;
  struct {
    unsigned long load_avg = 0, util_avg = 0, runnable_avg = 0;
    int nr = 0;
  } removed;
  s64 avg_vruntime = 0;
  u64 avg_load = 0;
  // v0 of the avg_vruntime sums: the queue's 0-lag point as of the last avg_vruntime() call
  // (place_entity(), update_entity_lag(), update_deadline()). init_cfs_rq() starts it at
  // -2^20, so that wrap-around is exercised early.
  u64 zero_vruntime = static_cast<u64>(-(s64{1} << 20));
  // Core scheduling: the zero_vruntime snapshot cfs_prio_less() compares against, frozen
  // during a forced-idle episode.
  unsigned int forceidle_seq = 0;
  u64 zero_vruntime_fi = 0;
  // The queued entities other than curr, by deadline (kernel/timeline.h).
  Timeline tasks_timeline;
};

struct sched_domain_shared {
  int has_idle_cores = 0;
  int nr_idle_scan = 0;
  int nr_busy_cpus = 0;
};

struct sched_group {
  CpuMask span;
  int balance_cpu;         // group_balance_cpu(): first CPU of the group
  int weight = 0;          // CPUs in span
  unsigned int cores = 1;  // sg->cores: the SMT cores it holds
  // The span's CPUs in ascending order (weight of them), shared by every domain holding the
  // same group: walking them touches far less memory than each domain's own mask.
  const int *cpus = nullptr;
  template <typename F>
  void for_each_cpu(F &&f) const {
    for (int i = 0; i < weight; i++) f(cpus[i]);
  }
  bool contains(int cpu) const { return std::binary_search(cpus, cpus + weight, cpu); }
};

struct sched_domain {
  sched_domain *parent = nullptr;
  sched_domain *child = nullptr;
  std::string name;  // SMT, CLS, MC, PKG, NUMA
  int level = 0;
  int flags = 0;
  CpuMask span;
  int span_weight = 0;
  std::vector<sched_group> groups;  // groups[0] contains this CPU (the local group)
  // Some CPU is in more than one group, as NUMA levels of irregular distance tables can have:
  // only then can a group other than groups[0] contain this CPU.
  bool groups_overlap = false;
  unsigned int imbalance_pct = 117;
  unsigned int cache_nice_tries = 0;
  unsigned int busy_factor = 16;
  unsigned long min_interval = 1, max_interval = 1, balance_interval = 1;  // ms
  u64 last_balance = 0;                                                    // jiffies
  unsigned int nr_balance_failed = 0;
  u64 max_newidle_lb_cost = 0;
  u64 last_decay_max_lb_cost = 0;
  // NI_RANDOM (tip): how often newidle balancing of this domain pulled, per 1024 attempts.
  unsigned int newidle_call = 512, newidle_success = 256, newidle_ratio = 512;
  sched_domain_shared *shared = nullptr;
};

struct rq {
  // Hot first: idle_cpu() and the balancer's statistics read these of every CPU they scan.
  int cpu = 0;
  unsigned int nr_running = 0;
  task_struct *curr = nullptr;
  task_struct *idle = nullptr;
  int ttwu_pending = 0;
  unsigned long cpu_capacity = SCHED_CAPACITY_SCALE;
  struct cfs_rq cfs;
  std::vector<std::pair<task_struct *, int>> wake_list;  // ttwu_queue_wakelist(): task, wake_flags
  u64 idle_stamp = 0;
  u64 avg_idle = 0;
  u64 max_idle_balance_cost = 0;
  u64 next_balance = 0;  // jiffies
  // In nohz.idle_cpus_mask and not counted in its LLC's nr_busy_cpus: set when the CPU goes
  // idle, cleared at its first busy tick. The machine starts idle.
  bool nohz_tick_stopped = true;
  // Blocked load (CONFIG_NO_HZ_COMMON): the fair queue's averages may still decay, so
  // sched_balance_update_blocked_averages() has work here; set when the CPU goes idle, cleared
  // once they reach zero. last_blocked_load_update_tick rate-limits NOHZ stats updates to one
  // a jiffy; nohz_newilb_kick is NOHZ_NEWILB_KICK, the stats pass do_idle() is to run.
  bool has_blocked_load = false;
  bool nohz_newilb_kick = false;
  u64 last_blocked_load_update_tick = 0;
  sched_domain *sd = nullptr;  // lowest domain
  u64 nr_switches = 0;
  // The CPU statistics of kernel/stats.h (schedstat's and the model's counters), one u64 each.
#define SCHEDLAB_RQ_STAT_CPU(name) u64 name = 0;
#define SCHEDLAB_RQ_STAT_RUN(name)
#define SCHEDLAB_RQ_STAT(name, over, ...) SCHEDLAB_RQ_STAT_##over(name)
  SCHEDLAB_SCHED_STATS(SCHEDLAB_RQ_STAT)
#undef SCHEDLAB_RQ_STAT
#undef SCHEDLAB_RQ_STAT_RUN
#undef SCHEDLAB_RQ_STAT_CPU
  // Load balancing: queued fair tasks, most recently picked first (rq->cfs_tasks); balancing
  // tries the least recently run ones first.
  TaskList cfs_tasks;
  // The CPU time newidle balancing spent, charged to the CPU as a stall before its next task
  // runs.
  u64 newidle_stall_ns = 0;
  // /proc/schedstat's lb_count[idle] and lb_gained[idle] (balance attempts, tasks detached),
  // summed over this CPU's domains, by enum cpu_idle_type (busy, idle, newly idle).
  u64 lb_count_by_idle[3] = {}, lb_gained_by_idle[3] = {};
  u64 nr_ticks = 0, nr_remote_ticks = 0;  // sched_tick() here; sched_tick_remote() for here
  // Active balance: the stopper on this CPU is to push a task to push_cpu.
  bool active_balance = false;
  int push_cpu = 0;
  sched_domain *active_balance_sd = nullptr;
  // The stopper ran since the last pick: that pick's prev is the stopper (a stop-class task in
  // the kernel), not the idle task the model switched to, so prev_balance() runs.
  bool stopper_prev = false;
  u64 avg_idle_sum = 0, avg_idle_samples = 0;  // the mean avg_idle, sampled at each update

  // Core scheduling. Per rq:
  struct rq *core = nullptr;  // the core's leader rq; its core_* fields below are shared
  task_struct *core_pick = nullptr;
  unsigned int core_sched_seq = 0;
  bool core_enabled = false;
  // The core tree: tagged queued tasks by (cookie, priority at insertion). MODEL: a sorted
  // vector instead of an rbtree, with the same order (docs/model.md).
  std::vector<task_struct *> core_tree;
  bool core_balance_queued =
      false;                      // queue_core_balance(): run sched_core_balance after the switch
  bool forceidle_traced = false;  // the forced-idle state last reported to tracers
  // Meaningful on the leader only:
  unsigned int core_task_seq = 0;
  unsigned int core_pick_seq = 0;
  unsigned long core_cookie = 0;
  unsigned int core_forceidle_count = 0;
  unsigned int core_forceidle_traced = 0;  // siblings whose forceidle_traced is set
  unsigned int core_forceidle_seq = 0;
  unsigned int core_forceidle_occupation = 0;
  u64 core_forceidle_start = 0;
};

inline task_struct *task_of(sched_entity *se) {
  return se->task;
}

}  // namespace schedlab::kernel
