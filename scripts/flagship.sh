#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Fresh machine to first result: install, build (Release), run the flagship scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
./build/release/schedlab experiment scenarios/wakeup-fastpath.toml --runs 10 --json build/release/wakeup-fastpath.json
