// SPDX-License-Identifier: GPL-2.0-only
// kernel/sched/idle.c: the idle class's put_prev/set_next hooks.
#include "kernel/kernel.h"

namespace schedlab::kernel {

// "sched: Update rq->avg_idle when a task is moved to an idle CPU": the idle period is sampled
// whenever the idle task is switched out, however the work arrived (wakeup, fork, migration,
// balance pull, cookie steal, end of forced idle). As merged it has no idle_stamp guard, so a
// CPU that idled without newidle stamping it (forced idle, a pending wakeup) samples the whole
// clock and saturates avg_idle; the follow-up restores the guard.
void Kernel::put_prev_task_idle(struct rq *rq, task_struct *) {
  if (!sched_feat(AVG_IDLE_ON_IDLE_EXIT)) return;
  if (sched_feat(AVG_IDLE_STAMP_GUARD) && !rq->idle_stamp) return;
  update_rq_avg_idle(rq);
}

void Kernel::set_next_task_idle(struct rq *rq, task_struct *) {
  // update_idle_core(): advertise an idle core to the wakeup path.
  if (sched_smt_active()) __update_idle_core(rq);
}

}  // namespace schedlab::kernel
