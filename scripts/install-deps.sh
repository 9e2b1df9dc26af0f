#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Installs the Debian 12 packages schedlab builds with. Safe to run again.
# Why each one: docs/dependencies.md.
set -euo pipefail
pkgs=(cmake g++ make python3 libgtest-dev libgmock-dev libbenchmark-dev
      libtomlplusplus-dev libcli11-dev nlohmann-json3-dev libfmt-dev rt-app
      libopenmpi-dev openmpi-bin clang libclang-rt-14-dev)
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
