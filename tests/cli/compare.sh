#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `schedlab compare`: a result against itself differs nowhere; "Cookie" against "No cookie" of
# wakeup-fastpath has a later completion time (the cookie overhead the seed mail measured); two
# experiments compare per configuration; bad inputs exit 2 with one line naming the file.
# Usage: compare.sh SCHEDLAB SOURCE_DIR
set -u
bin=$1; src=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sc=$src/scenarios/wakeup-fastpath.toml
fail=0; n=0
check() {  # description, then a command that succeeds when the check passes
  local what=$1; shift; n=$((n+1))
  if ! "$@"; then echo "FAIL $what"; fail=$((fail+1)); fi
}
field() {  # comparison JSON, metric, field
  python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["metrics"]:
    if r["metric"] == sys.argv[2]: print(r[sys.argv[3]])' "$@"
}

"$bin" run "$sc" --config "No cookie" --json "$tmp/a.json" >/dev/null
check "run No cookie exits 0" [ $? -eq 0 ]
"$bin" run "$sc" --config "Cookie" --json "$tmp/b.json" >/dev/null
check "run Cookie exits 0" [ $? -eq 0 ]

"$bin" compare "$tmp/a.json" "$tmp/a.json" --json "$tmp/self.json" >"$tmp/self.out"
check "compare with itself exits 0" [ $? -eq 0 ]
check "compare with itself: 0 differ" grep -Eq '^[0-9]+ metrics compared, 0 differ$' "$tmp/self.out"
check "compare with itself: JSON differ = 0" [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["differ"])' "$tmp/self.json")" = 0 ]
check "table lists per-task and per-CPU metrics" \
  grep -q -e '^task worker-3 runtime (ms)' -e '^cpu 7 busy (ms)' "$tmp/self.out"
check "table lists wakeup latency p99" grep -q '^wakeup latency p99 (ms)' "$tmp/self.out"
check "table lists the CPU statistics summed over CPUs" grep -q '^ttwu_local (all CPUs)' "$tmp/self.out"

"$bin" compare "$tmp/a.json" "$tmp/b.json" --json "$tmp/ab.json" >"$tmp/ab.out"
check "compare No cookie with Cookie exits 0" [ $? -eq 0 ]
diff=$(field "$tmp/ab.json" "completion time (s)" diff)
rel=$(field "$tmp/ab.json" "completion time (s)" rel_pct)
check "Cookie completes later than No cookie (B-A = $diff s, $rel %)" \
  python3 -c "import sys; sys.exit(not ($diff > 0 and $rel > 0))"
"$bin" compare "$tmp/b.json" "$tmp/a.json" --json "$tmp/ba.json" >/dev/null
check "swapped: the sign flips" \
  python3 -c "import sys; sys.exit(not ($(field "$tmp/ba.json" "completion time (s)" diff) < 0))"
check "the printed row has the same relative error" \
  grep -Eq "^completion time \(ms\) .* \+$(printf '%.2f' "$rel")%$" "$tmp/ab.out"

# Experiments, per configuration, here of an rt-app file with cookie annotations.
rt=$src/tests/data/rtapp/annotated.json
"$bin" experiment "$rt" --runs 2 --jobs 1 --json "$tmp/e1.json" >/dev/null
check "experiment 1 exits 0" [ $? -eq 0 ]
"$bin" experiment "$rt" --runs 2 --jobs 1 --seed-base 100 --json "$tmp/e2.json" >/dev/null
check "experiment 2 exits 0" [ $? -eq 0 ]
"$bin" compare "$tmp/e1.json" "$tmp/e2.json" >"$tmp/e.out"
check "compare experiments exits 0" [ $? -eq 0 ]
check "experiments: per-config mean completion time" \
  grep -q "^config Cookie mean_completion_time (ms)" "$tmp/e.out"
check "experiments: every run statistic's mean, table or not" \
  grep -q "^config Cookie ttwu_local (mean per run)" "$tmp/e.out"
check "experiments: a table's statistic by its summary" grep -q "^config Cookie mean_wakeup_p99 (ms)" "$tmp/e.out"
# (Counts, p-values and percentages about a time metric keep its name: lower_runs_wakeup_p99_us.)
check "experiments: every time in one unit (no s, ns or us row)" \
  bash -c '! grep -E "(_s|_ns|_us|\((s|ns|us)\))( |$)" "$1" | grep -vE "^  |(lower_runs|higher_runs|sign_test_p|change_pct|change_ci95_pct)_"' _ "$tmp/e.out"
check "experiments on different seeds: Welch's t test, with a p-value" \
  grep -Eq "^  config Cookie completion_time \(ms\): B - A = .*\(Welch t, n = 2/2\), p = [0-9.e-]+" "$tmp/e.out"
"$bin" compare "$tmp/e1.json" "$tmp/e1.json" --json "$tmp/ee.json" >"$tmp/ee.out"
check "experiments on the same seeds: a paired t test" \
  grep -q "(paired t, n = 2/2), p = 1$" "$tmp/ee.out"
check "the tests are in the JSON" python3 -c 'import json,sys
t = json.load(open(sys.argv[1]))["tests"]
sys.exit(not (t and all(x["test"] == "paired t" and x["p"] == 1 for x in t)))' "$tmp/ee.json"
check "runs: says no test is possible" grep -q "one run a side: no significance test" "$tmp/ab.out"

# Different task sets: said, and the common tasks still compared.
python3 - "$tmp/a.json" "$tmp/c.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["tasks"] = d["tasks"][:-1]; json.dump(d, open(sys.argv[2], "w"))
PY
"$bin" compare "$tmp/a.json" "$tmp/c.json" >"$tmp/c.out"
check "different task sets: exit 0" [ $? -eq 0 ]
check "different task sets: said so" grep -q "note: the task sets differ .* only in A: worker-9; only in B: none" "$tmp/c.out"

bad() {  # expected substring, then the arguments
  local want=$1; shift
  "$bin" compare "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  check "compare $* exits 2 (got $rc)" [ $rc -eq 2 ]
  check "compare $*: one line containing '$want'" \
    bash -c '[ "$(wc -l <"$1")" -eq 1 ] && grep -qF -- "$2" "$1"' _ "$tmp/err" "$want"
}
echo '{"tasks": [' >"$tmp/broken.json"
echo '{"hello": 1}' >"$tmp/other.json"
bad "$tmp/missing.json: cannot read" "$tmp/a.json" "$tmp/missing.json"
bad "$tmp/broken.json: not valid JSON" "$tmp/broken.json" "$tmp/a.json"
bad "B is not a schedlab run or experiment result" "$tmp/a.json" "$tmp/other.json"
bad "cannot compare a run result (A) with an experiment result (B)" "$tmp/a.json" "$tmp/e1.json"
bad "$tmp: cannot read" "$tmp" "$tmp/a.json"

echo "$((n - fail))/$n checks passed"
[ $fail -eq 0 ]
