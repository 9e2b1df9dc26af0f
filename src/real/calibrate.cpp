// SPDX-License-Identifier: GPL-2.0-only
#include "real/calibrate.h"

#include <time.h>

#include <algorithm>

namespace schedlab::real {

namespace {

std::uint64_t clock_ns(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

}  // namespace

std::uint64_t thread_cpu_ns() {
  return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}
std::uint64_t monotonic_ns() {
  return clock_ns(CLOCK_MONOTONIC);
}

std::uint64_t burn_loops(std::uint64_t loops) {
  // An integer recurrence (xorshift): a dependency chain the compiler cannot vectorise or fold,
  // touching no memory, so its cost does not depend on caches.
  std::uint64_t x = 0x9E3779B97F4A7C15u ^ loops;
  for (std::uint64_t i = 0; i < loops; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    asm volatile("" : "+r"(x));
  }
  return x;
}

double calibrate_ns_per_loop(std::uint64_t trial_ns, int trials) {
  // Find a loop count that takes about trial_ns, then keep the fastest trial.
  std::uint64_t loops = 1000;
  for (;;) {
    const std::uint64_t t0 = thread_cpu_ns();
    burn_loops(loops);
    const std::uint64_t dt = thread_cpu_ns() - t0;
    if (dt >= trial_ns / 4 || loops > (std::uint64_t{1} << 40)) {
      loops = std::max<std::uint64_t>(1, loops * trial_ns / std::max<std::uint64_t>(dt, 1));
      break;
    }
    loops *= 4;
  }
  double best = 0;
  for (int i = 0; i < trials; i++) {
    const std::uint64_t t0 = thread_cpu_ns();
    burn_loops(loops);
    const double per = static_cast<double>(thread_cpu_ns() - t0) / static_cast<double>(loops);
    if (i == 0 || per < best) best = per;
  }
  return best > 0 ? best : 1.0;
}

bool burn_ns(double ns_per_loop, std::uint64_t work_ns, const std::atomic<bool> *stop) {
  const auto total = static_cast<std::uint64_t>(static_cast<double>(work_ns) / ns_per_loop + 0.5);
  const auto chunk = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(1e6 / ns_per_loop));
  for (std::uint64_t done = 0; done < total; done += chunk) {
    if (stop && stop->load(std::memory_order_relaxed)) return false;
    burn_loops(std::min(chunk, total - done));
  }
  return true;
}

}  // namespace schedlab::real
