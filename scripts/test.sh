#!/usr/bin/env bash
# Fresh machine to every test: install, build (Release and ASan+UBSan), run CTest on both;
# then the cross-build determinism check, ThreadSanitizer on the parallel runner, and fuzzing.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc)
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"
ctest --preset release -j "$jobs"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
ctest --preset asan -j "$jobs"
# Release and ASan+UBSan give byte-identical results (outside "host").
bash tests/cli/build_determinism.sh build/release/schedlab build/asan/schedlab "$PWD"
# ThreadSanitizer over the parallel runner: only schedlab and the unit tests, a few tests.
cmake --preset tsan >/dev/null
cmake --build --preset tsan -j "$jobs"
ctest --preset tsan -j "$jobs"
# libFuzzer (clang): each target 60 s from its seed corpus (docs/fuzzing.md).
bash scripts/fuzz.sh 60
