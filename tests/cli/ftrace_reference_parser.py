#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A reference parser for ftrace text traces, written from the documentation of the format:
Documentation/trace/ftrace.rst ("Output format" of the nop tracer: TASK-PID, CPU#, the latency
flags irqs-off/need-resched/hardirq-softirq/preempt-depth, TIMESTAMP, FUNCTION) and the
"print fmt" lines of /sys/kernel/tracing/events/sched/*/format. It also checks what Perfetto's
ftrace text importer relies on: no spaces in a task name, at most 4 flag characters, and
sched_waking present.

Usage: ftrace_reference_parser.py TRACE [--require EVENT ...]
Prints one line per problem (file:line: what) and a summary; exits 1 if any problem was found.
"""
import re
import sys

LINE = re.compile(
    r"^\s*(?P<comm>\S+)-(?P<pid>\d+)\s+\[(?P<cpu>\d{3,})\]\s+(?P<flags>\S{1,4})\s+"
    r"(?P<ts>\d+\.\d{6}): (?P<event>[a-z_]+): (?P<body>.*)$")
# Flag columns (ftrace.rst): irqs-off, need-resched, hardirq/softirq, preempt-depth.
FLAG_CHARS = ["dDXb.", "NnpP.", "ZzHhs.", "0123456789abcdef."]
COMM = r"\S+"
# Event bodies, from the events' print fmt. Values are typed: %d, %s (no spaces), %03d.
EVENTS = {
    "sched_switch": re.compile(
        rf"^prev_comm=(?P<prev_comm>{COMM}) prev_pid=(?P<prev_pid>\d+) prev_prio=\d+ "
        rf"prev_state=(?P<prev_state>[RSDTtXZPIN|+]+) ==> next_comm=(?P<next_comm>{COMM}) "
        rf"next_pid=(?P<next_pid>\d+) next_prio=\d+$"),
    "sched_waking": re.compile(rf"^comm=(?P<comm>{COMM}) pid=(?P<pid>\d+) prio=\d+ target_cpu=\d{{3}}$"),
    "sched_wakeup": re.compile(rf"^comm=(?P<comm>{COMM}) pid=(?P<pid>\d+) prio=\d+ target_cpu=\d{{3}}$"),
    "sched_wakeup_new": re.compile(
        rf"^comm=(?P<comm>{COMM}) pid=(?P<pid>\d+) prio=\d+ target_cpu=\d{{3}}$"),
    "sched_migrate_task": re.compile(
        rf"^comm=(?P<comm>{COMM}) pid=(?P<pid>\d+) prio=\d+ orig_cpu=\d+ dest_cpu=\d+$"),
    "sched_process_fork": re.compile(
        rf"^comm=(?P<comm>{COMM}) pid=(?P<pid>\d+) child_comm=(?P<child_comm>{COMM}) "
        rf"child_pid=(?P<child_pid>\d+)$"),
    "sched_process_exit": re.compile(
        rf"^comm=(?P<comm>{COMM}) pid=(?P<pid>\d+) prio=\d+( group_dead=\S+)?$"),
    # trace_marker writes: systrace counters "C|pid|name|value", slices "B|pid|name" / "E|pid",
    # or free text (our cookie records, "sched_core_...: key=value ...").
    # LISA's kernel module's load-tracking events (its ftrace_events.h print fmts, kernels with
    # a single util_est field): %d, %s, %lu, %llu, %u.
    "lisa__sched_pelt_cfs": re.compile(
        r"^cpu=\d+ path=\S+ load=\d+ util=\d+ update_time=\d+ runnable=\d+$"),
    "lisa__sched_pelt_se": re.compile(
        rf"^cpu=\d+ path=\S+ comm={COMM} pid=-?\d+ load=\d+ util=\d+ update_time=\d+ runnable=\d+$"),
    "lisa__sched_util_est_cfs": re.compile(r"^cpu=\d+ path=\S+ util=\d+ util_est=\d+$"),
    "lisa__sched_util_est_se": re.compile(
        rf"^cpu=\d+ path=\S+ comm={COMM} pid=-?\d+ util=\d+ util_est=\d+$"),
    "tracing_mark_write": re.compile(
        r"^(C\|\d+\|[^|\s]+\|-?\d+|B\|\d+\|\S+|E\|\d+|[a-z_]+: (\S+=\S+)( \S+=\S+)*)$"),
}


def parse(path, required):
    problems = []
    counts = {}
    current = {}  # cpu -> pid that runs there, learnt from sched_switch
    last_ts = -1.0
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or lines[0] != "# tracer: nop":
        problems.append(f"{path}:1: the first line must be '# tracer: nop'")
    for no, line in enumerate(lines, 1):
        if line.startswith("#"):
            continue
        m = LINE.match(line)
        if not m:
            problems.append(f"{path}:{no}: not 'comm-pid [cpu] flags secs.usecs: event: fields': {line!r}")
            continue
        flags = m["flags"]
        if len(flags) > 4 or any(c not in FLAG_CHARS[i] for i, c in enumerate(flags)):
            problems.append(f"{path}:{no}: bad flags {flags!r}")
        ts = float(m["ts"])
        if ts < last_ts:
            problems.append(f"{path}:{no}: timestamp {m['ts']} goes back")
        last_ts = ts
        ev, body, cpu, pid = m["event"], m["body"], int(m["cpu"]), int(m["pid"])
        counts[ev] = counts.get(ev, 0) + 1
        spec = EVENTS.get(ev)
        if spec is None:
            problems.append(f"{path}:{no}: unknown event {ev}")
            continue
        b = spec.match(body)
        if not b:
            problems.append(f"{path}:{no}: {ev} fields do not follow its print fmt: {body!r}")
            continue
        # The line's task is the one running on that CPU: the last sched_switch's next.
        if cpu in current and current[cpu] != pid:
            problems.append(f"{path}:{no}: pid {pid} on cpu {cpu}, which runs pid {current[cpu]}")
        if ev == "sched_switch":
            if int(b["prev_pid"]) != pid:
                problems.append(f"{path}:{no}: sched_switch prev_pid {b['prev_pid']} is not the line's pid {pid}")
            current[cpu] = int(b["next_pid"])
    for ev in required:
        if counts.get(ev, 0) == 0:
            problems.append(f"{path}: no {ev} event")
    return problems, counts


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    required = argv[argv.index("--require") + 1:] if "--require" in argv else []
    problems, counts = parse(argv[1], required)
    for p in problems[:20]:
        print(p)
    total = sum(counts.values())
    print(f"{total} event lines, {len(problems)} problems; " +
          ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
