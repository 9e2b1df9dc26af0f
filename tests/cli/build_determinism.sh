#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Two builds (e.g. Release and ASan+UBSan, or Debug) give byte-identical JSON outside "host" for
# `run` and `experiment` (--jobs 1 and 2). Usage: build_determinism.sh SCHEDLAB_A SCHEDLAB_B SOURCE_DIR
set -u
a=$1; b=$2; src=$3; fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
strip() { python3 -c 'import json,sys
d = json.load(open(sys.argv[1])); d.pop("host", None)
print(json.dumps(d))' "$1"; }
for sc in smoke wakeup-fastpath hackbench-small; do
  f=$src/scenarios/$sc.toml
  for side in a b; do
    bin=${!side}
    "$bin" run "$f" --json "$tmp/$side-run.json" >/dev/null 2>&1 || { echo "FAIL $bin run $sc"; fail=1; }
    strip "$tmp/$side-run.json" > "$tmp/$side-run.txt" || fail=1
    for j in 1 2; do
      "$bin" experiment "$f" --runs 2 --jobs $j --json "$tmp/$side-exp$j.json" >/dev/null 2>&1 ||
        { echo "FAIL $bin experiment $sc --jobs $j"; fail=1; }
      strip "$tmp/$side-exp$j.json" > "$tmp/$side-exp$j.txt" || fail=1
    done
  done
  for t in run exp1 exp2; do
    if cmp -s "$tmp/a-$t.txt" "$tmp/b-$t.txt"; then echo "ok   $sc $t: identical"
    else echo "FAIL $sc $t: the two builds differ"; fail=1; fi
  done
  cmp -s "$tmp/a-exp1.txt" "$tmp/a-exp2.txt" || { echo "FAIL $sc: --jobs 1 and 2 differ"; fail=1; }
done
exit $fail
