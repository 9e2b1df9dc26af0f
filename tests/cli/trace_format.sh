#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `schedlab run --trace` writes ftrace text as Linux prints it: the 6.12 header with the real
# entry counts, every event line "comm-pid [cpu] flags seconds.micros: event: fields" with the
# five flag columns and each tracepoint's print format. ftrace_reference_parser.py checks every
# line and, with --golden, compares header and fields with a real 6.12 trace.
set -u
bin=$1; src=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; n=0
check() { n=$((n+1)); if ! eval "$2"; then echo "FAIL: $1"; fail=$((fail+1)); fi; }
"$bin" run "$src/scenarios/wakeup-fastpath.toml" --config Cookie --trace "$tmp/t" \
  --trace-from 2s --trace-to 2.2s >/dev/null; rc=$?
check "exit status" '[ $rc -eq 0 ]'
check "header" 'head -n1 "$tmp/t" | grep -qx "# tracer: nop"'
check "reference parser: every line follows the documented format" \
  'python3 "$src/tests/cli/ftrace_reference_parser.py" "$tmp/t" --require sched_switch sched_waking sched_wakeup sched_migrate_task tracing_mark_write'
"$bin" run "$src/scenarios/hackbench-small.toml" --trace "$tmp/hb" --trace-to 0.05s >/dev/null; rc=$?
check "hackbench trace (fork, exit, wakeup_new) exit status" '[ $rc -eq 0 ]'
check "reference parser: hackbench trace (kernel 6.18: sched_process_exit has group_dead)" \
  'python3 "$src/tests/cli/ftrace_reference_parser.py" "$tmp/hb" --kernel 6.18 --require sched_process_fork sched_process_exit sched_wakeup_new'
golden="$src/tests/data/traces/golden-pairs-4t.trace"
"$bin" run "$src/scenarios/golden-6.12-pairs-4t.toml" --trace "$tmp/g" >/dev/null; rc=$?
check "golden-6.12 scenario trace exit status" '[ $rc -eq 0 ]'
check "the real 6.12 trace passes the reference parser" \
  'python3 "$src/tests/cli/ftrace_reference_parser.py" "$golden" --kernel 6.12 --require sched_switch sched_waking sched_wakeup sched_migrate_task >/dev/null'
check "field-by-field against the real 6.12 trace: header, prefix columns, every common event" \
  'python3 "$src/tests/cli/ftrace_reference_parser.py" "$tmp/g" --kernel 6.12 --golden "$golden" --require sched_switch sched_waking sched_wakeup sched_migrate_task sched_process_exit'
check "the same legend lines as the real trace, the counts line in the same place" \
  'diff <(sed -n "1,2p;4,12p" "$golden") <(sed -n "1,2p;4,12p" "$tmp/g") >/dev/null && sed -n 3p "$tmp/g" | grep -qx "# entries-in-buffer/entries-written: $(grep -vc "^#" "$tmp/g")/$(grep -vc "^#" "$tmp/g")   #P:4"'
check "6.12 exits: sched_process_exit has no group_dead" \
  'grep -q "sched_process_exit: comm=cbw0 pid=[0-9]* prio=120\$" "$tmp/g"'
"$bin" run "$src/scenarios/twin/smoke.toml" --trace "$tmp/tw" >/dev/null 2>&1; rc=$?
check "exits: the 2 threads that do not lead their process switch out as X, the 3 leaders as Z" \
  '[ $rc -eq 0 ] && [ "$(grep -c "prev_state=X ==>" "$tmp/tw")" -eq 2 ] && [ "$(grep -c "prev_state=Z ==>" "$tmp/tw")" -eq 3 ]'
check "the wakeups that preempt an idle CPU carry need-resched, as in the real trace (dNh..)" \
  'grep -q "\] dNh\.\. .*sched_wakeup: " "$tmp/g" && ! grep -q "\] .N... .*sched_switch: " "$tmp/g"'
"$bin" run "$src/scenarios/golden-6.12-pairs-4t.toml" --trace - --trace-to 2s 2>/dev/null >"$tmp/gs"; rc=$?
check "--trace - (a pipe, through a temporary file) has the same header with real counts" \
  '[ $rc -eq 0 ] && python3 "$src/tests/cli/ftrace_reference_parser.py" "$tmp/gs" --kernel 6.12 --golden "$golden" >/dev/null && "$bin" run "$src/scenarios/golden-6.12-pairs-4t.toml" --trace "$tmp/gf" --trace-to 2s >/dev/null && cmp -s "$tmp/gs" "$tmp/gf"'
