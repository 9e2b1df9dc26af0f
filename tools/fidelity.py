#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Sets the simulator beside the twin kernel, effect by effect, with a tolerance per row.

Reads the list of scenarios and the named mechanisms from a spec file (TOML; a [[note]] names
the row it explains, or "*" for every row of its scenario outside both its tolerance and the
runs' noise), and for each
scenario NAME the results NAME.sim.json (`schedlab experiment --json`) and NAME.twin.json
(`schedlab measure --vm --json`) from a directory; writes the Markdown tables of
docs/fidelity.md to standard output. scripts/fidelity.sh runs both sides and then this.

Usage: tools/fidelity.py SPEC.toml RESULTS_DIR [--only NAME]... [--check]
       tools/fidelity.py SPEC.toml --list
  --check: exit 1 when a compared row is outside its tolerance and the spec names no mechanism
           for it, or a result is missing.
  --only:  only this scenario (may be repeated).
  --list:  print "NAME FILE RUNS" for each scenario of the spec, one per line.

Rows (see docs/fidelity.md, "How to read the tables"):
- with [[compare]] lines in the scenario: for each, the cookie overhead of base and patched
  (completion time over the reference's, in %; tolerance: the ratio sim/twin within 1/1.5..1.5),
  the patch's cut of it (points), and the relative change from base to patched of forced idle,
  migrations, newidle balances and the benchmark metrics (points); migrations also from the
  reference to base;
- without: the relative change from the first configuration to each other one of the same
  quantities (points).
"""
import json
import math
import os
import sys
import tomllib

RATIO_TOL = 1.5
CUT_TOL = 10.0
CHANGE_TOL = 15.0

# (key in a run or "mean_" key of a config, label, where it is)
RUN_KEYS = [
    ("forceidle_ns", "forced idle"),
    ("migrations", "migrations"),
    ("newidle_lb_count", "newidle balances (lb_count)"),
    ("newidle_lb_gained", "newidle pulls (lb_gained)"),
]
BENCH_KEYS = [
    ("hackbench_time_s", "hackbench time"),
    ("schbench_rps", "schbench requests/s"),
    ("schbench_wakeup_p999_us", "schbench wakeup p99.9"),
    ("noise_pct", "hwlat noise"),
    ("lost_time_pct", "hwlat lost sampling time"),
]


def t95(n):
    # Two-sided 95 % quantile of Student's t with n degrees of freedom (n >= 1).
    table = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
             9: 2.262, 10: 2.228, 12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042}
    if n <= 0:
        return math.nan
    best = max(k for k in table if k <= n) if n < 30 else 30
    return table[best] if n < 30 else 1.96 + (2.042 - 1.96) * 30 / n


def config(doc, name):
    for c in doc["configs"]:
        if c["name"] == name:
            return c
    return None


def run_values(cfg, key):
    out = {}
    for r in cfg.get("runs", []):
        v = r.get(key)
        if key == "completion_time_s" and v is not None and v <= 0:
            v = None
        if isinstance(v, (int, float)) and not (isinstance(v, float) and math.isnan(v)):
            out[r["seed"]] = float(v)
    return out


def paired_change(a_cfg, b_cfg, key):
    """(change %, ci95 %) of mean(b)/mean(a) - 1 over the seeds both have; None if unknown."""
    a, b = run_values(a_cfg, key), run_values(b_cfg, key)
    seeds = sorted(set(a) & set(b))
    if not seeds:
        return None
    ma = sum(a[s] for s in seeds) / len(seeds)
    mb = sum(b[s] for s in seeds) / len(seeds)
    if ma == 0:
        return None
    d = [(b[s] - a[s]) / ma * 100 for s in seeds]
    md = sum(d) / len(d)
    ci = math.nan
    if len(d) > 1:
        sd = math.sqrt(sum((x - md) ** 2 for x in d) / (len(d) - 1))
        ci = t95(len(d) - 1) * sd / math.sqrt(len(d))
    return (mb / ma - 1) * 100, ci


def mean_change(a_cfg, b_cfg, key, from_first=False):
    """The change of a benchmark metric's mean; from the first configuration, with the paired
    interval the experiment computed (its change_pct_ and change_ci95_pct_ keys)."""
    if from_first:
        v, ci = b_cfg.get("change_pct_" + key), b_cfg.get("change_ci95_pct_" + key)
        if isinstance(v, (int, float)):
            return v, ci if isinstance(ci, (int, float)) else math.nan
    a, b = a_cfg.get("mean_" + key), b_cfg.get("mean_" + key)
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)) or a == 0:
        return None
    return (b / a - 1) * 100, math.nan


def overhead(doc, ref, cfg):
    return paired_change(config(doc, ref), config(doc, cfg), "completion_time_s")


def cut(doc, base, patched):
    for c in doc.get("comparisons", []):
        if c["base"] == base and c["patched"] == patched:
            lo, hi, v = c.get("cut_ci95_low_pct"), c.get("cut_ci95_high_pct"), c.get("cut_pct")
            if v is None:
                return None
            ci = (hi - lo) / 2 if lo is not None and hi is not None else math.nan
            return v, ci
    return None


def fmt(v, signed=True):
    if v is None:
        return "n/a"
    val, ci = v
    s = f"{val:+.1f} %" if signed else f"{val:.1f} %"
    if not math.isnan(ci):
        s += f" ± {ci:.1f}"
    return s


def rows_for(sim, twin, compares, configs):
    """Yields (label, sim value, twin value, kind) with kind 'ratio' or 'points'."""
    def pair(key, a, b, bench):
        sa, sb, ta, tb = config(sim, a), config(sim, b), config(twin, a), config(twin, b)
        if None in (sa, sb, ta, tb):
            return None
        if bench:
            first = a == configs[0]
            return mean_change(sa, sb, key, first), mean_change(ta, tb, key, first)
        return paired_change(sa, sb, key), paired_change(ta, tb, key)

    def changes(a, b):
        """The change of every per-run quantity and benchmark metric from a to b."""
        for keys, bench in ((RUN_KEYS, False), (BENCH_KEYS, True)):
            for key, label in keys:
                p = pair(key, a, b, bench)
                if p:
                    yield f"{label}: {a} → {b}", p[0], p[1], "points"

    if compares:
        for cmp in compares:
            base, patched, ref = cmp["base"], cmp["patched"], cmp["reference"]
            for c in (base, patched):
                yield f"cookie overhead: {c} over {ref}", overhead(sim, ref, c), \
                    overhead(twin, ref, c), "ratio"
            yield f"the patch's cut: {patched}", cut(sim, base, patched), cut(twin, base, patched), \
                "points"
            p = pair("migrations", ref, base, False)
            if p:
                yield f"migrations: {ref} → {base}", p[0], p[1], "points"
            yield from changes(base, patched)
    else:
        first = configs[0]
        for key, label in BENCH_KEYS[3:]:
            sa, ta = config(sim, first), config(twin, first)
            sv, tv = sa.get("mean_" + key), ta.get("mean_" + key)
            if isinstance(sv, (int, float)) and isinstance(tv, (int, float)):
                yield f"{label}: level in {first}", (sv, sa.get("ci95_" + key) or math.nan), \
                    (tv, ta.get("ci95_" + key) or math.nan), "ratio"
        for c in configs[1:]:
            p = pair("completion_time_s", first, c, False)
            if p:
                yield f"completion time: {first} → {c}", p[0], p[1], "points"
            yield from changes(first, c)


def verdict(kind, s, t):
    if s is None or t is None:
        return None, "n/a"
    if kind == "ratio":
        if s[0] <= 0 or t[0] <= 0:
            return False, "sign differs"
        r = s[0] / t[0]
        return 1 / RATIO_TOL <= r <= RATIO_TOL, f"× {r:.2f} (tolerance ×/÷ {RATIO_TOL})"
    tol = CUT_TOL if kind == "cut" else CHANGE_TOL
    d = s[0] - t[0]
    return abs(d) <= tol, f"{d:+.1f} points (tolerance ± {tol:.0f})"


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    spec_path, results = argv[1], argv[2]
    check = "--check" in argv[3:]
    only = [argv[i + 1] for i in range(3, len(argv) - 1) if argv[i] == "--only"]
    try:
        with open(spec_path, "rb") as f:
            spec = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        print(f"{spec_path}: error: {e}", file=sys.stderr)
        return 2
    for i, sc in enumerate(spec.get("scenario", [])):
        for key, typ in (("name", str), ("file", str), ("runs", int)):
            if not isinstance(sc.get(key), typ):
                print(f"{spec_path}: error: scenario[{i}]: '{key}' missing or not a {typ.__name__}",
                      file=sys.stderr)
                return 2
    if results == "--list":
        for sc in spec.get("scenario", []):
            print(sc["name"], sc["file"], sc["runs"])
        return 0
    notes = {}
    for n in spec.get("note", []):
        notes[(n.get("scenario"), n.get("row"))] = n.get("mechanism", "")
    failed = 0
    out = []
    for sc in spec.get("scenario", []):
        name = sc["name"]
        if only and name not in only:
            continue
        paths = {side: os.path.join(results, f"{name}.{side}.json") for side in ("sim", "twin")}
        docs = {}
        for side, p in paths.items():
            try:
                with open(p, encoding="utf-8") as f:
                    docs[side] = json.load(f)
            except (OSError, json.JSONDecodeError) as e:
                docs[side] = None
                out.append(f"\n### {name}\n\n{side} result missing: {e}\n")
        if None in docs.values():
            failed += 1 if check else 0
            continue
        sim, twin = docs["sim"], docs["twin"]
        configs = [c["name"] for c in sim["configs"]]
        compares = sim.get("comparisons", [])
        out.append(f"\n### {sc.get('title', name)}\n")
        out.append(f"`{sc['file']}`, {twin.get('runs')} seeds on the twin, {sim.get('runs')} in "
                   f"the simulator (common seeds {twin['seeds'][0]}..{twin['seeds'][-1]}). "
                   + sc.get("about", "").strip() + "\n")
        out.append("| effect | simulator | twin | difference | |")
        out.append("|---|---|---|---|---|")
        for label, s, t, kind in rows_for(sim, twin, compares, configs):
            k = "cut" if label.startswith("the patch's cut") else kind
            ok, diff = verdict(k, s, t)
            note = notes.get((name, label))
            wild = notes.get((name, "*"))
            if ok is None:
                continue
            noise = None
            if not ok and kind == "points" and not math.isnan(s[1]) and not math.isnan(t[1]):
                noise = math.hypot(s[1], t[1])
            if ok:
                mark = "✔"
            elif note:
                mark = "✘ " + note
            elif noise is not None and abs(s[0] - t[0]) <= noise:
                mark = f"≈ apart by less than the runs' noise (± {noise:.1f} points): more seeds needed"
            elif wild:
                mark = "✘ " + wild
            else:
                mark = "✘ mechanism not yet named"
                failed += 1
            signed = not label.startswith(("cookie overhead", "hwlat"))
            out.append(f"| {label} | {fmt(s, signed)} | {fmt(t, signed)} | {diff} | {mark} |")
        out.append("")
    print("\n".join(out))
    if check and failed:
        print(f"fidelity: {failed} row(s) outside tolerance without a named mechanism",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
