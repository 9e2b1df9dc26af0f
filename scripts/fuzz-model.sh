#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Fuzzes the kernel model for SECONDS (default 600): random small scenarios under the invariant
# checker, one process (one core), starting at seed FIRST (default 1). Builds the release
# preset's modelfuzz if needed. A finding is written to $SCHEDLAB_MODELFUZZ_OUT
# (build/modelfuzz) as modelfuzz-SEED.toml and ends the run non-zero; docs/fuzzing.md,
# "The model", says how to turn it into a regression test.
# Usage: scripts/fuzz-model.sh [SECONDS] [FIRST]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}; first=${2:-1}
case $secs$first in *[!0-9]*) echo "usage: scripts/fuzz-model.sh [SECONDS] [FIRST]" >&2; exit 2 ;; esac
out=${SCHEDLAB_MODELFUZZ_OUT:-build/modelfuzz}
[ -d build/release ] || cmake --preset release >/dev/null
cmake --build --preset release -j "${JOBS:-2}" --target modelfuzz >/dev/null
exec build/release/tests/modelfuzz --seeds "$first-" --seconds "$secs" --quiet --out "$out"
