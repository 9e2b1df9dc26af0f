// SPDX-License-Identifier: GPL-2.0-only
// kernel/sched/topology.c: sched domains built from the machine's topology.
#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "kernel/kernel.h"

namespace schedlab::kernel {

namespace {

struct LevelSpec {
  std::string name;
  int flags;
  // The span of this level for a CPU.
  std::vector<CpuMask> span;  // per CPU
  std::vector<int> weight =
      {};  // span[c].weight(), counted once: 1024-CPU machines ask ~10^8 times
};

}  // namespace

// Builds, per CPU, the domains SMT, CLS, MC, PKG and one per NUMA distance, drops those that
// span no more than their child (as the kernel degenerates them), and makes each level's
// groups the child spans.
void Kernel::build_sched_domains() {
  const int n = nr_cpus_;
  std::vector<LevelSpec> levels;
  auto per_cpu = [&](auto f) {
    std::vector<CpuMask> v;
    v.reserve(n);
    for (int c = 0; c < n; c++) v.push_back(f(c));
    return v;
  };
  const int base =
      SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE | SD_PREFER_SIBLING;
  levels.push_back({"SMT", base | SD_SHARE_CPUCAPACITY | SD_SHARE_LLC,
                    per_cpu([&](int c) { return topo_.smt_mask(c); })});
  if (cluster_active_)
    levels.push_back({"CLS", base | SD_CLUSTER | SD_SHARE_LLC,
                      per_cpu([&](int c) { return topo_.cluster_mask(c); })});
  levels.push_back({"MC", base | SD_SHARE_LLC, per_cpu([&](int c) { return topo_.llc_mask(c); })});
  // PKG spans the package, or the node when a package holds several nodes.
  levels.push_back({"PKG", base, per_cpu([&](int c) {
                      CpuMask m = topo_.socket_mask(c);
                      m &= topo_.node_mask(topo_.cpu(c).node);
                      return m;
                    })});
  if (topo_.nr_nodes() > 1) {
    std::set<int> dists;
    for (int a = 0; a < topo_.nr_nodes(); a++)
      for (int b = 0; b < topo_.nr_nodes(); b++) dists.insert(topo_.node_distance(a, b));
    for (int d : dists) {
      int flags = (base & ~SD_PREFER_SIBLING) | SD_NUMA | SD_SERIALIZE;
      if (d > 30)  // node_reclaim_distance: too far for fork/exec balancing and affine wakeups
        flags &= ~(SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE);
      levels.push_back({d == 10 ? "NODE" : "NUMA", d == 10 ? base : flags, per_cpu([&](int c) {
                          CpuMask m(n);
                          const int node = topo_.cpu(c).node;
                          for (int o = 0; o < topo_.nr_nodes(); o++)
                            if (topo_.node_distance(node, o) <= d) m |= topo_.node_mask(o);
                          return m;
                        })});
    }
  }

  for (LevelSpec &l : levels) {
    l.weight.reserve(static_cast<std::size_t>(n));
    for (const CpuMask &m : l.span) l.weight.push_back(m.weight());
  }
  // Every group's CPUs as a list, one copy per distinct group: the balancer walks these, and
  // per-domain copies of the masks do not fit in cache on large machines.
  std::map<std::vector<int>, std::size_t> pool_index;
  std::vector<std::pair<sched_group *, std::size_t>> group_lists;
  group_cpus_.clear();

  // One shared LLC state per LLC.
  std::map<int, sched_domain_shared *> shared_by_llc;
  domains_.clear();
  domains_.resize(static_cast<std::size_t>(n));
  per_cpu_sd_llc_.assign(n, nullptr);
  per_cpu_sd_llc_size_.assign(n, 1);
  per_cpu_sd_llc_id_.assign(n, 0);
  per_cpu_sd_share_id_.assign(n, 0);
  per_cpu_sd_llc_shared_.assign(n, nullptr);

  for (int cpu = 0; cpu < n; cpu++) {
    CpuMask prev_span(n);
    prev_span.set(cpu);
    int prev_weight = 1;
    int level_no = 0;
    for (const LevelSpec &l : levels) {
      const CpuMask &span = l.span[cpu];
      const int span_weight = l.weight[static_cast<std::size_t>(cpu)];
      if (span_weight <= prev_weight) continue;  // degenerate: no wider than its child
      auto sd = std::make_unique<sched_domain>();
      sd->name = l.name;
      sd->level = level_no++;
      sd->flags = l.flags;
      sd->span = span;
      sd->span_weight = span_weight;
      sd->imbalance_pct = (l.flags & SD_SHARE_CPUCAPACITY) ? 110 : 117;
      sd->cache_nice_tries = (l.flags & SD_SHARE_CPUCAPACITY) ? 0 : (l.flags & SD_NUMA) ? 2 : 1;
      sd->busy_factor = 16;
      sd->min_interval = static_cast<unsigned long>(sd->span_weight);
      sd->max_interval = 2 * sd->min_interval;
      sd->balance_interval = sd->min_interval;
      sd->last_balance = 0;
      // Groups: the child-level spans covering this span, local group first.
      std::vector<const CpuMask *> seen;
      std::deque<CpuMask> seen_singles;  // groups of one CPU made here; seen points into it
      std::vector<int> seen_first;
      auto add_group = [&](const CpuMask &g, int g_weight) {
        const int first = g.first();
        for (std::size_t i = 0; i < seen.size(); i++)
          if (seen_first[i] == first && *seen[i] == g) return;
        seen.push_back(&g);
        seen_first.push_back(first);
        sd->groups.push_back(
            sched_group{g, first, g_weight,
                        static_cast<unsigned>(std::max(1, g_weight / topo_.threads_per_core()))});
      };
      add_group(prev_span, prev_weight);
      span.for_each_wrap(cpu, [&](int c) {
        // The child's span for c: the widest earlier level that is narrower than this one.
        const CpuMask *g = nullptr;
        int g_weight = 1;
        for (const LevelSpec &ll : levels) {
          if (&ll == &l) break;
          const int w = ll.weight[static_cast<std::size_t>(c)];
          if (w < span_weight && w > g_weight && ll.span[c].subset_of(span)) {
            g = &ll.span[c];
            g_weight = w;
          }
        }
        if (g) {
          add_group(*g, g_weight);
        } else {
          CpuMask single(n);
          single.set(c);
          seen_singles.push_back(std::move(single));
          add_group(seen_singles.back(), 1);
        }
        return true;
      });
      int group_weights = 0;
      for (const sched_group &sg : sd->groups) group_weights += sg.weight;
      sd->groups_overlap = group_weights > span_weight;  // the groups cover the span
      for (sched_group &sg : sd->groups) {
        std::vector<int> cpus;
        sg.span.for_each([&](int c) { cpus.push_back(c); });
        auto [it, fresh] = pool_index.try_emplace(cpus, group_cpus_.size());
        if (fresh) group_cpus_.insert(group_cpus_.end(), cpus.begin(), cpus.end());
        group_lists.emplace_back(&sg, it->second);
      }
      if (!domains_[cpu].empty()) {
        sd->child = domains_[cpu].back().get();
        domains_[cpu].back()->parent = sd.get();
      }
      prev_span = span;
      prev_weight = span_weight;
      domains_[cpu].push_back(std::move(sd));
    }
    cpu_rq(cpu)->sd = domains_[cpu].empty() ? nullptr : domains_[cpu].front().get();
    cpu_rq(cpu)->core = cpu_rq(topo_.smt_mask(cpu).first());  // the core's leader rq

    sched_domain *llc = highest_flag_domain(cpu, SD_SHARE_LLC);
    if (llc) {
      per_cpu_sd_llc_[cpu] = llc;
      per_cpu_sd_llc_size_[cpu] = llc->span_weight;
      per_cpu_sd_llc_id_[cpu] = llc->span.first();
      const int key = llc->span.first();
      if (!shared_by_llc.count(key)) {
        llc_shared_.push_back(std::make_unique<sched_domain_shared>());
        // Every CPU starts idle with its tick stopped (rq->nohz_tick_stopped).
        llc_shared_.back()->nr_busy_cpus = 0;
        shared_by_llc[key] = llc_shared_.back().get();
      }
      llc->shared = shared_by_llc[key];
      per_cpu_sd_llc_shared_[cpu] = llc->shared;
    } else {
      per_cpu_sd_llc_id_[cpu] = cpu;
      // A lone CPU is its own LLC (1 CPU machines): it still needs the shared state.
      llc_shared_.push_back(std::make_unique<sched_domain_shared>());
      per_cpu_sd_llc_shared_[cpu] = llc_shared_.back().get();
    }
    sched_domain *cls = lowest_flag_domain(cpu, SD_CLUSTER);
    per_cpu_sd_share_id_[cpu] = cls ? cls->span.first() : per_cpu_sd_llc_id_[cpu];
  }
  // The pool is complete: no reallocation moves it from here on.
  for (auto [sg, off] : group_lists) sg->cpus = group_cpus_.data() + off;
}

sched_domain *Kernel::highest_flag_domain(int cpu, int flag) const {
  sched_domain *hsd = nullptr;
  for (const auto &sd : domains_[cpu]) {
    if (!(sd->flags & flag)) break;
    hsd = sd.get();
  }
  return hsd;
}

sched_domain *Kernel::lowest_flag_domain(int cpu, int flag) const {
  for (const auto &sd : domains_[cpu])
    if (sd->flags & flag) return sd.get();
  return nullptr;
}

}  // namespace schedlab::kernel
