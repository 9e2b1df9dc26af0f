# SPDX-License-Identifier: GPL-2.0-only
"""Golden results: the key numbers of every shipped scenario, kept in tests/data/golden.txt.

Results are a deterministic function of (scenario, seed, model), so the numbers are pinned
exactly: a change that moves one shows as a line-by-line diff naming the scenario, the
configuration, the seed and the figure. Nothing that belongs to the build or the host is kept
(no version, no feature map, no timings), so a version bump or a new default-off feature
changes nothing.

    golden.py BIN SRC                                   check
    golden.py BIN SRC --update --expect 'SCEN|CONFIG'   rewrite, allowing only these runs to move
    golden.py BIN SRC --update --expect-all 'REASON'    rewrite everything, saying why

--expect takes shell patterns for the scenario name and, after '|', the configuration name
(default '*'); it may be repeated. A comparison line is covered when any of its three
configurations is. --update writes nothing and fails if a line outside the expected runs moved.
"""
import fnmatch
import glob
import json
import math
import os
import re
import subprocess
import sys
import tempfile

GOLDEN = "tests/data/golden.txt"
# Reads the host's topology: its results are the host's, not the model's.
SKIP = {"scenarios/smoke-host.toml"}
RUNS = 2  # experiment --runs: seeds 1 and 2 of every configuration
SEP = " | "

HEADER = """\
# Golden results: key numbers of the shipped scenarios, exact (results are deterministic).
# Made by tests/cli/golden.py from `schedlab experiment SCENARIO --runs 2 --json` and
# `schedlab run SCENARIO --config C --seed 1 --json` for every scenario in scenarios/ except
# smoke-host.toml. Times are seconds with all nine decimals (integer ns). Lines are
# "scenario | configuration | seed or mean | figures". Do not edit by hand: see docs/testing.md,
# "Golden results", for --update --expect.
"""


def ns(seconds):
    """A time the model keeps in integer ns, as the JSON's seconds: back to exact ns."""
    return int(round(seconds * 1e9))


def secs(n):
    return f"{n // 1_000_000_000}.{n % 1_000_000_000:09d} s"


