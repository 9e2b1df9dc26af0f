#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `schedlab measure` runs the smoke scenario for real on this machine and reports it in run's
# JSON schema; a cookie configuration is "unsupported here" (exit 3) without core scheduling;
# Ctrl-C stops every thread and prints the partial result (exit 130); `topology --host` prints
# a [machine] section that `schedlab run` accepts.
set -u
bin=$1; src=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; n=0
check() { n=$((n+1)); if ! eval "$2"; then echo "FAIL: $1"; fail=$((fail+1)); fi; }

"$bin" measure "$src/scenarios/smoke.toml" --json "$tmp/real.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "measure smoke.toml exits 0 (got $rc)" '[ $rc -eq 0 ]'
# smoke.toml's machine is one SMT2 core: on any other host measure says so and uses the host's.
if "$bin" topology --host 2>/dev/null | grep -qx "cores_per_llc = 1" && "$bin" topology --host | grep -qx "threads_per_core = 2" && "$bin" topology --host | grep -qx "sockets = 1"; then
  check "same machine: no differs line" '! grep -q "differs from this host" "$tmp/out" "$tmp/err"'
else
  check "the differing machine is named in one line, on stderr" '[ "$(grep -c "^schedlab measure: warning: the scenario.s machine (2 CPUs = 1 socket(s) x 1 LLC(s) x 1 cores x 2 thread(s)) differs from this host (.*); measuring on the host.s$" "$tmp/err")" -eq 1 ] && ! grep -q "differs" "$tmp/out"'
fi
check "summary names the completion time" 'grep -q "^completion time: [0-9.]* s (4 of 4 tasks exited)" "$tmp/out"'
check "JSON has run's fields, measured and host" 'python3 - "$tmp/real.json" <<"PY"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["measured"] is True and j["interrupted"] is False
assert j["completion_time_ns"] > 0 and abs(j["completion_time_s"] - j["completion_time_ns"] / 1e9) < 1e-6
assert j["host"]["cpus"] >= 1 and j["host"]["kernel_release"] and j["host"]["ns_per_loop"] > 0
assert len(j["tasks"]) == 4
for t in j["tasks"]:
    for k in ("runtime_ns", "wait_ns", "nr_switches", "nr_voluntary_switches", "nr_involuntary_switches"):
        assert isinstance(t[k], int), (k, t)
    assert "se.nr_migrations" in t["sched"] and "core_forceidle_sum" in t["sched"]
    # 40 x 6 ms of calibrated work: about 240 ms on a CPU (within 25 %)
    assert 180e6 < t["runtime_ns"] < 300e6, t["runtime_ns"]
    assert t["nr_voluntary_switches"] >= 40, t
    assert t["exit_ns"] is not None
assert abs(j["completion_time_ns"] - max(t["exit_ns"] for t in j["tasks"])) == 0
PY'

# Cookies need core scheduling and SMT; on a host with both the configuration runs.
"$bin" measure "$src/scenarios/smoke.toml" --config Cookie >"$tmp/cookie" 2>&1; rc=$?
if [ $rc -eq 0 ]; then
  check "Cookie runs where core scheduling works" 'grep -q "^completion time" "$tmp/cookie"'
else
  check "Cookie is unsupported here: exit 3 (got $rc)" '[ $rc -eq 3 ]'
  check "one clear line says why" 'grep -Eq "^schedlab measure: configuration \"Cookie\" skipped: it sets core-scheduling cookies, and this (kernel has no core scheduling|machine has no SMT)" "$tmp/cookie"'
fi
"$bin" measure "$src/scenarios/smoke.toml" --config Nope >/dev/null 2>&1; rc=$?
check "unknown --config exits 2 (got $rc)" '[ $rc -eq 2 ]'

# The benchmark models run for real: hackbench with a process per member, schbench at a
# request rate, and fork()ing tasks.
cat >"$tmp/procs.toml" <<TOML
[scenario]
name = "procs"
[machine]
host = true
[[group]]
name = "hb"
hackbench = { groups = 1, fds = 4, loops = 100, mode = "process", transport = "pipe" }
[[group]]
name = "sb"
schbench = { message_threads = 1, workers = 2, runtime = "1s", rps = 20, work = "2ms" }
[[group]]
name = "fk"
count = 2
fork = { children = 10, child_run = "1ms", interval = "2ms" }
TOML
timeout 30 "$bin" measure "$tmp/procs.toml" --json "$tmp/procs.json" >"$tmp/procs.out" 2>&1; rc=$?
check "process-mode hackbench, schbench rps and fork run (got $rc)" '[ $rc -eq 0 ] && grep -q "^hackbench: Time: " "$tmp/procs.out" && grep -q "^fork: 20 children forked, 20 exited$" "$tmp/procs.out"'
check "their results are whole" 'python3 - "$tmp/procs.json" "$(pgrep -d, -x schedlab || true)" <<"PY"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["hackbench_finished"] and j["hackbench_messages"] == 4 * 4 * 100, j["hackbench_messages"]
hb = [t for t in j["tasks"] if t["comm"].startswith("hb-")]
assert len(hb) == 8 and len({t["pid"] for t in hb}) == 8
for t in hb:  # each member is its own process, its accounting read before it was reaped
    assert t["runtime_ns"] > 0 and t["nr_switches"] > 0 and t["exit_ns"] is not None, t
