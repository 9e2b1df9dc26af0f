#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The parallel runner: `experiment` and `sweep` give byte-identical JSON (outside "host") for
# --jobs 1, 2 and 4 and across reruns. Under ThreadSanitizer (the tsan preset) this is also the
# data-race test of the runner. Usage: parallel_determinism.sh SCHEDLAB SOURCE_DIR
set -u
bin=$1; src=$2; fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sc=$src/scenarios/smoke.toml
strip() { python3 -c 'import json,sys
d = json.load(open(sys.argv[1])); d.pop("host", None)
print(json.dumps(d, sort_keys=False))' "$1"; }
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
for j in 1 2 4 4; do
  "$bin" experiment "$sc" --runs 4 --jobs $j --json "$tmp/e$j.json" >/dev/null || { echo "FAIL experiment --jobs $j"; fail=1; }
  strip "$tmp/e$j.json" > "$tmp/e$j.txt" || { echo "FAIL experiment --jobs $j: no JSON"; fail=1; }
  "$bin" sweep "$sc" --runs 2 --jobs $j --param group.worker.count=2,4 --json "$tmp/s$j.json" >/dev/null || { echo "FAIL sweep --jobs $j"; fail=1; }
  strip "$tmp/s$j.json" > "$tmp/s$j.txt" || { echo "FAIL sweep --jobs $j: no JSON"; fail=1; }
done
for j in 2 4; do
  check "experiment --jobs $j = --jobs 1" "cmp -s $tmp/e1.txt $tmp/e$j.txt"
  check "sweep --jobs $j = --jobs 1" "cmp -s $tmp/s1.txt $tmp/s$j.txt"
done
exit $fail
