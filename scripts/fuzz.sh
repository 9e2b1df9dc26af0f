#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds the libFuzzer targets with clang (SCHEDLAB_FUZZ=ON) and runs each for SECONDS
# (default 60) from its seed corpus in fuzz/corpus/; fails on any crash, leak, hang or UB.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   Build dir: $SCHEDLAB_FUZZ_BUILD (build/fuzz).
# Findings land in $build/findings/<target>-crash-*; docs/fuzzing.md says how to replay them.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}; shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_scenario_toml fuzz_rtapp_json fuzz_ftrace fuzz_cli_args fuzz_guest_results)
build=${SCHEDLAB_FUZZ_BUILD:-build/fuzz}
# -O1 -g1 with assertions on, as the sanitizer presets (CMakePresets.json).
CC=clang CXX=clang++ cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCHEDLAB_FUZZ=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DSCHEDLAB_BENCH=OFF >/dev/null
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target "${targets[@]}"
mkdir -p "$build/findings"

# One target: a fresh work dir for new inputs (the seed corpus in the repo stays as it is).
run_target() {
  local t=$1 work
  work=$(mktemp -d)
  # rt-app's own examples (Debian's rt-app package, GPL-2.0) seed the rt-app target from where
  # the package installs them, rather than as copies in this repository.
  if [ "$t" = fuzz_rtapp_json ] && [ -d /usr/share/doc/rt-app/examples ]; then
    find /usr/share/doc/rt-app/examples -name '*.json' -exec cp -t "$work" {} + 2>/dev/null || true
  fi
  local rc=0
  "$build/fuzz/$t" "$work" "fuzz/corpus/$t" -max_total_time="$secs" -max_len=4096 \
      -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 -print_final_stats=1 \
      -artifact_prefix="$build/findings/$t-" 2>"$build/findings/$t.log" || rc=$?
  rm -rf "$work"
  return $rc
}

# Targets run side by side, one per core (libFuzzer is single-threaded), so CI's 4 x 60 s
# takes 2 minutes on two cores.
par=${JOBS:-$(nproc)}
fail=0
for ((i = 0; i < ${#targets[@]}; i += par)); do
  batch=("${targets[@]:i:par}")
  pids=()
  for t in "${batch[@]}"; do
    echo "fuzz.sh: $t for $secs s"
    run_target "$t" &
    pids+=($!)
  done
  for j in "${!batch[@]}"; do
    t=${batch[$j]}
    if ! wait "${pids[$j]}"; then
      echo "fuzz.sh: $t FAILED:"
      grep -E "ERROR|SUMMARY|Test unit written" "$build/findings/$t.log" ||
        tail -20 "$build/findings/$t.log"
      fail=1
    fi
    echo "fuzz.sh: $t: $(grep -E "stat::number_of_executed_units" "$build/findings/$t.log" || echo "no stats")"
  done
done
exit $fail
