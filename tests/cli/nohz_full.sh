#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# scenarios/nohz-full.toml: with nohz_full=1-7 the pinned lone tasks of CPUs 1-7 run without
# ticks (one remote tick a second instead), CPU 0 keeps its ticks, and the schedule is the
# same as with the periodic tick; the run JSON and summary say so.
set -eu
bin=$1; src=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sc=$src/scenarios/nohz-full.toml
"$bin" run "$sc" --config "periodic tick" --json "$tmp/tick.json" >"$tmp/tick.txt"
"$bin" run "$sc" --config "nohz_full=1-7" --json "$tmp/nohz.json" >"$tmp/nohz.txt"
python3 - "$tmp/tick.json" "$tmp/nohz.json" <<'PY'
import json, sys
tick, nohz = (json.load(open(f)) for f in sys.argv[1:3])
assert "nohz_full" not in tick["kernel"], tick["kernel"].get("nohz_full")
assert nohz["kernel"]["nohz_full"] == "1-7", nohz["kernel"].get("nohz_full")
assert tick["completion_time_ns"] == nohz["completion_time_ns"]
assert tick["events"] > nohz["events"], (tick["events"], nohz["events"])
t, n = tick["cpus"], nohz["cpus"]
assert all("remote_ticks" not in c for c in t)
assert t[0]["ticks"] == n[0]["ticks"] > 0 and n[0]["remote_ticks"] == 0
for c in range(1, 8):
    assert t[c]["ticks"] > 9000, (c, t[c]["ticks"])  # ~10 s busy at HZ=1000
    assert n[c]["ticks"] == 0, (c, n[c]["ticks"])
    assert 9 <= n[c]["remote_ticks"] <= 10, (c, n[c]["remote_ticks"])
PY
grep -q '^nohz_full=1-7: .* ticks (.* remote); per CPU: 0:[0-9]*(0) 1:0(' "$tmp/nohz.txt" ||
  { echo "no nohz_full line in the summary"; cat "$tmp/nohz.txt"; exit 1; }
! grep -q '^nohz_full' "$tmp/tick.txt" || { echo "nohz_full line without nohz_full"; exit 1; }
# A run whose last finite task can never finish ends when nothing is left to happen: the
# remote tick, queued only while a nohz_full CPU runs a task, must not keep it going forever.
cat >"$tmp/stuck.toml" <<'TOML'
[scenario]
name = "stuck"
[machine]
cores_per_llc = 4
threads_per_core = 2
[kernel]
nohz_full = "1-7"
[[group]]
name = "waiter"
cpus = "3"
phases = [ { run = "1500ms" }, { suspend = "never" } ]
[[group]]
name = "worker"
count = 2
loops = 10
phases = [ { run = "2ms" }, { sleep = "1ms" } ]
TOML
timeout 60 "$bin" run "$tmp/stuck.toml" --json "$tmp/stuck.json" >"$tmp/stuck.txt" ||
  { echo "the stuck run did not end by itself (rc $?)"; exit 1; }
grep -q "(2 of 3 tasks exited)" "$tmp/stuck.txt" || { cat "$tmp/stuck.txt"; exit 1; }
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["cpus"]; assert sum(x["remote_ticks"] for x in c) >= 1, c' "$tmp/stuck.json"
echo "2 passed, 0 failed"
