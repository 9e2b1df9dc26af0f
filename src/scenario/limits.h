// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// How much work a scenario may ask for before it is refused as a runaway (docs/limits.md).
#include <cstdint>

namespace schedlab::scenario {

// The most phase executions a scenario's finite tasks may ask for in all: for each group, tasks
// x loops x phases with inner loops multiplied out (hackbench: its messages). A larger scenario
// would run for hours or never end, so load_scenario() refuses it naming the field, this limit
// and `--max-work`, which raises it. Tasks that loop forever are bounded by the duration instead.
inline constexpr std::uint64_t kDefaultMaxWork = 1'000'000'000;

// The limit in force, process-wide: the command line sets it before it loads any scenario.
std::uint64_t max_work();
void set_max_work(std::uint64_t n);

// The longest simulated `duration` a scenario may ask for, in ns: 30 days. Time is event driven,
// so a long run of sleepers is cheap, but a long run of busy tasks costs an event per tick and
// would run for days of wall time; load_scenario() refuses a longer duration naming this limit
// and `--max-duration`, which raises it.
inline constexpr std::uint64_t kDefaultMaxDurationNs = 30ull * 24 * 3600 * 1'000'000'000;
std::uint64_t max_duration_ns();
void set_max_duration_ns(std::uint64_t ns);

}  // namespace schedlab::scenario
