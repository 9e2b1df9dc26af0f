// SPDX-License-Identifier: GPL-2.0-only
// kernel/sched/core_sched.c: cookies (prctl PR_SCHED_CORE) and forced-idle accounting; plus
// the cookie-match helpers that kernel/sched/sched.h defines.
#include <cerrno>

#include "kernel/kernel.h"

namespace schedlab::kernel {

// ---------------------------------------------------------------------------------------------
// Enabling core scheduling: the first cookie turns it on everywhere, the last one off.

void Kernel::sched_core_get() {
  if (sched_core_active_) return;
  sched_core_active_ = true;
  for (int cpu = 0; cpu < nr_cpus_; cpu++) cpu_rq(cpu)->core_enabled = true;
}

// MODEL: the kernel turns core scheduling off from a work item after the last cookie is
// freed; here it happens at once (docs/model.md).
void Kernel::sched_core_put() {
  if (!cookie_refs_.empty() || !sched_core_active_) return;
  for (int cpu = 0; cpu < nr_cpus_; cpu++) {
    struct rq *rq = cpu_rq(cpu);
    rq->core_enabled = false;
    rq->core_pick = nullptr;
    rq->core_cookie = 0;
    rq->core_forceidle_count = rq->core_forceidle_occupation = 0;
    rq->core_forceidle_start = 0;
  }
  sched_core_active_ = false;
  for (int cpu = 0; cpu < nr_cpus_; cpu++) forceidle_trace_update(cpu_rq(cpu));
}

void Kernel::sched_core_put_cookie(unsigned long cookie) {
  if (!cookie) return;
  auto it = cookie_refs_.find(cookie);
  if (--it->second == 0) {
    cookie_refs_.erase(it);
    sched_core_put();
  }
}

unsigned long Kernel::sched_core_update_cookie(task_struct *p, unsigned long cookie) {
  struct rq *rq = cpu_rq(p->cpu);
  if (p->core_node_queued) sched_core_dequeue(rq, p, DEQUEUE_SAVE);
  const unsigned long old = p->core_cookie;
  p->core_cookie = cookie;
  // A newly tagged runnable task goes into the tree at once, so that it can be stolen.
  if (cookie && p->on_rq == TASK_ON_RQ_QUEUED && !p->se.sched_delayed) sched_core_enqueue(rq, p);
  // The running task's new cookie takes effect at the next pick.
  if (rq->curr == p) resched_curr(rq);
  for (TraceSink *t : tracers_) t->sched_core_cookie(clock_, p, old, cookie);
  return old;
}

void Kernel::__sched_core_set(task_struct *p, unsigned long cookie) {
  if (cookie) cookie_refs_[cookie]++;  // sched_core_get_cookie()
  const unsigned long old = sched_core_update_cookie(p, cookie);
  sched_core_put_cookie(old);
}

int Kernel::sched_core_share_pid(unsigned int cmd, task_struct *target, int type,
                                 task_struct *current) {
  if (!sched_smt_active()) return -ENODEV;
  if (type > PIDTYPE_PGID || type < 0 || cmd > PR_SCHED_CORE_SHARE_FROM) return -EINVAL;
  task_struct *p = target ? target : current;
  unsigned long cookie = 0;
  switch (cmd) {
    case PR_SCHED_CORE_GET:
      return type == PIDTYPE_PID ? 0 : -EINVAL;  // reading a cookie changes nothing
    case PR_SCHED_CORE_CREATE:
      cookie = next_cookie_++;
      cookie_refs_[cookie] = 1;
      sched_core_get();
      break;
    case PR_SCHED_CORE_SHARE_TO:
      cookie = current->core_cookie;
      if (cookie) cookie_refs_[cookie]++;  // sched_core_clone_cookie()
      break;
    case PR_SCHED_CORE_SHARE_FROM:
      if (type != PIDTYPE_PID) return -EINVAL;
      cookie = p->core_cookie;
      if (cookie) cookie_refs_[cookie]++;
      __sched_core_set(current, cookie);
      sched_core_put_cookie(cookie);
      return 0;
  }
  if (type == PIDTYPE_PID) {
    __sched_core_set(p, cookie);
  } else {
    // Every live task of the thread group or process group, in pid order.
    for (const auto &t : tasks_) {
      if (t->__state == TASK_DEAD) continue;
      const bool member = type == PIDTYPE_TGID ? t->tgid == p->tgid : t->pgid == p->pgid;
      if (member) __sched_core_set(t.get(), cookie);
    }
  }
  sched_core_put_cookie(cookie);  // the reference this call held
  return 0;
}

void Kernel::sched_core_fork(task_struct *child, const task_struct *parent) {
  child->core_cookie = parent->core_cookie;
  if (child->core_cookie) cookie_refs_[child->core_cookie]++;
}

void Kernel::sched_core_free(task_struct *p) {
  const unsigned long cookie = p->core_cookie;
  if (!cookie) return;
  p->core_cookie = 0;
  for (TraceSink *t : tracers_) t->sched_core_cookie(clock_, p, cookie, 0);
  sched_core_put_cookie(cookie);
}

// ---------------------------------------------------------------------------------------------
// Forced-idle accounting (schedstats): the time a sibling is forced idle is charged to the
// tasks running on the core, scaled for SMT > 2 by forced-idle siblings / running siblings.

void Kernel::sched_core_account_forceidle(struct rq *rq) {
  struct rq *core = rq->core;
  if (!core->core_forceidle_start) return;
  const s64 d = static_cast<s64>(clock_ - core->core_forceidle_start);
  if (d <= 0) return;
  u64 delta = static_cast<u64>(d);
  core->core_forceidle_start = clock_;
  if (!core->core_forceidle_occupation) {
    // Forced idle with no task running: the kernel warns, and charges the time unscaled.
  } else if (core->core_forceidle_count > 1 || core->core_forceidle_occupation > 1) {
    delta = delta * core->core_forceidle_count / core->core_forceidle_occupation;
  }
  for (const int i : cpu_smt_cpus(rq->cpu)) {
    struct rq *rq_i = cpu_rq(i);
    task_struct *p = rq_i->core_pick ? rq_i->core_pick : rq_i->curr;
    if (p != rq_i->idle) p->core_forceidle_sum += delta;
  }
}

void Kernel::sched_core_tick(struct rq *rq) {
  if (!sched_core_enabled(rq) || !rq->core->core_forceidle_count) return;
  sched_core_account_forceidle(rq);
}

// ---------------------------------------------------------------------------------------------
// Cookie matching (kernel/sched/sched.h)

bool Kernel::sched_cpu_cookie_match(const struct rq *rq, const task_struct *p) const {
  if (!sched_core_enabled(rq)) return true;
  return rq->core->core_cookie == p->core_cookie;
}

// True when the core runs p's cookie or is entirely idle. With sync, the waker's own CPU
// (rq) counts as idle: it is about to sleep ([PATCH 3/4]).
bool Kernel::sched_core_cookie_match(const struct rq *rq, const task_struct *p, bool sync) const {
  if (!sched_core_enabled(rq)) return true;
  if (rq->core->core_cookie == p->core_cookie) return true;
  bool idle_core = true;
  for (const int cpu : cpu_smt_cpus(rq->cpu)) {
    if (sync && cpu == rq->cpu) continue;
    if (!available_idle_cpu(cpu)) idle_core = false;
  }
  return idle_core;
}

bool Kernel::sched_group_cookie_match(const struct rq *rq, const task_struct *p,
                                      const sched_group *group) const {
  if (!sched_core_enabled(rq)) return true;
  bool match = false;
  group->for_each_cpu([&](int cpu) {
    if (!match && p->cpus_mask.test(cpu) && sched_core_cookie_match(cpu_rq(cpu), p)) match = true;
  });
  return match;
}

bool Kernel::sched_core_forceidle(int cpu) const {
  const struct rq *rq = cpu_rq(cpu);
  return sched_core_enabled(rq) && rq->core->core_forceidle_count && rq->curr == rq->idle &&
         rq->nr_running > 0;
}

void Kernel::forceidle_trace_update(struct rq *rq) {
  // A sibling can only be forced idle while its core counts forced idle; with none counted and
  // none reported, no sibling's state can change. Most en/dequeues and switches stop here.
  if (!sched_core_active_ && !rq->forceidle_traced) return;
  struct rq *core = rq->core;
  if (!core->core_forceidle_traced && !(sched_core_enabled(rq) && core->core_forceidle_count))
    return;
  auto update = [&](int cpu) {
    struct rq *r = cpu_rq(cpu);
    const bool fi = sched_core_forceidle(cpu);
    if (fi == r->forceidle_traced) return;
    r->forceidle_traced = fi;
    core->core_forceidle_traced += fi ? 1u : ~0u;  // +1 or -1
    for (TraceSink *t : tracers_) t->sched_forceidle(clock_, cpu, fi);
  };
  for (const int cpu : cpu_smt_cpus(rq->cpu)) update(cpu);
}

}  // namespace schedlab::kernel
