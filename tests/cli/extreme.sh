#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Extreme scenarios (tests/scenarios/extreme/*.toml) run to the end within a time limit and a
# memory bound (host.peak_rss_kb of run --json), or are refused with an error naming the limit.
# Usage: extreme.sh SCHEDLAB SOURCE_DIR [GLOB]   (GLOB: which files, default all but big-*)
# Under a sanitizer build, SCHEDLAB_EXTREME_SLOW=N multiplies the time limits.
set -u
bin=$1; src=$2; glob=${3:-[!b]*.toml}
slow=${SCHEDLAB_EXTREME_SLOW:-1}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; n=0
for f in "$src"/tests/scenarios/extreme/$glob; do
  name=$(basename "$f" .toml); n=$((n+1))
  # Limits per case: seconds and peak RSS (KB); the 1-line expectation for refused cases.
  limit=20; rss=262144; want=""
  case $name in
    big-tasks-100k*) limit=60; rss=1048576 ;;
    big-cpus-4096) limit=60; rss=1048576 ;;
    zero-length-forever) want="$f:17:10: error: group[0].phases: the task loops forever and none of its phases takes time or waits" ;;
  esac
  start=$(date +%s%N)
  timeout $((limit * slow)) "$bin" run "$f" --json "$tmp/$name.json" >/dev/null 2>"$tmp/err"; rc=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  if [ -n "$want" ]; then
    if [ $rc -ne 2 ] || [ "$(wc -l < "$tmp/err")" -ne 1 ] || ! grep -qF "$want" "$tmp/err"; then
      echo "FAIL $name: exit $rc, want exit 2 and: $want"; cat "$tmp/err"; fail=$((fail+1))
    else
      echo "ok   $name: refused in $ms ms: $(cat "$tmp/err")"
    fi
    continue
  fi
  if [ $rc -eq 124 ]; then
    echo "FAIL $name: did not finish within $((limit * slow)) s"; fail=$((fail+1)); continue
  fi
  if [ $rc -ne 0 ]; then
    echo "FAIL $name: exit $rc"; cat "$tmp/err"; fail=$((fail+1)); continue
  fi
  peak=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["host"]["peak_rss_kb"])' "$tmp/$name.json")
  # Sanitizers' shadow memory and quarantine inflate RSS: the bound scales with the time factor.
  if [ "$peak" -gt $((rss * slow)) ]; then
    echo "FAIL $name: peak RSS $peak KB above $((rss * slow)) KB"; fail=$((fail+1)); continue
  fi
  # The untagged hog must not starve the cookied tasks: each of them ran at least 10 ms of 200.
  if [ "$name" = untagged-hog ] && ! python3 -c 'import json,sys
t = json.load(open(sys.argv[1]))["tasks"]
sys.exit(not all(x["runtime_ns"] >= 10_000_000 for x in t if x["comm"].startswith("tagged")))' "$tmp/$name.json"; then
    echo "FAIL $name: a cookied task was starved"; fail=$((fail+1)); continue
  fi
  echo "ok   $name: $ms ms, peak RSS $peak KB"
done
[ $n -gt 0 ] || { echo "no scenario matched $glob"; exit 1; }
echo "$((n-fail)) passed, $fail failed"
[ $fail -eq 0 ]
