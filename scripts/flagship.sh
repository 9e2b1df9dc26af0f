#!/usr/bin/env bash
# Fresh machine to first result: install, build (Release), run the flagship scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
./build/release/schedlab run scenarios/wakeup-fastpath.toml --config "No cookie" --json build/release/wakeup-fastpath.json
