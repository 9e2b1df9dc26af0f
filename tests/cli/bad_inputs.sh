#!/usr/bin/env bash
# Every malformed scenario makes `schedlab run` exit 2 with exactly its expected one-line error;
# bad flags exit 2 too. Usage: bad_inputs.sh SCHEDLAB BAD_DIR
set -u
bin=$1; dir=$2; fail=0; n=0
for f in "$dir"/*.toml; do
  n=$((n+1))
  want=$(head -n1 "$f" | sed -n 's/^# expect: //p' | sed "s|FILE|$f|")
  got=$("$bin" run "$f" 2>&1 >/dev/null); rc=$?
  if [ "$rc" -ne 2 ] || [ "$got" != "$want" ]; then
    echo "FAIL $f: exit $rc"; echo "  want: $want"; echo "  got:  $got"; fail=$((fail+1))
  fi
done
good=$dir/../../../scenarios/wakeup-fastpath.toml
check_flag() {  # expected substring, then the arguments
  local want=$1; shift; n=$((n+1))
  local got; got=$("$bin" "$@" 2>&1 >/dev/null); local rc=$?
  if [ "$rc" -ne 2 ] || [[ "$got" != *"$want"* ]]; then
    echo "FAIL schedlab $*: exit $rc, got: $got (want: $want)"; fail=$((fail+1))
  fi
}
check_flag "no configuration named \"Nope\"" run "$good" --config Nope
check_flag "unknown feature 'NOPE'" run "$good" --feature NOPE=true
check_flag "expected NAME=true or NAME=false" run "$good" --feature TTWU_QUEUE=maybe
check_flag "unknown tunable 'nope'" run "$good" --tunable nope=1
check_flag "hz must be 100, 250, 300 or 1000" run "$good" --tunable hz=999
check_flag "is not an integer" run "$good" --tunable hz=fast
check_flag "--seed" run "$good" --seed -1
check_flag "cannot read" run /nonexistent/file.toml
check_flag "The following argument was not expected" run "$good" --bogus
check_flag "unknown command 'bogus'" bogus
echo "$((n-fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
