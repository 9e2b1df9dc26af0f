// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Shared by the select_idle_sibling and core-pick benchmarks: tagging a task with one of a
// bounded number of cookies, as prctl(PR_SCHED_CORE) would.
#include <vector>

#include "kernel/kernel.h"
#include "sim/random.h"

namespace schedlab::bench {

// The first nr_cookies tasks tagged create a cookie each; later ones share a random owner's.
inline void tag_with_cookie(kernel::Kernel &k, kernel::task_struct *p,
                            std::vector<kernel::task_struct *> &owners, int nr_cookies,
                            sim::Stream &rng) {
  using kernel::Kernel;
  if (static_cast<int>(owners.size()) < nr_cookies) {
    k.sched_core_share_pid(Kernel::PR_SCHED_CORE_CREATE, p, Kernel::PIDTYPE_PID, p);
    owners.push_back(p);
  } else {
    kernel::task_struct *o = owners[rng.uniform_u64(0, owners.size() - 1)];
    k.sched_core_share_pid(Kernel::PR_SCHED_CORE_SHARE_TO, p, Kernel::PIDTYPE_PID, o);
  }
}

}  // namespace schedlab::bench
