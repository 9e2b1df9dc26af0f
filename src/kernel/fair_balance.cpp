// kernel/sched/fair.c: load balancing. For now the periodic pass keeps the statistics the
// wakeup path reads (SIS_UTIL's nr_idle_scan) and newidle balance keeps idle_stamp; moving
// tasks between CPUs comes with issue 4.
#include <algorithm>

#include "kernel/kernel.h"

namespace schedlab::kernel {

#define sched_feat(x) sched_feat(__SCHED_FEAT_##x)

void Kernel::sched_balance_trigger(struct rq *rq) {
  if (jiffies() >= rq->next_balance) sched_balance_domains(rq, idle_cpu(rq->cpu));
}

// SIS_UTIL: the busier the LLC, the fewer CPUs select_idle_cpu() may scan. Integer maths as
// in the kernel: nr = llc_weight * (1 - min(1, (util_avg * pct)^2 / (10000 * 1024^2) * 1024)).
void Kernel::update_idle_cpu_scan(sched_domain *sd, unsigned long sum_util) {
  if (!sched_feat(SIS_UTIL)) return;
  const int cpu = sd->span.first();
  const int llc_weight = sd_llc_size(cpu);
  if (sd->span_weight != llc_weight) return;
  sched_domain_shared *sd_share = sd_llc_shared(cpu);
  if (!sd_share) return;
  const u64 x = sum_util / static_cast<u64>(llc_weight);
  const u64 pct = sd->imbalance_pct;
  u64 tmp = x * x * pct * pct / (10000 * SCHED_CAPACITY_SCALE);
  tmp = std::min<u64>(tmp, SCHED_CAPACITY_SCALE);
  const u64 y = (SCHED_CAPACITY_SCALE - tmp) * static_cast<u64>(llc_weight) / SCHED_CAPACITY_SCALE;
  sd_share->nr_idle_scan = static_cast<int>(y);
}

void Kernel::sched_balance_domains(struct rq *rq, bool idle) {
  const bool busy = !idle && !sched_idle_cpu(rq->cpu);
  const u64 hz = static_cast<u64>(cfg_.tunables[TUNABLE_hz]);
  u64 next_balance = jiffies() + 60 * hz;
  const u64 max_lb_interval = std::max<u64>(1, hz * static_cast<u64>(nr_cpus_) / 10);
  for (const auto &sd_ptr : domains_[rq->cpu]) {
    sched_domain *sd = sd_ptr.get();
    // get_sd_balance_interval(): ms == jiffies only at HZ=1000; convert.
    auto interval_of = [&](bool b) {
      u64 ms = sd->balance_interval * (b ? sd->busy_factor : 1);
      u64 j = ms * hz / 1000;
      if (b && j > 1) j -= 1;
      return std::clamp<u64>(j, 1, max_lb_interval);
    };
    u64 interval = interval_of(busy);
    if (jiffies() >= sd->last_balance + interval) {
      // MODEL: until issue 4 brings sched_balance_rq(), the pass only refreshes the LLC
      // statistics (update_sd_lb_stats() -> update_idle_cpu_scan()); should_we_balance() is
      // not applied, so any busy CPU of the LLC may refresh them (docs/model.md).
      if (sd->span_weight == sd_llc_size(rq->cpu)) {
        unsigned long sum_util = 0;
        sd->span.for_each([&](int c) { sum_util += cpu_util_cfs(c); });
        update_idle_cpu_scan(sd, sum_util);
      }
      sd->last_balance = jiffies();
      interval = interval_of(busy);
    }
    next_balance = std::min(next_balance, sd->last_balance + interval);
  }
  rq->next_balance = next_balance;
}

// Entered when a CPU is about to go idle. The idle period is stamped before balancing, so
// that avg_idle measures how long CPUs stay idle.
int Kernel::sched_balance_newidle(struct rq *rq) {
  if (rq->ttwu_pending) return 0;  // a wakeup is on its way: not really idle
  rq->idle_stamp = clock_;
  // MODEL: no pull yet (issue 4): newidle balance never finds work.
  return 0;
}

}  // namespace schedlab::kernel
