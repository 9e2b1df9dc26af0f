// kernel/sched/idle.c: the idle class's put_prev/set_next hooks.
#include "kernel/kernel.h"

namespace schedlab::kernel {

void Kernel::put_prev_task_idle(struct rq *, task_struct *) {
  // The avg_idle patch (issue 4) samples the idle period here.
}

void Kernel::set_next_task_idle(struct rq *rq, task_struct *) {
  // update_idle_core(): advertise an idle core to the wakeup path.
  if (sched_smt_active()) __update_idle_core(rq);
}

}  // namespace schedlab::kernel
