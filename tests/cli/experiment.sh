#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
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
# The run's columns, then every run statistic in the order `schedlab help stats` lists them.
stats=$("$bin" help stats | awk '/^  [a-z]/ {printf ",%s", $1}')
check "CSV header" [ "$(head -n 1 "$tmp/a.csv")" = "config,seed,completion_time_s,forceidle_ns,events,sis_calls,sis_cookie_mismatch$stats" ]
check "CSV header has the newidle and schedstat columns" grep -q "^config,seed,completion_time_s,forceidle_ns,events,sis_calls,sis_cookie_mismatch,newidle_attempts,newidle_skipped_avg_idle,.*,ttwu_local," "$tmp/a.csv"
for key in mean_completion_time_s ci95_completion_time_s overhead_ci95_s mean_forceidle_s comparisons; do
  check "JSON has $key" grep -q "\"$key\"" "$tmp/a.json"
done

# Wakeup placement: each run's select_idle_sibling() counts are the run JSON's, the CSV has
# them, and the table gives the share onto another cookie's core and each comparison's change.
"$bin" run "$sc" --config Cookie --seed "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seeds"][1])' "$tmp/a.json")" \
  --json "$tmp/run.json" >/dev/null
check "placement: experiment run = run JSON, CSV, table" python3 - "$tmp/a.json" "$tmp/run.json" "$tmp/a.csv" "$tmp/a.out" <<"PY"
import csv, json, sys
e = json.load(open(sys.argv[1])); run = json.load(open(sys.argv[2]))
cookie = next(c for c in e["configs"] if c["name"] == "Cookie")
mine = cookie["runs"][1]["select_idle_sibling"]
want = run["select_idle_sibling"]
assert mine["calls"] == want["calls"] and mine["cookie_mismatch"] == want["cookie_mismatch"], (mine, want)
assert mine["cookie_mismatch_by_step"] == want["cookie_mismatch_by_step"]
r1 = cookie["runs"][1]
for k in ("newidle_attempts", "newidle_skipped_avg_idle", "newidle_pulled", "newidle_cost_ns"):
    assert r1[k] == sum(c[k] for c in run["cpus"]), (k, r1[k])
assert r1["mean_avg_idle_ns"] == run["mean_avg_idle_ns"]
for k in ("lb_moved", "lb_active", "core_pushed", "core_stolen"):
    assert r1[k] == sum(c[k] for c in run["cpus"]), (k, r1[k])
assert r1["migrations"] == sum(t["nr_migrations"] for t in run["tasks"])
assert r1["core_stolen"] > 0  # forced-idle CPUs steal in "Cookie"
assert "mean_migrations" not in cookie  # no force-idle balancing feature differs
assert "mean_newidle_attempts" not in cookie  # the configurations gate newidle balancing alike
rows = [r for r in csv.DictReader(open(sys.argv[3])) if r["config"] == "Cookie"]
assert int(rows[1]["sis_calls"]) == want["calls"] and int(rows[1]["sis_cookie_mismatch"]) == want["cookie_mismatch"]
pct = [100 * r["select_idle_sibling"]["cookie_mismatch"] / r["select_idle_sibling"]["calls"] for r in cookie["runs"]]
assert abs(cookie["mean_wakeups_other_cookie_pct"] - sum(pct) / len(pct)) < 1e-9
assert abs(sum(cookie["mean_wakeups_other_cookie_pct_by_step"].values()) - cookie["mean_wakeups_other_cookie_pct"]) < 1e-9
cmp = e["comparisons"][0]
assert cmp["wakeups_other_cookie_change_points"] < 0 and cmp["wakeups_other_cookie_lower_runs"] == 3, cmp
text = open(sys.argv[4]).read()
assert "Wakeups onto another cookie's core (%)" in text
assert f"{cmp['patched']} against {cmp['base']}: {cmp['wakeups_other_cookie_change_points']:+.1f} ± " in text, text
PY

# Newidle balancing, where the configurations gate it differently (here the avg_idle patch):
# means, paired changes and sign tests in the table, the JSON and the HTML report.
cp "$src/scenarios/hackbench-small.toml" "$tmp/ni.toml"
printf '\n[[config]]\nname = "avg_idle update"\nfeatures = { AVG_IDLE_ON_IDLE_EXIT = true }\n' >>"$tmp/ni.toml"
"$bin" experiment "$tmp/ni.toml" --runs 3 --config "No cookie" --config "avg_idle update" \
  --json "$tmp/ni.json" >"$tmp/ni.txt"
check "newidle: experiment exits 0" [ $? -eq 0 ]
check "newidle: table, JSON and report" python3 - "$tmp/ni.json" "$tmp/ni.txt" <<"PY"
import json, sys
d = json.load(open(sys.argv[1])); text = open(sys.argv[2]).read()
base, patch = d["configs"]
runs = [r["newidle_attempts"] for r in patch["runs"]]
assert abs(patch["mean_newidle_attempts"] - sum(runs) / 3) < 1e-9
lo, hi = patch["lower_runs_newidle_attempts"], patch["higher_runs_newidle_attempts"]
assert lo + hi <= 3 and 0 < patch["sign_test_p_newidle_attempts"] <= 1
assert "Newidle balancing, per run" in text and "skipped by avg_idle" in text
assert f"{patch['mean_newidle_attempts']:.0f} ± " in text
assert f"{lo}/{hi} (p " in text
assert "another cookie" not in text  # no core scheduling in these configurations
PY
"$bin" report "$tmp/ni.json" -o "$tmp/ni.html"
check "newidle: report has the table" grep -q "Newidle balancing, per run" "$tmp/ni.html"

