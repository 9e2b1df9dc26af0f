// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Deterministic event queue: events fire in (time, arming sequence) order.
//
// Every source of events owns a Timer slot (made once, re-armed many times), which keeps
// cancellation and re-arming O(log n) without garbage entries: the heap is indexed, each
// slot knows its position. The heap is 4-ary because the model re-arms timers far more often
// than it pops them, and a shallower heap makes sift-up cheaper.
#include <cstdint>
#include <vector>

#include "sim/time.h"

namespace schedlab::sim {

class EventQueue {
 public:
  using TimerId = u32;
  static constexpr u32 kNotQueued = ~u32{0};

  struct Fired {
    TimerId id;
    u32 kind;
    u32 arg;
    Time time;
  };

  // A timer slot whose firings are reported as (kind, arg).
  TimerId make_timer(u32 kind, u32 arg);
  // Keeps one timer out of the heap, in a lane of its own that pop() compares with the heap's
  // top: for the timer re-armed most (the jiffy tick), whose every firing would otherwise
  // cost a pop and a push. The firing order is the same. One lane a queue; precondition: no
  // lane yet, and the timer is not armed.
  void set_lane(TimerId id);
  // Arm (or re-arm) a timer; a re-armed timer takes a new sequence number, i.e. it is ordered
  // after every event armed before it at the same time.
  void arm(TimerId id, Time when);
  void cancel(TimerId id);
  bool armed(TimerId id) const { return pos_[id] != kNotQueued; }
  Time expires(TimerId id) const { return slots_[id].when; }

  bool empty() const { return heap_.empty() && !lane_armed(); }
  std::size_t size() const { return heap_.size() + lane_armed(); }
  Time next_time() const {
    const Time h = heap_.empty() ? kTimeNever : heap_[0].when;
    return lane_armed() && lane_entry_.when < h ? lane_entry_.when : h;
  }
  // Removes and returns the earliest event. Precondition: !empty().
  Fired pop();

  // Sequence numbers are 32-bit, so that a heap entry is 16 bytes (four children in a cache
  // line); before they run out, the queued entries are renumbered in their order. The limit is
  // a parameter only so that tests can reach that path.
  explicit EventQueue(u32 seq_limit = ~u32{0}) : seq_limit_(seq_limit) {}

 private:
  struct Slot {
    Time when = 0;
    u32 kind = 0;
    u32 arg = 0;
  };
  // The heap holds its keys, so that sifting compares without chasing slots.
  struct Entry {
    Time when;
    u32 seq;
    TimerId id;
  };
  static bool before(const Entry &x, const Entry &y) {
    return x.when != y.when ? x.when < y.when : x.seq < y.seq;
  }
  static constexpr u32 kInLane = kNotQueued - 1;  // pos_ of the lane's timer while armed
  bool lane_armed() const { return lane_ != kNoLane && pos_[lane_] == kInLane; }
  void renumber();
  void sift_up(u32 pos, Entry e);
  void sift_down(u32 pos, Entry e);
  void place(u32 pos, const Entry &e) {
    heap_[pos] = e;
    pos_[e.id] = pos;
  }

  std::vector<Slot> slots_;
  // Each timer's heap position, apart from its slot: sifting writes these for every entry it
  // moves, and a dense array keeps those writes in cache on queues of 10^4..10^5 timers.
  std::vector<u32> pos_;
  std::vector<Entry> heap_;
  static constexpr TimerId kNoLane = ~TimerId{0};
  TimerId lane_ = kNoLane;
  Entry lane_entry_{};
  u32 seq_ = 0;
  u32 seq_limit_;
};

}  // namespace schedlab::sim
