#include "observe/checkers.h"

namespace schedlab::observe {

// Whether the non-idle tasks among `running` (one per thread of a core; nullptr = idle) have
// more than one cookie.
template <typename F>
static bool mixed_cookies(const CpuMask &smt, F running) {
  const kernel::task_struct *first = nullptr;
  bool mixed = false;
  smt.for_each([&](int c) {
    const kernel::task_struct *p = running(c);
    if (!p) return;
    if (!first)
      first = p;
    else if (p->core_cookie != first->core_cookie)
      mixed = true;
  });
  return mixed;
}

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
  const bool mixed = mixed_cookies(topo_.smt_mask(cpu),
                                   [&](int c) { return running_[static_cast<std::size_t>(c)]; });
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
    const CpuMask &smt = topo_.smt_mask(topo_.cpu_of(core, 0));
    bool pending = false;
    smt.for_each([&](int c) { pending |= k.cpu_rq(c)->curr->need_resched; });
    const bool mixed = mixed_cookies(smt, [&](int c) -> const kernel::task_struct * {
      const kernel::task_struct *p = k.cpu_rq(c)->curr;
      return p->is_idle_task ? nullptr : p;
    });
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
