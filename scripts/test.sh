#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Fresh machine to every test: install, build (Release and ASan+UBSan), run CTest on both;
# then the cross-build determinism check, ThreadSanitizer on the parallel runner, fuzzing,
# and the twin kernel: built from Debian's source and booted in QEMU.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step prints how long it took: CI has 20 minutes on two cores (docs/performance.md).
t0=$SECONDS
step() {
  local s=$SECONDS
  "$@"
  echo "test.sh: $(( SECONDS - s )) s (total $(( SECONDS - t0 )) s): $*" >&2
}
step bash scripts/install-deps.sh --all --twin
jobs=$(nproc)
# CTest, then how many of its tests were skipped: those that cannot run everything here exit 77
# (tests/CMakeLists.txt, SKIP_RETURN_CODE) and CTest marks them "***Skipped".
ctest_counted() {
  local log
  log=$(mktemp)
  ctest --preset "$1" -j "$jobs" | tee "$log"
  echo "test.sh: ctest --preset $1: $(grep -c '\*\*\*Skipped' "$log" || true) skipped" >&2
  rm -f "$log"
}
step cmake --preset release >/dev/null
step cmake --build --preset release -j "$jobs"
step ctest_counted release
step cmake --preset asan >/dev/null
step cmake --build --preset asan -j "$jobs"
step ctest_counted asan
# Release and ASan+UBSan give byte-identical results (outside "host").
step bash tests/cli/build_determinism.sh build/release/schedlab build/asan/schedlab "$PWD"
# ThreadSanitizer over the parallel runner: schedlab only, with its experiment, sweep and --jobs tests (cli_experiment, cli_parallel_determinism).
step cmake --preset tsan >/dev/null
step cmake --build --preset tsan -j "$jobs"
step ctest_counted tsan
# libFuzzer (clang): each input-file reader 30 s from its seed corpus, two at a time
# (docs/fuzzing.md). fuzz_cli_args, whose build instruments every library, is in scripts/fuzz.sh's
# default set, not here: CI's time goes to the readers of untrusted files.
step bash scripts/fuzz.sh 30 fuzz_scenario_toml fuzz_rtapp_json fuzz_ftrace fuzz_guest_results
# The twin kernel (docs/vm.md): build it (cached in build/kernel/ by its inputs, so only a
# fresh clone or changed inputs build) and check that it boots with SMT siblings and cookies.
img=$(step bash scripts/build-kernel.sh)
step bash scripts/vm-smoke.sh "$img"
# A scenario run on it with schedlab measure --vm: topology, cookies, forced idle, the schema.
step bash scripts/twin-smoke.sh build/release/schedlab "$img"
# The smallest scenario of docs/fidelity.md: twin-smoke's 3 seeds on the twin beside the
# simulator's, each effect within its tolerance or with a named mechanism.
mkdir -p build/fidelity-ci
cp build/twin-smoke/twin.json build/fidelity-ci/twin-smoke.twin.json
step bash scripts/fidelity.sh --schedlab build/release/schedlab --kernel "$img" \
  --only twin-smoke --out build/fidelity-ci --reuse-twin --check
