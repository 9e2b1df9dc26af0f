#include "observe/checkers.h"

namespace schedlab::observe {

CoreSafetyChecker::CoreSafetyChecker(const Topology &topo)
    : topo_(topo),
      running_(static_cast<std::size_t>(topo.nr_cpus()), nullptr),
      overlap_since_(static_cast<std::size_t>(topo.nr_cores()), kTimeNever) {}

void CoreSafetyChecker::sched_switch(Time now, int cpu, const kernel::task_struct *, unsigned int,
                                     const kernel::task_struct *next) {
  running_[static_cast<std::size_t>(cpu)] = next->is_idle_task ? nullptr : next;
  check_core(cpu, now);
}

void CoreSafetyChecker::sched_core_cookie(Time now, const kernel::task_struct *p, unsigned long,
                                          unsigned long) {
  if (p->on_cpu) check_core(p->cpu, now);
}

void CoreSafetyChecker::check_core(int cpu, Time now) {
  bool mixed = false;
  const kernel::task_struct *first = nullptr;
  topo_.smt_mask(cpu).for_each([&](int c) {
    const kernel::task_struct *p = running_[static_cast<std::size_t>(c)];
    if (!p) return;
    if (!first)
      first = p;
    else if (p->core_cookie != first->core_cookie)
      mixed = true;
  });
  Time &since = overlap_since_[static_cast<std::size_t>(topo_.cpu(cpu).core)];
  if (mixed && since == kTimeNever) {
    since = now;
    overlaps_++;
  } else if (!mixed && since != kTimeNever) {
    if (now - since > max_overlap_) max_overlap_ = now - since;
    since = kTimeNever;
  }
}

void CoreSafetyChecker::check_pending(const kernel::Kernel &k, Time) {
  for (int core = 0; core < topo_.nr_cores(); core++) {
    const kernel::task_struct *first = nullptr;
    bool mixed = false, pending = false;
    for (int t = 0; t < topo_.threads_per_core(); t++) {
      const kernel::task_struct *p = k.cpu_rq(topo_.cpu_of(core, t))->curr;
      pending |= p->need_resched;
      if (p->is_idle_task) continue;
      if (!first)
        first = p;
      else if (p->core_cookie != first->core_cookie)
        mixed = true;
    }
    if (mixed && !pending) violations_++;
  }
}

void CoreSafetyChecker::finish(Time end) {
  for (Time &since : overlap_since_)
    if (since != kTimeNever) {
      if (end - since > max_overlap_) max_overlap_ = end - since;
      since = kTimeNever;
    }
}

}  // namespace schedlab::observe
