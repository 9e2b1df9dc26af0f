#include "sim/event_queue.h"

#include <cassert>

namespace schedlab::sim {

EventQueue::TimerId EventQueue::make_timer(u32 kind, u32 arg) {
  Slot s;
  s.kind = kind;
  s.arg = arg;
  slots_.push_back(s);
  return static_cast<TimerId>(slots_.size() - 1);
}

void EventQueue::arm(TimerId id, Time when) {
  Slot &s = slots_[id];
  s.when = when;
  s.seq = seq_++;
  if (s.pos == kNotQueued) {
    heap_.push_back(id);
    s.pos = static_cast<u32>(heap_.size() - 1);
    sift_up(s.pos);
  } else {
    // Moving later can only sink, earlier can only rise; the new seq is larger, so an equal
    // time also sinks.
    sift_up(s.pos);
    sift_down(s.pos);
  }
}

void EventQueue::cancel(TimerId id) {
  Slot &s = slots_[id];
  if (s.pos == kNotQueued) return;
  u32 pos = s.pos;
  s.pos = kNotQueued;
  TimerId last = heap_.back();
  heap_.pop_back();
  if (last == id) return;
  place(pos, last);
  sift_up(pos);
  sift_down(slots_[last].pos);
}

EventQueue::Fired EventQueue::pop() {
  assert(!heap_.empty());
  TimerId id = heap_[0];
  Slot &s = slots_[id];
  Fired f{id, s.kind, s.arg, s.when};
  s.pos = kNotQueued;
  TimerId last = heap_.back();
  heap_.pop_back();
  if (last != id) {
    place(0, last);
    sift_down(0);
  }
  return f;
}

void EventQueue::sift_up(u32 pos) {
  TimerId id = heap_[pos];
  while (pos > 0) {
    u32 parent = (pos - 1) / 4;
    if (!before(id, heap_[parent])) break;
    place(pos, heap_[parent]);
    pos = parent;
  }
  place(pos, id);
}

void EventQueue::sift_down(u32 pos) {
  TimerId id = heap_[pos];
  const u32 n = static_cast<u32>(heap_.size());
  for (;;) {
    u32 first = pos * 4 + 1;
    if (first >= n) break;
    u32 best = first;
    u32 end = first + 4 < n ? first + 4 : n;
    for (u32 c = first + 1; c < end; c++)
      if (before(heap_[c], heap_[best])) best = c;
    if (!before(heap_[best], id)) break;
    place(pos, heap_[best]);
    pos = best;
  }
  place(pos, id);
}

}  // namespace schedlab::sim
