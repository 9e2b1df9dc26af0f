#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Installs the Debian 12 packages schedlab builds with. Safe to run again.
# With --twin it also installs what the twin kernel needs (scripts/build-kernel.sh,
# scripts/vm-smoke.sh): Debian's kernel source, the kernel's build tools and QEMU.
# Why each one: docs/dependencies.md.
set -euo pipefail
pkgs=(cmake g++ make python3 libgtest-dev libgmock-dev libbenchmark-dev
      libtomlplusplus-dev libcli11-dev nlohmann-json3-dev libfmt-dev rt-app
      libopenmpi-dev openmpi-bin clang libclang-rt-14-dev)
twin_pkgs=(linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
           cpio xz-utils patch perl libc6-dev qemu-system-x86)
case "${1:-}" in
  "") ;;
  --twin) pkgs+=("${twin_pkgs[@]}") ;;
  *) echo "usage: scripts/install-deps.sh [--twin]" >&2; exit 2 ;;
esac
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
