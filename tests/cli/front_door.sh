#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Results that travel and runs that stop (docs/cli.md): a result embeds its scenario's text and
# sha256 and its options, so report and timeline work from another directory, after the result
# moved, and after the scenario was edited (saying so, and drawing from the embedded copy);
# SIGINT, SIGTERM and --max-wall stop run, experiment and sweep with exit 130 and a partial
# result; --max-events and --max-duration refuse runaway runs naming the flag.
# Usage: front_door.sh SCHEDLAB SOURCE_DIR
set -u
bin=$(realpath "$1"); src=$(realpath "$2"); tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; n=0
check() { n=$((n+1)); if ! eval "$2"; then echo "FAIL: $1"; fail=$((fail+1)); fi; }
one_line() { [ "$(wc -l <"$1")" -eq 1 ]; }
py() { python3 -c "$@"; }

# --- Portable results ------------------------------------------------------------------------
mkdir -p "$tmp/work/sc" "$tmp/work/out" "$tmp/elsewhere"
cp "$src/scenarios/wakeup-fastpath.toml" "$tmp/work/sc/wf.toml"
cp "$src/tests/data/rtapp/annotated.json" "$tmp/work/sc/rt.json"
cd "$tmp/work" || exit 1
"$bin" run sc/wf.toml --config Cookie --seed 3 --feature TTWU_QUEUE=false \
  --json out/run.json >/dev/null; rc=$?
check "run --json exits 0 (got $rc)" '[ $rc -eq 0 ]'
check "run JSON embeds the scenario text, its sha256 and a path relative to the result" \
  "py 'import json,sys,hashlib
