#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The twin's end-to-end check: `schedlab measure --vm` of scenarios/twin/smoke.toml (1 socket x
# 2 cores x 2 threads, "No cookie", "Cookie" and "Cookie by scope") on a twin kernel, then
# checks on its JSON: the guest had the scenario's topology, cookies were really applied
# (non-zero ids shared by the pairs, whether made per thread or with the thread_group and
# process_group scopes; none without) and forced idle appeared only with them, and the
# result has every key of the simulator's experiment JSON, so compare reads it; then a traced
# run in the guest against the same run simulated, field by field. Prints a verdict line per
# part; exits 0 only if every check passes. See docs/vm.md.
#
# Usage: scripts/twin-smoke.sh SCHEDLAB BZIMAGE [--accel auto|kvm|tcg] [--out DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage() { echo "usage: scripts/twin-smoke.sh SCHEDLAB BZIMAGE [--accel auto|kvm|tcg] [--out DIR]" >&2; exit 2; }
fail() { echo "twin-smoke: FAIL: $*" >&2; exit 1; }
[ $# -ge 2 ] || usage
schedlab=$1 bzimage=$2
shift 2
accel=auto
out="$root/build/twin-smoke"
while [ $# -gt 0 ]; do
  case "$1" in
    --accel) [ $# -ge 2 ] || usage; accel=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    *) usage ;;
  esac
done
[ -x "$schedlab" ] || fail "no schedlab at $schedlab"
[ -f "$bzimage" ] || fail "no kernel image at $bzimage (build one with bash scripts/build-kernel.sh)"
rm -rf "$out"
mkdir -p "$out"
scenario="$root/scenarios/twin/smoke.toml"

t0=$SECONDS
rc=0
# Three seeds: scripts/test.sh sets this result beside the simulator's (scripts/fidelity.sh
# --only twin-smoke --reuse-twin), which needs more than one seed for its intervals.
seeds=3
"$schedlab" measure "$scenario" --vm --kernel "$bzimage" --accel "$accel" --runs "$seeds" \
  --workdir "$out/guest" --json "$out/twin.json" >"$out/twin.txt" 2>"$out/twin.err" || rc=$?
[ "$rc" -eq 0 ] || fail "schedlab measure --vm exited $rc: $(tail -n 2 "$out/twin.err" | tr '\n' ' ')(files: $out)"
"$schedlab" experiment "$scenario" --runs "$seeds" --json "$out/sim.json" >/dev/null ||
  fail "schedlab experiment of the same scenario failed"
"$schedlab" compare "$out/sim.json" "$out/twin.json" >"$out/compare.txt" ||
  fail "schedlab compare could not read the twin's result (see $out/compare.txt)"

python3 - "$out/twin.json" "$out/sim.json" "$seeds" <<'PY' || exit 1
import json, sys
twin = json.load(open(sys.argv[1]))
sim = json.load(open(sys.argv[2]))
seeds = int(sys.argv[3])
errors = []
def check(ok, msg):
    if not ok:
        errors.append(msg)

check(twin.get("measured") is True, '"measured" is not true')
tw = twin.get("twin", {})
check(tw.get("accel") in ("kvm", "tcg"), f"accelerator not recorded: {tw.get('accel')!r}")
cpus = tw.get("guest", {}).get("cpus", [])
check(len(cpus) == 4, f"the guest has {len(cpus)} CPUs, not 4")
want = {0: "0-1", 1: "0-1", 2: "2-3", 3: "2-3"}
for c in cpus:
    sib = c.get("thread_siblings")
    check(sib in (want.get(c.get("cpu")), want.get(c.get("cpu"), "").replace("-", ",")),
          f"guest CPU {c.get('cpu')} has siblings {sib!r}")
configs = {c["name"]: c for c in twin.get("configs", [])}
names = {"No cookie", "Cookie", "Cookie by scope"}
check(set(configs) == names, f"configurations {sorted(configs)}")
if set(configs) == names:
    for name, c in configs.items():
        runs = c.get("runs", [])
        check(len(runs) == seeds, f"{name}: {len(runs)} runs, not {seeds}")
        if not runs:
            continue
        tasks = {t["comm"]: t for t in runs[0].get("tasks", [])}
        check(len(tasks) == 5, f"{name}: {len(tasks)} tasks, not 5")
        cookies = {k: t.get("core_cookie") for k, t in tasks.items()}
        fi = c.get("mean_forceidle_s")
        if name == "No cookie":
            check(all(v == 0 for v in cookies.values()), f"No cookie: cookies {cookies}")
            check(fi == 0, f"No cookie: forced idle {fi} s, expected 0")
        else:
            check(all(isinstance(v, int) and v != 0 for v in cookies.values()),
                  f"{name}: not every task has a cookie: {cookies}")
            if len(cookies) == 5:
                w = [cookies[f"worker-{i}"] for i in range(5)]
                check(w[0] == w[1] and w[2] == w[3] and len({w[0], w[2], w[4]}) == 3,
                      f"{name}: the pairs do not share their cookies: {w}")
            check(isinstance(fi, (int, float)) and fi > 0, f"{name}: forced idle {fi} s, expected > 0")
        ss = runs[0].get("schedstat", {})
        check(ss.get("ttwu_count", 0) > 0, f"{name}: no wakeups in /proc/schedstat")
        check(len(ss.get("cpus", [])) == 4, f"{name}: schedstat has {len(ss.get('cpus', []))} CPUs")
# The simulator's experiment keys, all present, but for what only the model can count: events
# and where select_idle_sibling() placed each wakeup.
def model_only(k):
    return k in ("select_idle_sibling", "events", "mean_sis_calls") or "wakeups_other_cookie" in k
for k in sim:
    check(k in twin, f"top-level key {k!r} of the simulator's JSON is missing")
for sc in sim.get("configs", []):
    tc = configs.get(sc["name"], {})
    for k in sc:
        if k != "runs" and not model_only(k):
            check(k in tc, f"config {sc['name']!r}: key {k!r} of the simulator's JSON is missing")
    for k in (sc.get("runs") or [{}])[0]:
        if not model_only(k):
            check(k in (tc.get("runs") or [{}])[0],
                  f"config {sc['name']!r}: run key {k!r} of the simulator's JSON is missing")
for e in errors:
    print("twin-smoke:", e, file=sys.stderr)
if errors:
    print(f"twin-smoke: FAIL: {len(errors)} check(s) failed (files: {sys.argv[1]})", file=sys.stderr)
    sys.exit(1)
c = configs["Cookie"]
print(f"twin-smoke: PASS ({tw['accel']}, kernel {tw.get('kernel_release')}): 4 CPUs as the scenario's, "
      f"cookies applied, forced idle {c['mean_forceidle_s']:.3f} s with cookies and 0 without, "
      f"the simulator's JSON keys present")
PY
# The simulator's ftrace text against the kernel's own: a traced "Cookie" run in the guest and
# the same run simulated must have the same header lines and, event by event, the same fields
# in the same shapes (tests/cli/ftrace_reference_parser.py --golden); only values differ.
rc=0
"$schedlab" measure "$scenario" --vm --kernel "$bzimage" --accel "$accel" --runs 1 \
  --config Cookie --trace "$out/twin.trace" --workdir "$out/guest-trace" \
  >"$out/twin-trace.txt" 2>"$out/twin-trace.err" || rc=$?
[ "$rc" -eq 0 ] || fail "schedlab measure --vm --trace exited $rc: $(tail -n 2 "$out/twin-trace.err" | tr '\n' ' ')"
"$schedlab" run "$scenario" --config Cookie --trace "$out/sim.trace" >/dev/null ||
  fail "schedlab run --trace of the same scenario failed"
python3 "$root/tests/cli/ftrace_reference_parser.py" "$out/sim.trace" --kernel 6.12 \
  --golden "$out/twin.trace" --require sched_switch sched_waking sched_wakeup \
  >"$out/trace-compare.txt" 2>&1 ||
  fail "the simulated trace differs in layout from the twin's (see $out/trace-compare.txt)"
echo "twin-smoke: PASS: the simulated ftrace text has the twin kernel's header and event fields ($(tail -n 1 "$out/trace-compare.txt" | cut -d';' -f1))"
# The run loop's own thread (the guest's init, pid 1) must not disturb the workload: it sleeps
# until a task finishes and looks at Ctrl-C every 100 ms. Polling every 2 ms, it switched in
# over 300 times a second (docs/fidelity.md).
read -r init_in span < <(awk '/sched_switch:/ && / next_pid=1 / { n++ }
  / sched_switch:/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0; if (!t0) t0 = t; t1 = t } }
  END { printf "%d %.3f\n", n, t1 - t0 }' "$out/twin.trace")
awk -v n="$init_in" -v s="$span" 'BEGIN { exit !(s > 0 && n / s < 100) }' ||
  fail "the guest's run loop (pid 1) switched in $init_in times in $span s: more than 100 a second"
echo "twin-smoke: PASS: the guest's run loop switched in $init_in times in $span s"
echo "twin-smoke: took $(( SECONDS - t0 )) s" >&2
