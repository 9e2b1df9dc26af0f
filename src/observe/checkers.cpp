// SPDX-License-Identifier: GPL-2.0-only
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
      overlap_since_(static_cast<std::size_t>(topo.nr_cpus()), kTimeNever),
      reported_(static_cast<std::size_t>(topo.nr_cpus()), 0) {}

void CoreSafetyChecker::sched_switch(Time now, int cpu, const kernel::task_struct *, unsigned int,
                                     const kernel::task_struct *next) {
  running_[static_cast<std::size_t>(cpu)] = next->is_idle_task ? nullptr : next;
  check_core(cpu, now, /*switched=*/true);
}

void CoreSafetyChecker::sched_core_cookie(Time now, const kernel::task_struct *p, unsigned long,
                                          unsigned long) {
  if (p->on_cpu) check_core(p->cpu, now, /*switched=*/false);
}

// An overlap belongs to one CPU's task: it starts when that task begins to co-run with another
// cookie on its core and ends when it stops (it or a sibling switched), or when the CPU
// switches to another task. Siblings that keep re-picking for the core before the other acted
// on the last pick's IPI (each pick's enqueue or dequeue invalidates the previous one) keep the
// core mixed for as long as they go on, as in the kernel; each task's overlap stays short.
void CoreSafetyChecker::check_core(int cpu, Time now, bool switched) {
  const CpuMask &smt = topo_.smt_mask(cpu);
  smt.for_each([&](int c) {
    const kernel::task_struct *p = running_[static_cast<std::size_t>(c)];
    bool other = false;
    if (p)
      smt.for_each([&](int d) {
        const kernel::task_struct *q = running_[static_cast<std::size_t>(d)];
        other |= q && q->core_cookie != p->core_cookie;
      });
    Time &since = overlap_since_[static_cast<std::size_t>(c)];
    if (since != kTimeNever && (!other || (switched && c == cpu))) end_overlap(c, now);
    if (other && since == kTimeNever) {
      since = now;
      overlaps_++;
      nr_overlapping_++;
    }
  });
}

void CoreSafetyChecker::end_overlap(int cpu, Time now) {
  Time &since = overlap_since_[static_cast<std::size_t>(cpu)];
  const Time d = now - since;
  if (d > max_overlap_) max_overlap_ = d;
  if (report_ && d > limit_ && !reported_[static_cast<std::size_t>(cpu)])
    report_(since, topo_.cpu(cpu).core, "two cookies co-ran longer than the IPI tolerance", d);
  reported_[static_cast<std::size_t>(cpu)] = 0;
  since = kTimeNever;
  nr_overlapping_--;
}

bool CoreSafetyChecker::core_pending_violation(const kernel::Kernel &k, int core) const {
  const CpuMask &smt = topo_.smt_mask(topo_.cpu_of(core, 0));
  bool pending = false;
  smt.for_each([&](int c) { pending |= k.cpu_rq(c)->curr->need_resched; });
  if (pending) return false;
  return mixed_cookies(smt, [&](int c) -> const kernel::task_struct * {
    const kernel::task_struct *p = k.cpu_rq(c)->curr;
    return p->is_idle_task ? nullptr : p;
  });
}

void CoreSafetyChecker::check_pending(const kernel::Kernel &k, Time now, bool only_overlapping) {
  if (only_overlapping && nr_overlapping_ == 0) return;
  for (int core = 0; core < topo_.nr_cores(); core++) {
    const CpuMask &smt = topo_.smt_mask(topo_.cpu_of(core, 0));
    bool overlapping = false;
    smt.for_each(
        [&](int c) { overlapping |= overlap_since_[static_cast<std::size_t>(c)] != kTimeNever; });
    if (only_overlapping && !overlapping) continue;
    if (core_pending_violation(k, core)) {
      violations_++;
      if (report_) report_(now, core, "two cookies run with no reschedule pending", 0);
    }
    // A long overlap is reported as soon as it is seen, not only when it ends.
    smt.for_each([&](int c) {
      const Time since = overlap_since_[static_cast<std::size_t>(c)];
      if (report_ && since != kTimeNever && now - since > limit_ &&
          !reported_[static_cast<std::size_t>(c)]) {
        reported_[static_cast<std::size_t>(c)] = 1;
        report_(since, core, "two cookies co-ran longer than the IPI tolerance", now - since);
      }
    });
  }
}

void CoreSafetyChecker::finish(Time end) {
  for (int cpu = 0; cpu < topo_.nr_cpus(); cpu++)
    if (overlap_since_[static_cast<std::size_t>(cpu)] != kTimeNever) end_overlap(cpu, end);
}

}  // namespace schedlab::observe