j = json.load(open(\"out/run.json\")); s = j[\"scenario_source\"]
text = open(\"sc/wf.toml\").read()
sys.exit(not (s[\"text\"] == text and s[\"sha256\"] == hashlib.sha256(text.encode()).hexdigest()
              and s[\"path\"] == \"../sc/wf.toml\" and s[\"format\"] == \"toml\"
              and j[\"scenario_file\"] == \"sc/wf.toml\" and j[\"partial\"] is False))'"
check "run JSON keeps the options it ran with" \
  "py 'import json,sys; o = json.load(open(\"out/run.json\"))[\"options\"]
sys.exit(not (o[\"config\"] == \"Cookie\" and o[\"seed\"] == \"3\" and o[\"feature\"] == [\"TTWU_QUEUE=false\"]))'"
"$bin" experiment sc/wf.toml --runs 2 --jobs 2 --tunable migration_cost_ns=100000 \
  --json out/exp.json >/dev/null; rc=$?
check "experiment --json exits 0 (got $rc)" '[ $rc -eq 0 ]'
check "experiment JSON keeps its keys' meaning and adds scenario_source and options" \
  "py 'import json,sys; j = json.load(open(\"out/exp.json\"))
sys.exit(not (j[\"scenario\"] == \"wakeup-fastpath\" and j[\"scenario_file\"] == \"sc/wf.toml\"
              and j[\"scenario_source\"][\"path\"] == \"../sc/wf.toml\" and j[\"runs\"] == 2
              and j[\"options\"][\"tunable\"] == [\"migration_cost_ns=100000\"]
              and j[\"partial\"] is False))'"
"$bin" sweep sc/wf.toml --param machine.cores_per_llc=2,4 --runs 1 --jobs 2 --config Cookie \
  --json out/sweep.json >/dev/null; rc=$?
check "sweep JSON embeds the scenario and the options (got $rc)" \
  "[ $rc -eq 0 ] && py 'import json,sys; j = json.load(open(\"out/sweep.json\"))
sys.exit(not (j[\"scenario_source\"][\"text\"] == open(\"sc/wf.toml\").read() and j[\"options\"][\"param\"] == [\"machine.cores_per_llc=2,4\"]))'"
"$bin" run sc/rt.json --json out/rt-run.json >/dev/null; rc=$?
check "an rt-app scenario is embedded as rt-app (got $rc)" \
  "[ $rc -eq 0 ] && py 'import json,sys; sys.exit(json.load(open(\"out/rt-run.json\"))[\"scenario_source\"][\"format\"] != \"rt-app\")'"

# From the scenario's own directory, as written.
"$bin" timeline out/run.json --to 5ms -o "$tmp/t-here.svg" 2>"$tmp/e"; rc=$?
check "timeline of the result from where it was made (got $rc)" '[ $rc -eq 0 ] && [ ! -s "$tmp/e" ]'
"$bin" timeline out/rt-run.json --to 5ms -o "$tmp/rt-here.svg" 2>/dev/null; rc=$?
check "timeline of the rt-app run (got $rc)" '[ $rc -eq 0 ]'
"$bin" timeline sc/rt.json --to 5ms -o "$tmp/rt-direct.svg" 2>"$tmp/e"; rc=$?
check "timeline of the rt-app scenario itself: the run's picture (got $rc: $(cat "$tmp/e"))" \
  '[ $rc -eq 0 ] && cmp -s "$tmp/rt-direct.svg" "$tmp/rt-here.svg"'
# From another directory: paths are resolved against the result, not the cwd.
cd "$tmp/elsewhere" || exit 1
"$bin" timeline ../work/out/run.json --to 5ms -o t.svg 2>"$tmp/e"; rc=$?
check "timeline from another directory: exit 0, nothing on stderr, the same picture (got $rc: $(cat "$tmp/e"))" \
  '[ $rc -eq 0 ] && [ ! -s "$tmp/e" ] && cmp -s t.svg "$tmp/t-here.svg"'
"$bin" report ../work/out/exp.json -o r.html 2>"$tmp/e"; rc=$?
check "report of an experiment from another directory (got $rc: $(cat "$tmp/e"))" \
  '[ $rc -eq 0 ] && [ ! -s "$tmp/e" ] && grep -q "<svg" r.html'
"$bin" report ../work/out/run.json -o r-run.html 2>/dev/null; rc=$?
check "report of a run from another directory (got $rc)" '[ $rc -eq 0 ]'
# The result moved away from its scenario: drawn from the embedded copy.
mv ../work/out/run.json moved.json; mv ../work/out/rt-run.json rt-moved.json
"$bin" timeline moved.json --to 5ms -o t-moved.svg 2>"$tmp/e"; rc=$?
check "timeline of a moved result: the same picture, no warning (got $rc: $(cat "$tmp/e"))" \
  '[ $rc -eq 0 ] && [ ! -s "$tmp/e" ] && cmp -s t-moved.svg "$tmp/t-here.svg"'
"$bin" timeline rt-moved.json --to 5ms -o rt-moved.svg 2>/dev/null; rc=$?
check "timeline of a moved rt-app result: the same picture (got $rc)" \
  '[ $rc -eq 0 ] && cmp -s rt-moved.svg "$tmp/rt-here.svg"'
mv moved.json ../work/out/run.json
# The scenario was edited after the run: one warning line, the embedded copy drawn.
sed -i 's/^name = "wakeup-fastpath"/name = "edited"/; s/cores_per_llc = [0-9]*/cores_per_llc = 1/' ../work/sc/wf.toml
"$bin" timeline ../work/out/run.json --to 5ms -o t-edited.svg 2>"$tmp/e"; rc=$?
check "edited scenario: timeline exits 0 (got $rc)" '[ $rc -eq 0 ]'
check "edited scenario: one warning line on stderr naming the file and the embedded copy" \
  'one_line "$tmp/e" && grep -q "^schedlab timeline: warning: .*sc/wf.toml differs from the scenario .*run.json was made from (sha256); using the copy embedded in" "$tmp/e"'
check "edited scenario: the picture is the embedded scenario's" 'cmp -s t-edited.svg "$tmp/t-here.svg"'
"$bin" report ../work/out/exp.json -o r2.html 2>"$tmp/e"; rc=$?
check "edited scenario: report warns in one line and draws the same page (got $rc)" \
  '[ $rc -eq 0 ] && one_line "$tmp/e" && grep -q "^schedlab report: warning: " "$tmp/e" && grep -q "wakeup-fastpath" r2.html && ! grep -q ">edited<" r2.html'
# A result whose embedded text was tampered with is refused.
py 'import json,sys; j = json.load(open(sys.argv[1])); j["scenario_source"]["text"] += "#"; json.dump(j, open(sys.argv[2], "w"))' \
  ../work/out/run.json bad.json
"$bin" timeline bad.json -o bad.svg 2>"$tmp/e"; rc=$?
check "a tampered embedded scenario: exit 2 in one line (got $rc)" \
  '[ $rc -eq 2 ] && one_line "$tmp/e" && grep -q "does not match its sha256" "$tmp/e"'
# An older result without the embedded copy still reads its file from disk.
cp "$src/scenarios/wakeup-fastpath.toml" ../work/sc/wf.toml
py 'import json,sys; j = json.load(open(sys.argv[1])); del j["scenario_source"]; json.dump(j, open(sys.argv[2], "w"))' \
  ../work/out/run.json ../work/old.json
(cd ../work && "$bin" timeline old.json --to 5ms -o "$tmp/t-old.svg" 2>"$tmp/e"); rc=$?
check "an old result (no scenario_source) reads the file as before (got $rc: $(cat "$tmp/e"))" \
  '[ $rc -eq 0 ] && cmp -s "$tmp/t-old.svg" "$tmp/t-here.svg"'
# compare says when the two results ran different scenario texts.
py 'import json,sys; j = json.load(open(sys.argv[1])); j["scenario_source"]["sha256"] = "0" * 64; json.dump(j, open(sys.argv[2], "w"))' \
  ../work/out/run.json other.json
"$bin" compare ../work/out/run.json other.json >cmp.txt 2>/dev/null; rc=$?
check "compare notes different scenario texts (got $rc)" \
  '[ $rc -eq 0 ] && grep -q "note: the scenario texts differ" cmp.txt'
cd "$tmp" || exit 1

# --- Ctrl-C and --max-wall stop cleanly -------------------------------------------------------
sc=$src/scenarios/wakeup-fastpath.toml
# interrupt SIGNAL JSON ARGS...: starts schedlab, signals it after 1 s, waits; sets rc and secs.
interrupt() {
  local sig=$1; shift
  local t0; t0=$(date +%s.%N)
  "$bin" "$@" >"$tmp/i.out" 2>"$tmp/i.err" &
  local pid=$!
  sleep 1
  kill "-$sig" "$pid"
  wait "$pid"; rc=$?
  secs=$(py "import sys; print(round($(date +%s.%N) - $t0, 1))")
}
partial_ok() {  # JSON, runs key check: partial true, runs_finished > 0, seeds match runs
  py 'import json,sys
j = json.load(open(sys.argv[1]))
ok = j["partial"] is True and j["stop_reason"] == sys.argv[2] and j["runs_finished"] > 0
ok = ok and j["runs"] == len(j["seeds"]) and 0 < j["runs"] < j["planned_runs"]
ok = ok and all(len(c["runs"]) == j["runs"] for c in j["configs"])
ok = ok and j["runs_finished"] == j["runs"] * len(j["configs"])
ok = ok and all(c["mean_completion_time_s"] is not None for c in j["configs"])
sys.exit(not ok)' "$@"
}
interrupt INT experiment "$sc" --runs 3000 --jobs 2 --json "$tmp/int.json"
check "experiment: SIGINT after 1 s exits 130 (got $rc)" '[ $rc -eq 130 ]'
check "experiment: stops promptly (${secs} s)" "py 'import sys; sys.exit(not $secs < 4)'"
check "experiment: the JSON is partial, with the finished runs and their statistics" \
  'partial_ok "$tmp/int.json" interrupted'
check "experiment: one line on stderr says so" \
  'grep -q "^schedlab experiment: interrupted; [0-9]* of [0-9]* runs finished, the result is partial$" "$tmp/i.err"'
check "experiment: the table says partial" 'head -n1 "$tmp/i.out" | grep -q "^PARTIAL: stopped early (interrupted)"'
# One job: a scenario whose seeds take milliseconds, so that some have finished after 1 s
# even in a sanitizer build on a slow host (a seed of the five wakeup-fastpath configurations
# takes over a second there).
interrupt TERM experiment "$src/scenarios/smoke.toml" --runs 3000 --jobs 1 --json "$tmp/term.json"
check "experiment --jobs 1: SIGTERM exits 130 with a partial JSON (got $rc)" \
  '[ $rc -eq 130 ] && partial_ok "$tmp/term.json" interrupted'
interrupt INT sweep "$sc" --param machine.cores_per_llc=2,4,8 --runs 1000 --jobs 2 --json "$tmp/sw.json"
check "sweep: SIGINT exits 130 (got $rc)" '[ $rc -eq 130 ]'
check "sweep: the JSON is partial with the points that ran" \
  "py 'import json,sys; j = json.load(open(\"$tmp/sw.json\"))
ok = j[\"partial\"] and j[\"planned_points\"] == 3 and 1 <= len(j[\"points\"]) < 3 and j[\"runs_finished\"] > 0
ok = ok and all(p[\"experiment\"][\"runs\"] > 0 for p in j[\"points\"])
sys.exit(not ok)'"
long="$src/tests/scenarios/bad/runaway-two-groups.toml --max-work 2000000000"
# shellcheck disable=SC2086
interrupt INT run $long --json "$tmp/run-int.json"
check "run: SIGINT exits 130 (got $rc)" '[ $rc -eq 130 ]'
check "run: the JSON holds the tasks at the stop time, marked partial" \
  "py 'import json,sys; j = json.load(open(\"$tmp/run-int.json\"))
ok = j[\"partial\"] and j[\"stop_reason\"] == \"interrupted\" and j[\"stopped_at_ns\"] > 0
ok = ok and j[\"end_time_ns\"] == j[\"stopped_at_ns\"] and len(j[\"tasks\"]) == 11
sys.exit(not ok)'"
check "run: says so on stderr" 'grep -q "^schedlab run: interrupted at simulated time [0-9.]* s; wrote the partial result$" "$tmp/i.err"'
t0=$(date +%s.%N)
# shellcheck disable=SC2086
"$bin" run $long --max-wall 500ms --json "$tmp/wall.json" >/dev/null 2>"$tmp/e"; rc=$?
secs=$(py "import sys; print(round($(date +%s.%N) - $t0, 1))")
check "run --max-wall 500ms: exit 130 after about 0.5 s (got $rc in $secs s)" \
  "[ $rc -eq 130 ] && py 'import sys; sys.exit(not $secs < 3)'"
check "run --max-wall: partial JSON and a line naming --max-wall" \
  "py 'import json,sys; j = json.load(open(\"$tmp/wall.json\")); sys.exit(not (j[\"partial\"] and j[\"stop_reason\"] == \"max-wall\"))' && grep -q '^schedlab run: --max-wall reached at simulated time' '$tmp/e'"
"$bin" experiment "$sc" --runs 3000 --jobs 2 --max-wall 1s --json "$tmp/ewall.json" >/dev/null 2>"$tmp/e"; rc=$?
check "experiment --max-wall 1s: exit 130, partial JSON (got $rc)" \
  '[ $rc -eq 130 ] && partial_ok "$tmp/ewall.json" max-wall && grep -q "^schedlab experiment: --max-wall reached; " "$tmp/e"'
"$bin" run "$sc" --max-wall 0 >/dev/null 2>"$tmp/e"; rc=$?
check "--max-wall 0 is refused with 2 (got $rc)" '[ $rc -eq 2 ] && one_line "$tmp/e" && grep -q -- "--max-wall 0: must be more than 0" "$tmp/e"'

# --- Runaway runs -----------------------------------------------------------------------------
"$bin" run "$src/tests/scenarios/bad/runaway-loops.toml" >/dev/null 2>"$tmp/e"; rc=$?
check "loops = 9223372036854775807: exit 2 in one line naming --max-work (got $rc)" \
  '[ $rc -eq 2 ] && one_line "$tmp/e" && grep -q "loops: the scenario asks for over 2^64 phase executions.*--max-work N" "$tmp/e"'
"$bin" run "$sc" --max-events 1000 --json "$tmp/ev.json" >/dev/null 2>"$tmp/e"; rc=$?
check "run --max-events 1000: exit 2 in one line naming the limit and the flag, no JSON left (got $rc)" \
  '[ $rc -eq 2 ] && one_line "$tmp/e" && grep -q "reached the limit of 1000 events (--max-events) at simulated time .*; raise --max-events" "$tmp/e" && [ ! -e "$tmp/ev.json" ]'
"$bin" experiment "$sc" --runs 2 --max-events 1000 --json "$tmp/ev.json" >/dev/null 2>"$tmp/e"; rc=$?
check "experiment --max-events 1000: exit 2 naming the run and the flag (got $rc)" \
  '[ $rc -eq 2 ] && one_line "$tmp/e" && grep -q "seed [0-9]*: the run reached the limit of 1000 events (--max-events)" "$tmp/e" && [ ! -e "$tmp/ev.json" ]'
"$bin" run "$sc" --max-events 100000000 >/dev/null 2>&1; rc=$?
check "a run below --max-events is unaffected (got $rc)" '[ $rc -eq 0 ]'
sed 's/^duration = .*//; s/^\[scenario\]/[scenario]\nduration = "31d"/' "$sc" >"$tmp/long.toml"
sed -i 's/duration = "31d"/duration = "2678400s"/' "$tmp/long.toml"
"$bin" run "$tmp/long.toml" >/dev/null 2>"$tmp/e"; rc=$?
check "a duration of 31 days: exit 2 in one line naming the limit and --max-duration (got $rc: $(cat "$tmp/e"))" \
  '[ $rc -eq 2 ] && one_line "$tmp/e" && grep -q "long.toml:[0-9]*:[0-9]*: error: scenario.duration: 2.6784e+06s of simulated time is more than the limit of 2.592e+06s; raise it with --max-duration DURATION" "$tmp/e"'
"$bin" run "$tmp/long.toml" --max-duration 40000000s --max-wall 200ms >/dev/null 2>"$tmp/e"; rc=$?
check "--max-duration lifts it (got $rc: $(cat "$tmp/e"))" '[ $rc -eq 0 ] || [ $rc -eq 130 ]'

echo "$((n-fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
