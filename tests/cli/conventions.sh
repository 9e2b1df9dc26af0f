#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The conventions every command follows (docs/cli.md): "-" is stdout for --json, --csv, --trace,
# --trace-json and -o, and the summary then goes to stderr; at most one output on stdout; outputs
# are opened before any run, and one that cannot be written exits 1 naming the OS's reason; the
# exit codes are listed by `schedlab help`; --help names value types; --max-work refuses
# runaway scenarios with exit 2. Usage: conventions.sh SCHEDLAB SOURCE_DIR
set -u
bin=$(realpath "$1"); src=$(realpath "$2"); tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1  # a schedlab that took "-" for a file name would write it here
sc=$src/scenarios/wakeup-fastpath.toml
fail=0; n=0
check() { n=$((n+1)); if ! eval "$2"; then echo "FAIL: $1"; fail=$((fail+1)); fi; }
is_json() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }
one_line() { [ "$(wc -l <"$1")" -eq 1 ]; }

# "-" is stdout; the summary moves to stderr.
"$bin" run "$sc" --json - >"$tmp/run.json" 2>"$tmp/run.err"; rc=$?
check "run --json - exits 0 (got $rc)" '[ $rc -eq 0 ]'
check "run --json -: stdout is the JSON alone" 'is_json "$tmp/run.json"'
check "run --json -: the summary is on stderr" 'grep -q "^completion time" "$tmp/run.err"'
"$bin" run "$sc" --json "$tmp/file.json" >/dev/null
check "run --json - writes what --json FILE writes (outside host)" \
  'diff <(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); j.pop(\"host\"); print(json.dumps(j))" "$tmp/run.json") <(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); j.pop(\"host\"); print(json.dumps(j))" "$tmp/file.json")'
"$bin" run "$sc" --trace - --trace-to 20ms >"$tmp/trace.txt" 2>"$tmp/trace.err"; rc=$?
check "run --trace - exits 0 (got $rc)" '[ $rc -eq 0 ]'
check "run --trace -: stdout is the trace" 'grep -q "sched_switch: prev_comm=" "$tmp/trace.txt" && head -n1 "$tmp/trace.txt" | grep -qx "# tracer: nop" && ! grep -q "^completion time" "$tmp/trace.txt"'
"$bin" run "$sc" --trace-json - --trace-to 20ms >"$tmp/trace.json" 2>/dev/null
check "run --trace-json -: stdout is the JSON trace" 'is_json "$tmp/trace.json"'
"$bin" experiment "$sc" --runs 1 --jobs 1 --config Cookie --csv - >"$tmp/exp.csv" 2>"$tmp/exp.err"; rc=$?
check "experiment --csv - exits 0 (got $rc)" '[ $rc -eq 0 ]'
check "experiment --csv -: stdout is the CSV, the table on stderr" 'head -n1 "$tmp/exp.csv" | grep -q "^config,seed," && [ "$(wc -l <"$tmp/exp.csv")" -eq 2 ] && grep -q "Test Results" "$tmp/exp.err"'
"$bin" experiment "$sc" --runs 1 --jobs 1 --config Cookie --json - >"$tmp/exp.json" 2>/dev/null
check "experiment --json -: stdout is the JSON" 'is_json "$tmp/exp.json"'
"$bin" sweep "$sc" --param machine.cores_per_llc=2 --runs 1 --jobs 1 --config Cookie --json - >"$tmp/sweep.json" 2>/dev/null
check "sweep --json -: stdout is the JSON" 'is_json "$tmp/sweep.json"'
"$bin" timeline "$sc" -o - >"$tmp/t.svg"; rc=$?
check "timeline -o -: stdout is the SVG (got $rc)" '[ $rc -eq 0 ] && grep -q "<svg" "$tmp/t.svg" && tail -c 10 "$tmp/t.svg" | grep -q "</svg>"'
"$bin" compare "$tmp/file.json" "$tmp/file.json" --json - >"$tmp/cmp.json" 2>/dev/null
check "compare --json -: stdout is the JSON" 'is_json "$tmp/cmp.json"'
"$bin" experiment "$sc" --runs 1 --json - --csv - >"$tmp/both.out" 2>"$tmp/both.err"; rc=$?
check "two outputs on stdout are refused with 2 in one line (got $rc)" '[ $rc -eq 2 ] && one_line "$tmp/both.err" && grep -q -- "--json - and --csv -: only one output can go to stdout" "$tmp/both.err" && [ ! -s "$tmp/both.out" ]'

