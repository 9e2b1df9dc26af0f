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
  // Arm (or re-arm) a timer; a re-armed timer takes a new sequence number, i.e. it is ordered
  // after every event armed before it at the same time.
  void arm(TimerId id, Time when);
  void cancel(TimerId id);
  bool armed(TimerId id) const { return pos_[id] != kNotQueued; }
  Time expires(TimerId id) const { return slots_[id].when; }

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  Time next_time() const { return heap_.empty() ? kTimeNever : heap_[0].when; }
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
  u32 seq_ = 0;
  u32 seq_limit_;
};

}  // namespace schedlab::sim
