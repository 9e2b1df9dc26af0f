#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# schedlab measure --vm without a real VM: argument errors (exit 2), scenarios the twin refuses
# (exit 3, naming what), and a QEMU stand-in that fails in each way a guest can: exits at once,
# sends a corrupt frame, hangs, reports an unsupported feature. Each ends in one line and a
# non-zero exit, with no QEMU left running. scripts/twin-smoke.sh runs the real thing.
set -uo pipefail
schedlab=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
# expect CODE PATTERN CMD...: the exit code, and stderr's last line matching PATTERN.
expect() {
  local code=$1 pattern=$2
  shift 2
  local rc=0
  "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  local last
  last=$(grep -v '^schedlab measure: the guest.s files are in' "$tmp/err" | tail -n 1)
  if [ "$rc" -ne "$code" ] || ! grep -q -- "$pattern" <<<"$last"; then
    echo "FAIL: $* -> exit $rc (want $code), last line: $last (want /$pattern/)" >&2
    fails=$((fails + 1))
  fi
}
scen=$src/scenarios/twin/smoke.toml
kernel=$tmp/bzImage
echo "not a kernel" >"$kernel"

expect 2 "needs --kernel" "$schedlab" measure "$scen" --vm
expect 2 "--kernel $tmp/none: no such file" "$schedlab" measure "$scen" --vm --kernel "$tmp/none"
expect 2 "--accel fast: expected auto, kvm or tcg" "$schedlab" measure "$scen" --vm --kernel "$kernel" --accel fast
expect 2 "need --vm" "$schedlab" measure "$scen" --kernel "$kernel"
expect 2 "several need --vm" "$schedlab" measure "$scen" --config "No cookie" --config Cookie
expect 2 'no configuration named "Nope"' "$schedlab" measure "$scen" --vm --kernel "$kernel" --config Nope
expect 2 "--runs 0" "$schedlab" measure "$scen" --vm --kernel "$kernel" --runs 0
# What the twin cannot run: a machine QEMU cannot give, a tunable the kernel lacks.
sed 's/^sockets = 1/sockets = 2/' "$scen" >"$tmp/two.toml"
expect 3 "more than one socket or NUMA node" "$schedlab" measure "$tmp/two.toml" --vm --kernel "$kernel" --accel tcg
sed 's/^name = "Cookie" .*/name = "Cookie"\ntunables = { core_push_forceidle_max = 2 }/' "$scen" >"$tmp/tun.toml"
expect 3 "sets tunable core_push_forceidle_max = 2" "$schedlab" measure "$tmp/tun.toml" --vm --kernel "$kernel" --accel tcg

# QEMU stand-ins: find the result port (the second -serial file:PATH) and misbehave.
mkfake() {
  cat >"$tmp/$1" <<SH
#!/usr/bin/env bash
n=0; out=""
for a in "\$@"; do
  case "\$a" in file:*) n=\$((n+1)); [ \$n -eq 2 ] && out=\${a#file:} ;; esac
done
$2
SH
  chmod +x "$tmp/$1"
}
mkfake exits 'echo "qemu: could not load kernel" >&2; exit 1'
# Each stand-in records its pid and its sleeper's, to check afterwards that none survives.
linger='sleep 31.7 & echo "$$ $!" >>"$(dirname "$0")/pids"; wait'
mkfake corrupt 'printf "\n@SCHEDLAB hello 5 0000000000000000\n{\"a\"}\n" >"$out"; '"$linger"
mkfake hangs "$linger"
mkfake unsupported 'p="{\"message\":\"configuration \\\"Cookie\\\" sets CORE_PUSH_FORCEIDLE, a sched feature this kernel does not have\"}"
h=$(python3 -c "import sys
h=0xcbf29ce484222325
for c in sys.argv[1].encode(): h=((h^c)*0x100000001b3)&(2**64-1)
print(\"%016x\"%h)" "$p")
printf "\n@SCHEDLAB unsupported %d %s\n%s\n" "${#p}" "$h" "$p" >"$out"; '"$linger"
# A boot timeout long enough for a stand-in started on a loaded machine; "hangs" gets 3 s.
run_fake() { "$schedlab" measure "$scen" --vm --kernel "$kernel" --accel tcg --qemu "$tmp/$1" --boot-timeout "${2:-30}" --workdir "$tmp/w-$1" --json "$tmp/$1.json"; }
expect 1 "QEMU exited with status 1 before the guest reported anything: qemu: could not load kernel" run_fake exits
expect 1 "the guest's results are corrupt: frame 'hello' of 5 bytes is corrupt" run_fake corrupt
expect 1 "the guest did not start within 3 s (tcg)" run_fake hangs 3
expect 3 "sets CORE_PUSH_FORCEIDLE, a sched feature this kernel does not have" run_fake unsupported
# A guest that sent a whole seed and then fails: the seed is kept, in the table and the JSON.
fake=$src/tests/cli/fake_qemu.py
export FAKE_QEMU_PIDS=$tmp/pids
run_py() { "$schedlab" measure "$scen" --vm --kernel "$kernel" --accel tcg --qemu "$fake" --boot-timeout 30 --runs 2 --workdir "$tmp/w-py" --json "$tmp/py.json"; }
FAKE_QEMU_SEEDS=2 expect 0 "" run_py
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['runs']==2 and j['measured'] and j['configs'][1]['mean_forceidle_s']>0, j['runs']" "$tmp/py.json" ||
  { echo "FAIL: the stand-in's two seeds are not in the JSON" >&2; fails=$((fails + 1)); }
FAKE_QEMU_SKIP="Cookie by scope" expect 1 'the guest finished without a result for configuration "Cookie by scope", seed 1' run_py
FAKE_QEMU_NO_SMT=1 expect 1 "the guest's machine is not the scenario's: guest CPU 0 (scenario CPU 0) has SMT siblings 0, expected {0,1}" run_py
FAKE_QEMU_END=exit expect 1 "the guest stopped (QEMU status 1) before it finished.*(the 1 complete seeds before it are kept)" run_py
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['runs']==1 and j['seeds']==[1]" "$tmp/py.json" ||
  { echo "FAIL: the seed before a crash is not kept in the JSON" >&2; fails=$((fails + 1)); }
# Ctrl-C after the first seed: QEMU stopped, the seed kept, exit 130.
FAKE_QEMU_END=hang "$schedlab" measure "$scen" --vm --kernel "$kernel" --accel tcg --qemu "$fake" \
  --boot-timeout 30 --runs 2 --workdir "$tmp/w-py" --json "$tmp/py.json" >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 300); do grep -q "run 3 of 6" "$tmp/err" 2>/dev/null && break; sleep 0.1; done
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" -eq 130 ] || { echo "FAIL: Ctrl-C gave exit $rc, not 130: $(tail -n 1 "$tmp/err")" >&2; fails=$((fails + 1)); }
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['runs']==1 and j['twin']['interrupted']" "$tmp/py.json" ||
  { echo "FAIL: the seed before Ctrl-C is not kept in the JSON" >&2; fails=$((fails + 1)); }
[ ! -e "$tmp/exits.json" ] || { echo "FAIL: a failed run left its --json file" >&2; fails=$((fails + 1)); }
sleep 0.2
alive=""
for p in $(cat "$tmp/pids" 2>/dev/null); do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
if [ -n "$alive" ]; then
  echo "FAIL: a QEMU stand-in is still running:$alive" >&2
  fails=$((fails + 1))
fi
[ "$fails" -eq 0 ] || { echo "measure_vm: $fails check(s) failed" >&2; exit 1; }
echo "measure_vm: all checks passed"