first=$(grep -v '^#' "$tmp/t" | head -n1 | sed -E 's/.* ([0-9]+\.[0-9]{6}): .*/\1/')
last=$(grep -v '^#' "$tmp/t" | tail -n1 | sed -E 's/.* ([0-9]+\.[0-9]{6}): .*/\1/')
check "window [2s, 2.2s) ($first .. $last)" 'awk -v a="$first" -v b="$last" "BEGIN{exit !(a>=2.0 && b<2.2)}"'
"$bin" run "$src/scenarios/wakeup-fastpath.toml" --trace "$tmp/t2" --trace-from 3s --trace-to 1s >/dev/null 2>&1; rc=$?
check "--trace-from after --trace-to is refused with 2" '[ $rc -eq 2 ]'
"$bin" run "$src/scenarios/wakeup-fastpath.toml" --trace "$tmp/t3" --trace-to 1s --trace-cpus 0,4 >/dev/null; rc=$?
check "--trace-cpus runs" '[ $rc -eq 0 ]'
other=$(grep -v '^#' "$tmp/t3" | grep -cvE '\[00[04]\]')
check "--trace-cpus 0,4 keeps only CPUs 0 and 4 ($other other lines)" '[ "$other" -eq 0 ] && grep -q "\[004\]" "$tmp/t3"'
"$bin" run "$src/scenarios/wakeup-fastpath.toml" --trace "$tmp/t4" --trace-cpus 9 >/dev/null 2>&1; rc=$?
check "--trace-cpus naming no CPU of the machine is refused with 2" '[ $rc -eq 2 ]'
"$bin" run "$src/scenarios/wakeup-fastpath.toml" --config Cookie --trace-json "$tmp/t.json" --trace-to 2s >/dev/null; rc=$?
check "--trace-json runs" '[ $rc -eq 0 ]'
check "Chrome JSON: 8 CPU tracks, task and forced-idle slices, a counter, within the window" \
  'python3 - "$tmp/t.json" <<"PY"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
cpu = [e for e in ev if e.get("pid") == 0]
names = {e["tid"]: e["args"]["name"] for e in cpu if e["ph"] == "M" and e["name"] == "thread_name"}
assert sorted(names) == list(range(8)) and names[0].startswith("CPU 0"), names
cats = {e.get("cat") for e in cpu if e["ph"] == "X"}
assert cats == {"task", "forced_idle"}, cats
assert any(e["ph"] == "C" for e in ev)
assert all(0 <= e["ts"] and e["ts"] + e["dur"] <= 2000000 for e in ev if e["ph"] == "X")
PY'
check "Chrome JSON for Perfetto: a process per thread group, a named thread per task, states, wakeup flows" \
  'python3 - "$tmp/t.json" <<"PY"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
for e in ev:  # the trace-event format: every event has a phase, a pid; timed ones a number ts
    assert isinstance(e.get("ph"), str) and isinstance(e.get("pid"), int), e
    if e["ph"] in "XCsf":
        assert isinstance(e["ts"], (int, float)) and isinstance(e.get("name"), str), e
    if e["ph"] == "X":
        assert e["dur"] >= 0 and isinstance(e["tid"], int), e
procs = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
           if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] != 0}
assert procs[0] == "CPUs" and len(procs) >= 2, procs
assert all(pid in procs for pid, _ in threads), "a thread without its process name"
assert all(pid != 0 and tid != 0 for pid, tid in threads), "pid/tid 0 for a task"
states = [e for e in ev if e["ph"] == "X" and e.get("cat") == "thread_state"]
assert {e["name"] for e in states} == {"Running", "Runnable", "Runnable (forced idle)"}, {e["name"] for e in states}
assert all((e["pid"], e["tid"]) in threads for e in states), "a state slice on an unnamed thread"
assert all(isinstance(e["args"]["cpu"], int) for e in states)
# Running on the task track matches the CPU track: same total time.
run = sum(e["dur"] for e in states if e["name"] == "Running")
cpu = sum(e["dur"] for e in ev if e["ph"] == "X" and e.get("cat") == "task")
assert abs(run - cpu) < 1e-3 * cpu, (run, cpu)
# A task runs on one CPU at a time: its Running slices do not overlap.
by = {}
for e in sorted(states, key=lambda e: e["ts"]):
    if e["name"] == "Running":
        k = (e["pid"], e["tid"])
        assert by.get(k, -1) <= e["ts"] + 1e-6, e
        by[k] = e["ts"] + e["dur"]
