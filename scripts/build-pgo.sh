#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Release build with GCC profile-guided optimisation, in build/pgo (schedlab, the tests and the
# benchmarks). Three steps: an instrumented schedlab (build/pgo-generate) runs the training
# set below, which writes build/pgo-profile; then build/pgo is compiled from scratch with it.
# Results are byte-identical to the plain Release build; only the speed differs
# (docs/performance.md). Run it again after changing the sources: a stale profile is refused.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
cmake --preset pgo-generate >/dev/null
cmake --build --preset pgo-generate -j "$jobs"

# Training: every scenario of scenarios/ (the experiments users run), two seeds per
# configuration, one thread (the profile counters are not atomic), and 0.2 s of the synthetic
# 1024-CPU machine for the large-machine paths.
rm -rf build/pgo-profile
bin=build/pgo-generate/schedlab
for s in scenarios/*.toml; do
  "$bin" experiment "$s" --runs 2 --jobs 1 >/dev/null
done
"$bin" sweep bench/scenarios/scale-1024.toml --param scenario.duration=200ms --runs 1 --jobs 1 >/dev/null

cmake --preset pgo >/dev/null
cmake --build --preset pgo -j "$jobs" --clean-first
