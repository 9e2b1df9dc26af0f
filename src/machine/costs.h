// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// What the hardware charges for scheduling events. Units are in the names; defaults are
// documented in docs/machine.md with the reasoning behind each.
#include <array>

#include "sim/time.h"

namespace schedlab {

struct MachineCosts {
  // CPU time a context switch takes before the next task makes progress.
  Time context_switch_ns = 1000;
  // Delay between a CPU sending a reschedule/wakeup IPI and the target acting on it
  // (interrupt delivery plus exit from a shallow idle state).
  Time wakeup_ipi_ns = 2000;
  // Extra CPU work a task needs after moving to another core of the same LLC (L1/L2 refill).
  Time migration_penalty_ns = 5000;
  // The same after moving to another LLC (LLC refill).
  Time cross_llc_migration_penalty_ns = 30000;
  // Work done per ns by a thread while an SMT sibling is busy, in 1/65536 units (65536 = 1.0).
  u32 smt_corun_speed = 65536;
  // CPU time newidle balancing spends on one sched domain: a base (locking, statistics
  // setup) plus a part per CPU whose runqueue it examines.
  Time newidle_balance_base_ns = 2000;
  Time newidle_balance_per_cpu_ns = 300;
  // The CPUs' idle states (struct cpuidle_state), shallowest first: exit latency and target
  // residency. With none (the default) an idle CPU wakes in wakeup_ipi_ns, which then stands for
  // interrupt delivery and the exit from a shallow state together; with states, the menu
  // governor picks one each time a CPU goes idle and a wakeup IPI to it also pays that state's
  // exit latency (docs/machine.md, "Idle states").
  static constexpr int kMaxIdleStates = 8;
  int nr_idle_states = 0;
  std::array<Time, kMaxIdleStates> idle_exit_latency_ns{};
  std::array<Time, kMaxIdleStates> idle_target_residency_ns{};
};

inline constexpr u32 kSpeedOne = 65536;

}  // namespace schedlab
