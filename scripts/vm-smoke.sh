#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Boots a twin kernel (scripts/build-kernel.sh) in QEMU on 4 vCPUs as one socket of
# 2 SMT2 cores, with tools/vm-init/init.c as /init, and checks what the guest reports:
# 4 CPUs online, siblings {0,1} and {2,3}, core scheduling cookies that work, a
# readable sched features file, and in it every SCHED_FEAT() switch that the image's
# patches (kernel-patches/<version>/) add, off by default (NO_NAME). KVM is used only
# if a bounded probe boot reaches /init;
# otherwise TCG. Prints one verdict line; exits 0 only if every check passes.
# See docs/vm.md.
#
# Usage: scripts/vm-smoke.sh BZIMAGE [--accel auto|kvm|tcg] [--timeout SECONDS] [--out DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
  echo "usage: scripts/vm-smoke.sh BZIMAGE [--accel auto|kvm|tcg] [--timeout SECONDS] [--out DIR]" >&2
  exit 2
}
fail() { echo "vm-smoke: FAIL: $*" >&2; exit 1; }

bzimage=""
accel=auto
limit=180        # seconds for the whole TCG boot and report
probe_limit=30   # seconds for KVM to reach /init
out="$root/build/vm-smoke"
while [ $# -gt 0 ]; do
  case "$1" in
    --accel) [ $# -ge 2 ] || usage; accel=$2; shift 2 ;;
    --timeout) [ $# -ge 2 ] || usage; limit=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "vm-smoke: unknown option '$1'" >&2; usage ;;
    *) [ -z "$bzimage" ] || usage; bzimage=$1; shift ;;
  esac
done
[ -n "$bzimage" ] || usage
case "$accel" in auto|kvm|tcg) ;; *) echo "vm-smoke: --accel must be auto, kvm or tcg" >&2; exit 2 ;; esac
[[ "$limit" =~ ^[1-9][0-9]*$ ]] || { echo "vm-smoke: --timeout needs a positive integer" >&2; exit 2; }
[ -f "$bzimage" ] || fail "no kernel image at $bzimage (build one with bash scripts/build-kernel.sh)"

missing=()
for t in qemu-system-x86_64:qemu-system-x86 gcc:gcc python3:python3 timeout:coreutils; do
  command -v "${t%%:*}" >/dev/null 2>&1 || missing+=("${t%%:*} (${t#*:})")
