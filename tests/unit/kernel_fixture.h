// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// A kernel on a hand-built machine, for tests that set up scheduler states by hand.
#include <memory>

#include "kernel/kernel.h"

namespace schedlab::testing {

struct KernelFixture {
  explicit KernelFixture(TopologySpec spec = default_spec(), kernel::KernelConfig cfg = {},
                         MachineCosts costs = {})
      : topo(spec), k(topo, costs, cfg, events) {}
  static TopologySpec default_spec() {
    TopologySpec s;  // 1 socket, 4 cores x 2 threads, x86 numbering: n and n+4 are siblings
    s.cores_per_llc = 4;
    s.threads_per_core = 2;
    return s;
  }
  kernel::task_struct *task(const char *comm, int nice = 0) {
    return k.create_task(comm, nice, kernel::SCHED_NORMAL, topo.all());
  }
  // A task running on cpu (which then is not idle).
  kernel::task_struct *hog(int cpu) {
    kernel::task_struct *p = task("hog");
    k.test_run(p, cpu);
    return p;
  }
  // A task that ran on prev and is now asleep there.
  kernel::task_struct *sleeper(int prev) {
    kernel::task_struct *p = task("sleeper");
    p->cpu = p->wake_cpu = p->recent_used_cpu = p->timer_cpu = prev;
    p->__state = kernel::TASK_INTERRUPTIBLE;
    return p;
  }
  // A fresh cookie for p (prctl CREATE on itself), or p shares `from`'s cookie (SHARE_TO).
  void cookie(kernel::task_struct *p, kernel::task_struct *from = nullptr) {
    if (from)
      k.sched_core_share_pid(kernel::Kernel::PR_SCHED_CORE_SHARE_TO, p, kernel::Kernel::PIDTYPE_PID,
                             from);
    else
      k.sched_core_share_pid(kernel::Kernel::PR_SCHED_CORE_CREATE, p, kernel::Kernel::PIDTYPE_PID,
                             p);
  }
  // Handles the kernel's timers (ticks, IPIs) up to `until`, as the simulation would.
  void settle(Time until) {
    while (!events.empty() && events.next_time() <= until) {
      const auto f = events.pop();
      k.set_clock(f.time);
      k.handle_event(f.kind, f.arg);
      k.run_preempt_points();
    }
    k.set_clock(until);
  }
  Topology topo;
  sim::EventQueue events;
  kernel::Kernel k;
};

}  // namespace schedlab::testing
