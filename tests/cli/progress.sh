#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# An experiment that runs longer than two seconds shows progress on stderr when stderr is a
# terminal (script(1) gives it one), and nothing when stderr is a file or a pipe.
set -u
bin=$1; src=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; n=0
check() { n=$((n+1)); if ! eval "$2"; then echo "FAIL: $1"; fail=$((fail+1)); fi; }
cmd="$bin experiment $src/scenarios/hypervisor-noise.toml --config Baseline --runs 16 --jobs 1"
$cmd >"$tmp/out" 2>"$tmp/err"; rc=$?
check "experiment runs" '[ $rc -eq 0 ]'
check "no progress on a non-terminal stderr" '[ ! -s "$tmp/err" ]'
if command -v script >/dev/null; then
  # Only stderr goes to the terminal; stdout (the table) to a file.
  script -qec "$cmd >$tmp/out2" "$tmp/typescript" >/dev/null 2>&1 </dev/null; rc=$?
  check "experiment under a terminal runs" '[ $rc -eq 0 ]'
  check "progress shown on a terminal" 'grep -aq "runs (" "$tmp/typescript"'
  check "the table is unchanged by progress" 'cmp -s <(grep -v "runs in" "$tmp/out") <(grep -v "runs in" "$tmp/out2")'
else
  echo "skip: script(1) absent, the terminal case is not tested"
  skipped=1
fi
echo "$((n-fail)) passed, $fail failed"
# 77: CTest's SKIP_RETURN_CODE (tests/CMakeLists.txt), once the checks that ran have passed.
[ "$fail" -eq 0 ] || exit 1
[ -z "${skipped:-}" ] || exit 77
