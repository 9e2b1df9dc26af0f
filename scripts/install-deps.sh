#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Installs the Debian 12 packages schedlab needs. Safe to run again.
# Without options: what building and running schedlab needs (scripts/flagship.sh).
# --all: also what the tests, benchmarks, fuzzing and packaging need (scripts/test.sh).
# --twin: also what the twin kernel needs (scripts/build-kernel.sh, scripts/vm-smoke.sh):
# Debian's kernel source, the kernel's build tools and QEMU. The options combine.
# Why each one: docs/dependencies.md.
set -euo pipefail
pkgs=(cmake ninja-build g++ libtomlplusplus-dev libcli11-dev nlohmann-json3-dev libfmt-dev)
all_pkgs=(python3 linux-perf libgtest-dev libgmock-dev libbenchmark-dev rt-app libopenmpi-dev openmpi-bin
          clang libclang-rt-14-dev dpkg-dev man-db groff-base pkg-config libtracecmd-dev libtracefs-dev
          libtraceevent-dev trace-cmd)
twin_pkgs=(linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
           cpio xz-utils patch perl libc6-dev python3 qemu-system-x86)
for arg in "$@"; do
  case "$arg" in
    --all) pkgs+=("${all_pkgs[@]}") ;;
    --twin) pkgs+=("${twin_pkgs[@]}") ;;
    *) echo "usage: scripts/install-deps.sh [--all] [--twin]" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
# Each package once, in order (python3 is in two sets).
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | awk '!seen[$0]++')
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
