// SPDX-License-Identifier: GPL-2.0-only
// kernel/sched/pelt.c and the PELT parts of fair.c: per-entity load tracking.
//
// Time is cut into 1024 us periods; a contribution made n periods ago is weighted y^n, with
// y^32 = 1/2. All arithmetic is integer, as in the kernel, so averages match it bit for bit
// given the same inputs.
#include "kernel/pelt.h"

#include <algorithm>

#include "kernel/kernel.h"
#include "kernel/pelt_div.h"

namespace schedlab::kernel {

namespace {

using pelt::LOAD_AVG_MAX;
using pelt::LOAD_AVG_PERIOD;
using pelt::PELT_MIN_DIVIDER;

// floor(y^n * 2^32) for n in [0, 32): decay multipliers.
constexpr u32 kYInv[LOAD_AVG_PERIOD] = {
    0xffffffff, 4202935003, 4112874773, 4024744347, 3938502375, 3854108391, 3771522796, 3690706839,
    3611622602, 3534232977, 3458501653, 3384393094, 3311872529, 3240905930, 3171459999, 3103502151,
    3037000499, 2971923841, 2908241642, 2845924020, 2784941737, 2725266179, 2666869344, 2609723833,
    2553802833, 2499080104, 2445529971, 2393127307, 2341847523, 2291666560, 2242560871, 2194507416};

u64 decay_load(u64 val, u64 n) {
  if (n >= LOAD_AVG_PERIOD) {  // rare: most updates close at most one period
    if (n > LOAD_AVG_PERIOD * 63) return 0;
    val >>= n / LOAD_AVG_PERIOD;
    n %= LOAD_AVG_PERIOD;
  }
  return static_cast<u64>((static_cast<unsigned __int128>(val) * kYInv[n]) >> 32);
}

// The contribution of a span that ends `periods` periods after the first, partial one (d1),
// with a partial last period d3: d1 y^p + 1024 sum_{n=1}^{p-1} y^n + d3.
u32 accumulate_pelt_segments(u64 periods, u32 d1, u32 d3) {
  const u32 c1 = static_cast<u32>(decay_load(d1, periods));
  const u32 c2 = LOAD_AVG_MAX - static_cast<u32>(decay_load(LOAD_AVG_MAX, periods)) - 1024;
  return c1 + c2 + d3;
}

u32 get_pelt_divider(const sched_avg *sa) {
  return PELT_MIN_DIVIDER + sa->period_contrib;
}

// One span of PELT time: the whole periods it closes and the contribution it adds, which
// depend only on its length and on where in a period it starts. Kept apart from applying them
// so that two sched_avgs at the same point of the PELT clock compute them once.
struct PeltSpan {
  u64 periods;
  u32 contrib;
  u32 period_contrib;  // where the span ends in its last period
};

[[gnu::always_inline]] inline PeltSpan pelt_span(u64 delta, u32 period_contrib, bool load) {
  u32 contrib = static_cast<u32>(delta);
  delta += period_contrib;
  const u64 periods = delta / 1024;
  if (periods) {
    delta %= 1024;
    if (load)
      contrib = accumulate_pelt_segments(periods, 1024 - period_contrib, static_cast<u32>(delta));
  }
  return {periods, contrib, static_cast<u32>(delta)};
}

// accumulate_sum() given its span: decay the sums, then add the span's contribution. Inlined
// into each update, as accumulate_sum() was: a call per sched_avg costs more than sharing saves.
[[gnu::always_inline]] inline void accumulate_span(const PeltSpan &span, sched_avg *sa,
                                                   unsigned long load, unsigned long runnable,
                                                   int running) {
  if (span.periods) {
    sa->load_sum = decay_load(sa->load_sum, span.periods);
    sa->runnable_sum = decay_load(sa->runnable_sum, span.periods);
    sa->util_sum = static_cast<u32>(decay_load(sa->util_sum, span.periods));
  }
  sa->period_contrib = span.period_contrib;
  if (load) sa->load_sum += static_cast<u64>(load) * span.contrib;
  if (runnable)
    sa->runnable_sum += static_cast<u64>(runnable) * span.contrib << SCHED_CAPACITY_SHIFT;
  if (running) sa->util_sum += span.contrib << SCHED_CAPACITY_SHIFT;
}

// Moves sa's PELT clock on by the whole (about) microseconds up to now and returns them; a
// clock that went backwards restarts from now and returns 0.
u64 advance_pelt_clock(u64 now, sched_avg *sa) {
  u64 delta = now - sa->last_update_time;
  if (static_cast<s64>(delta) < 0) {
    sa->last_update_time = now;
    return 0;
  }
  delta >>= 10;  // ns to (about) us: the unit of a period's 1024
  sa->last_update_time += delta << 10;
  return delta;
}

[[gnu::always_inline]] inline bool load_sum(u64 now, sched_avg *sa, unsigned long load,
                                            unsigned long runnable, int running) {
  const u64 delta = advance_pelt_clock(now, sa);
  if (!delta) return false;
  if (!load) runnable = running = 0;
  const PeltSpan span = pelt_span(delta, sa->period_contrib, load != 0);
  accumulate_span(span, sa, load, runnable, running);
  return span.periods != 0;
}

[[gnu::always_inline]] inline bool load_sum_pair(u64 now, sched_avg *a, unsigned long load_a,
                                                 unsigned long runnable_a, int running_a,
                                                 sched_avg *b, unsigned long load_b,
                                                 unsigned long runnable_b, int running_b) {
  const u64 delta = advance_pelt_clock(now, a);
  b->last_update_time = a->last_update_time;
  if (!delta) return false;
  if (!load_a) runnable_a = running_a = 0;
  if (!load_b) runnable_b = running_b = 0;
  const PeltSpan span = pelt_span(delta, a->period_contrib, load_a || load_b);
  accumulate_span(span, a, load_a, runnable_a, running_a);
  accumulate_span(span, b, load_b, runnable_b, running_b);
  return span.periods != 0;
}

void update_load_avg_from_sum(sched_avg *sa, unsigned long load) {
  // The three divisions by get_pelt_divider(sa), exact (kernel/pelt_div.h).
  const u32 pc = sa->period_contrib;
  sa->load_avg = static_cast<unsigned long>(pelt::div_by_divider(load * sa->load_sum, pc));
  sa->runnable_avg = static_cast<unsigned long>(pelt::div_by_divider(sa->runnable_sum, pc));
  sa->util_avg = pelt::div_by_divider(sa->util_sum, pc);
}

// __update_load_avg_se(): util_avg has moved, so the next sleep may sample it for util_est.
// (Without the kernel's UTIL_EST test: with it off the estimate stays 0, flag included.)
void cfs_se_util_change(sched_avg *avg) {
  avg->util_est &= ~UTIL_AVG_UNCHANGED;
}

}  // namespace

// The exported forms (kernel/pelt.h), for the tests; the model calls the inlined ones.
bool pelt::update_load_sum(u64 now, sched_avg *sa, unsigned long load, unsigned long runnable,
                           int running) {
  return load_sum(now, sa, load, runnable, running);
}

bool pelt::update_load_sum_pair(u64 now, sched_avg *a, unsigned long load_a,
                                unsigned long runnable_a, int running_a, sched_avg *b,
                                unsigned long load_b, unsigned long runnable_b, int running_b) {
  return load_sum_pair(now, a, load_a, runnable_a, running_a, b, load_b, runnable_b, running_b);
}

void Kernel::__update_cfs_rq_load_avg(struct cfs_rq *cfs_rq) {
  sched_avg *sa = &cfs_rq->avg;
  if (cfs_rq->removed.nr) {
    // Load left behind by tasks that woke up elsewhere.
    const u32 divider = get_pelt_divider(sa);
    sub_positive(sa->util_avg, cfs_rq->removed.util_avg);
    sub_positive(sa->load_avg, cfs_rq->removed.load_avg);
    sub_positive(sa->runnable_avg, cfs_rq->removed.runnable_avg);
    sa->util_sum = std::max<u32>(static_cast<u32>(sa->util_avg) * divider,
                                 static_cast<u32>(sa->util_avg) * PELT_MIN_DIVIDER);
    sa->load_sum = std::max<u64>(static_cast<u64>(sa->load_avg) * divider,
                                 static_cast<u64>(sa->load_avg) * PELT_MIN_DIVIDER);
    sa->runnable_sum = std::max<u64>(static_cast<u64>(sa->runnable_avg) * divider,
                                     static_cast<u64>(sa->runnable_avg) * PELT_MIN_DIVIDER);
    cfs_rq->removed = {};
  }
  if (load_sum(clock_, sa, cfs_rq->load_weight, cfs_rq->h_nr_runnable, cfs_rq->curr != nullptr)) {
    update_load_avg_from_sum(sa, 1);
    trace_pelt_cfs_tp(cfs_rq);
  }
}

void Kernel::update_load_avg(struct cfs_rq *cfs_rq, sched_entity *se, int flags) {
  const bool do_attach = flags & 1;
  if (se->avg.last_update_time) {
    const unsigned long runnable = se->on_rq && !se->sched_delayed;
    if (se->avg.last_update_time == cfs_rq->avg.last_update_time &&
        se->avg.period_contrib == cfs_rq->avg.period_contrib && !cfs_rq->removed.nr) {
      if (load_sum_pair(clock_, &se->avg, se->on_rq, runnable, cfs_rq->curr == se, &cfs_rq->avg,
                        cfs_rq->load_weight, cfs_rq->h_nr_runnable, cfs_rq->curr != nullptr)) {
        update_load_avg_from_sum(&se->avg, se->weight);
        cfs_se_util_change(&se->avg);
        update_load_avg_from_sum(&cfs_rq->avg, 1);
        trace_pelt_se_tp(se);  // the entity's update comes first in the kernel
        trace_pelt_cfs_tp(cfs_rq);
      }
      return;
    }
    if (load_sum(clock_, &se->avg, se->on_rq, runnable, cfs_rq->curr == se)) {
      update_load_avg_from_sum(&se->avg, se->weight);
      cfs_se_util_change(&se->avg);
      trace_pelt_se_tp(se);
    }
  }
  update_cfs_rq_load_avg(cfs_rq);
  if (!se->avg.last_update_time && do_attach) attach_entity_load_avg(cfs_rq, se);
}

void Kernel::attach_entity_load_avg(struct cfs_rq *cfs_rq, sched_entity *se) {
  // Align the entity's period with the queue's so that their sums decay together.
  const u32 divider = get_pelt_divider(&cfs_rq->avg);
  se->avg.last_update_time = cfs_rq->avg.last_update_time;
  se->avg.period_contrib = cfs_rq->avg.period_contrib;
  se->avg.util_sum = static_cast<u32>(se->avg.util_avg * divider);
  se->avg.runnable_sum = static_cast<u64>(se->avg.runnable_avg) * divider;
  se->avg.load_sum = static_cast<u64>(se->avg.load_avg) * divider;
  if (se->weight < se->avg.load_sum)
    se->avg.load_sum /= se->weight;
  else
    se->avg.load_sum = 1;
  cfs_rq->avg.load_avg += se->avg.load_avg;
  cfs_rq->avg.load_sum += se->weight * se->avg.load_sum;
  cfs_rq->avg.util_avg += se->avg.util_avg;
  cfs_rq->avg.util_sum += se->avg.util_sum;
  cfs_rq->avg.runnable_avg += se->avg.runnable_avg;
  cfs_rq->avg.runnable_sum += se->avg.runnable_sum;
  if (!cfs_rq->avg.last_update_time) {
    // A queue that never ran has no PELT clock yet. Start both now; 0 means "detached",
    // so a run that starts at time 0 starts them at 1 ns.
    cfs_rq->avg.last_update_time = se->avg.last_update_time = std::max<u64>(clock_, 1);
  }
  trace_pelt_cfs_tp(cfs_rq);
}

void Kernel::detach_entity_load_avg(struct cfs_rq *cfs_rq, sched_entity *se) {
  sub_positive(cfs_rq->avg.load_avg, se->avg.load_avg);
  sub_positive(cfs_rq->avg.load_sum, se->weight * se->avg.load_sum);
  sub_positive(cfs_rq->avg.util_avg, se->avg.util_avg);
  sub_positive(cfs_rq->avg.util_sum, se->avg.util_sum);
  sub_positive(cfs_rq->avg.runnable_avg, se->avg.runnable_avg);
  sub_positive(cfs_rq->avg.runnable_sum, se->avg.runnable_sum);
  se->avg.last_update_time = 0;  // attached again where it is enqueued next
  trace_pelt_cfs_tp(cfs_rq);
}

void Kernel::remove_entity_load_avg(sched_entity *se, struct cfs_rq *old) {
  // sync_entity_load_avg(): decay the sleeper's averages to the old queue's last update.
  if (se->avg.last_update_time && load_sum(old->avg.last_update_time, &se->avg, 0, 0, 0)) {
    update_load_avg_from_sum(&se->avg, se->weight);
    trace_pelt_se_tp(se);  // __update_load_avg_blocked_se()
  }
  old->removed.nr++;
  old->removed.util_avg += se->avg.util_avg;
  old->removed.load_avg += se->avg.load_avg;
  old->removed.runnable_avg += se->avg.runnable_avg;
}

void Kernel::post_init_entity_util_avg(task_struct *p) {
  sched_entity *se = &p->se;
  struct cfs_rq *cfs_rq = &cpu_rq(p->cpu)->cfs;
  sched_avg *sa = &se->avg;
  const long cpu_scale = static_cast<long>(cpu_rq(p->cpu)->cpu_capacity);
  const long cap = (cpu_scale - static_cast<long>(cfs_rq->avg.util_avg)) / 2;
  if (cap > 0) {
    if (cfs_rq->avg.util_avg != 0) {
      sa->util_avg = cfs_rq->avg.util_avg * se->weight / (cfs_rq->avg.load_avg + 1);
      sa->util_avg = std::min<unsigned long>(sa->util_avg, static_cast<unsigned long>(cap));
    } else {
      sa->util_avg = static_cast<unsigned long>(cap);
    }
  }
  sa->runnable_avg = sa->util_avg;
}

void Kernel::emit_load_tp(LoadTp tp, const struct cfs_rq *cfs_rq, const task_struct *p) {
  for (TraceSink *t : tracers_) {
    if (!t->traces_pelt()) continue;
    switch (tp) {
      case LoadTp::pelt_cfs:
        t->pelt_cfs(clock_, this_cpu_, cfs_rq_cpu(cfs_rq), cfs_rq->avg);
        break;
      case LoadTp::pelt_se:
        t->pelt_se(clock_, this_cpu_, p);
        break;
      case LoadTp::util_est_cfs:
        t->util_est_cfs(clock_, this_cpu_, cfs_rq_cpu(cfs_rq), cfs_rq->avg);
        break;
      case LoadTp::util_est_se:
        t->util_est_se(clock_, this_cpu_, p);
        break;
    }
  }
}

}  // namespace schedlab::kernel
