// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Test-only hooks that break the kernel model behind its back, so that tests can show the
// invariant checker catches each kind of broken state. Kernel declares KernelTestAccess a
// friend; nothing outside tests/ includes this header.
#include "kernel/kernel.h"

namespace schedlab::kernel {

class KernelTestAccess {
 public:
  // Makes p the current task of cpu without the scheduler (no pick, no dequeue, no core-wide
  // pick, no migration) and reports the switch to the tracers as __schedule() would.
  static void force_run(Kernel &k, task_struct *p, int cpu) {
    struct rq *rq = k.cpu_rq(cpu);
    task_struct *prev = rq->curr;
    rq->curr = p;
    prev->on_cpu = 0;
    p->on_cpu = 1;
    for (TraceSink *t : k.tracers_) t->sched_switch(k.clock(), cpu, prev, prev->__state, p);
  }
  // Takes a queued task off its runqueue's tree and leaves everything else (on_rq, counts).
  static void drop_from_rq(Kernel &k, task_struct *p) {
    k.cpu_rq(p->cpu)->cfs.tasks_timeline.erase(&p->se);
  }
  // Gives p another cookie without the reschedule sched_core_update_cookie() sends to the
  // core, reported to the tracers as a cookie change.
  static void set_cookie_unchecked(Kernel &k, task_struct *p, unsigned long cookie) {
    const unsigned long old = p->core_cookie;
    p->core_cookie = cookie;
    for (TraceSink *t : k.tracers_) t->sched_core_cookie(k.clock(), p, old, cookie);
  }
};

}  // namespace schedlab::kernel
