// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// A scenario whose "waiter" can never finish (it suspends on a condition nobody resumes) while
// a "worker" does: for the tests of runs that end with tasks asleep for good.

namespace schedlab::testing {

inline constexpr const char *kStuckScenario = R"toml(
[scenario]
name = "stuck"
[machine]
cores_per_llc = 2
threads_per_core = 1
[[group]]
name = "waiter"
phases = [ { run = "1ms" }, { suspend = "never" } ]
[[group]]
name = "worker"
loops = 5
phases = [ { run = "1ms" }, { sleep = "1ms" } ]
)toml";

}  // namespace schedlab::testing
