// SPDX-License-Identifier: GPL-2.0-only
#include "workload/program.h"

#include <cmath>

namespace schedlab::workload {

static Time to_time(double v) {
  if (!(v > 0)) return 0;  // also maps NaN to 0
  if (v >= 9.0e18) return static_cast<Time>(9.0e18);
  return static_cast<Time>(std::llround(v));
}

Time draw(const Dist &d, sim::Stream &rng) {
  switch (d.kind) {
    case Dist::Kind::Const:
      return d.a;
    case Dist::Kind::Uniform:
      return rng.uniform_u64(d.a, d.b);
    case Dist::Kind::Exponential:
      return to_time(rng.exponential(static_cast<double>(d.a)));
    case Dist::Kind::Normal:
      return to_time(rng.normal(static_cast<double>(d.a), static_cast<double>(d.b)));
  }
  return 0;
}

Cursor::Cursor(const std::vector<Phase> *phases, std::uint64_t loops, bool stress)
    : stress_(stress) {
  // loops == 0 repeats forever (the remaining count never reaches 0 from ~0 in practice).
  if (!stress && !phases->empty())
    stack_.push_back(Frame{phases, 0, loops ? loops : ~std::uint64_t{0}});
}

Action Cursor::next(sim::Stream &rng) {
  if (stress_) return Action{Action::Kind::Forever, 0};
  while (!stack_.empty()) {
    Frame &f = stack_.back();
    if (f.idx == f.body->size()) {
      if (--f.remaining > 0) {
        f.idx = 0;
      } else {
        stack_.pop_back();
      }
      continue;
    }
    const Phase &ph = (*f.body)[f.idx++];
    switch (ph.kind) {
      case Phase::Kind::Loop:
        if (ph.count > 0 && !ph.body.empty()) stack_.push_back(Frame{&ph.body, 0, ph.count});
        break;
      case Phase::Kind::Run:
        return Action{Action::Kind::Run, draw(ph.dist, rng)};
      case Phase::Kind::Runtime:
        return Action{Action::Kind::Runtime, draw(ph.dist, rng)};
      case Phase::Kind::Sleep:
        return Action{Action::Kind::Sleep, draw(ph.dist, rng)};
      case Phase::Kind::Mark:
        return Action{Action::Kind::Mark, 0, &ph};
      default:
        return Action{Action::Kind::Sync, 0, &ph};
    }
  }
  return Action{Action::Kind::Exit, 0};
}

}  // namespace schedlab::workload
