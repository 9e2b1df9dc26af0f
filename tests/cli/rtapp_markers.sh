#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# rt-app's ftrace markers in `run --trace` of an rt-app file that asks for them
# (tests/data/rtapp/ftrace.json): every marker line parses with the patterns LISA reads them
# with, and the loops LISA's rt-app analysis counts (rtapp_loop start/end per task, phase and
# loop) are those the file describes. Also: the trace's prefixes are ftrace's (the reference
# parser), the view is the same without the stats category but for the stats lines, and the
# markers leave the results unchanged.
set -euo pipefail
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
json=$src/tests/data/rtapp/ftrace.json
fails=0

"$bin" run "$json" --trace "$tmp/t.trace" --json "$tmp/with.json" >/dev/null
if python3 "$src/tests/cli/ftrace_reference_parser.py" "$tmp/t.trace" \
     --require sched_switch tracing_mark_write >"$tmp/ref.txt"; then
  echo "ok: the trace, markers included, reads as ftrace's ($(tail -n 1 "$tmp/ref.txt"))"
else
  cat "$tmp/ref.txt"
  echo "FAIL: the reference parser found problems"
  fails=$((fails + 1))
fi

if python3 - "$tmp/t.trace" "$json" <<'PY'; then
import json, re, sys
from collections import defaultdict

# The patterns are LISA's (github.com/ARM-software/lisa, lisa/trace.py):
# HRTxtTraceParser.HEADER_REGEX, the line of a text trace, with the skeleton's
# " *(?P<__fields>.*)" after it (SimpleTxtTraceParser._get_skeleton_regex);
HEADER = (r'\s*(?P<__comm>.+)-(?P<__pid>\d+)[^\[]*\[(?P<__cpu>\d*)\][^\d]+'
          r'(?P<__timestamp>\d+\.\d+): +(?P<__event>\w+):')
LINE = re.compile(HEADER.replace('?P<__', '?P<_') + r' *(?P<_fields>.*)')
# MetaTxtTraceParser.HEADER_REGEX, the "userspace@" event inside the marker's text;
META = re.compile(r'(?P<_event>[\w@]+):?')
# TxtEventParser._get_fields_regex(): each field as FIELD=(?P<FIELD>.+?)(?: +|$), plus a
# catch-all for the others, repeated; the fields are those of MetaTxtTraceParser.EVENT_DESCS.
FIELDS = {
    'rtapp_loop': ['phase', 'phase_loop', 'thread_loop', 'event'],
    'rtapp_main': ['event', 'data'],
    'rtapp_task': ['event'],
    'rtapp_event': ['desc', 'id', 'type'],
    'rtapp_stats': ['period', 'run', 'wa_lat', 'slack', 'c_period', 'c_run'],
}
def fields_regex(names):
    alts = [rf'{re.escape(f)}=(?P<{f}>.+?)(?: +|$)' for f in names] + [r'\w+=\S+?(?: +|$)']
    return re.compile(r' *(?:' + '|'.join(alts) + r')+')

trace, spec = sys.argv[1], json.load(open(sys.argv[2]))
events = defaultdict(list)  # (pid, comm) -> [(meta event, fields)]
bad = 0
for n, l in enumerate(open(trace), 1):
    l = l.rstrip('\n')
    if l.startswith('#') or 'tracing_mark_write' not in l:
        continue
    m = LINE.fullmatch(l)
    if not m or m['_event'] != 'tracing_mark_write':
        print(f'{trace}:{n}: not a text trace line LISA reads: {l!r}')
        bad += 1
        continue
    buf = m['_fields']
    h = META.match(buf)
    ev = h['_event'] if h else None
    if ev not in FIELDS:
        print(f'{trace}:{n}: not an rt-app marker: {buf!r}')
        bad += 1
        continue
    f = fields_regex(FIELDS[ev]).fullmatch(buf[h.end():])
    if not f:
        print(f'{trace}:{n}: {ev} fields do not parse: {buf!r}')
        bad += 1
        continue
    events[(int(m['_pid']), m['_comm'].strip())].append((ev, f.groupdict()))