starts = {e["id"]: e for e in ev if e["ph"] == "s"}
ends = {e["id"]: e for e in ev if e["ph"] == "f"}
assert len(ends) >= 5 and set(ends) <= set(starts), (len(starts), len(ends))
for i, f in ends.items():
    s = starts[i]
    assert f.get("bp") == "e" and s["ts"] <= f["ts"] and (s["pid"], s["tid"]) != (f["pid"], f["tid"])
    # The arrow lands at the start of the woken task Runnable slice.
    assert any(e["tid"] == f["tid"] and e["name"].startswith("Runnable") and abs(e["ts"] - f["ts"]) < 1e-6 for e in states), f
PY'
"$bin" run "$src/scenarios/wakeup-fastpath.toml" --trace "$tmp/t5" --from 2s --to 2.2s --cpus 0,4 >/dev/null; rc=$?
check "--from/--to/--cpus are the same window as --trace-from/--trace-to/--trace-cpus" \
  '[ $rc -eq 0 ] && "$bin" run "$src/scenarios/wakeup-fastpath.toml" --trace "$tmp/t6" --trace-from 2s --trace-to 2.2s --trace-cpus 0,4 >/dev/null && cmp -s "$tmp/t5" "$tmp/t6"'
# --trace-pelt: the load-tracking events join the same trace, and nothing else changes.
"$bin" run "$src/scenarios/wakeup-fastpath.toml" --config Cookie --trace "$tmp/p" --trace-pelt \
  --trace-from 2s --trace-to 2.2s --json "$tmp/p.json" >/dev/null; rc=$?
check "--trace-pelt exit status" '[ $rc -eq 0 ]'
check "reference parser: the four load-tracking events follow LISA's print fmts" \
  'python3 "$src/tests/cli/ftrace_reference_parser.py" "$tmp/p" --require lisa__sched_pelt_cfs lisa__sched_pelt_se lisa__sched_util_est_cfs_unified lisa__sched_util_est_se_unified sched_switch'
"$bin" run "$src/scenarios/wakeup-fastpath.toml" --config Cookie --json "$tmp/n.json" >/dev/null
check "without its lisa__ lines the trace is the plain one" \
  'cmp -s <(grep -v -e lisa__ -e "^# entries-in-buffer" "$tmp/p") <(grep -v "^# entries-in-buffer" "$tmp/t")'
check "the run's results do not change with --trace-pelt" \
  'python3 -c "import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); [d.pop(\"host\") for d in (a,b)]; sys.exit(a!=b)" "$tmp/p.json" "$tmp/n.json"'
"$bin" run "$src/scenarios/wakeup-fastpath.toml" --config Cookie --trace-json "$tmp/p2.json" --trace-pelt \
  --trace-to 1s --trace-cpus 0-3 >/dev/null; rc=$?
check "--trace-json --trace-pelt: a util counter per traced CPU, util_avg and util_est" \
  '[ $rc -eq 0 ] && python3 - "$tmp/p2.json" <<"PY"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
c = {e["name"] for e in ev if e["ph"] == "C" and e["name"].endswith(" util")}
assert c == {f"CPU {i} util" for i in range(4)}, c
assert all(set(e["args"]) == {"util_avg", "util_est"} for e in ev if e["name"] in c)
assert all(e["ts"] < 1000000 for e in ev if e["name"] in c)
PY'
if [ -w /dev/full ]; then
  "$bin" run "$src/scenarios/wakeup-fastpath.toml" --trace /dev/full --trace-to 0.1s >/dev/null 2>"$tmp/err"; rc=$?
  check "--trace to a full device: exit 1, one line with the reason" \
    '[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "/dev/full: write failed: No space left on device" "$tmp/err" && [ -c /dev/full ]'
fi
for flag in "--trace-pelt" "--trace-from 1s" "--trace-to 1s" "--trace-cpus 0"; do
  "$bin" run "$src/scenarios/wakeup-fastpath.toml" $flag >/dev/null 2>"$tmp/err"; rc=$?
  check "$flag without --trace or --trace-json is refused with 2" \
    '[ $rc -eq 2 ] && grep -Eq "needs --trace, --trace-dat(,| or) --trace-json" "$tmp/err"'
done
echo "$((n-fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
