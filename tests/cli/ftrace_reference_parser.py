#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A reference parser for ftrace text traces, written from the documentation of the format:
Documentation/trace/ftrace.rst ("Output format" of the nop tracer: TASK-PID, CPU#, the latency
flags irqs-off/need-resched/hardirq-softirq/preempt-depth/migrate-disable, TIMESTAMP, FUNCTION),
Linux 6.12's trace_print_context() and print_func_help_header_irq(), and the "print fmt" lines
of /sys/kernel/tracing/events/sched/*/format. Every line's prefix is printed again from its
parsed fields ("%16s-%-7d [%03d] %s %5lu.%06lu: ") and must come out byte for byte the same;
the header's entry counts must be the number of event lines.

Usage: ftrace_reference_parser.py TRACE [--kernel 6.12|6.18] [--golden REAL_TRACE]
                                  [--require EVENT ...]
--kernel: sched_process_exit has group_dead= in 6.18 and not in 6.12 (default: either).
--golden: a real kernel's trace of the same format: its header lines (all but the counts) must
be the same, and every event both traces have must carry the same field names in the same
order with values of the same shape; what may differ is what the workload decides (names,
pids, CPUs, times, values).
Prints one line per problem (file:line: what) and a summary; exits 1 if any problem was found.
"""
import re
import sys

LINE = re.compile(
    r"^\s*(?P<comm>\S+)-(?P<pid>\d+)\s+\[(?P<cpu>\d{3,})\]\s+(?P<flags>\S{5})\s+"
    r"(?P<secs>\d+)\.(?P<usecs>\d{6}): (?P<event>[a-z_][a-z_0-9]*|0x[0-9a-f]+): (?P<body>.*)$")
# Flag columns (trace_print_lat_fmt()): irqs-off, need-resched, hardirq/softirq, preempt-depth,
# migrate-disable.
FLAG_CHARS = ["dDXb.", "NnpP.", "ZzHhs.", "0123456789abcdef.", "0123456789abcdef."]
COUNTS = re.compile(r"^# entries-in-buffer/entries-written: (\d+)/(\d+)   #P:(\d+)$")
# print_func_help_header_irq() without the tgid column, after "# tracer: nop", "#", the counts.
HEADER = [
    "#",
    "#                                _-----=> irqs-off/BH-disabled",
    "#                               / _----=> need-resched",
    "#                              | / _---=> hardirq/softirq",
    "#                              || / _--=> preempt-depth",
    "#                              ||| / _-=> migrate-disable",
    "#                              |||| /     delay",
    "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION",
    "#              | |         |   |||||     |         |",
]
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
        rf"^comm=(?P<comm>{COMM}) pid=(?P<pid>\d+) prio=\d+(?P<group_dead> group_dead=(true|false))?$"),
    # trace_marker writes: systrace counters "C|pid|name|value", slices "B|pid|name" / "E|pid",
    # or free text (our cookie records, "sched_core_...: key=value ...").
    # LISA's kernel module's load-tracking events (its ftrace_events.h print fmts, kernels with
    # a single util_est field): %d, %s, %lu, %llu, %u.
    "lisa__sched_pelt_cfs": re.compile(
        r"^cpu=\d+ path=\S+ load=\d+ util=\d+ update_time=\d+ runnable=\d+$"),
    "lisa__sched_pelt_se": re.compile(
        rf"^cpu=\d+ path=\S+ comm={COMM} pid=-?\d+ load=\d+ util=\d+ update_time=\d+ runnable=\d+$"),
    # Kernels with one util_est field (6.9 on): the "_unified" events, util_est first.
    "lisa__sched_util_est_cfs_unified": re.compile(r"^cpu=\d+ path=\S+ util_est=\d+ util=\d+$"),
    "lisa__sched_util_est_se_unified": re.compile(
        rf"^cpu=\d+ path=\S+ comm={COMM} pid=-?\d+ util_est=\d+ util=\d+$"),
    "tracing_mark_write": re.compile(
        r"^(C\|\d+\|[^|\s]+\|-?\d+|B\|\d+\|\S+|E\|\d+|[a-z_]+: (\S+=\S+)( \S+=\S+)*)$"),
}


FIELD = re.compile(r"(\S+?)=(\S*)")


def shape(value):
    """What a field's value looks like, independent of the workload: a number of so many digits
    when zero-padded (%03d), a number, a path, or a word."""
    if re.fullmatch(r"0\d+", value):
        return f"%0{len(value)}d"
    if re.fullmatch(r"-?\d+", value):
        return "%d"
    if value in ("true", "false"):
        return "bool"
    return "%s"


def signature(body):
    """An event body's field names in order, each with the shape of its value."""
    return tuple((k, shape(v)) for k, v in FIELD.findall(body))


def parse(path, required, kernel=None):
    problems = []
    counts = {}
    signatures = {}  # event -> signature of its first line, and that line's number
    current = {}  # cpu -> pid that runs there, learnt from sched_switch
    last_ts = -1.0
    header = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or lines[0] != "# tracer: nop":
        problems.append(f"{path}:1: the first line must be '# tracer: nop'")
    entries = None
    if len(lines) > 2:
        c = COUNTS.match(lines[2])
        if not c:
            problems.append(f"{path}:3: not '# entries-in-buffer/entries-written: N/N   #P:CPUS'")
        else:
            entries = int(c[1])
    events = 0
    for no, line in enumerate(lines, 1):
        if line.startswith("#"):
            if events:
                problems.append(f"{path}:{no}: a comment line after the events")
            elif no > 3:
                header.append(line)
            continue
        events += 1
        m = LINE.match(line)
        if not m:
            problems.append(f"{path}:{no}: not 'comm-pid [cpu] flags secs.usecs: event: fields': {line!r}")
            continue
        flags = m["flags"]
        if any(c not in FLAG_CHARS[i] for i, c in enumerate(flags)):
            problems.append(f"{path}:{no}: bad flags {flags!r}")
        again = "%16s-%-7d [%03d] %s %5d.%s: " % (m["comm"], int(m["pid"]), int(m["cpu"]), flags,
                                                  int(m["secs"]), m["usecs"])
        if not line.startswith(again):
            problems.append(f"{path}:{no}: the prefix is not trace_print_context()'s: {line!r}, "
                            f"expected {again!r}")
        ts = float(m["secs"] + "." + m["usecs"])
        if ts < last_ts:
            problems.append(f"{path}:{no}: timestamp {m['secs']}.{m['usecs']} goes back")
        last_ts = ts
        ev, body, cpu, pid = m["event"], m["body"], int(m["cpu"]), int(m["pid"])
        if ev.startswith("0x"):  # a trace_marker write whose ip kallsyms did not resolve
            ev = "tracing_mark_write"
        counts[ev] = counts.get(ev, 0) + 1
        if ev != "tracing_mark_write":
            signatures.setdefault(ev, (signature(body), no))
        spec = EVENTS.get(ev)
        if spec is None:
            problems.append(f"{path}:{no}: unknown event {ev}")
            continue
        b = spec.match(body)
        if not b and ev == "tracing_mark_write" and m["event"].startswith("0x"):
            continue  # free text written to trace_marker by a real program
        if not b:
            problems.append(f"{path}:{no}: {ev} fields do not follow its print fmt: {body!r}")
            continue
        if ev == "sched_process_exit" and kernel:
            if kernel == "6.18" and not b["group_dead"]:
                problems.append(f"{path}:{no}: sched_process_exit without 6.18's group_dead")
            if kernel == "6.12" and b["group_dead"]:
                problems.append(f"{path}:{no}: sched_process_exit with group_dead, not in 6.12")
        # The line's task is the one running on that CPU: the last sched_switch's next.
        if cpu in current and current[cpu] != pid:
            problems.append(f"{path}:{no}: pid {pid} on cpu {cpu}, which runs pid {current[cpu]}")
        if ev == "sched_switch":
            if int(b["prev_pid"]) != pid:
                problems.append(f"{path}:{no}: sched_switch prev_pid {b['prev_pid']} is not the line's pid {pid}")
            current[cpu] = int(b["next_pid"])
    if header[:len(HEADER)] != HEADER or len(header) != len(HEADER):
        problems.append(f"{path}: the header after the counts is not 6.12's: {header!r}")
    if entries is not None and entries != events:
        problems.append(f"{path}:3: the header counts {entries} entries, the trace has {events}")
    for ev in required:
        if counts.get(ev, 0) == 0:
            problems.append(f"{path}: no {ev} event")
    return problems, counts, signatures, header


def compare(path, signatures, header, golden):
    """Field-by-field comparison with a real kernel's trace."""
    problems, _, gsig, gheader = parse(golden, [])
    problems = [f"(golden) {p}" for p in problems]
    if header != gheader:
        problems.append(f"{path}: header differs from {golden}'s: {header!r} vs {gheader!r}")
    common = sorted(set(signatures) & set(gsig))
    for ev in common:
        (ours, no), (theirs, gno) = signatures[ev], gsig[ev]
        if ours != theirs:
            problems.append(f"{path}:{no}: {ev} fields {ours} differ from {golden}:{gno}'s {theirs}")
    return problems, common


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    opts, rest, required = {}, [], []
    args = iter(argv[1:])
    for a in args:
        if a in ("--kernel", "--golden"):
            opts[a] = next(args, None)
        elif a == "--require":
            required = list(args)
        else:
            rest.append(a)
    problems, counts, signatures, header = parse(rest[0], required, opts.get("--kernel"))
    if "--golden" in opts:
        more, common = compare(rest[0], signatures, header, opts["--golden"])
        problems += more
        print(f"compared with {opts['--golden']}: header and fields of {', '.join(common)}")
    for p in problems[:20]:
        print(p)
    total = sum(counts.values())
    print(f"{total} event lines, {len(problems)} problems; " +
          ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
