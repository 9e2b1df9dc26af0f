#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Draws the README's picture(s) into docs/images/ with the Release build's schedlab.
# Run again after a change that moves results, and commit the new files.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SCHEDLAB:-build/release/schedlab}
[ -x "$bin" ] || { echo "make-readme-images: $bin not found; build first (cmake --build --preset release)" >&2; exit 1; }
mkdir -p docs/images
# 20 ms of the flagship's "Cookie" configuration, seed 1: forced idle shows as hatched red.
"$bin" timeline scenarios/wakeup-fastpath.toml --config Cookie --seed 1 \
  --from 1s --to 1.02s -o docs/images/wakeup-fastpath-cookie.svg
echo "make-readme-images: wrote docs/images/wakeup-fastpath-cookie.svg"
