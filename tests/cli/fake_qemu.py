#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# A QEMU stand-in for tests/cli/measure_vm.sh: writes, on the result port (the second
# "-serial file:PATH"), what a twin guest on 1 socket x 2 cores x 2 threads would send for
# scenarios/twin/smoke.toml, seed by seed, then behaves as FAKE_QEMU_END says: "done"
# (powers off), "hang" (sleeps), "exit" (exits 1 as a crashed QEMU). FAKE_QEMU_SEEDS is how
# many seeds it sends (default 1); FAKE_QEMU_NO_SMT=1 reports CPUs without SMT siblings;
# FAKE_QEMU_SKIP=NAME leaves out configuration NAME's runs.
import json, os, sys, time

out = [a[5:] for a in sys.argv if a.startswith("file:")][1]
if os.environ.get("FAKE_QEMU_PIDS"):
    with open(os.environ["FAKE_QEMU_PIDS"], "a") as p:
        print(os.getpid(), file=p)
SCHEDSTAT = """version 16
timestamp {ts}
""" + "".join(
    f"cpu{c} 0 0 {{n}} 1 {{n}} {{n}} 1 1 1\n"
    f"domain0 {'3' if c < 2 else 'c'} " + " ".join(["{n}"] * 24 + ["0"] * 12) + "\n"
    for c in range(4))

def frame(kind, obj):
    p = json.dumps(obj).encode()
    h = 0xcbf29ce484222325
    for b in p:
        h = ((h ^ b) * 0x100000001b3) & (2**64 - 1)
    return b"\n@SCHEDLAB %s %d %016x\n" % (kind.encode(), len(p), h) + p + b"\n"

def task(i, cookie):
    return {"pid": 100 + i, "comm": f"worker-{i}", "runtime_ns": 1000, "wait_ns": 10,
            "sleep_ns": 100, "nr_switches": 3, "nr_migrations": 1, "core_cookie": cookie,
            "core_forceidle_sum_ns": 5000 if cookie else 0, "exit_ns": 2000}

with open(out, "ab", buffering=0) as f:
    # FAKE_QEMU_NO_SMT=1: a guest whose CPUs have no siblings (as under TCG without
    # vendor=GenuineIntel).
    no_smt = os.environ.get("FAKE_QEMU_NO_SMT") == "1"
    cpus = [{"cpu": c, "thread_siblings": str(c) if no_smt else ("0-1" if c < 2 else "2-3"),
             "llc_siblings": "0-3"} for c in range(4)]
    f.write(frame("hello", {"kernel_release": "6.12.117", "nr_cpus": 4, "cpus": cpus,
                            "sched_features": {}, "hz_measured": 1000.0, "core_sched": "ok"}))
    f.write(frame("timing", {"sleep_overshoot_mean_ns": 1000.0}))
    for seed in range(1, int(os.environ.get("FAKE_QEMU_SEEDS", "1")) + 1):
        for config, cookie in (("No cookie", 0), ("Cookie", 7), ("Cookie by scope", 9)):
            if config == os.environ.get("FAKE_QEMU_SKIP"):
                continue
            res = {"completion_time_ns": 2000 + seed, "forceidle_ns": 25000 if cookie else 0,
                   "tasks": [task(i, cookie) for i in range(5)]}
            f.write(frame("run", {"config": config, "seed": seed, "result": res,
                                  "schedstat_before": SCHEDSTAT.format(ts=1, n=1),
                                  "schedstat_after": SCHEDSTAT.format(ts=2, n=5)}))
    end = os.environ.get("FAKE_QEMU_END", "done")
    if end == "done":
        f.write(frame("done", {}))
        sys.exit(0)
    if end == "exit":
        print("qemu-system-x86_64: terminating on signal 11", file=sys.stderr)
        sys.exit(1)
time.sleep(31.7)
