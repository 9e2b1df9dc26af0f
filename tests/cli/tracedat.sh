#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# trace-cmd's binary trace: `schedlab run --trace-dat` writes trace.dat and `schedlab replay`
# reads it. `trace-cmd report` of the file must print the events of the run's text trace, one
# by one (tracedat_compare.py says which differences of layout it normalises and why), with
# the 6.12 and the 6.18 event layouts, and trace-cmd's own writer copies it byte for byte; the
# file is deterministic, streams to a pipe and keeps the trace window's CPUs. A replay of the file equals the replay of the same events as text
# and matches the replay of the run's own text trace; truncated and corrupt files are refused
# with one line and exit 2. Writing needs nothing; the checks against trace-cmd need it, the
# replays need libtracecmd in the build: without them the test exits 77 once the rest passed.
set -u
bin=$(realpath "$1"); src=$(realpath "$2"); tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; n=0; skip=""
check() { n=$((n+1)); if ! eval "$2"; then echo "FAIL: $1"; fail=$((fail+1)); fi; }
one_line() { [ "$(wc -l <"$1")" -eq 1 ]; }
cd "$tmp" || exit 1

# Five runs, each traced as text and as trace.dat: a real machine's 6.12 kernel with
# core-scheduling markers (the whole run: forks, exits), with the load-tracking events too,
# 6.18 runs with cookies and with hackbench's forks and exits, and rt-app's markers.
runs="g612 p612 w618 h618 rtapp"
args_g612="$src/scenarios/golden-6.12-pairs-4t.toml"
args_p612="$src/scenarios/golden-6.12-pairs-4t.toml --trace-pelt --trace-to 1s"
args_w618="$src/scenarios/wakeup-fastpath.toml --config Cookie --trace-pelt --trace-to 0.5s"
args_h618="$src/scenarios/hackbench-small.toml --trace-to 0.05s"
args_rtapp="$src/tests/data/rtapp/ftrace.json"
for r in $runs; do
  a="args_$r"
  # shellcheck disable=SC2086
  "$bin" run ${!a} --trace "$r.txt" --trace-dat "$r.dat" >/dev/null 2>"$r.err"; rc=$?
  check "$r: run with --trace and --trace-dat (exit $rc: $(head -1 "$r.err"))" '[ $rc -eq 0 ] && [ -s "$r.dat" ]'
done
check "the file starts with trace-cmd's magic and version 6" \
  'cmp -s <(head -c 12 g612.dat) <(printf "\x17\x08\x44tracing6\0")'
check "6.18's sched_process_exit format has group_dead, 6.12's does not" \
  'grep -aq "field:bool group_dead;" h618.dat && ! grep -aq "group_dead" g612.dat'
"$bin" run "$src/scenarios/golden-6.12-pairs-4t.toml" --trace-dat again.dat >/dev/null; rc=$?
check "the same run writes the same bytes" '[ $rc -eq 0 ] && cmp -s g612.dat again.dat'
"$bin" run "$src/scenarios/golden-6.12-pairs-4t.toml" --trace-dat - 2>/dev/null | cat >pipe.dat
check "--trace-dat - (a pipe) writes the same bytes" 'cmp -s g612.dat pipe.dat'
"$bin" run "$src/scenarios/golden-6.12-pairs-4t.toml" --trace-dat cpus.dat --trace-cpus 1,3 \
  --trace-to 1s >/dev/null; rc=$?
check "--trace-cpus with --trace-dat runs" '[ $rc -eq 0 ]'
"$bin" run "$src/scenarios/golden-6.12-pairs-4t.toml" --trace-dat - --json - >/dev/null 2>err; rc=$?
check "--trace-dat - and --json -: exit 2" '[ $rc -eq 2 ] && grep -q "only one output can go to stdout" err'
"$bin" run "$src/scenarios/golden-6.12-pairs-4t.toml" --trace-dat /nonexistent/x.dat >/dev/null 2>err; rc=$?
check "--trace-dat to a directory that does not exist: exit 1, one line" \
  '[ $rc -eq 1 ] && one_line err && grep -q "^schedlab run: --trace-dat /nonexistent/x.dat: cannot open for writing: No such file or directory$" err'
if [ -w /dev/full ]; then
  "$bin" run "$src/scenarios/golden-6.12-pairs-4t.toml" --trace-dat /dev/full >/dev/null 2>err; rc=$?
  check "--trace-dat to a full device: exit 1, one line with the reason" \
    '[ $rc -eq 1 ] && one_line err && grep -q "/dev/full: write failed: No space left on device" err'
fi
"$bin" run "$src/scenarios/golden-6.12-pairs-4t.toml" --trace-pelt --trace-to 1s --trace-dat alone.dat >/dev/null; rc=$?
check "--trace-pelt and the window with --trace-dat alone" '[ $rc -eq 0 ] && cmp -s p612.dat alone.dat'

