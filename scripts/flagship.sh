#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Fresh machine to first result: install, build (Release), run the flagship scenario.
# Only schedlab and the packages it links, as a quick build (SCHEDLAB_QUICK_BUILD: -O1, one
# unity build; half the compile time, the same results byte for byte, runs a quarter slower):
# the tests and benchmarks are scripts/test.sh's, whose `cmake --preset release` turns them on
# again, and the quick build off, in the same build directory (docs/install.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release -DSCHEDLAB_TESTS=OFF -DSCHEDLAB_BENCH=OFF -DCMAKE_UNITY_BUILD=ON \
  -DSCHEDLAB_QUICK_BUILD=ON >/dev/null
cmake --build --preset release -j "$(nproc)" --target schedlab
./build/release/schedlab experiment scenarios/wakeup-fastpath.toml --runs 10 --json build/release/wakeup-fastpath.json