s = j["schbench"]
# 20 requests a second for 1 s: all of them, none invented.
assert 10 <= s["requests"] <= 21 and s["request_latency_ns"]["p50"] >= 2e6, s
assert j["fork"] == {"forks": 20, "children_exited": 20}, j["fork"]
PY'
# Ctrl-C while member processes run: none of them outlives measure.
cat >"$tmp/hblong.toml" <<TOML
[scenario]
name = "hblong"
[machine]
host = true
[[group]]
name = "hb"
hackbench = { groups = 1, fds = 2, loops = 100000000, mode = "process", transport = "socket" }
TOML
"$bin" measure "$tmp/hblong.toml" >"$tmp/hblong.out" 2>&1 &
pid=$!
kids=""
for _ in $(seq 50); do
  kids=$(pgrep -P $pid | tr '\n' ' ')
  [ "$(echo $kids | wc -w)" -ge 4 ] && break
  sleep 0.1
done
kill -INT $pid; wait $pid; rc=$?
check "process-mode hackbench had its 4 processes ($kids)" '[ "$(echo $kids | wc -w)" -eq 4 ]'
check "Ctrl-C exits 130 and leaves none of them (got $rc)" '[ $rc -eq 130 ] && for k in $kids; do ! kill -0 $k 2>/dev/null || exit 1; done'

# Ctrl-C: a stress scenario of 10 s, interrupted after 0.5 s.
cat >"$tmp/long.toml" <<TOML
[scenario]
name = "long"
duration = "10s"
[machine]
host = true
[[group]]
name = "hog"
count = 3
stress = true
[[group]]
name = "sleeper"
count = 2
loops = 0
phases = [ { run = "1ms" }, { sleep = "5s" } ]
TOML
"$bin" measure "$tmp/long.toml" --json "$tmp/long.json" >"$tmp/long.out" 2>&1 &
pid=$!
# Wait (at most 5 s: calibration comes first) until the tasks' threads exist, then a bit more.
for _ in $(seq 50); do
  threads=$(ls /proc/$pid/task 2>/dev/null | wc -l)
  [ "$threads" -ge 6 ] && break
  sleep 0.1
done
sleep 0.3
threads=$(ls /proc/$pid/task 2>/dev/null | wc -l)
check "measure runs one thread per task plus main ($threads)" '[ "$threads" -eq 6 ]'
start=$(date +%s%N)
kill -INT $pid; wait $pid; rc=$?
took=$(( ($(date +%s%N) - start) / 1000000 ))
check "SIGINT exits 130 (got $rc)" '[ $rc -eq 130 ]'
check "SIGINT stops everything promptly (${took} ms)" '[ "$took" -lt 1000 ]'
check "no process left behind" '! kill -0 $pid 2>/dev/null'
check "partial result printed" 'grep -q "^interrupted after" "$tmp/long.out"'
check "partial JSON says interrupted" 'python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j[\"interrupted\"] and len(j[\"tasks\"]) == 5" "$tmp/long.json"'

# rt-app's events between tasks, for real: per-task timers, a barrier, a mutex, yield, and a
# condition signalled under a mutex. 20 periods of 10 ms: about 0.2 s, every task done.
cat >"$tmp/sync.toml" <<TOML
[scenario]
name = "sync"
[machine]
host = true
[[group]]
name = "tick"
count = 2
loops = 20
phases = [ { timer = "10ms" }, { runtime = "1ms" }, { barrier = "b" } ]
[[group]]
name = "lk"
count = 2
loops = 50
phases = [ { lock = "m" }, { runtime = "100us" }, { unlock = "m" }, { yield = true } ]
[[group]]
name = "waiter"
phases = [ { lock = "q" }, { wait = "c", mutex = "q" }, { unlock = "q" } ]
[[group]]
name = "signaller"
loops = 50
phases = [ { sleep = "2ms" }, { signal = "c" } ]
TOML
timeout 20 "$bin" measure "$tmp/sync.toml" --json "$tmp/sync.json" >"$tmp/sync.out" 2>&1; rc=$?
check "the events between tasks run (got $rc)" '[ $rc -eq 0 ] && grep -q "(6 of 6 tasks exited)" "$tmp/sync.out"'
check "timers, barrier, mutex, yield and condition tasks finish" 'python3 - "$tmp/sync.json" <<"PY"
import json, sys
j = json.load(open(sys.argv[1]))
t = {x["comm"]: x for x in j["tasks"]}
for c in ("tick-0", "tick-1", "lk-0", "lk-1", "waiter", "signaller"):
    assert t[c]["exit_ns"] is not None, c
assert 0.18e9 <= max(t["tick-0"]["exit_ns"], t["tick-1"]["exit_ns"]) <= 2e9, t["tick-0"]["exit_ns"]
PY'

# topology --host prints a [machine] section that run accepts.
"$bin" topology --host >"$tmp/machine.toml"; rc=$?
check "topology --host exits 0 (got $rc)" '[ $rc -eq 0 ] && grep -q "^\[machine\]" "$tmp/machine.toml" && grep -q "^# host: online" "$tmp/machine.toml"'
{ printf '[scenario]\nname = "t"\n'; cat "$tmp/machine.toml"; printf '[[group]]\nname = "w"\nphases = [ { run = "1ms" } ]\n'; } >"$tmp/t.toml"
"$bin" run "$tmp/t.toml" >/dev/null; rc=$?
check "run accepts the printed section (got $rc)" '[ $rc -eq 0 ]'
"$bin" topology --host --sysfs-root "$src/tests/data/sysfs-2s2c-smt2" >"$tmp/m2.toml"
check "--sysfs-root reads a fake tree" 'grep -q "^threads_per_core = 2$" "$tmp/m2.toml" && grep -q "^sockets = 2$" "$tmp/m2.toml"'
"$bin" topology --host --sysfs-root "$tmp/none" >/dev/null 2>"$tmp/err"; rc=$?
check "a missing tree exits 2 naming the file (got $rc)" '[ $rc -eq 2 ] && grep -q "none/cpu/online: cannot read" "$tmp/err"'
echo "$((n-fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
