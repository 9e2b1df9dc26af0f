// SPDX-License-Identifier: GPL-2.0-only
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "sim/event_queue.h"
#include "sim/random.h"

using schedlab::Time;
using schedlab::sim::EventQueue;

TEST(EventQueue, FiresInTimeThenArmingOrder) {
  EventQueue q;
  auto a = q.make_timer(1, 10), b = q.make_timer(1, 20), c = q.make_timer(1, 30);
  q.arm(b, 100);
  q.arm(a, 50);
  q.arm(c, 100);  // same time as b, armed later: fires after b
  std::vector<unsigned> order;
  while (!q.empty()) order.push_back(q.pop().arg);
  EXPECT_EQ(order, (std::vector<unsigned>{10, 20, 30}));
}

TEST(EventQueue, RearmTakesANewSequenceNumber) {
  EventQueue q;
  auto a = q.make_timer(0, 1), b = q.make_timer(0, 2);
  q.arm(a, 10);
  q.arm(b, 10);
  q.arm(a, 10);  // re-armed: now after b
  EXPECT_EQ(q.pop().arg, 2u);
  EXPECT_EQ(q.pop().arg, 1u);
}

TEST(EventQueue, CancelRemovesOnlyThatTimer) {
  EventQueue q;
  auto a = q.make_timer(0, 1), b = q.make_timer(0, 2), c = q.make_timer(0, 3);
  q.arm(a, 5);
  q.arm(b, 6);
  q.arm(c, 7);
  q.cancel(b);
  q.cancel(b);  // cancelling twice is harmless
  EXPECT_FALSE(q.armed(b));
  EXPECT_EQ(q.size(), 2u);
  EXPECT_EQ(q.pop().arg, 1u);
  EXPECT_EQ(q.pop().arg, 3u);
  EXPECT_TRUE(q.empty());
}

namespace {

// Against a sorted reference under random arm / re-arm / cancel / pop; timer `lane`, if any,
// kept in the queue's lane (set_lane) and armed far more often than the others, as the tick.
void check_against_reference(EventQueue &q, int lane = -1) {
  schedlab::sim::Stream rng(7, {1});
  const int n = 200;
  std::vector<EventQueue::TimerId> ids;
  for (int i = 0; i < n; i++) ids.push_back(q.make_timer(0, static_cast<unsigned>(i)));
  if (lane >= 0) q.set_lane(ids[static_cast<std::size_t>(lane)]);
  // reference: id -> (time, seq) when armed
  std::vector<std::tuple<bool, Time, unsigned long long>> ref(n, {false, 0, 0});
  unsigned long long seq = 0;
  Time now = 0;
  for (int step = 0; step < 20000; step++) {
    const auto op = rng.uniform_u64(0, 9);
    int id = static_cast<int>(rng.uniform_u64(0, n - 1));
    if (lane >= 0 && rng.uniform_u64(0, 3) == 0) id = lane;
    if (op < 5) {
      const Time t = now + rng.uniform_u64(0, 1000);
      q.arm(ids[id], t);
      ref[id] = {true, t, seq++};
    } else if (op < 7) {
      q.cancel(ids[id]);
      std::get<0>(ref[id]) = false;
    } else if (!q.empty()) {
      auto f = q.pop();
      int best = -1;
      for (int i = 0; i < n; i++) {
        if (!std::get<0>(ref[i])) continue;
        if (best < 0 || std::make_pair(std::get<1>(ref[i]), std::get<2>(ref[i])) <
                            std::make_pair(std::get<1>(ref[best]), std::get<2>(ref[best])))
          best = i;
      }
      ASSERT_EQ(static_cast<int>(f.arg), best);
      ASSERT_EQ(f.time, std::get<1>(ref[best]));
      ASSERT_EQ(q.armed(ids[static_cast<std::size_t>(best)]), false);
      std::get<0>(ref[best]) = false;
      now = f.time;
    }
    std::size_t queued = 0;
    for (const auto &r : ref) queued += std::get<0>(r);
    ASSERT_EQ(q.size(), queued);
    if (queued) {
      Time first = schedlab::kTimeNever;
      for (const auto &r : ref)
        if (std::get<0>(r)) first = std::min(first, std::get<1>(r));
      ASSERT_EQ(q.next_time(), first);
    }
  }
}

}  // namespace

TEST(EventQueue, MatchesReferenceUnderRandomOperations) {
  EventQueue q;
  check_against_reference(q);
}

// Sequence numbers renumbered every ~100 arms (the 32-bit wrap, brought forward): the order
// must be exactly the reference's, ties included.
TEST(EventQueue, RenumberingKeepsTheOrder) {
  EventQueue q(300);
  check_against_reference(q);
}

// The lane changes where a timer waits, not when it fires: the same reference order, ties with
// heap timers included, also across renumbering.
TEST(EventQueue, LaneTimerFiresInTheSameOrder) {
  EventQueue q;
  check_against_reference(q, 5);
  EventQueue r(300);
  check_against_reference(r, 0);
}