# What the file asks for, per thread: (thread loops, [loops of each phase]).
want = {}
for name, t in spec['tasks'].items():
    if 'phases' in t:
        want[name] = (t.get('loop', -1), [p.get('loop', 1) for p in t['phases'].values()],
                      t.get('instance', 1))
    else:  # the task object is one phase of `loop` iterations, run once
        want[name] = (1, [t.get('loop', 1)], t.get('instance', 1))

main = [f['event'] for (pid, comm), evs in events.items() for e, f in evs if e == 'rtapp_main'
        and f['event'] in ('start', 'end')]
if sorted(main) != ['end', 'start']:
    print(f'rtapp_main start/end: {main}')
    bad += 1
threads = defaultdict(int)
for (pid, comm), evs in events.items():
    task = re.sub(r'-\d+$', '', comm)
    if task not in want:
        continue  # rt-app's main thread's lines, written on CPU 0
    threads[task] += 1
    loops, phase_loops, _ = want[task]
    tasks = [f['event'] for e, f in evs if e == 'rtapp_task']
    starts = [(int(f['thread_loop']), int(f['phase']), int(f['phase_loop']))
              for e, f in evs if e == 'rtapp_loop' and f['event'] == 'start']
    ends = [(int(f['thread_loop']), int(f['phase']), int(f['phase_loop']))
            for e, f in evs if e == 'rtapp_loop' and f['event'] == 'end']
    stats = [f for e, f in evs if e == 'rtapp_stats']
    expect = [(t, p, l) for t in range(loops) for p in range(len(phase_loops))
              for l in range(phase_loops[p])]
    # LISA's df_phases: the phases of a thread are its distinct phase numbers.
    phases = sorted({p for _, p, _ in starts})
    problems = []
    if tasks != ['start', 'end']:
        problems.append(f'rtapp_task events {tasks}')
    if starts != expect or ends != expect:
        problems.append(f'loops started {starts}, ended {ends}, the file says {expect}')
    if phases != list(range(len(phase_loops))):
        problems.append(f'phases {phases}, the file has {len(phase_loops)}')
    if len(stats) != len(ends) or any(int(s['period']) <= 0 for s in stats):
        problems.append(f'{len(stats)} rtapp_stats lines for {len(ends)} loops')
    if problems:
        print(f'{comm}[{pid}]: ' + '; '.join(problems))
        bad += 1
    else:
        print(f'{comm}[{pid}]: {len(phases)} phases, {len(starts)} loops, as the file says')
for task, (_, _, instances) in want.items():
    if threads[task] != instances:
        print(f'{task}: markers from {threads[task]} threads, the file has {instances}')
        bad += 1
sys.exit(1 if bad else 0)
PY
  echo "ok: LISA's patterns parse every marker; phases and loops are the file's"
else
  echo "FAIL: markers that LISA's patterns do not read, or loops that are not the file's"
  fails=$((fails + 1))
fi

# The markers take no time: the same results without them.
sed 's/"ftrace" : "main,task,loop,event,stats"/"ftrace" : "none"/' "$json" >"$tmp/ftrace.json"
"$bin" run "$tmp/ftrace.json" --trace "$tmp/none.trace" --json "$tmp/without.json" >/dev/null
if grep -q tracing_mark_write "$tmp/none.trace"; then
  echo 'FAIL: "ftrace": "none" wrote markers'
  fails=$((fails + 1))
elif [ "$(grep -v tracing_mark_write "$tmp/t.trace" | tail -n +4)" = \
       "$(tail -n +4 "$tmp/none.trace")" ] &&
     python3 -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
sys.exit(not all(a[k] == b[k] for k in ("end_time_ns", "events", "tasks", "cpus")))' \
       "$tmp/with.json" "$tmp/without.json"; then
  echo "ok: without the markers the trace's other lines and the results are the same"
else
  echo "FAIL: the markers changed the run"
  fails=$((fails + 1))
fi
[ $fails -eq 0 ]