# Task moves, where the configurations differ in a force-idle balancing feature (pushing here):
# in the table, the JSON and the HTML report.
"$bin" experiment "$src/scenarios/hypervisor-noise.toml" --runs 2 --config Baseline \
  --config "Push force idle tasks" --json "$tmp/hn.json" >"$tmp/hn.txt"
check "task moves: experiment exits 0" [ $? -eq 0 ]
check "task moves: table and JSON" python3 - "$tmp/hn.json" "$tmp/hn.txt" <<"PY"
import json, sys
d = json.load(open(sys.argv[1])); text = open(sys.argv[2]).read()
base, push = d["configs"]
assert all(r["core_pushed"] == 0 for r in base["runs"]) and all(r["core_pushed"] > 0 for r in push["runs"])
assert push["mean_core_pushed"] == sum(r["core_pushed"] for r in push["runs"]) / 2
assert base["change_pct_core_pushed"] is None and push["change_pct_core_pushed"] is None  # 0 pushes in Baseline: no percent
assert "Task moves, per run" in text and "pushed off forced idle" in text and "Newidle" not in text
PY
"$bin" report "$tmp/hn.json" -o "$tmp/hn.html"
check "task moves: report has the table" grep -q "Task moves, per run" "$tmp/hn.html"

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

# Wakeup latency is an experiment statistic: a table with the paired change, and JSON keys.
"$bin" experiment "$src/scenarios/smoke.toml" --runs 2 --json "$tmp/wl.json" >"$tmp/wl.txt"
check "wakeup latency table and keys" python3 - "$tmp/wl.json" "$tmp/wl.txt" <<"PY"
import json, sys
j = json.load(open(sys.argv[1])); text = open(sys.argv[2]).read()
assert "Wakeup latency, per run" in text and "p99.9 (us)" in text, text
for c in j["configs"]:
    for k in ("mean_wakeup_p99_us", "ci95_wakeup_p99_us", "change_pct_wakeup_p99_us"):
        assert k in c, (k, c.keys())
    for run in c["runs"]:
        assert run["wakeup_p50_us"] <= run["wakeup_p99_us"] <= run["wakeup_p999_us"], run
        assert run["ttwu_count"] > 0, run
assert "higher_runs_wakeup_p999_us" in j["configs"][1]
PY
# help stats lists every statistic an experiment reports per run.
"$bin" help stats >"$tmp/stats.txt"
check "help stats names every per-run statistic" python3 - "$tmp/wl.json" "$tmp/stats.txt" <<"PY"
import json, sys
run = json.load(open(sys.argv[1]))["configs"][0]["runs"][0]
names = {l.split()[0] for l in open(sys.argv[2]) if l.startswith("  ") and not l.startswith("      ")}
for k in ("newidle_attempts", "migrations", "ttwu_local", "wakeup_p99_us"):
    assert k in names and k in run, k
PY
# run --latency: perf sched latency's table, its total the sum of the tasks' counts.
"$bin" run "$src/scenarios/smoke.toml" --latency --json "$tmp/lat.json" >"$tmp/lat.txt"
check "run --latency prints perf sched latency's table" python3 - "$tmp/lat.json" "$tmp/lat.txt" <<"PY"
import json, re, sys
j = json.load(open(sys.argv[1])); text = open(sys.argv[2]).read()
assert "  Task                  |   Runtime ms  |  Count   | Avg delay ms    | Max delay ms    |" in text
rows = re.findall(r"^  (\S+):(\d+) +\| +([0-9.]+) ms \| +(\d+) \| avg: +([0-9.]+) ms \| max: +([0-9.]+) ms", text, re.M)
assert len(rows) == len(j["tasks"]) == 4, rows
total = int(re.search(r"TOTAL: +\| +[0-9.]+ ms \| +(\d+) \|", text).group(1))
assert total == sum(t["latency"]["count"] for t in j["tasks"]) > 0
for t in j["tasks"]:
    l = t["latency"]
    assert l["max_delay_end_ns"] - l["max_delay_start_ns"] == l["max_delay_ns"], l
    assert l["delay_sum_ns"] <= t["wait_ns"] and l["count"] >= t["nr_switches"] - 1, (l, t)
avgs = [float(r[4]) for r in rows]
assert avgs == sorted(avgs, reverse=True), avgs
PY
# One route for the kernel's switches: --feature is --param kernel.features.NAME, and either
# overrides what a configuration sets ("Cookie + patch" without its patch runs as "Cookie").
runs() { python3 -c 'import json,sys; print([r["completion_time_s"] for r in json.load(open(sys.argv[1]))["configs"][0]["runs"]])' "$1"; }
"$bin" experiment "$sc" --config "Cookie + patch" --runs 2 --jobs 1 \
  --feature CORE_COOKIE_FASTPATH=false --json "$tmp/f.json" >/dev/null
"$bin" experiment "$sc" --config "Cookie + patch" --runs 2 --jobs 1 \
  --param kernel.features.CORE_COOKIE_FASTPATH=false --json "$tmp/p.json" >/dev/null
"$bin" experiment "$sc" --config Cookie --runs 2 --jobs 1 --json "$tmp/c.json" >/dev/null
check "--feature NAME=V runs as --param kernel.features.NAME=V" [ "$(runs "$tmp/f.json")" = "$(runs "$tmp/p.json")" ]
check "--param kernel.features.NAME overrides the configuration's" [ "$(runs "$tmp/p.json")" = "$(runs "$tmp/c.json")" ]
"$bin" experiment "$sc" --config "Cookie + patch" --runs 2 --jobs 1 --json "$tmp/u.json" >/dev/null
check "(the patch itself changes the runs)" [ "$(runs "$tmp/u.json")" != "$(runs "$tmp/c.json")" ]
echo "$((n-fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
