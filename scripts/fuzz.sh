#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (SCHEDLAB_FUZZ=ON) and runs each for SECONDS
# (default 60) from its seed corpus in fuzz/corpus/; fails on any crash, leak, hang or UB.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   Build dir: $SCHEDLAB_FUZZ_BUILD (build/fuzz).
# Findings land in $build/findings/<target>-crash-*; docs/fuzzing.md says how to replay them.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}; shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_scenario_toml fuzz_rtapp_json fuzz_ftrace fuzz_cli_args)
build=${SCHEDLAB_FUZZ_BUILD:-build/fuzz}
CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCHEDLAB_FUZZ=ON \
  -DSCHEDLAB_BENCH=OFF >/dev/null
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target "${targets[@]}"
mkdir -p "$build/findings"
fail=0
for t in "${targets[@]}"; do
  work=$(mktemp -d)  # new inputs go here; the seed corpus in the repo stays as it is
  # rt-app's own examples (Debian's rt-app package, GPL-2.0) seed the rt-app target from where
  # the package installs them, rather than as copies in this repository.
  if [ "$t" = fuzz_rtapp_json ] && [ -d /usr/share/doc/rt-app/examples ]; then
    find /usr/share/doc/rt-app/examples -name '*.json' -exec cp -t "$work" {} + 2>/dev/null || true
  fi
  echo "fuzz.sh: $t for $secs s"
  if ! "$build/fuzz/$t" "$work" "fuzz/corpus/$t" -max_total_time="$secs" -max_len=4096 \
      -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 -print_final_stats=1 \
      -artifact_prefix="$build/findings/$t-" 2>"$build/findings/$t.log"; then
    echo "fuzz.sh: $t FAILED:"; grep -E "ERROR|SUMMARY|Test unit written" "$build/findings/$t.log" || tail -20 "$build/findings/$t.log"
    fail=1
  fi
  grep -E "stat::number_of_executed_units" "$build/findings/$t.log" || true
  rm -rf "$work"
done
exit $fail
