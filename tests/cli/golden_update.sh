#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/cli/golden.py itself, without simulating: the "current" lines are the kept golden file,
# and a copy with two figures changed plays the file before a model change. A check names the
# moved runs and shows old -> new; --update refuses without --expect, writes nothing when a
# line outside the expected runs moved, and writes exactly the new lines when all are covered.
set -eu
src=$(cd "$1" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/tests/data"
golden=$src/tests/data/golden.txt
kept=$tmp/src/tests/data/golden.txt
sed -e 's/^\(smoke | No cookie | seed 1 | completion\) [0-9.]* s/\1 0.700000000 s/' \
    -e 's/^\(wakeup-fastpath | Cookie | seed 2 | migrations\) [0-9]*,/\1 1,/' "$golden" >"$kept"
[ "$(diff "$golden" "$kept" | grep -c '^>')" = 2 ] || { echo "the test's edit did not apply"; exit 1; }
cp "$kept" "$tmp/before"
g() { SCHEDLAB_GOLDEN_LINES=$golden python3 "$src/tests/cli/golden.py" /nonexistent "$tmp/src" "$@"; }
fail=0
expect() {  # exit status, pattern of the output (or -), then the arguments
  local want=$1 pat=$2 rc=0; shift 2
  g "$@" >"$tmp/out" 2>&1 || rc=$?
  if [ "$rc" != "$want" ] || { [ "$pat" != - ] && ! grep -q -e "$pat" "$tmp/out"; }; then
    echo "FAIL: golden.py $* exited $rc (want $want), output lacks '$pat':"; cat "$tmp/out"; fail=1
  fi
}
expect 1 "^golden results moved: 2 old line(s) -> 2 new line(s) in 2 run(s):"
expect 1 "^  smoke|No cookie$"
expect 1 "completion 0.700000000 s -> 0.701415000 s"
expect 1 "^+wakeup-fastpath | Cookie | seed 2 | migrations 3033,"
expect 1 "--update --expect 'smoke|No cookie' --expect 'wakeup-fastpath|Cookie'"
expect 2 "needs to be told what is expected to move" --update
expect 2 "non-empty reason" --update --expect-all " "
expect 1 "not written: 2 line(s) moved outside smoke|\*" --update --expect 'smoke|*'
cmp -s "$kept" "$tmp/before" || { echo "FAIL: a refused --update changed the file"; fail=1; }
expect 0 "2 old line(s) -> 2 new line(s) in 2 run(s)" --update --expect 'smoke|No*' --expect 'wakeup-fastpath|Cookie'
cmp -s "$kept" "$golden" || { echo "FAIL: --update did not write the new lines"; fail=1; }
expect 0 "golden lines unchanged"
[ $fail = 0 ] && echo "10 passed, 0 failed"
exit $fail