done
[ ${#missing[@]} -eq 0 ] || fail "missing tools: ${missing[*]}; bash scripts/install-deps.sh --twin installs them"

mkdir -p "$out"
# The guest's /init, static, in a gzip'd cpio with /dev/console.
gcc -static -O2 -Wall -o "$out/init" "$root/tools/vm-init/init.c" 2>"$out/init-build.log" ||
  fail "could not build tools/vm-init/init.c statically (is libc6-dev installed?): $(head -n 3 "$out/init-build.log")"
python3 "$root/tools/vm-init/mkcpio.py" "$out/initramfs.cpio.gz" "$out/init"

qemu_pid=""
cleanup() { [ -z "$qemu_pid" ] || kill "$qemu_pid" 2>/dev/null || true; }
trap cleanup EXIT INT TERM

# boot ACCEL SECONDS LOG: runs the guest until it powers off or the time is up.
# Returns timeout's status (124 when the time ran out).
boot() {
  local acc=$1 secs=$2 log=$3 machine
  if [ "$acc" = kvm ]; then
    machine=(-cpu host -accel kvm)
  else
    # Under TCG, -cpu max alone shows an AMD vendor and the guest sees no SMT siblings.
    # shellcheck disable=SC2054 # the commas belong to QEMU's option values
    machine=(-cpu max,vendor=GenuineIntel -accel tcg,thread=multi)
  fi
  timeout --kill-after=5 "$secs" qemu-system-x86_64 \
    -kernel "$bzimage" -initrd "$out/initramfs.cpio.gz" \
    -smp 4,sockets=1,cores=2,threads=2 "${machine[@]}" -m 512M \
    -nographic -no-reboot -nodefaults -serial stdio -display none \
    -append "console=ttyS0 random.trust_cpu=on schedstats=enable panic=-1 quiet" \
    </dev/null >"$log" 2>&1 &
  qemu_pid=$!
  local rc=0
  wait "$qemu_pid" || rc=$?
  qemu_pid=""
  return "$rc"
}

log="$out/console.log"
ran=""
rc=0
if [ "$accel" != tcg ]; then
  if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
    boot kvm "$probe_limit" "$out/kvm-probe.log" || rc=$?
    if grep -q 'SCHEDLAB-VM init=started' "$out/kvm-probe.log"; then
      ran=kvm
      cp "$out/kvm-probe.log" "$log"
    elif [ "$accel" = kvm ]; then
      fail "KVM was asked for but the guest did not reach /init within $probe_limit s (log: $out/kvm-probe.log)"
    else
      echo "vm-smoke: KVM is present but the guest did not reach /init within $probe_limit s; using TCG" >&2
    fi
  elif [ "$accel" = kvm ]; then
    fail "KVM was asked for but /dev/kvm is not usable"
  else
    echo "vm-smoke: no usable /dev/kvm; using TCG" >&2
  fi
fi
if [ -z "$ran" ]; then
  ran=tcg
  rc=0
  t0=$SECONDS
  boot tcg "$limit" "$log" || rc=$?
  echo "vm-smoke: TCG guest ran for $(( SECONDS - t0 )) s" >&2
fi

tr -d '\r' < "$log" > "$log.tmp" && mv "$log.tmp" "$log"
if grep -a -q 'Kernel panic' "$log"; then
  fail "the guest kernel panicked ($ran): $(grep -a -o -m1 'Kernel panic.*' "$log") (log: $log)"
fi
if ! grep -q 'SCHEDLAB-VM done=1' "$log"; then
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    if grep -q 'SCHEDLAB-VM init=started' "$log"; then
      fail "the guest reached /init but did not finish within the time limit ($ran) (log: $log)"
    fi
    fail "the guest did not reach /init within the time limit ($ran; hang?) (log: $log)"
  fi
  fail "the guest stopped (QEMU status $rc) before /init reported everything ($ran) (log: $log)"
fi

# key=value of the framed lines.
val() { sed -n "s/^.*SCHEDLAB-VM $1=//p" "$log" | head -n 1; }
errors=()
ncpu=$(val nr_cpus_online)
[ "$ncpu" = 4 ] || errors+=("expected 4 CPUs online, the guest has '${ncpu:-none}'")
for pair in 0:0-1 1:0-1 2:2-3 3:2-3; do
  cpu=${pair%%:*}
  want=${pair#*:}
  got=$(val "cpu${cpu}_thread_siblings")
  # The kernel prints a range ("0-1"); a list ("0,1") is the same set.
  [ "$got" = "$want" ] || [ "$got" = "${want/-/,}" ] ||
    errors+=("CPU $cpu siblings are '${got:-none}', expected {${want/-/,}}")
done
create=$(val sched_core_create)
cookie=$(val sched_core_cookie)
if [ "$create" != ok ]; then
  errors+=("prctl(PR_SCHED_CORE_CREATE) failed: ${create:-no report}")
elif [ -z "$cookie" ] || [ "$cookie" = 0x0 ] || [[ "$cookie" == error* ]]; then
  errors+=("PR_SCHED_CORE_GET gave no non-zero cookie ('${cookie:-none}')")
fi
features=$(val sched_features)
hz=$(val hz)
release=$(val kernel_release)
switches=()
if [ -z "$features" ] || [[ "$features" == unreadable* ]]; then
  errors+=("/sys/kernel/debug/sched/features is not readable (${features:-no report})")
else
  # The switches that the patches add: those the image was built with (inputs.txt
  # beside it, from build-kernel.sh), else every patch for the kernel's version.
  version=$(sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p' <<<"$release")
  patchdir="$root/kernel-patches/${version:-none}"
  patches=()
  inputs="$(dirname "$bzimage")/inputs.txt"
  if [ -f "$inputs" ] && grep -q '^patches ' "$inputs"; then
    while IFS= read -r name; do
      if [ -f "$patchdir/$name" ]; then patches+=("$patchdir/$name"); fi
    done < <(sed -n 's/^  \(.*\.patch\)$/\1/p' "$inputs")
  else
    shopt -s nullglob
    patches=("$patchdir"/*.patch)
    shopt -u nullglob
  fi
  if [ ${#patches[@]} -gt 0 ]; then
    mapfile -t switches < <(sed -n 's/^+SCHED_FEAT(\([A-Za-z0-9_]*\),.*/\1/p' "${patches[@]}")
  fi
  for name in ${switches[@]+"${switches[@]}"}; do
    if [[ " $features " == *" $name "* ]]; then
      errors+=("sched feature $name (kernel-patches/$version) is on by default, expected NO_$name")
    elif [[ " $features " != *" NO_$name "* ]]; then
      errors+=("sched feature $name (kernel-patches/$version) is not in the features file")
    fi
  done
fi

if [ ${#errors[@]} -gt 0 ]; then
  for e in "${errors[@]}"; do echo "vm-smoke: $e" >&2; done
  fail "${#errors[@]} check(s) failed ($ran, kernel ${release:-?}) (log: $log)"
fi
echo "vm-smoke: PASS ($ran): kernel $release, 4 CPUs, SMT siblings {0,1} {2,3}, core cookie $cookie, HZ ${hz:-unknown}, $(wc -w <<<"$features") sched features readable, ${#switches[@]} patch switches off by default"
