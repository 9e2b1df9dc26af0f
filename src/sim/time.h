// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// Simulated time: unsigned 64-bit nanoseconds since the start of a run, as the kernel's rq_clock.
#include <cstdint>

namespace schedlab {
using u64 = std::uint64_t;
using s64 = std::int64_t;
using u32 = std::uint32_t;
using Time = u64;

inline constexpr Time NSEC_PER_USEC = 1000;
inline constexpr Time NSEC_PER_MSEC = 1000 * NSEC_PER_USEC;
inline constexpr Time NSEC_PER_SEC = 1000 * NSEC_PER_MSEC;
inline constexpr Time kTimeNever = ~Time{0};
}  // namespace schedlab