# trace-cmd report reads the files and prints the text traces' events.
if command -v trace-cmd >/dev/null; then
  for r in $runs; do
    trace-cmd report -N -l -t "$r.dat" >"$r.report" 2>"$r.report.err"; rc=$?
    check "$r: trace-cmd report reads it (exit $rc: $(head -1 "$r.report.err"))" '[ $rc -eq 0 ] && [ ! -s "$r.report.err" ]'
    check "$r: trace-cmd report prints the text trace's events ($(python3 "$src/tests/cli/tracedat_compare.py" "$r.txt" "$r.report" | tail -1))" \
      'python3 "$src/tests/cli/tracedat_compare.py" "$r.txt" "$r.report" >/dev/null'
  done
  check "the 6.12 runs have exits and load-tracking events, the 6.18 ones markers, forks and exits" \
    'grep -q " sched_process_exit: " g612.report && grep -q " lisa__sched_pelt_se: " p612.report &&
     grep -q " tracing_mark_write: C|0|forceidle_cpu" w618.report && grep -q "group_dead=true" h618.report'
  check "rt-app's markers are print events, as many as in the text trace" \
    '[ "$(grep -c " print: *tracing_mark_write: rtapp_loop: " rtapp.report)" -gt 0 ] &&
     [ "$(grep -c " print: *tracing_mark_write: rtapp_" rtapp.report)" -eq "$(grep -c " tracing_mark_write: rtapp_" rtapp.txt)" ]'
  for r in $runs; do
    trace-cmd convert -i "$r.dat" -o "$r.v6.dat" --file-version 6 --compression none >/dev/null 2>&1; rc=$?
    check "$r: trace-cmd's own writer, copying the file as version 6 (trace-cmd convert), writes the same bytes" \
      '[ $rc -eq 0 ] && cmp -s "$r.dat" "$r.v6.dat"'
  done
  check "every event format parses (trace-cmd report --check-events)" \
    'trace-cmd report --check-events w618.dat >/dev/null 2>&1 && trace-cmd report --check-events h618.dat >/dev/null 2>&1'
  check "with its plugins too (trace-cmd report, the sched_switch plugin's layout)" \
    'trace-cmd report g612.dat 2>/dev/null | grep -q "cbw0:1 \[120\] S ==> swapper/"'
  check "--trace-cpus 1,3: the file has data on CPUs 1 and 3 only, of 4" \
    '[ "$(trace-cmd report --cpus cpus.dat | tail -n +2 | tr -d " " | paste -sd,)" = "1,3" ] && trace-cmd report cpus.dat | head -1 | grep -qx "cpus=4"'
else
  skip="no trace-cmd (scripts/install-deps.sh --all): the files are not checked against trace-cmd report"
fi

# Replay of a trace.dat.
"$bin" replay g612.dat >rep.out 2>rep.err; rc=$?
if [ $rc -eq 3 ]; then
  check "without libtracecmd, replay of a trace.dat: exit 3, one line saying so" \
    'one_line rep.err && grep -q "^schedlab replay: g612.dat: a trace-cmd data file: unsupported here: built without libtracecmd$" rep.err'
  skip="${skip:+$skip; }schedlab was built without libtracecmd: replay of trace.dat is not tested"
else
  check "replay of a trace.dat (exit $rc: $(head -1 rep.err))" '[ $rc -eq 0 ] && grep -q "(4 of 4 tasks exited)" rep.out'
  # The same events as a text trace with the file's nanoseconds: what trace-cmd report prints,
  # in the kernel's text layout. Both replays read a file named "t" (the name is in the JSON).
  if command -v trace-cmd >/dev/null; then
    for r in g612 h618; do
      mkdir -p "$r-dat" "$r-ns"
      cp "$r.dat" "$r-dat/t"
      python3 - "$r.report" "$r-ns/t" <<"PY"
import re, sys
line = re.compile(r"^(\s*.+-\d+)\s+(\d+)(\S{5})\s+(\d+\.\d{9}): (\S+):\s+(.*)$")
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
    for l in f:
        if l.startswith("cpus="):
            out.write(f"#P:{int(l[5:])}\n")
        m = line.match(l)
        if not m:
            continue
        task, cpu, flags, ts, event, body = m.groups()
        if event == "print" and body.startswith("tracing_mark_write: "):
            event, body = "tracing_mark_write", body[len("tracing_mark_write: "):]
        out.write(f"{task} [{int(cpu):03d}] {flags} {ts}: {event}: {body}\n")