# An output that cannot be written: exit 1 with the OS's reason, before any run.
"$bin" run "$sc" --json /nonexistent/dir/x.json >"$tmp/o1" 2>"$tmp/e1"; rc=$?
check "run --json into a missing directory exits 1 (got $rc)" '[ $rc -eq 1 ]'
check "... in one line naming the flag, the path and the reason" 'one_line "$tmp/e1" && grep -qx "schedlab run: --json /nonexistent/dir/x.json: cannot open for writing: No such file or directory" "$tmp/e1"'
check "... before the run (no summary)" '[ ! -s "$tmp/o1" ]'
"$bin" run "$sc" --trace "$tmp" >/dev/null 2>"$tmp/e2"; rc=$?
check "run --trace DIRECTORY exits 1 with 'Is a directory' (got $rc)" '[ $rc -eq 1 ] && one_line "$tmp/e2" && grep -q "cannot open for writing: Is a directory" "$tmp/e2"'
for args in "experiment $sc --runs 1 --csv /nonexistent/x.csv" "sweep $sc --param machine.cores_per_llc=2 --runs 1 --json /nonexistent/x.json" \
            "timeline $sc -o /nonexistent/x.svg" "replay $src/tests/data/traces/golden-pairs-4t.trace --json /nonexistent/x.json" \
            "compare $tmp/file.json $tmp/file.json --json /nonexistent/x.json"; do
  # shellcheck disable=SC2086
  "$bin" $args >"$tmp/o3" 2>"$tmp/e3"; rc=$?
  check "schedlab ${args%% *} with an unwritable output exits 1 with the reason (got $rc: $(cat "$tmp/e3"))" \
    '[ $rc -eq 1 ] && one_line "$tmp/e3" && grep -q "cannot open for writing: No such file or directory" "$tmp/e3" && [ ! -s "$tmp/o3" ]'
done
if [ -w /dev/full ]; then
  "$bin" run "$sc" --json /dev/full >/dev/null 2>"$tmp/e4"; rc=$?
  check "a failed write exits 1 with the reason (got $rc: $(cat "$tmp/e4"))" '[ $rc -eq 1 ] && grep -q "^schedlab run: --json /dev/full: write failed: No space left on device$" "$tmp/e4"'
fi
"$bin" timeline "$src/tests/scenarios/bad/bad-hz.toml" -o "$tmp/bad.svg" >/dev/null 2>&1; rc=$?
check "a bad input leaves no empty output file behind (got $rc)" '[ $rc -eq 2 ] && [ ! -e "$tmp/bad.svg" ]'

# Exit codes are documented by the program itself.
"$bin" help >"$tmp/help.txt"
check "schedlab help lists the exit codes" 'grep -q "^Exit status" "$tmp/help.txt" && for c in 0 1 2 3 4 130; do grep -Eq "^  $c +[a-z]" "$tmp/help.txt" || exit 1; done'
# --help names value types.
for c in run experiment sweep timeline report compare replay measure topology; do
  "$bin" $c --help >"$tmp/h.txt"
  check "$c --help names its value types (no TEXT)" '! grep -q "TEXT" "$tmp/h.txt"'
done
"$bin" run --help | grep -q -- "--json FILE" || { echo "FAIL: run --help shows --json FILE"; fail=$((fail+1)); }; n=$((n+1))

# Runaway scenarios: refused with 2 in one line naming the limit and the flag; the flag lifts it.
"$bin" run "$sc" --max-work 1000 >/dev/null 2>"$tmp/e5"; rc=$?
check "--max-work 1000 refuses wakeup-fastpath's 24000 phase executions (got $rc)" \
  '[ $rc -eq 2 ] && one_line "$tmp/e5" && grep -q "wakeup-fastpath.toml:[0-9]*:[0-9]*: error: group\[0\].loops: the scenario asks for 24000 phase executions (tasks x loops x phases), more than the limit of 1000; raise it with --max-work N" "$tmp/e5"'
# The scenario would run for minutes: check only that it is accepted and starts.
timeout 2 "$bin" run "$src/tests/scenarios/bad/runaway-two-groups.toml" --max-work 2000000000 >/dev/null 2>"$tmp/e6"; rc=$?
check "--max-work above the scenario's work accepts it (got $rc: $(cat "$tmp/e6"))" '[ $rc -eq 124 ] || [ $rc -eq 0 ]'
"$bin" experiment "$sc" --max-work 0 >/dev/null 2>"$tmp/e7"; rc=$?
check "--max-work 0 is refused with 2 (got $rc)" '[ $rc -eq 2 ] && grep -q -- "--max-work 0: expected an integer from 1 to 2^64-1" "$tmp/e7"'

echo "$((n-fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
