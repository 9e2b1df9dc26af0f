// SPDX-License-Identifier: GPL-2.0-only
// select_idle_sibling() on machines of 8 to 1024 CPUs, half the CPUs busy, no idle core hint
// (the scan path) and with it (the idle-core search); and with core scheduling, half the busy
// CPUs running one of a few cookies and the waking task tagged with one of them, with the
// fast-path cookie check on (the cookie tests of the search).
#include <benchmark/benchmark.h>

#include "bench_cookies.h"
#include "kernel/kernel.h"
#include "sim/random.h"

using namespace schedlab;
using namespace schedlab::kernel;

static void run_sis(benchmark::State &state, bool idle_core_hint, bool cookies = false) {
  const int cpus = static_cast<int>(state.range(0));
  TopologySpec spec;
  spec.threads_per_core = 2;
  spec.cores_per_llc = std::min(cpus / 2, 32);
  spec.llcs_per_socket = cpus / 2 / spec.cores_per_llc;
  Topology topo(spec);
  sim::EventQueue events;
  KernelConfig cfg;
  if (cookies) cfg.features.on[__SCHED_FEAT_CORE_COOKIE_FASTPATH] = true;
  Kernel k(topo, MachineCosts{}, cfg, events);
  sim::Stream rng(3, {1});
  std::vector<task_struct *> owners;  // the first task of each cookie
  const int nr_cookies = std::max(2, cpus / 16);
  for (int c = 0; c < cpus; c++) {
    if (!rng.uniform_u64(0, 1)) continue;
    task_struct *hog = k.create_task("hog", 0, SCHED_NORMAL, topo.all());
    if (cookies && rng.uniform_u64(0, 1)) bench::tag_with_cookie(k, hog, owners, nr_cookies, rng);
    k.test_run(hog, c);
  }
  for (int c = 0; c < cpus; c += spec.cores_per_llc * 2)
    k.sd_llc_shared(c)->nr_idle_scan = spec.cores_per_llc * 2;
  task_struct *p = k.create_task("p", 0, SCHED_NORMAL, topo.all());
  if (cookies && !owners.empty())
    k.sched_core_share_pid(Kernel::PR_SCHED_CORE_SHARE_TO, p, Kernel::PIDTYPE_PID, owners[0]);
  int sink = 0;
  for (auto _ : state) {
    const int prev = static_cast<int>(rng.uniform_u64(0, cpus - 1));
    p->recent_used_cpu = prev;
    k.set_idle_cores(prev, idle_core_hint ? 1 : 0);
    sink += k.select_idle_sibling(p, prev, prev);
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations());
}

static void BM_SelectIdleSibling(benchmark::State &state) {
  run_sis(state, false);
}
static void BM_SelectIdleSibling_IdleCoreHint(benchmark::State &state) {
  run_sis(state, true);
}
static void BM_SelectIdleSibling_Cookies(benchmark::State &state) {
  run_sis(state, false, true);
}
BENCHMARK(BM_SelectIdleSibling)->Arg(8)->Arg(64)->Arg(256)->Arg(1024);
BENCHMARK(BM_SelectIdleSibling_IdleCoreHint)->Arg(8)->Arg(64)->Arg(256)->Arg(1024);
BENCHMARK(BM_SelectIdleSibling_Cookies)->Arg(8)->Arg(64)->Arg(256)->Arg(1024);
