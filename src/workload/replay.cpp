// SPDX-License-Identifier: GPL-2.0-only
#include "workload/replay.h"

namespace schedlab::workload {

Replay::Replay(std::shared_ptr<const ReplaySpec> spec)
    : spec_(std::move(spec)), state_(spec_->tasks.size()) {}

std::string Replay::comm(int member) const {
  return spec_->tasks[static_cast<std::size_t>(member)].comm;
}

void Replay::wake(int target, int cpu, Env &env) {
  State &t = state_[static_cast<std::size_t>(target)];
  if (t.blocked) {
    t.blocked = false;
    env.wake(target, 0, cpu);
  } else {
    t.pending++;
  }
}

Action Replay::next(int member, int cpu, sim::Stream &, Env &env) {
  const auto &steps = spec_->tasks[static_cast<std::size_t>(member)].steps;
  State &s = state_[static_cast<std::size_t>(member)];
  while (s.step < steps.size()) {
    const ReplayStep &st = steps[s.step++];
    switch (st.kind) {
      case ReplayStep::Kind::Run:
        if (st.amount) return Action{Action::Kind::Runtime, st.amount};
        break;
      case ReplayStep::Kind::Sleep:
        return Action{Action::Kind::Sleep, st.amount};
      case ReplayStep::Kind::Wake:
        wake(st.target, cpu, env);
        break;
      case ReplayStep::Kind::Block:
        if (s.pending) {
          s.pending--;
          break;
        }
        s.blocked = true;
        return Action{Action::Kind::Block, 0};
    }
  }
  return Action{Action::Kind::Exit, 0};
}

}  // namespace schedlab::workload
