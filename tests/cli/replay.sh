#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# schedlab replay: a real Linux 6.12 trace, a trace-cmd report and perf script output replay
# with each task's CPU time reproduced; bad traces are refused with file:line and exit 2; and, where this machine
# lets us (root, tracefs), a trace captured live during the test replays too.
set -u
bin=$1; src=$2; tmp=$(mktemp -d)
inst=""
cleanup() { [ -n "$inst" ] && [ -d "$inst" ] && { echo 0 > "$inst/tracing_on"; rmdir "$inst"; }
            [ -n "${mnt:-}" ] && umount "$mnt" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail=0; n=0
check() { n=$((n+1)); if ! eval "$2"; then echo "FAIL: $1"; fail=$((fail+1)); fi; }
# Every task running >= 1 ms per switch-in within 1 %, and the total within 1 %.
reproduced() {
  python3 - "$1" <<"PY"
import json, sys
r = json.load(open(sys.argv[1]))["replay"]
bad = [t["comm"] for t in r["tasks"] if t["trace_runtime_ns"] >= 1e6 * (t["woken_by_task"] + t["woken_by_timer"] + 1)
       and abs(t["replay_runtime_ns"] - t["trace_runtime_ns"]) > 0.01 * t["trace_runtime_ns"]]
tot = abs(r["replay_runtime_ns"] - r["trace_runtime_ns"]) <= 0.01 * r["trace_runtime_ns"]
print(f"trace {r['trace_runtime_ns']} ns, replay {r['replay_runtime_ns']} ns; off by > 1 %: {bad}")
sys.exit(0 if tot and not bad else 1)
PY
}
golden="$src/tests/data/traces/golden-pairs-4t.trace"
"$bin" replay "$golden" --json "$tmp/g.json" >"$tmp/g.out"; rc=$?
check "golden trace replays" '[ $rc -eq 0 ]'
check "golden: every task exits" 'grep -q "(19 of 19 tasks exited)" "$tmp/g.out"'
check "golden: CPU time reproduced within 1 %" 'reproduced "$tmp/g.json"'
"$bin" replay "$golden" --scenario "$src/scenarios/golden-6.12-pairs-4t.toml" \
  --cookie cbw0,cbw1 --cookie cbw2,cbw3 --json "$tmp/gc.json" >/dev/null; rc=$?
check "golden on its SMT machine with the two cookie pairs" '[ $rc -eq 0 ]'
check "cookie pairs force idle" 'python3 -c "import json,sys; sys.exit(0 if json.load(open(\"$tmp/gc.json\"))[\"forceidle_ns\"] > 0 else 1)"'
# perf script's default layout of `perf sched record` (COMM TID [CPU] SECS: sched:EVENT: FIELDS,
# no flag column), here the golden trace rewritten in it: the same tasks and CPU time.
python3 - "$golden" "$tmp/perf.txt" <<"PY"
import re, sys
line = re.compile(r"^\s*(.+)-(\d+)\s+\[(\d+)\]\s+\S+\s+(\d+\.\d+): (sched_[a-z_]+): (.*)$")
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
    for l in f:
        m = line.match(l)
        if m:
            comm, pid, cpu, ts, ev, body = m.groups()
            out.write(f"{comm:>16} {int(pid):>6} [{cpu}] {ts}: sched:{ev}: {body}\n")
PY
"$bin" replay "$tmp/perf.txt" --json "$tmp/p.json" >"$tmp/p.out"; rc=$?
check "perf script layout replays: every task, the trace's CPU time" \
  '[ $rc -eq 0 ] && grep -q "(19 of 19 tasks exited)" "$tmp/p.out" && python3 -c "import json,sys; a,b=(json.load(open(f))[\"replay\"][\"trace_runtime_ns\"] for f in sys.argv[1:]); sys.exit(a!=b)" "$tmp/g.json" "$tmp/p.json"'
"$bin" replay "$src/tests/data/traces/trace-cmd-report.txt" >/dev/null; rc=$?
check "trace-cmd report layout replays" '[ $rc -eq 0 ]'
"$bin" replay "$golden" --cookie cbw0,nobody >/dev/null 2>"$tmp/err"; rc=$?
check "--cookie naming no traced task: exit 2 and the name" '[ $rc -eq 2 ] && grep -q "nobody" "$tmp/err"'
head -c 20000 "$golden" > "$tmp/cut.trace"
"$bin" replay "$tmp/cut.trace" >/dev/null 2>"$tmp/err"; rc=$?
check "truncated trace: exit 2 naming file:line" '[ $rc -eq 2 ] && grep -qE "cut.trace:[0-9]+: error: truncated" "$tmp/err"'
printf '\x7fELF\x00\x01garbage' > "$tmp/bin.trace"
"$bin" replay "$tmp/bin.trace" >/dev/null 2>"$tmp/err"; rc=$?
check "binary garbage: exit 2" '[ $rc -eq 2 ] && grep -q "bin.trace:1: error" "$tmp/err"'

# A live trace, in a trace instance of our own so the system's trace buffer is left alone.
tfs=/sys/kernel/tracing
if [ "$(id -u)" -eq 0 ] && [ ! -d "$tfs/instances" ]; then
  mnt="$tmp/tracefs"; mkdir -p "$mnt"; mount -t tracefs nodev "$mnt" 2>/dev/null && tfs=$mnt
fi
if [ "$(id -u)" -eq 0 ] && mkdir "$tfs/instances/schedlab-test-$$" 2>/dev/null; then
  inst="$tfs/instances/schedlab-test-$$"
  for e in sched_switch sched_waking sched_wakeup_new sched_process_fork sched_process_exit; do
    echo 1 > "$inst/events/sched/$e/enable"
  done
  echo 1 > "$inst/tracing_on"
  sh -c 'i=0; while [ $i -lt 10 ]; do sleep 0.005; j=0; while [ $j -lt 3000 ]; do j=$((j+1)); done; i=$((i+1)); done'
  echo 0 > "$inst/tracing_on"
  cat "$inst/trace" > "$tmp/live.trace"
  echo 0 > "$inst/events/enable"; rmdir "$inst"; inst=""
  "$bin" replay "$tmp/live.trace" --json "$tmp/live.json" >/dev/null; rc=$?
  check "live trace of this machine replays" '[ $rc -eq 0 ]'
  check "live: CPU time reproduced within 1 %" 'reproduced "$tmp/live.json"'
else
  echo "skip: no tracefs instance here (needs root and tracefs); the live trace is not tested"
  skipped=1
fi
echo "$((n-fail)) passed, $fail failed"
# 77: CTest's SKIP_RETURN_CODE (tests/CMakeLists.txt), once the checks that ran have passed.
[ "$fail" -eq 0 ] || exit 1
[ -z "${skipped:-}" ] || exit 77
