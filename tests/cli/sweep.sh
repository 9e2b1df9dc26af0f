#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# schedlab sweep: the grid of scenario key values x configurations x seeds, in CSV, JSON and a
# table; results identical for every --jobs; bad parameters refused with exit 2.
set -u
bin=$1; src=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; n=0
check() { n=$((n+1)); if ! eval "$2"; then echo "FAIL: $1"; fail=$((fail+1)); fi; }
sc="$src/scenarios/wakeup-fastpath.toml"
args=(--param machine.cores_per_llc=4,8 --param kernel.tunables.migration_cost_ns=500000,100000
      --config "No cookie" --config Cookie --runs 2)
"$bin" sweep "$sc" "${args[@]}" --jobs 1 --csv "$tmp/a.csv" --json "$tmp/a.json" >"$tmp/a.out"; rc=$?
check "sweep runs" '[ $rc -eq 0 ]'
check "CSV: header + 2x2 points x 2 configs x 2 seeds = 17 lines" '[ "$(wc -l < "$tmp/a.csv")" -eq 17 ]'
check "CSV header names the parameters" 'head -n1 "$tmp/a.csv" | grep -q "^\"machine.cores_per_llc\",\"kernel.tunables.migration_cost_ns\",config,seed,completion_time_s"'
check "table: one line per point and configuration" '[ "$(grep -E "No cookie|Cookie" "$tmp/a.out" | grep -cvE "another cookie|newidle:|wakeup latency:")" -eq 8 ]'
# The points differ in migration_cost_ns: newidle balancing at every point and configuration.
check "table: newidle balancing per point and configuration" '[ "$(grep -c " newidle: attempts " "$tmp/a.out")" -eq 8 ]'
check "table: wakeups onto another cookie's core per point and configuration" \
  '[ "$(grep -cE "(No cookie|Cookie) +wakeups onto another cookie.s core \(%\): [0-9.]+ ± [0-9.]+$" "$tmp/a.out")" -eq 8 ]'
check "JSON: 4 points with their values and experiments" 'python3 - "$tmp/a.json" <<"PY"
import json, sys
j = json.load(open(sys.argv[1]))
assert [p["path"] for p in j["params"]] == ["machine.cores_per_llc", "kernel.tunables.migration_cost_ns"]
pts = j["points"]
assert len(pts) == 4 and pts[1]["values"] == {"machine.cores_per_llc": "4", "kernel.tunables.migration_cost_ns": "100000"}
assert all(len(p["experiment"]["configs"]) == 2 for p in pts)
# 8 cores x 2 threads: the machine of the point really changed.
assert pts[2]["experiment"]["configs"][0]["name"] == "No cookie"
PY'
"$bin" sweep "$sc" "${args[@]}" --jobs 2 --csv "$tmp/b.csv" --json "$tmp/b.json" >/dev/null; rc=$?
check "--jobs 2 runs" '[ $rc -eq 0 ]'
check "--jobs 1 and 2: identical CSV" 'cmp -s "$tmp/a.csv" "$tmp/b.csv"'
check "--jobs 1 and 2: identical JSON outside host" 'python3 -c "import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); [x.pop(\"host\") for x in (a,b)]; sys.exit(a!=b)" "$tmp/a.json" "$tmp/b.json"'
# A boot parameter is swept like any key: nohz_full (a cpulist, quoted for its comma) and none.
nz="$src/scenarios/nohz-full.toml"
"$bin" sweep "$nz" --param 'kernel.nohz_full="",1-3,"1-3,5-7"' --config "periodic tick" --runs 1 \
  --json "$tmp/nz.json" >/dev/null; rc=$?
check "nohz_full sweep runs" '[ $rc -eq 0 ]'
check "nohz_full sweep: 3 points, each its own kernel" 'python3 - "$tmp/nz.json" <<"PY"
import json, sys
pts = json.load(open(sys.argv[1]))["points"]
assert [p["values"]["kernel.nohz_full"] for p in pts] == ["\"\"", "1-3", "\"1-3,5-7\""], pts
events = [p["experiment"]["configs"][0]["runs"][0]["events"] for p in pts]
assert len(set(events)) == 3, events  # the remote ticks and the stopped ticks show
PY'
"$bin" sweep "$nz" --param kernel.nohz_full=0-7 --runs 1 >/dev/null 2>"$tmp/err"; rc=$?
check "nohz_full naming every CPU: exit 2" '[ $rc -eq 2 ]'
check "nohz_full naming every CPU: says why" 'grep -qF "leave at least one out" "$tmp/err"'
# A point whose hackbench cannot finish in time has no hackbench time: it is named, not left
# out; runs that end with a task asleep for good are flagged.
cat >"$tmp/hb.toml" <<'TOML'
[scenario]
name = "hb-dur"
duration = "1s"
[machine]
cores_per_llc = 2
threads_per_core = 2
[[group]]
name = "hb"
hackbench = { groups = 1, fds = 4, loops = 200 }
[[group]]
name = "waiter"
phases = [ { run = "1ms" }, { suspend = "never" } ]
TOML
"$bin" sweep "$tmp/hb.toml" --param 'scenario.duration="2ms","1s"' --runs 2 --json "$tmp/hb.json" \
  >"$tmp/hb.out"; rc=$?
