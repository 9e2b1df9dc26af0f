#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# run --timehist prints perf sched timehist's view: its three header lines, a line per context
# switch in perf's columns and widths, run times that add up to each task's CPU time in
# run --json, wakeup and migration lines with --timehist-wakeups / --timehist-migrations, the
# window and CPUs of --trace-from/--trace-to/--trace-cpus; replay --timehist too. Where perf can
# record scheduler tracepoints here, the header and the columns are compared with what
# `perf sched timehist` prints for a live capture; otherwise that part is skipped (exit 77 once
# the rest has passed).
set -euo pipefail
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok: $*"; }
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}

# The view: from perf's header on.
view() { sed -n '/^           time    cpu  task name/,$p' "$1"; }

"$bin" run "$src/scenarios/smoke.toml" --timehist --json "$tmp/r.json" >"$tmp/out.txt"
view "$tmp/out.txt" >"$tmp/th.txt"
# perf sched timehist's header (perf 6.1 and later print these three lines without options).
cat >"$tmp/header" <<'EOF'
           time    cpu  task name                       wait time  sch delay   run time
                        [tid/pid]                          (msec)     (msec)     (msec)
--------------- ------  ------------------------------  ---------  ---------  ---------
EOF
if [ "$(head -n 3 "$tmp/th.txt")" = "$(cat "$tmp/header")" ]; then
  ok "the header is perf sched timehist's"
else
  fail "the header differs from perf sched timehist's:"$'\n'"$(head -n 3 "$tmp/th.txt")"
fi

# Every line in perf's columns; the run times of each task add up to its runtime_ns in the JSON
# (each printed value is truncated to the microsecond, so the sum is short by less than 1 us a
# line).
if python3 - "$tmp/th.txt" "$tmp/r.json" <<'EOF'; then
import json, re, sys
lines = open(sys.argv[1]).read().splitlines()[3:]
# "%15s [%04d] " " %-30s " then three "%6lu.%03lu " (perf's print_sched_time)
row = re.compile(r'^ *(\d+)\.(\d{6}) \[(\d{4})\]  (.{30}) ((?:[ \d]{6}\.\d{3} ){3})$')
runs, count, bad = {}, {}, 0
for l in lines:
    m = row.match(l)
    if not m or len(l) != 88 or len(m.group(0)) - len(l.lstrip()) > 15:
        print(f"not in perf's columns: {l!r}")
        bad += 1
        continue
    name = m.group(4).rstrip()
    wait, delay, run = (float(x) for x in m.group(5).split())
    if name != "<idle>" and not re.fullmatch(r'\S+\[\d+(/\d+)?\]', name):
        print(f"task name not comm[tid] or comm[tid/pid]: {name!r}")
        bad += 1
    runs[name] = runs.get(name, 0.0) + run
    count[name] = count.get(name, 0) + 1
tasks = json.load(open(sys.argv[2]))["tasks"]
for t in tasks:
    names = [n for n in runs if re.fullmatch(re.escape(t["comm"]) + r'\[' + str(t["pid"]) + r'(/\d+)?\]', n)]
    if len(names) != 1:
        print(f"task {t['comm']}:{t['pid']}: no timehist lines")
        bad += 1
        continue
    want, got, n = t["runtime_ns"] / 1e6, runs[names[0]], count[names[0]]
    if not (0 <= want - got < n * 0.001 + 1e-6):
        print(f"{names[0]}: run times add up to {got:.3f} ms, runtime_ns says {want:.6f} ms")
        bad += 1
    else:
        print(f"{names[0]}: {n} switches, run times {got:.3f} ms of {want:.6f} ms")
sys.exit(1 if bad or len(lines) < 100 else 0)
EOF
  ok "perf's columns, and the run times add up to each task's runtime"
else
  fail "columns or run times"
fi

# Wakeups and migrations: a line per sched_waking and per new task's wakeup, a line per
# migration, from the CPU where they happen; switch lines get perf's blank column after them.
"$bin" run "$src/scenarios/smoke.toml" --timehist --timehist-wakeups --timehist-migrations \
  --json "$tmp/r.json" >"$tmp/out.txt"
view "$tmp/out.txt" >"$tmp/thw.txt"
if python3 - "$tmp/thw.txt" "$tmp/r.json" <<'EOF'; then
import json, re, sys
lines = open(sys.argv[1]).read().splitlines()[3:]
tasks = json.load(open(sys.argv[2]))["tasks"]
pad = 15 + 8 + 32 + 34  # time, [cpu], task column, the blank time columns
woken = [l for l in lines if l[pad:pad + 10] == "awakened: "]
moved = [l for l in lines if l[pad:pad + 10] == "migrated: "]
switches = [l for l in lines if l not in woken and l not in moved]
bad = 0
if len(woken) != sum(t["nr_wakeups"] for t in tasks) + len(tasks):
    print(f"{len(woken)} awakened lines for {sum(t['nr_wakeups'] for t in tasks)} wakeups and {len(tasks)} new tasks")
    bad += 1
if len(moved) != sum(t["nr_migrations"] for t in tasks):
    print(f"{len(moved)} migrated lines for {sum(t['nr_migrations'] for t in tasks)} migrations")
    bad += 1
for l in moved:
    if not re.search(r'migrated: \S+\[\d+(/\d+)?\] cpu \d+ => \d+$', l):
        print(f"bad migration line {l!r}")
        bad += 1
for l in switches:
    if len(l) != 88 + 32 or l[88:].strip():
        print(f"switch line without perf's -w blank column: {l!r}")
        bad += 1
