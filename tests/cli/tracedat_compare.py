#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compares `schedlab run --trace` (ftrace text) with `trace-cmd report -N -l -t` of the
trace.dat `--trace-dat` wrote for the same run: the same events, each with the same CPU, task
(comm and pid), latency flags, event name and fields, at the same time.

What trace-cmd report prints differently by design, and is normalised here:
- the header: the text's "# tracer: nop" block (its #P:N must equal report's "cpus=N" line);
- columns: report pads the comm, the event name and the CPU differently, and with -l glues the
  CPU number to the flags ("0d...."); whitespace between columns is not compared;
- timestamps: the text has the kernel's microseconds, rounded to the nearest (ns2usecs()),
  report -t the nanoseconds the file holds: the nanoseconds must round to the text's value;
- markers: the kernel prints a trace_marker write (ftrace's print event) as
  "tracing_mark_write: TEXT" (the function's name its print fmt's %ps gives, then the text);
  report names the event "print" and then prints the same "tracing_mark_write: TEXT";
- the comm in front: report -l prints it as the kernel's latency format does, cut to 8
  characters ("%8.8s"), so a longer text comm must begin with report's 8 characters (the
  event's own comm fields are printed whole and compared whole);
- order across CPUs: events of different CPUs at the same nanosecond are printed by report in
  CPU order, in the text in the order the model fired them; each CPU's own sequence must be
  the same, and report's times must never go back.

Usage: tracedat_compare.py TEXT_TRACE REPORT_OUTPUT
Prints one line per difference (at most 20) and a summary; exits 1 if there was any.
"""
import re
import sys
from collections import defaultdict

TEXT = re.compile(
    r"^\s*(?P<comm>.+)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<flags>\S{5})\s+"
    r"(?P<secs>\d+)\.(?P<frac>\d{6}): (?P<event>[a-z_0-9]+): (?P<body>.*)$")
REPORT = re.compile(
    r"^\s*(?P<comm>.+)-(?P<pid>\d+)\s+(?P<cpu>\d+)(?P<flags>[^\s\d]\S{4})\s+"
    r"(?P<secs>\d+)\.(?P<frac>\d{9}): (?P<event>[a-z_0-9]+):\s+(?P<body>.*)$")


def events(path, pattern, ns):
    by_cpu = defaultdict(list)
    ncpus, problems, last, n = None, [], -1, 0
    with open(path) as f:
        for i, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = re.match(r"^# entries-in-buffer/entries-written: \d+/\d+\s+#P:(\d+)$", line) or \
                re.match(r"^cpus=(\d+)$", line)
            if m:
                ncpus = int(m.group(1))
                continue
            if line.startswith("#") or not line.strip():
                continue
            m = pattern.match(line)
            if not m:
                problems.append(f"{path}:{i}: not an event line: {line[:80]}")
                continue
            t = int(m["secs"]) * 10**9 + int(m["frac"]) * (1 if ns else 1000)
            event, body = m["event"], " ".join(m["body"].split())
            if event == "print" and body.startswith("tracing_mark_write: "):
                event, body = "tracing_mark_write", body[len("tracing_mark_write: "):]
            if ns:
                if t < last:
                    problems.append(f"{path}:{i}: time goes back")
                last = t
                t = (t + 500) // 1000 * 1000  # the kernel's rounding to microseconds
            by_cpu[int(m["cpu"])].append(
                (t, m["comm"].strip(), int(m["pid"]), m["flags"], event, body, i))
            n += 1
    return ncpus, by_cpu, problems, n


def main():
    text, report = sys.argv[1], sys.argv[2]
    tcpus, tev, problems, tn = events(text, TEXT, ns=False)
    rcpus, rev, rproblems, rn = events(report, REPORT, ns=True)
    problems += rproblems
    if tcpus is None or tcpus != rcpus:
        problems.append(f"CPU count: text #P:{tcpus}, report cpus={rcpus}")
    if tn != rn:
        problems.append(f"{tn} events in the text, {rn} in the report")
    names = ("time", "comm", "pid", "flags", "event", "fields")
    for cpu in sorted(set(tev) | set(rev)):
        a, b = tev.get(cpu, []), rev.get(cpu, [])
        if len(a) != len(b):
            problems.append(f"cpu {cpu}: {len(a)} events in the text, {len(b)} in the report")
        for x, y in zip(a, b):
            same = [x[k] == y[k] for k in range(6)]
            same[1] = x[1] == y[1] or (len(y[1]) == 8 and x[1][:8] == y[1])
            diff = [f"{names[k]} {x[k]!r} != {y[k]!r}" for k in range(6) if not same[k]]
            if diff:
                problems.append(f"cpu {cpu}, text line {x[6]}, report line {y[6]}: "
                                + "; ".join(diff))
    for p in problems[:20]:
        print(p)
    kinds = sorted({e[4] for evs in tev.values() for e in evs})
    print(f"{tn} text events, {rn} report events on {len(tev)} CPUs ({', '.join(kinds)}); "
          f"{len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