check "short-duration sweep runs" '[ $rc -eq 0 ]'
check "a hackbench that did not finish is named" \
  'grep -qF "hackbench time (s): not summarised, 2 of 2 runs have no value" "$tmp/hb.out"'
check "runs with a task asleep for good are flagged" \
  'grep -qF "warning: 2 runs ended with tasks asleep for good" "$tmp/hb.out"'
bad() {  # description, expected stderr text, args...
  local what=$1 want=$2; shift 2
  "$bin" sweep "$sc" --runs 1 "$@" >/dev/null 2>"$tmp/err"; local rc=$?
  check "$what: exit 2" "[ $rc -eq 2 ]"
  check "$what: says '$want'" 'grep -qF -- "$want" "$tmp/err"'
}
bad "unknown key" "machine.nope: unknown key" --param machine.nope=3
bad "no such group" "no [[group]] named 'nobody'" --param group.nobody.count=2
bad "value of the wrong type" "machine.cores_per_llc" --param machine.cores_per_llc=many
bad "no '='" "expected PATH=V1,V2" --param machine.cores_per_llc
bad "a value twice" "listed twice" --param machine.cores_per_llc=4,4
bad "a parameter twice" "given twice" --param machine.cores_per_llc=4 --param machine.cores_per_llc=8
bad "no --param" "--param is required" 
# Newidle balancing where the configurations gate it differently (the avg_idle patch): a line
# per point and configuration, the second with its paired change against the first.
cp "$src/scenarios/hackbench-small.toml" "$tmp/ni.toml"
printf '\n[[config]]\nname = "avg_idle update"\nfeatures = { AVG_IDLE_ON_IDLE_EXIT = true }\n' >>"$tmp/ni.toml"
"$bin" sweep "$tmp/ni.toml" --param machine.cores_per_llc=2,4 --config "No cookie" \
  --config "avg_idle update" --runs 2 >"$tmp/ni.out"; rc=$?
check "newidle sweep runs" '[ $rc -eq 0 ]'
check "newidle: a line per point and configuration" '[ "$(grep -c " newidle: attempts " "$tmp/ni.out")" -eq 4 ]'
check "newidle: the change against the first configuration" \
  '[ "$(grep -cE "avg_idle update +newidle: attempts [0-9]+ ± [0-9]+ \([-+][0-9.]+ % ± [0-9.]+ %\)" "$tmp/ni.out")" -eq 2 ]'
check "benchmark metrics: the change against the first configuration with its sign test" \
  '[ "$(grep -cE "avg_idle update +hackbench time \(s\): [0-9.e+-]+ ± [0-9.e+-]+ \([-+][0-9.]+ % ± [0-9.]+ %\), lower/higher runs [0-9]+/[0-9]+ \(p [0-9.<e -]+\)$" "$tmp/ni.out")" -eq 2 ]'
# A sweep whose points differ in what acts on newidle balancing or task moves shows those lines
# at every point, though each point's one configuration is alike with itself.
"$bin" sweep "$src/scenarios/hackbench-small.toml" --config "No cookie" --runs 2 \
  --param kernel.tunables.migration_cost_ns=100000,500000 --json "$tmp/mc.json" >"$tmp/mc.out"
check "migration_cost_ns sweep: a newidle line per point" \
  '[ "$(grep -c " newidle: attempts " "$tmp/mc.out")" -eq 2 ]'
check "migration_cost_ns sweep: newidle in each point's JSON" \
  '[ "$(jq "[.points[].experiment.configs[0] | has(\"mean_newidle_attempts\")] | all" "$tmp/mc.json")" = true ]'
"$bin" sweep "$src/scenarios/hackbench-small.toml" --config "No cookie" --runs 2 \
  --param machine.costs.newidle_balance_per_cpu=300ns,1500ns >"$tmp/nc.out"
check "newidle cost sweep: a newidle line per point" \
  '[ "$(grep -c " newidle: attempts " "$tmp/nc.out")" -eq 2 ]'
"$bin" sweep "$src/scenarios/hackbench-small.toml" --config "Cookie per group" --runs 2 \
  --param kernel.features.CORE_PUSH_FORCEIDLE=false,true >"$tmp/push.out"
check "push sweep: a moves line per point, no newidle line" \
  '[ "$(grep -c " moves: migrations " "$tmp/push.out")" -eq 2 ] && ! grep -q " newidle: " "$tmp/push.out"'
"$bin" sweep "$src/scenarios/hackbench-small.toml" --config "No cookie" --runs 2 \
  --param machine.cores_per_llc=2,4 >"$tmp/llc.out"
check "topology sweep: neither line" '! grep -qE " (newidle|moves): " "$tmp/llc.out"'
echo "$((n-fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