def num(x, decimals=3):
    """A derived (floating) figure: fixed decimals, '-' when absent."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if isinstance(x, float) and x.is_integer() and decimals == 0:
        return str(int(x))
    return f"{x:.{decimals}f}"


def count(x):
    """A count the JSON may give as a float (experiment run metrics are doubles)."""
    if isinstance(x, float):
        assert x.is_integer(), x
        x = int(x)
    return str(x)


def pct(part, whole):
    return f"{part}/{whole} ({100.0 * part / whole:.2f} %)" if whole else f"{part}/{whole}"


def schedlab(bin_, *args):
    r = subprocess.run([bin_, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"golden.py: schedlab {' '.join(args)} exited {r.returncode}: {r.stderr.strip()}")


def experiment_lines(name, e):
    out = []
    for c in e["configs"]:
        cn = c["name"]
        for r in c["runs"]:
            key = SEP.join([name, cn, f"seed {r['seed']}"])
            out.append(f"{key}{SEP}completion {secs(ns(r['completion_time_s']))}, "
                       f"forced idle {secs(r['forceidle_ns'])}")
            sis = r["select_idle_sibling"]
            out.append(f"{key}{SEP}migrations {count(r['migrations'])}, "
                       f"balanced {count(r['lb_moved'])} (active {count(r['lb_active'])}), "
                       f"pushed {count(r['core_pushed'])}, stolen {count(r['core_stolen'])}; "
                       f"placements {sis['calls']}, onto another cookie {sis['cookie_mismatch']}")
        key = SEP.join([name, cn, f"mean of {len(c['runs'])}"])
        line = (f"{key}{SEP}completion {num(c['mean_completion_time_s'], 6)} s, "
                f"overhead {num(c['overhead_s'], 6)} s, forced idle {num(c['mean_forceidle_s'], 6)} s")
        bench = [("hackbench_time_s", "hackbench", 6, " s"),
                 ("schbench_wakeup_p999_us", "schbench wakeup p99.9", 1, " us"),
                 ("schbench_request_p999_us", "schbench request p99.9", 1, " us"),
                 ("schbench_rps", "schbench rps", 2, ""),
                 ("noise_pct", "hwlat noise", 3, " %"),
                 ("lost_time_pct", "hwlat lost", 3, " %")]
        for k, label, d, unit in bench:
            if "mean_" + k in c:
                line += f", {label} {num(c['mean_' + k], d)}{unit}"
        out.append(line)
    for cmp in e.get("comparisons", []):
        out.append(f"{name}{SEP}compare {cmp['patched']} vs {cmp['base']} over {cmp['reference']}"
                   f"{SEP}cut {num(cmp['cut_pct'], 2)} % "
                   f"(CI95 {num(cmp['cut_ci95_low_pct'], 2)} .. {num(cmp['cut_ci95_high_pct'], 2)})")
    return out


def run_lines(name, r):
    key = SEP.join([name, r["config"], f"seed {r['seed']}"])
    out = []
    tasks = r["tasks"]
    cpus = r["cpus"]
    migr = sum(t["nr_migrations"] for t in tasks)
    switches = sum(t["nr_switches"] for t in tasks)
    invol = sum(t["nr_involuntary_switches"] for t in tasks)
    wait = sum(t["wait_ns"] for t in tasks)
    out.append(f"{key}{SEP}run: completion {secs(r['completion_time_ns'])}, end "
               f"{secs(r['end_time_ns'])}, forced idle {secs(r['forceidle_ns'])}, events {r['events']}")
    out.append(f"{key}{SEP}run: tasks {len(tasks)}, migrations {migr}, switches {switches} "
               f"(involuntary {invol}), wait {secs(wait)}")
    ttwu = sum(c.get("schedstat", {}).get("ttwu_count", 0) for c in cpus)
    local = sum(c.get("schedstat", {}).get("ttwu_local", 0) for c in cpus)
    wl = r["wakeup_latency_ns"]
    out.append(f"{key}{SEP}run: ttwu_local {pct(local, ttwu)}; wakeup latency count {wl['count']}, "
               f"p50 {wl['p50']} ns, p99 {wl['p99']} ns, max {wl['max']} ns")
    sis = r["select_idle_sibling"]
    steps = ", ".join(f"{k} {v}" for k, v in sis["by_step"].items() if v)
    out.append(f"{key}{SEP}run: placements {sis['calls']} ({steps or 'none'}), "
               f"idle tests {sis['idle_tests']}, onto another cookie {sis['cookie_mismatch']}")
    lb = {k: sum(c.get(k, 0) for c in cpus) for k in
          ("lb_count", "lb_moved", "lb_failed", "lb_active", "core_pushed", "core_stolen",
           "newidle_attempts", "newidle_pulled")}
    out.append(f"{key}{SEP}run: " + ", ".join(f"{k} {v}" for k, v in lb.items()))
    if "hackbench_time_s" in r:
        t = r["hackbench_time_s"]
        out.append(f"{key}{SEP}run: hackbench {secs(ns(t)) if t is not None else 'unfinished'}, "
                   f"messages {r['hackbench_messages']}")
    if "schbench" in r:
        sb = r["schbench"]
        w, q = sb["wakeup_latency_ns"], sb["request_latency_ns"]
        out.append(f"{key}{SEP}run: schbench wakeup p99 {w['p99']} ns, p99.9 {w['p999']} ns; "
                   f"request p99 {q['p99']} ns, p99.9 {q['p999']} ns; requests {sb['requests']}, "
                   f"rps {num(sb['rps'], 3)}")
    if "fork" in r:
        out.append(f"{key}{SEP}run: forks {r['fork']['forks']}, "
                   f"children exited {r['fork']['children_exited']}")
    for v in r.get("vm", []):
        out.append(f"{key}{SEP}run: vm {v['name']} ({v['guest']}): windows {v['windows']}, "
                   f"samples {v['samples']}, max gap {v['max_gap_ns']} ns, lost {v['sum_gap_ns']} ns"
                   f" of {v['sampling_ns']} ns, noise {num(v['noise_pct'], 3)} %, "
                   f"forced idle {secs(v['forceidle_ns'])}")
    if r.get("stuck_tasks"):
        out.append(f"{key}{SEP}run: stuck tasks {', '.join(r['stuck_tasks'])}")
    return out


def generate(bin_, tmp):
    lines = []
    for path in sorted(glob.glob("scenarios/*.toml")):
        if path in SKIP:
            continue
        ej = os.path.join(tmp, "e.json")
        schedlab(bin_, "experiment", path, "--runs", str(RUNS), "--jobs", "2", "--json", ej)
        e = json.load(open(ej))
        name = e["scenario"]
        lines.append(f"## {name} ({path})")
        lines += experiment_lines(name, e)
        for c in e["configs"]:
            rj = os.path.join(tmp, "r.json")
            schedlab(bin_, "run", path, "--config", c["name"], "--seed", "1", "--json", rj)
            lines += run_lines(name, json.load(open(rj)))
    return lines


def configs_of(line):
    """(scenario, [configurations]) a data line belongs to, or None for a heading."""
    if line.startswith("#") or SEP not in line:
        return None
    scen, second = line.split(SEP)[:2]
    if second.startswith("compare "):
        rest = second[len("compare "):]
        patched, rest = rest.split(" vs ", 1)
        base, ref = rest.split(" over ", 1)
        return scen, [patched, base, ref]
    return scen, [second]


def expected(line, patterns):
    sc = configs_of(line)
    if sc is None:
        return True
    scen, cfgs = sc
    for p in patterns:
        ps, _, pc = p.partition("|")
        if fnmatch.fnmatchcase(scen, ps) and any(fnmatch.fnmatchcase(c, pc or "*") for c in cfgs):
            return True
    return False


def moved_runs(old, new):
    """The lines only one side has, and the runs they belong to."""
    so, sn = set(old), set(new)
    moved = [l for l in old if l not in sn] + [l for l in new if l not in so]
    runs = sorted({f"{c[0]}|{cfg}" for c in map(configs_of, moved) if c for cfg in c[1]})
    return moved, runs


def count_moved(old, new):
    so, sn = set(old), set(new)
    return (f"{sum(l not in sn for l in old)} old line(s) -> "
            f"{sum(l not in so for l in new)} new line(s)")


def is_value(word):
    """A number (3.01, 1564, 33459/106324, (31.47, -0.5), not a name such as p99."""
    return bool(re.match(r"\(?-?[0-9]", word))


def label(line):
    """What a data line is about: its first three fields and the words before its first figure."""
    f = line.split(SEP, 3)
    if len(f) < 4:
        return line
    words = []
    for w in f[3].split():
        if is_value(w):
            break
        words.append(w)
    return SEP.join(f[:3] + [" ".join(words)])


def items(line):
    """The figures of a data line: its last field split at ', ' and '; ' outside brackets."""
    text = line.split(SEP, 3)[-1]
    out, depth, cur = [], 0, ""
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and ch in ",;" and text[i + 1:i + 2] == " ":
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + [cur.strip()]


def figure_changes(old, new, limit=40):
    """'run: name old -> new; ...' for each line that moved, old and new paired by label."""
    olds = {label(l): l for l in old}
    out = []
    for l in new:
        o = olds.get(label(l))
        if o is None or o == l:
            continue
        a, b = items(o), items(l)
        if len(a) != len(b):
            a, b = [o.split(SEP, 3)[-1]], [l.split(SEP, 3)[-1]]
        moved = []
        for x, y in zip(a, b):
            if x == y:
                continue
            wx, wy = x.split(), y.split()
            k = 0  # the figure's name: the leading words both share, up to the first number
            while k < min(len(wx), len(wy)) and wx[k] == wy[k] and not is_value(wx[k]):
                k += 1
            moved.append(" ".join(wx[:k] + [" ".join(wx[k:]), "->", " ".join(wy[k:])]))
        run = "run: " if l.split(SEP, 3)[-1].startswith("run: ") else ""
        out.append(f"{SEP.join(l.split(SEP)[:3])}: {run}" + "; ".join(moved).removeprefix(run))
    if len(out) > limit:
        out = out[:limit] + [f"... and {len(out) - limit} more lines"]
    return out


def unified_diff(old, new):
    import difflib
    return "".join(difflib.unified_diff([l + "\n" for l in old], [l + "\n" for l in new],
                                        GOLDEN + " (kept)", GOLDEN + " (this build)", n=1))


def main(argv):
    usage = ("usage: golden.py BIN SRC [--update (--expect 'SCENARIO|CONFIG')... | "
             "--update --expect-all REASON]")
    if len(argv) < 3:
        sys.exit(usage)
    bin_, src = os.path.abspath(argv[1]), argv[2]
    update, patterns, reason = False, [], None
    rest = argv[3:]
    while rest:
        a = rest.pop(0)
        if a == "--update":
            update = True
        elif a in ("--expect", "--expect-all") and rest:
            v = rest.pop(0)
            if a == "--expect":
                patterns.append(v)
            else:
                reason = v
        else:
            print(f"golden.py: unknown or incomplete argument '{a}'\n{usage}", file=sys.stderr)
            return 2
    if (patterns or reason is not None) and not update:
        print("golden.py: --expect and --expect-all go with --update", file=sys.stderr)
        return 2
    if update and not patterns and reason is None:
        print("golden.py: --update needs to be told what is expected to move: --expect "
              "'SCENARIO|CONFIG' (repeatable, shell patterns) or --expect-all 'REASON'",
              file=sys.stderr)
        return 2
    if reason is not None and (not reason.strip() or patterns):
        print("golden.py: --expect-all takes a non-empty reason, and no --expect with it",
              file=sys.stderr)
        return 2
    os.chdir(src)
    old = [l.rstrip("\n") for l in open(GOLDEN)] if os.path.exists(GOLDEN) else []
    old_data = [l for l in old if not l.startswith("# ")]
    lines_from = os.environ.get("SCHEDLAB_GOLDEN_LINES")  # tests of this script: no runs
    if lines_from:
        new = [l.rstrip("\n") for l in open(lines_from) if not l.startswith("# ")]
    else:
        with tempfile.TemporaryDirectory() as tmp:
            new = generate(bin_, tmp)
    moved, runs = moved_runs(old_data, new)

    if update:
        if reason is None:
            stray = [l for l in moved if not expected(l, patterns)]
            if stray:
                print(f"golden.py: not written: {len(stray)} line(s) moved outside "
                      f"{', '.join(patterns)}:")
                for l in stray:
                    print(("- " if l in old_data else "+ ") + l)
                return 1
            unmatched = [p for p in patterns if not any(expected(l, [p]) for l in moved)]
            for p in unmatched:
                print(f"golden.py: note: nothing moved in {p}")
        with open(GOLDEN, "w") as f:
            f.write(HEADER)
            f.write("".join(l + "\n" for l in new))
        print(f"wrote {GOLDEN}: {len(new)} lines, {count_moved(old_data, new)} in {len(runs)} run(s)"
              + (f"; all allowed to move: {reason}" if reason is not None else ""))
        for r in runs:
            print(f"  moved: {r}")
        return 0

    if not moved:
        print(f"{len(new)} golden lines unchanged")
        return 0
    print(f"golden results moved: {count_moved(old_data, new)} in {len(runs)} run(s):")
    for r in runs:
        print(f"  {r}")
    print("What moved (old -> new):")
    for l in figure_changes(old_data, new):
        print(f"  {l}")
    print(unified_diff(old_data, new), end="")
    by_scen = {}
    for r in runs:
        sc, _, cfg = r.partition("|")
        by_scen.setdefault(sc, []).append(cfg)
    expect = " ".join(f"--expect '{sc}|{cfgs[0] if len(cfgs) == 1 else '*'}'"
                      for sc, cfgs in by_scen.items())
    print("If (and only if) these moves are intended, rewrite the file naming them:\n"
          f"  python3 tests/cli/golden.py build/release/schedlab . --update {expect}\n"
          "and commit the diff with the change that made it (docs/testing.md, Golden results).")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
