// SPDX-License-Identifier: GPL-2.0-only
// The event queue against a bare std::priority_queue push/pop loop at the same queue size:
// the physical-limit reference for event dispatch.
#include <benchmark/benchmark.h>

#include <queue>
#include <vector>

#include "sim/event_queue.h"
#include "sim/random.h"

using schedlab::Time;
using schedlab::sim::EventQueue;
using schedlab::sim::Stream;

// Hold model: pop the earliest event and re-arm its timer a random time later.
static void BM_EventQueue_Hold(benchmark::State &state) {
  const int n = static_cast<int>(state.range(0));
  EventQueue q;
  Stream rng(1, {1});
  for (int i = 0; i < n; i++)
    q.arm(q.make_timer(0, static_cast<unsigned>(i)), rng.uniform_u64(0, 1000000));
  for (auto _ : state) {
    auto f = q.pop();
    q.arm(f.id, f.time + 1 + rng.uniform_u64(0, 1000000));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueue_Hold)->Arg(16)->Arg(256)->Arg(4096)->Arg(65536);

static void BM_PriorityQueue_Hold(benchmark::State &state) {
  const int n = static_cast<int>(state.range(0));
  struct E {
    Time t;
    unsigned long long seq;
    bool operator>(const E &o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  std::priority_queue<E, std::vector<E>, std::greater<E>> q;
  Stream rng(1, {1});
  unsigned long long seq = 0;
  for (int i = 0; i < n; i++) q.push(E{rng.uniform_u64(0, 1000000), seq++});
  for (auto _ : state) {
    E e = q.top();
    q.pop();
    q.push(E{e.t + 1 + rng.uniform_u64(0, 1000000), seq++});
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PriorityQueue_Hold)->Arg(16)->Arg(256)->Arg(4096)->Arg(65536);

// Re-arming an already queued timer (the model's most common operation: ticks, IPIs, work
// completions move constantly).
static void BM_EventQueue_Rearm(benchmark::State &state) {
  const int n = static_cast<int>(state.range(0));
  EventQueue q;
  Stream rng(2, {1});
  std::vector<EventQueue::TimerId> ids;
  for (int i = 0; i < n; i++) {
    ids.push_back(q.make_timer(0, static_cast<unsigned>(i)));
    q.arm(ids.back(), rng.uniform_u64(0, 1000000));
  }
  for (auto _ : state) q.arm(ids[rng.uniform_u64(0, n - 1)], rng.uniform_u64(0, 1000000));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueue_Rearm)->Arg(256)->Arg(4096);
