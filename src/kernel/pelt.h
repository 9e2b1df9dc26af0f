// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// The PELT sums of kernel/sched/pelt.c (___update_load_sum()), exported for the tests; the
// model calls the same code inlined, and the averages and their wiring into fair.c, in pelt.cpp.
#include "kernel/sched.h"

namespace schedlab::kernel::pelt {

// Brings sa's sums up to `now` (ns): decays them by the whole periods passed and adds the
// contributions of load, runnable and running. True when a period boundary was crossed, i.e.
// the averages are due to be recomputed.
bool update_load_sum(u64 now, sched_avg *sa, unsigned long load, unsigned long runnable,
                     int running);

// update_load_sum() of two sched_avgs at the same point of the PELT clock (equal
// last_update_time and period_contrib), as an entity and its queue are after any update at
// the same time: most updates, every tick's among them. The span's arithmetic is done once;
// the results are those of two separate calls.
bool update_load_sum_pair(u64 now, sched_avg *a, unsigned long load_a, unsigned long runnable_a,
                          int running_a, sched_avg *b, unsigned long load_b,
                          unsigned long runnable_b, int running_b);

}  // namespace schedlab::kernel::pelt
