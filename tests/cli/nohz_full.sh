#!/usr/bin/env bash
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
echo "1 passed, 0 failed"
