// SPDX-License-Identifier: GPL-2.0-only
#include "sim/event_queue.h"

#include <algorithm>
#include <cassert>
#include <numeric>

namespace schedlab::sim {

EventQueue::TimerId EventQueue::make_timer(u32 kind, u32 arg) {
  Slot s;
  s.kind = kind;
  s.arg = arg;
  slots_.push_back(s);
  pos_.push_back(kNotQueued);
  return static_cast<TimerId>(slots_.size() - 1);
}

void EventQueue::set_lane(TimerId id) {
  assert(lane_ == kNoLane && pos_[id] == kNotQueued);
  lane_ = id;
}

void EventQueue::arm(TimerId id, Time when) {
  Slot &s = slots_[id];
  if (seq_ >= seq_limit_) renumber();
  const Entry e{when, seq_++, id};
  if (id == lane_) {
    lane_entry_ = e;
    pos_[id] = kInLane;
    s.when = when;
    return;
  }
  const u32 pos = pos_[id];
  if (pos == kNotQueued) {
    heap_.push_back(e);
    sift_up(static_cast<u32>(heap_.size() - 1), e);
  } else if (when < s.when) {
    sift_up(pos, e);
  } else {
    sift_down(pos, e);  // later, or equal with a larger sequence number: it can only sink
  }
  s.when = when;
}

void EventQueue::cancel(TimerId id) {
  const u32 pos = pos_[id];
  if (pos == kNotQueued) return;
  pos_[id] = kNotQueued;
  if (pos == kInLane) return;
  const Entry last = heap_.back();
  heap_.pop_back();
  if (last.id == id) return;
  if (pos > 0 && before(last, heap_[(pos - 1) / 4]))
    sift_up(pos, last);
  else
    sift_down(pos, last);
}

EventQueue::Fired EventQueue::pop() {
  assert(!empty());
  if (lane_armed() && (heap_.empty() || before(lane_entry_, heap_[0]))) {
    const Slot &s = slots_[lane_];
    pos_[lane_] = kNotQueued;
    return Fired{lane_, s.kind, s.arg, lane_entry_.when};
  }
  const Entry top = heap_[0];
  const Slot &s = slots_[top.id];
  Fired f{top.id, s.kind, s.arg, top.when};
  pos_[top.id] = kNotQueued;
  const Entry last = heap_.back();
  heap_.pop_back();
  if (last.id != top.id) sift_down(0, last);
  return f;
}

// Gives the queued entries the sequence numbers 0..n-1 in their (time, seq) order: every
// comparison keeps its outcome, so the heap stays a heap and the firing order is unchanged.
void EventQueue::renumber() {
  // The lane's entry, if armed, takes part as index heap_.size().
  const u32 n = static_cast<u32>(heap_.size());
  auto entry = [&](u32 i) -> Entry & { return i < n ? heap_[i] : lane_entry_; };
  std::vector<u32> order(n + (lane_armed() ? 1 : 0));
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](u32 a, u32 b) { return before(entry(a), entry(b)); });
  for (u32 r = 0; r < order.size(); r++) entry(order[r]).seq = r;
  seq_ = static_cast<u32>(order.size());
}

// Moves the hole at pos up until e fits, then puts e there.
void EventQueue::sift_up(u32 pos, Entry e) {
  while (pos > 0) {
    const u32 parent = (pos - 1) / 4;
    if (!before(e, heap_[parent])) break;
    place(pos, heap_[parent]);
    pos = parent;
  }
  place(pos, e);
}

void EventQueue::sift_down(u32 pos, Entry e) {
  const u32 n = static_cast<u32>(heap_.size());
  for (;;) {
    const u32 first = pos * 4 + 1;
    if (first >= n) break;
    u32 best = first;
    const u32 end = first + 4 < n ? first + 4 : n;
    for (u32 c = first + 1; c < end; c++)
      if (before(heap_[c], heap_[best])) best = c;
    if (!before(heap_[best], e)) break;
    place(pos, heap_[best]);
    pos = best;
  }
  place(pos, e);
}

}  // namespace schedlab::sim
