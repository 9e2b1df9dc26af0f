#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Trace writing streams: a traced 60 s hypervisor-noise run (ftrace text and Chrome JSON,
about 130 MB together) peaks within 10 % of the memory of the same run without tracing.
Peak memory is the run's own VmHWM, which `run --json` reports as host.peak_rss_kb (a
parent's ru_maxrss would include the image the child had before exec)."""
import json
import os
import subprocess
import sys
import tempfile

bin_, src = sys.argv[1], sys.argv[2]
scenario = os.path.join(src, "scenarios", "hypervisor-noise.toml")

with tempfile.TemporaryDirectory() as tmp:
    def peak_kb(extra):
        out = os.path.join(tmp, "r.json")
        subprocess.run([bin_, "run", scenario, "--json", out] + extra, check=True,
                       stdout=subprocess.DEVNULL)
        with open(out) as f:
            return json.load(f)["host"]["peak_rss_kb"]

    plain = peak_kb([])
    traced = peak_kb(["--trace", os.path.join(tmp, "t.txt"),
                      "--trace-json", os.path.join(tmp, "t.json")])
    size = sum(os.path.getsize(os.path.join(tmp, f)) for f in ("t.txt", "t.json"))
print(f"peak RSS: {plain} KB untraced, {traced} KB traced ({size / 1e6:.0f} MB of trace), "
      f"{100.0 * (traced - plain) / plain:+.1f} %")
if plain <= 0:
    sys.exit("FAIL: no peak_rss_kb in the run JSON")
if size < 50_000_000:
    sys.exit("FAIL: the trace is too small to show streaming")
if traced > plain * 1.10:
    sys.exit("FAIL: tracing grew peak memory by more than 10 %")
print("1 passed, 0 failed")
