// SPDX-License-Identifier: GPL-2.0-only
// The core-wide pick: __schedule() -> pick_next_task() with core scheduling, on SMT2 machines
// of 8 to 1024 CPUs. Three CPUs in four run tasks, up to three per CPU; half the tasks carry
// one of a few cookies (as VMs or containers do), the rest are untagged. Each iteration
// reschedules one CPU, so the pick looks at its sibling's queue and may force it idle.
#include <benchmark/benchmark.h>

#include "bench_cookies.h"
#include "kernel/kernel.h"
#include "sim/random.h"

using namespace schedlab;
using namespace schedlab::kernel;

namespace {

TopologySpec smt2_spec(int cpus) {
  TopologySpec spec;
  spec.threads_per_core = 2;
  spec.cores_per_llc = std::min(cpus / 2, 32);
  spec.llcs_per_socket = cpus / 2 / spec.cores_per_llc;
  return spec;
}

// Puts a mix of tagged and untagged tasks on three CPUs in four.
void populate(Kernel &k, const Topology &topo, sim::Stream &rng, bool cookies) {
  const int cpus = k.nr_cpu_ids();
  std::vector<task_struct *> owners;  // one task per cookie, the others share its cookie
  const int nr_cookies = std::max(2, cpus / 16);
  for (int c = 0; c < cpus; c++) {
    if (rng.uniform_u64(0, 3) == 0) continue;
    const int n = 1 + static_cast<int>(rng.uniform_u64(0, 2));
    for (int i = 0; i < n; i++) {
      task_struct *p = k.create_task("t", 0, SCHED_NORMAL, topo.all());
      if (cookies && rng.uniform_u64(0, 1)) bench::tag_with_cookie(k, p, owners, nr_cookies, rng);
      if (i == 0)
        k.test_run(p, c);
      else
        k.test_enqueue(p, c);
    }
  }
}

void run_pick(benchmark::State &state, bool cookies) {
  const int cpus = static_cast<int>(state.range(0));
  Topology topo(smt2_spec(cpus));
  sim::EventQueue events;
  Kernel k(topo, MachineCosts{}, KernelConfig{}, events);
  k.seed_random(1);
  sim::Stream rng(4, {1});
  populate(k, topo, rng, cookies);
  Time now = 0;
  for (auto _ : state) {
    now += 1000 + rng.uniform_u64(0, 100000);
    k.set_clock(now);
    const int cpu = static_cast<int>(rng.uniform_u64(0, cpus - 1));
    k.cpu_rq(cpu)->curr->need_resched = true;
    k.__schedule(cpu, true);
    k.run_preempt_points();
  }
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

static void BM_CorePick_Cookies(benchmark::State &state) {
  run_pick(state, true);
}
static void BM_CorePick_NoCookie(benchmark::State &state) {
  run_pick(state, false);
}
BENCHMARK(BM_CorePick_Cookies)->Arg(8)->Arg(64)->Arg(256)->Arg(1024);
BENCHMARK(BM_CorePick_NoCookie)->Arg(8)->Arg(64)->Arg(256)->Arg(1024);