sys.exit(1 if bad or not woken or not moved else 0)
EOF
  ok "--timehist-wakeups and --timehist-migrations lines"
else
  fail "wakeup or migration lines"
fi

# The trace window and CPUs.
"$bin" run "$src/scenarios/smoke.toml" --timehist --timehist-wakeups --trace-from 100ms \
  --trace-to 200ms --trace-cpus 1 >"$tmp/out.txt"
view "$tmp/out.txt" | tail -n +4 >"$tmp/win.txt"
if [ -s "$tmp/win.txt" ] &&
   awk '{ t = $1 + 0; if (t < 0.1 || t > 0.2 || $2 != "[0001]") { print; bad = 1 } } END { exit bad }' \
     "$tmp/win.txt"; then
  ok "--trace-from/--trace-to/--trace-cpus bound the view ($(wc -l <"$tmp/win.txt") lines)"
else
  fail "lines outside the window or on another CPU"
fi

# Flags that need --timehist, and the window without any output.
for args in "--timehist-wakeups" "--timehist-migrations"; do
  if out=$("$bin" run "$src/scenarios/smoke.toml" $args 2>&1); then
    fail "$args without --timehist ran"
  elif [ "$out" = "schedlab run: $args needs --timehist" ]; then
    ok "$args without --timehist: exit 2, one line"
  else
    fail "$args without --timehist: $out"
  fi
done
if out=$("$bin" run "$src/scenarios/smoke.toml" --trace-from 1s 2>&1); then
  fail "--trace-from alone ran"
elif [ "$out" = "schedlab run: --trace-from needs --trace, --trace-dat, --trace-json or --timehist" ]; then
  ok "--trace-from alone names the outputs it needs"
else
  fail "--trace-from alone: $out"
fi
# Nothing of the view is printed when the run fails.
if "$bin" run "$src/scenarios/smoke.toml" --timehist --max-events 10 >"$tmp/out.txt" 2>/dev/null; then
  fail "--max-events 10 did not stop the run"
elif grep -q "task name" "$tmp/out.txt"; then
  fail "a failed run printed the timehist view"
else
  ok "a failed run prints no view"
fi

# replay prints the same view of the replayed run.
"$bin" replay "$src/tests/data/traces/perf-sched-messaging.txt" --timehist >"$tmp/out.txt"
view "$tmp/out.txt" >"$tmp/replay.txt"
if [ "$(head -n 3 "$tmp/replay.txt")" = "$(cat "$tmp/header")" ] &&
   [ "$(wc -l <"$tmp/replay.txt")" -gt 100 ]; then
  ok "replay --timehist"
else
  fail "replay --timehist printed no view"
fi

# perf itself: the same header lines, and the same columns for switch, wakeup and migration
# lines (the position of each field), for a live `perf sched record`.
live=0
if command -v perf >/dev/null 2>&1 &&
   perf sched record -o "$tmp/perf.data" -- perf bench sched messaging -g 1 -l 50 \
     >/dev/null 2>&1 &&
   perf sched timehist -i "$tmp/perf.data" -w -M >"$tmp/perf.txt" 2>/dev/null &&
   [ -s "$tmp/perf.txt" ]; then
  live=1
  perf sched timehist -i "$tmp/perf.data" >"$tmp/perf-plain.txt" 2>/dev/null || true
  if [ "$(head -n 3 "$tmp/perf-plain.txt")" = "$(head -n 3 "$tmp/th.txt")" ]; then
    ok "the header is the one perf sched timehist prints here"
  else
    fail "perf sched timehist's header here is:"$'\n'"$(head -n 3 "$tmp/perf-plain.txt")"
  fi
  if python3 - "$tmp/perf.txt" "$tmp/thw.txt" <<'EOF'; then
import re, sys
# Each line's shape: the time in 15 columns, "[cpu]", the task column, then for a switch the
# three "%6lu.%03lu " times (each shown as #) and the blank column -w adds, for a wakeup or a
# migration the blank time columns and its word.
def shapes(path):
    out = {}
    for l in open(path).read().splitlines()[3:]:
        m = re.match(r'^( *\d+\.\d{6}) \[\d{4}\]  ', l)
        if not m or len(m.group(1)) != 15 or len(l) < 56 or l[54] != ' ':
            continue  # a name longer than 30 widens perf's column: not compared
        rest = l[55:]
        if rest[:34] == ' ' * 34 and rest[34:44] in ("awakened: ", "migrated: "):
            out.setdefault(rest[34:42], "word at column 89")
        else:
            out.setdefault("switch", re.sub(r'[ \d]{6}\.\d{3} ', '#', rest))
    return out
perf, ours = shapes(sys.argv[1]), shapes(sys.argv[2])
bad = 0
for kind in ("switch", "awakened", "migrated"):
    if kind not in perf:
        continue
    if ours.get(kind) != perf[kind]:
        print(f"{kind} lines: perf {perf[kind]!r}\n{' ' * (len(kind) + 8)}ours {ours.get(kind)!r}")
        bad += 1
    else:
        print(f"{kind} lines: same columns as perf's")
sys.exit(1 if bad or "switch" not in perf else 0)
EOF
    ok "switch, wakeup and migration lines in the columns perf prints here"
  else
    fail "columns differ from perf sched timehist's"
  fi
fi

[ $fails -eq 0 ] || exit 1
if [ $live -eq 0 ]; then
  echo "timehist: perf cannot record scheduler tracepoints here: the comparison with perf was skipped"
  exit 77
fi