PY
      (cd "$r-dat" && "$bin" replay t --json j.json >/dev/null 2>&1); rc1=$?
      (cd "$r-ns" && "$bin" replay t --json j.json >/dev/null 2>&1); rc2=$?
      check "$r: replay of the trace.dat equals replay of its events as text with nanoseconds" \
        '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && python3 -c "import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); [d.pop(\"host\") for d in (a,b)]; sys.exit(a!=b)" "$r-dat/j.json" "$r-ns/j.json"'
    done
  fi
  # trace-cmd's version 7, compressed: the same replay.
  if command -v trace-cmd >/dev/null; then
    mkdir -p v7
    trace-cmd convert -i g612.dat -o v7/t --file-version 7 --compression any >/dev/null 2>&1; rc=$?
    (cd v7 && "$bin" replay t --json j.json >/dev/null 2>&1); rc2=$?
    check "a version 7 file, compressed by trace-cmd convert, replays as the version 6 one" \
      '[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && [ "$(head -c 11 v7/t | tail -c 1)" = 7 ] && python3 -c "import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); [d.pop(\"host\") for d in (a,b)]; sys.exit(a!=b)" g612-dat/j.json v7/j.json'
  fi
  # Against the run's own text trace, whose times are rounded to the microsecond: the same
  # tasks woken the same ways, their CPU time the same to the text's rounding.
  "$bin" replay g612.dat --json dat.json >/dev/null 2>&1; rc1=$?
  "$bin" replay g612.txt --json txt.json >/dev/null 2>&1; rc2=$?
  check "replay of the trace.dat matches replay of the run's text trace" \
    '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && python3 - dat.json txt.json <<"PY"
import json, sys
a, b = (json.load(open(f))["replay"] for f in sys.argv[1:])
assert a["traced_cpus"] == b["traced_cpus"] and len(a["tasks"]) == len(b["tasks"]) >= 4
assert abs(a["traced_span_ns"] - b["traced_span_ns"]) <= 1000
for x, y in zip(a["tasks"], b["tasks"]):
    for k in ("comm", "trace_pid", "woken_by_task", "woken_by_timer"):
        assert x[k] == y[k], (k, x, y)
    # at most half a microsecond of rounding at each end of each run of the task
    runs = 2 * (x["woken_by_task"] + x["woken_by_timer"] + 1)
    assert abs(x["trace_runtime_ns"] - y["trace_runtime_ns"]) <= 500 * runs, (x, y)
    assert x["trace_runtime_ns"] > 0
PY'

  # Bad files: one line naming the file, exit 2, nothing on stdout.
  refused() {  # FILE [PATTERN]
    "$bin" replay "$1" >out 2>err; rc=$?
    [ $rc -eq 2 ] && one_line err && [ ! -s out ] && grep -q "^$1: error: ${2:-}" err
  }
  size=$(stat -c %s g612.dat)
  for cut in 10 16 600 5000 8192 $((size / 2)) $((size - 100)); do
    head -c "$cut" g612.dat >"cut$cut.dat"
    check "truncated to $cut of $size bytes: exit 2, one line" 'refused "cut$cut.dat"'
  done
  printf '\x17\x08\x44tracing6\0garbage' >garbage.dat
  check "the magic and then garbage: exit 2" 'refused garbage.dat'
  sed 's/field:pid_t prev_pid;/field:pid_t prev_pXd;/' g612.dat >noprevpid.dat
  check "sched_switch's format without prev_pid: exit 2 naming it" \
    'refused noprevpid.dat "sched:sched_switch.s format has no field prev_pid"'
  # The last page's timestamp made 2^60 ns: its events jump 36 years ahead.
  python3 - g612.dat far.dat <<"PY"
import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[-4096:-4088] = (1 << 60).to_bytes(8, "little")
open(sys.argv[2], "wb").write(d)
PY
  check "a timestamp 36 years on: exit 2, not a replay that never ends" 'refused far.dat "the trace spans"'
  # Random damage: never a crash or a hang, and a refusal is one line.
  check "40 randomly damaged copies: each replays or is refused in one line, none crashes or hangs" \
    'python3 - "$bin" g612.dat <<"PY"
import random, subprocess, sys
bin, data = sys.argv[1], open(sys.argv[2], "rb").read()
random.seed(7)
for trial in range(40):
    d = bytearray(data)
    if trial % 5 == 0:
        d = d[:random.randrange(len(d))]
    else:
        for _ in range(random.choice([1, 4, 16])):
            d[random.randrange(10, len(d))] = random.randrange(256)
    open("fuzz.dat", "wb").write(d)
    p = subprocess.run([bin, "replay", "fuzz.dat"], capture_output=True, text=True, timeout=60)
    lines = p.stderr.strip().splitlines()
    assert p.returncode in (0, 2), (trial, p.returncode, p.stderr[:300])
    assert p.returncode == 0 or (len(lines) == 1 and lines[0].startswith("fuzz.dat: error: ")), (trial, p.stderr[:300])
PY'
fi

echo "tracedat: $((n - fail))/$n checks passed"
[ $fail -eq 0 ] || exit 1
if [ -n "$skip" ]; then echo "SKIP: $skip"; exit 77; fi
exit 0
