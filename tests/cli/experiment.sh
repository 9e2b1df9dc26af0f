#!/usr/bin/env bash
# `schedlab experiment`: identical JSON (outside "host") for --jobs 1 and 2; one CSV row per run;
# bad --runs / --jobs / --config exit 2 with one line. Usage: experiment.sh SCHEDLAB SOURCE_DIR
set -u
bin=$1; src=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sc=$src/scenarios/wakeup-fastpath.toml
fail=0; n=0
check() {  # description, then a command that succeeds when the check passes
  local what=$1; shift; n=$((n+1))
  if ! "$@"; then echo "FAIL $what"; fail=$((fail+1)); fi
}
strip() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("host"); print(json.dumps(d))' "$1"; }

"$bin" experiment "$sc" --runs 3 --jobs 1 --json "$tmp/a.json" --csv "$tmp/a.csv" >"$tmp/a.out"
check "--jobs 1 exits 0" [ $? -eq 0 ]
"$bin" experiment "$sc" --runs 3 --jobs 2 --json "$tmp/b.json" >"$tmp/b.out"
check "--jobs 2 exits 0" [ $? -eq 0 ]
check "JSON outside host identical for --jobs 1 and 2" [ "$(strip "$tmp/a.json")" = "$(strip "$tmp/b.json")" ]
check "table identical but for the wall-time line" \
  [ "$(head -n -1 "$tmp/a.out")" = "$(head -n -1 "$tmp/b.out")" ]
check "last line reports runs, time, threads" grep -Eq '^[0-9]+ runs in [0-9.]+ s on 2 threads$' \
  <(tail -n 1 "$tmp/b.out")
configs=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["configs"]))' "$tmp/a.json")
check "CSV has a header and runs x configs rows" [ "$(wc -l <"$tmp/a.csv")" -eq $((1 + 3 * configs)) ]
check "CSV header" [ "$(head -n 1 "$tmp/a.csv")" = "config,seed,completion_time_s,forceidle_ns,events" ]
for key in mean_completion_time_s ci95_completion_time_s overhead_ci95_s mean_forceidle_s comparisons; do
  check "JSON has $key" grep -q "\"$key\"" "$tmp/a.json"
done

# The sign test beside each benchmark metric's paired change: counts that add up to the runs
# (ties aside), a p-value in (0, 1], and the same split in the table.
"$bin" experiment "$src/scenarios/hackbench-small.toml" --runs 6 --json "$tmp/hb.json" >"$tmp/hb.txt"
python3 - "$tmp/hb.json" "$tmp/hb.txt" <<"PY"
import json, sys
d = json.load(open(sys.argv[1])); text = open(sys.argv[2]).read()
first, second = d["configs"][0], d["configs"][1]
assert "lower_runs_hackbench_time_s" not in first
lo, hi, p = (second[k + "hackbench_time_s"] for k in ("lower_runs_", "higher_runs_", "sign_test_p_"))
assert lo + hi <= 6 and 0 < p <= 1, (lo, hi, p)
assert "Lower/higher runs (sign test p)" in text and f"{lo}/{hi} (p " in text
PY
check "sign test of the hackbench time: JSON counts, p and the table's column" [ $? -eq 0 ]

bad() {  # expected substring, then the arguments
  local want=$1; shift; n=$((n+1))
  local got; got=$("$bin" experiment "$@" 2>&1 >/dev/null); local rc=$?
  if [ "$rc" -ne 2 ] || [[ "$got" != *"$want"* ]] || [ "$(printf '%s\n' "$got" | wc -l)" -ne 1 ]; then
    echo "FAIL schedlab experiment $*: exit $rc, got: $got (want: $want)"; fail=$((fail+1))
  fi
}
bad "--runs 0: expected an integer from 1 to 100000" "$sc" --runs 0
bad "--jobs 0: expected an integer from 1" "$sc" --jobs 0
bad "--jobs many: expected an integer" "$sc" --jobs many
bad "no configuration named \"Nope\"" "$sc" --config Nope
bad "cannot read" /nonexistent/file.toml
echo "$((n-fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
