#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `--check`: every shipped scenario runs with the invariant checker and no violation (exit 0),
# the summary and the JSON carry the wasted-cores metric, and bad --check flags exit 2.
set -u
bin=$1; src=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; n=0
check() { n=$((n+1)); if ! eval "$2"; then echo "FAIL: $1"; fail=$((fail+1)); fi; }
for f in "$src"/scenarios/*.toml; do
  name=$(basename "$f" .toml)
  # Every configuration of the scenario, one seed each (the runs are short enough).
  "$bin" experiment "$f" --runs 1 --jobs 1 --check --json "$tmp/$name.json" >"$tmp/$name.out" 2>"$tmp/$name.err"; rc=$?
  check "$name: experiment --check exits 0 (got $rc: $(head -n3 "$tmp/$name.err"))" '[ $rc -eq 0 ]'
  check "$name: every run reports 0 violations and its wasted cores" \
    'python3 -c "
import json, sys
j = json.load(open(sys.argv[1]))
runs = [r for c in j[\"configs\"] for r in c[\"runs\"]]
assert runs and all(r[\"invariant_violations\"] == 0 for r in runs)
assert all(set(r[\"wasted_cores\"]) == {\"threshold_ns\", \"wasted_ns\", \"pct\"} for r in runs)
assert all(r[\"wasted_cores\"][\"threshold_ns\"] == 1000000 for r in runs)
" "$tmp/$name.json"'
done
"$bin" run "$src/scenarios/wakeup-fastpath.toml" --config Cookie --check --wasted-threshold 200us \
  --json "$tmp/run.json" >"$tmp/run.out"; rc=$?
check "run --check exits 0" '[ $rc -eq 0 ]'
check "run summary has the invariants line" 'grep -q "^invariants: 0 violations; wasted cores" "$tmp/run.out"'
check "run JSON: wasted_cores with the threshold, invariant_violations 0" \
  'python3 -c "
import json, sys
j = json.load(open(sys.argv[1]))
assert j[\"invariant_violations\"] == 0
w = j[\"wasted_cores\"]
assert w[\"threshold_ns\"] == 200000 and w[\"wasted_ns\"] >= 0 and 0 <= w[\"pct\"] <= 100
" "$tmp/run.json"'
"$bin" run "$src/scenarios/wakeup-fastpath.toml" --json "$tmp/plain.json" >/dev/null; rc=$?
check "without --check the JSON has no check keys" \
  '[ $rc -eq 0 ] && ! grep -q "wasted_cores\|invariant_violations" "$tmp/plain.json"'
"$bin" run "$src/scenarios/wakeup-fastpath.toml" --check --wasted-threshold soon >/dev/null 2>"$tmp/e1"; rc=$?
check "--wasted-threshold soon is refused with 2, naming the flag" '[ $rc -eq 2 ] && grep -q -- "--wasted-threshold soon" "$tmp/e1" && [ "$(wc -l <"$tmp/e1")" -eq 1 ]'
"$bin" run "$src/scenarios/wakeup-fastpath.toml" --wasted-threshold 1ms >/dev/null 2>"$tmp/e2"; rc=$?
check "--wasted-threshold without --check is refused with 2" '[ $rc -eq 2 ]'
"$bin" experiment "$src/scenarios/wakeup-fastpath.toml" --runs 1 --wasted-threshold x --check >/dev/null 2>"$tmp/e3"; rc=$?
check "experiment --wasted-threshold x is refused with 2" '[ $rc -eq 2 ]'
echo "$((n-fail))/$n checks passed"
[ $fail -eq 0 ]
