#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""tools/fidelity.py and scripts/fidelity.sh without a twin (docs/fidelity.md): the verdict of
each row (within tolerance, apart by less than the noise, outside with or without a named
mechanism), --check's exit status, and one-line errors for a bad spec or arguments.

Usage: fidelity_table.py SOURCE_DIR"""
import json
import os
import subprocess
import sys
import tempfile

src = os.path.realpath(sys.argv[1])
tool = os.path.join(src, "tools", "fidelity.py")
fails = 0


def check(what, ok):
    global fails
    if not ok:
        print("FAIL:", what)
        fails += 1


def result(migr_patch, spread, completion=(24.0, 26.0, 25.0)):
    """An experiment result: No cookie / Cookie / Cookie + patch over 6 seeds, with the patch's
    migrations at migr_patch (Cookie: 1000), each of its seeds off that by +-spread."""
    configs = []
    names = ["No cookie", "Cookie", "Cookie + patch"]
    migr = [800, 1000, migr_patch]
    fi = [0, 6e9, 4e9]
    for i, name in enumerate(names):
        runs = []
        for s in range(1, 7):
            d = (spread if s % 2 else -spread) if i == 2 else 0
            runs.append({"seed": s, "completion_time_s": completion[i] + 0.01 * (s % 3),
                         "forceidle_ns": fi[i], "migrations": migr[i] + d,
                         "newidle_lb_count": 100 + i})
        configs.append({"name": name, "runs": runs})
    base, patched, ref = completion[1], completion[2], completion[0]
    cut = (base - patched) / (base - ref) * 100
    return {"runs": 6, "seeds": list(range(1, 7)), "configs": configs,
            "comparisons": [{"base": "Cookie", "patched": "Cookie + patch",
                             "reference": "No cookie", "cut_pct": cut,
                             "cut_ci95_low_pct": cut - 2, "cut_ci95_high_pct": cut + 2}]}


def run(spec_text, sim, twin, *args):
    with tempfile.TemporaryDirectory() as d:
        spec = os.path.join(d, "spec.toml")
        with open(spec, "w", encoding="utf-8") as f:
            f.write(spec_text)
        if sim is not None:
            json.dump(sim, open(os.path.join(d, "s.sim.json"), "w"))
        if twin is not None:
            json.dump(twin, open(os.path.join(d, "s.twin.json"), "w"))
        p = subprocess.run([sys.executable, tool, spec, d, *args], capture_output=True,
                           text=True)
        return p.returncode, p.stdout, p.stderr.replace(d, "DIR")


SPEC = '[[scenario]]\nname = "s"\nfile = "scenarios/x.toml"\nruns = 6\n'
NOTE = ('[[note]]\nscenario = "s"\nrow = "migrations: Cookie → Cookie + patch"\n'
        'mechanism = "the twin\'s wakeups land on busy CPUs"\n')


def row(out, label):
    for line in out.splitlines():
        if line.startswith("| " + label + " |"):
            return line
    return ""


# The same result on both sides: every row within its tolerance.
rc, out, err = run(SPEC, result(1500, 5), result(1500, 5), "--check")
check(f"identical sides pass --check (rc {rc}, {err.strip()})", rc == 0)
check("identical sides: the migration row is within tolerance",
      row(out, "migrations: Cookie → Cookie + patch").endswith("| ✔ |"))
check("the cut row has the ±10 points tolerance", "tolerance ± 10" in row(out, "the patch's cut: Cookie + patch"))
check("the overhead row compares a ratio", "tolerance ×/÷ 1.5" in row(out, "cookie overhead: Cookie over No cookie"))

# The twin's patch adds +20 % migrations where the model adds +50 %, both tight: outside, and
# --check fails until a mechanism is named.
rc, out, err = run(SPEC, result(1500, 5), result(1200, 5), "--check")
r = row(out, "migrations: Cookie → Cookie + patch")
check(f"a row 30 points off fails --check (rc {rc})", rc == 1)
check("it says the mechanism is not named", "✘ mechanism not yet named" in r)
check("--check says how many rows", "1 row(s) outside tolerance" in err)
rc, out, err = run(SPEC + NOTE, result(1500, 5), result(1200, 5), "--check")
check(f"with the mechanism named --check passes (rc {rc})", rc == 0)
check("the row carries the named mechanism",
      "✘ the twin's wakeups land on busy CPUs" in row(out, "migrations: Cookie → Cookie + patch"))

# 30 points apart, but each seed of the twin scatters by +-400 migrations: apart by less than the
# runs' noise.
rc, out, err = run(SPEC, result(1500, 5), result(1200, 400), "--check")
check(f"a row apart by less than the noise passes --check (rc {rc})", rc == 0)
check("it is marked as within the noise",
      "≈ apart by less than the runs' noise" in row(out, "migrations: Cookie → Cookie + patch"))

# A note for every row of the scenario ("*") explains the rows outside both the tolerance and
# the noise; a row within the noise stays marked so.
WILD = '[[note]]\nscenario = "s"\nrow = "*"\nmechanism = "host-bound"\n'
rc, out, err = run(SPEC + WILD, result(1500, 5), result(1200, 400), "--check")
check("a \"*\" note leaves a row within the noise marked ≈",
      "≈" in row(out, "migrations: Cookie → Cookie + patch"))
rc, out, err = run(SPEC + WILD, result(1500, 5), result(1200, 5), "--check")
check(f"a \"*\" note names the mechanism of a row outside (rc {rc})",
      rc == 0 and "✘ host-bound" in row(out, "migrations: Cookie → Cookie + patch"))

# An overhead twice the model's is outside ×/÷ 1.5.
rc, out, err = run(SPEC, result(1500, 5), result(1500, 5, completion=(24.0, 28.0, 27.0)))
check("an overhead ratio of 0.5 is outside its tolerance",
      "✘" in row(out, "cookie overhead: Cookie over No cookie"))

# Errors: one line naming the file and the field, exit 2; a missing result fails --check.
rc, out, err = run('[[scenario]]\nname = "s"\nfile = "x.toml"\n', None, None)
check(f"a spec without runs exits 2 (rc {rc})", rc == 2)
check(f"it names the field in one line ({err!r})",
      "spec.toml: error: scenario[0]: 'runs' missing" in err and err.count("\n") == 1)
rc, out, err = run("[[scenario]\n", None, None)
check(f"a spec that is not TOML exits 2 (rc {rc})", rc == 2 and "spec.toml: error:" in err)
rc, out, err = run(SPEC, result(1500, 5), None, "--check")
check(f"a missing twin result fails --check (rc {rc})", rc == 1 and "twin result missing" in out)
p = subprocess.run([sys.executable, tool], capture_output=True, text=True)
check("no arguments: usage, exit 2", p.returncode == 2 and "Usage" in p.stderr)

# scripts/fidelity.sh's own argument checks (no kernel needed).
for args, msg in ((["--runs", "0"], "--runs: '0' is not a positive integer"),
                  (["--frobnicate"], "unknown argument '--frobnicate'"),
                  (["--accel", "hvf"], "--accel: 'hvf' is not auto, kvm or tcg"),
                  (["--schedlab", "/nonexistent"], "/nonexistent: no schedlab binary")):
    p = subprocess.run(["bash", os.path.join(src, "scripts", "fidelity.sh"), *args],
                       capture_output=True, text=True)
    check(f"fidelity.sh {' '.join(args)} exits 2 with '{msg}' (rc {p.returncode}, {p.stderr!r})",
          p.returncode == 2 and msg in p.stderr)

print(f"fidelity_table: {'FAIL' if fails else 'ok'} ({fails} failed)")
sys.exit(1 if fails else 0)
