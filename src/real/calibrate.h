// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// CPU work for real: a loop whose cost per iteration is measured at start, the way rt-app
// calibrates its `run` events (ns per loop on this CPU), so "run 10ms" means the work a CPU of
// this host does in 10 ms of its own time when nothing else shares the core.
#include <atomic>
#include <cstdint>

namespace schedlab::real {

// Runs `loops` iterations of the work loop; returns a value the compiler cannot discard.
std::uint64_t burn_loops(std::uint64_t loops);

// The cost of one iteration, in ns of thread CPU time: the fastest of several trials of about
// `trial_ns` each, so time stolen by other tasks or interrupts does not inflate it.
double calibrate_ns_per_loop(std::uint64_t trial_ns = 5'000'000, int trials = 7);

// Does `work_ns` of calibrated work in chunks of about a millisecond, returning early (false)
// once *stop is set.
bool burn_ns(double ns_per_loop, std::uint64_t work_ns, const std::atomic<bool> *stop);

// Thread CPU time and monotonic time, in ns.
std::uint64_t thread_cpu_ns();
std::uint64_t monotonic_ns();

}  // namespace schedlab::real
