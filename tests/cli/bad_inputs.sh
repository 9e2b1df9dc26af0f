#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
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
check_flag "--feature TTWU_QUEUE=maybe: 'maybe' is not true or false" run "$good" --feature TTWU_QUEUE=maybe
check_flag "--feature TTWU_QUEUE: expected NAME=true|false" run "$good" --feature TTWU_QUEUE
check_flag "unknown tunable 'nope'" run "$good" --tunable nope=1
check_flag "--tunable hz=999: must be one of 100, 250, 300, 1000, got 999" run "$good" --tunable hz=999
check_flag "--tunable nr_migrate=0: must be between 1 and 4096, got 0" run "$good" --tunable nr_migrate=0
check_flag "is not an integer" run "$good" --tunable hz=fast
check_flag "--seed" run "$good" --seed -1
check_flag "cannot read" run /nonexistent/file.toml
check_flag "The following argument was not expected" run "$good" --bogus
check_flag "unknown command 'bogus'" bogus

# Other formats and every command's flags: exit 2 and exactly one line naming the file or flag.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
src=$dir/../../..
trace=$src/tests/data/traces/golden-pairs-4t.trace
check_one() {  # expected substring, then the arguments; stderr must be that one line
  local want=$1; shift; n=$((n+1))
  local got; got=$(timeout 60 "$bin" "$@" 2>&1 >/dev/null); local rc=$?
  if [ "$rc" -ne 2 ] || [[ "$got" != *"$want"* ]] || [ "$(printf '%s\n' "$got" | wc -l)" -ne 1 ]; then
    echo "FAIL schedlab $*: exit $rc, got: $got (want one line with: $want)"; fail=$((fail+1))
  fi
}
rt() {  # NAME JSON: an rt-app file in $tmp
  printf '%s\n' "$2" > "$tmp/$1.json"
}
# rt-app JSON
: > "$tmp/empty.json"
check_one "empty.json:1:1: error: invalid JSON" run "$tmp/empty.json"
printf '\x00\x01\xff\xfe' > "$tmp/garbage.json"
check_one "garbage.json:1:1: error: invalid JSON" run "$tmp/garbage.json"
rt trunc '{"tasks": {"t": {"loop": 1, "run": 1000'
check_one "trunc.json:2:1: error: invalid JSON" run "$tmp/trunc.json"
rt neg '{"tasks": {"t": {"run": -5}}}'
check_one "neg.json:1:25: error: t:-:run: must be between 0 and" run "$tmp/neg.json"
rt huge '{"tasks": {"t": {"run": 100000000000000000000000}}}'
check_one "huge.json:1:25: error: t:-:run: expected an integer" run "$tmp/huge.json"
rt wrongtype '{"tasks": {"t": {"run": "abc"}}}'
check_one "wrongtype.json:1:25: error: t:-:run: expected an integer, got a string" run "$tmp/wrongtype.json"
rt typo '{"tasks": {"t": {"run": 1000, "sleep": 1000, "instnace": 3}}}'
check_one "typo.json:1:46: error: t:instnace: unknown key" run "$tmp/typo.json"
rt notasks '{"tasks": {}}'
check_one "notasks.json:1:11: error: tasks: no task with at least one instance" run "$tmp/notasks.json"
rt forever '{"tasks": {"t": {"run": 100}}}'
check_one "forever.json: error: global.duration: every task loops forever" run "$tmp/forever.json"
rt badcpu '{"global":{"duration":1},"tasks": {"t": {"run": 1000, "cpus": [99]}}}'
check_one "badcpu.json:1:36: error: t:cpus: cpu 99 does not exist" run "$tmp/badcpu.json"
rt instance '{"global":{"duration":1},"tasks": {"t": {"run": 1000, "instance": -2}}}'
check_one "instance.json:1:67: error: t:instance: must be between 0 and 1000000, got -2" run "$tmp/instance.json"
rt policy '{"global":{"duration":1},"tasks": {"t": {"run": 1000, "policy": "SCHED_BOGUS"}}}'
check_one "policy.json:1:65: error: t:policy: unknown policy 'SCHED_BOGUS'" run "$tmp/policy.json"
rt cookie '{"global":{"duration":1},"tasks": {"t": {"run": 1000}}, "schedlab": {"configs":[{"name":"c","cookies":[{"group":"nobody"}]}]}}'
check_one "cookie.json: error: schedlab.configs[0].cookies[0].group: no group named 'nobody'" run "$tmp/cookie.json"
rt topo '{"global":{"duration":1},"tasks": {"t": {"run": 1000}}, "schedlab": {"machine":{"sockets":0}}}'
check_one "topo.json: error: schedlab.machine.sockets: must be between 1 and 8192, got 0" run "$tmp/topo.json"
rt phases '{"global":{"duration":1},"tasks": {"t": {"phases": {}}}}'
check_one "phases.json:1:52: error: t:phases: no phases" run "$tmp/phases.json"
# Mutex discipline (rt-app's mutexes are plain pthread mutexes), reported at the rt-app event.
rt unlock '{"global":{"duration":1},"tasks": {"t": {"unlock": "m", "run": 100}}}'
check_one "unlock.json:1:42: error: t:-:unlock: the task does not hold mutex 'm' here" run "$tmp/unlock.json"
rt relock '{"global":{"duration":1},"tasks": {"t": {"lock": "m", "lock2": "m", "run": 100, "unlock": "m"}}}'
check_one "relock.json:1:55: error: t:-:lock2: the task already holds mutex 'm' here" run "$tmp/relock.json"
rt held '{"global":{"duration":1},"tasks": {"t": {"lock": "m", "run": 100}}}'
check_one "held.json:1:36: error: t:phases: mutex 'm' is still locked when the phases end" run "$tmp/held.json"
rt waitnomutex '{"global":{"duration":1},"tasks": {"t": {"wait": {"ref": "c", "mutex": "m"}, "run": 100}}}'
check_one "waitnomutex.json:1:42: error: t:-:wait.mutex: waiting on 'c' needs mutex 'm' held" run "$tmp/waitnomutex.json"
rt looplock '{"global":{"duration":1},"tasks": {"t": {"phases": {"a": {"loop": 3, "lock": "m", "run": 100}, "b": {"unlock": "m"}}}}}'
check_one "looplock.json:1:53: error: t:a.phases: a pass of the loop locks or unlocks a mutex without the reverse" run "$tmp/looplock.json"
# ftrace text traces
: > "$tmp/empty.trace"
check_one "empty.trace:0: error: no scheduler events" replay "$tmp/empty.trace"
printf 'garbage line here\n' > "$tmp/line.trace"
check_one "line.trace:1: error: not an ftrace event line" replay "$tmp/line.trace"
head -c 3000 "$trace" > "$tmp/cut.trace"
check_one "cut.trace:29: error: truncated last line" replay "$tmp/cut.trace"
ev() {  # NAME LINE: the golden trace's header, then LINE
  { sed -n 1,12p "$trace"; printf '%s\n' "$2"; } > "$tmp/$1.trace"
}
sw='sched_switch: prev_comm=swapper/3 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=x next_pid=14 next_prio=120'
ev pid "  <idle>-0  [003] d....  1.500926: ${sw/prev_pid=0/prev_pid=zero}"
check_one "pid.trace:13: error: sched_switch: fields do not follow its format" replay "$tmp/pid.trace"
ev negcpu "  <idle>-0  [-03] d....  1.500926: $sw"
check_one "negcpu.trace:13: error: not an ftrace event line" replay "$tmp/negcpu.trace"
ev hugecpu "  <idle>-0  [99999999] d....  1.500926: $sw"
check_one "hugecpu.trace:13: error: cpu 99999999 is beyond 65536 CPUs" replay "$tmp/hugecpu.trace"
ev ts "  <idle>-0  [003] d....  abc: $sw"
check_one "ts.trace:13: error: bad timestamp" replay "$tmp/ts.trace"
{ sed -n 1,12p "$trace"; sed -n 20,21p "$trace" | tac; } > "$tmp/back.trace"
check_one "back.trace:14: error: timestamp goes back in time" replay "$tmp/back.trace"
# run
check_one "--seed 99999999999999999999999: expected an integer from 0 to 2^64-1" run "$good" --seed 99999999999999999999999
check_one "--trace-cpus 0-999: cpu 8 does not exist" run "$good" --trace-cpus 0-999 --trace "$tmp/t.txt"
check_one "--trace-from must be before --trace-to" run "$good" --trace "$tmp/t.txt" --trace-from 2s --trace-to 1s
check_one "--wasted-threshold -1ms: bad duration '-1ms': must not be negative" run "$good" --check --wasted-threshold -1ms
# experiment
check_one "--runs 0: expected an integer from 1 to 100000" experiment "$good" --runs 0
check_one "--runs 1000001: expected an integer from 1 to 100000" experiment "$good" --runs 1000001
check_one "--jobs 0: expected an integer from 1 to 4096" experiment "$good" --jobs 0
check_one "--jobs -3: expected an integer from 1 to 4096" experiment "$good" --jobs -3
check_one "--jobs abc: expected an integer from 1 to 4096" experiment "$good" --jobs abc
check_one "--seed-base -1: expected an integer from 0 to 2^64-1" experiment "$good" --seed-base -1
check_one "--config: no configuration named \"Nope\"" experiment "$good" --config Nope
# --param: the kernel's switches, with --feature and --tunable as its shorthands
check_one "schedlab run: --param kernel.features.NOPE=true: unknown feature 'NOPE'" run "$good" --param kernel.features.NOPE=true
check_one "schedlab run: --param kernel.tunables.hz=999: must be one of 100, 250, 300, 1000, got 999" run "$good" --param kernel.tunables.hz=999
check_one "schedlab run: --param machine.cores_per_llc=2: expected kernel.features.NAME or kernel.tunables.NAME" run "$good" --param machine.cores_per_llc=2
check_one "schedlab run: --param kernel.features.TTWU_QUEUE: expected PATH=VALUE" run "$good" --param kernel.features.TTWU_QUEUE
check_one "schedlab run: --feature WA_IDLE=true and --param kernel.features.WA_IDLE=false set the same switch" run "$good" --feature WA_IDLE=true --param kernel.features.WA_IDLE=false
check_one "schedlab experiment: --tunable hz=250 and --tunable hz=100 set the same switch" experiment "$good" --tunable hz=250 --tunable hz=100
check_one "schedlab replay: --param kernel.features.WA_IDLE=maybe: 'maybe' is not true or false" replay "$trace" --param kernel.features.WA_IDLE=maybe
# sweep
check_flag "--param is required" sweep "$good"
check_one "schedlab sweep: --param kernel.features.WA_IDLE=maybe: 'maybe' is not true or false" sweep "$good" --param kernel.features.WA_IDLE=true,maybe --runs 1
check_one "schedlab sweep: --param kernel.features.WA_IDLE and --feature WA_IDLE=true set the same switch" sweep "$good" --param kernel.features.WA_IDLE=true,false --feature WA_IDLE=true
check_one "nope: unknown key" sweep "$good" --param nope=1,2
check_one "--param machine.cores_per_llc=: an empty value" sweep "$good" --param machine.cores_per_llc=
check_one "machine.cores_per_llc: must be between 1 and 8192, got 0" sweep "$good" --param machine.cores_per_llc=0,1 --runs 1
check_one "group.nobody.count=1: no [[group]] named 'nobody'" sweep "$good" --param group.nobody.count=1
# replay
check_one "--seed abc: expected an integer from 0 to 2^64-1" replay "$trace" --seed abc
check_one "/nonexistent.toml: error: cannot read" replay "$trace" --scenario /nonexistent.toml
check_one "/nonexistent.trace: error: cannot read" replay /nonexistent.trace
check_one "--cookie ,: expected task names" replay "$trace" --cookie ,
# timeline
check_one "--from must be before --to" timeline "$good" -o "$tmp/t.svg" --from 2s --to 1s
check_one "--cpus: cpu 77 does not exist" timeline "$good" -o "$tmp/t.svg" --cpus 77
check_one "--from abc: bad duration 'abc'" timeline "$good" -o "$tmp/t.svg" --from abc
check_flag "--output is required" timeline "$good"
# report
check_one "/nonexistent.json: cannot open for reading" report /nonexistent.json -o "$tmp/r.html"
check_one "wakeup-fastpath.toml: not valid JSON" report "$good" -o "$tmp/r.html"
# compare
check_one "/nonexistent.json: cannot read" compare /nonexistent.json "$good"
echo '{}' > "$tmp/e.json"
check_one "A is not a schedlab run or experiment result" compare "$tmp/e.json" "$tmp/e.json"
check_flag "B is required" compare "$good"
# measure (bad flags are refused before anything runs)
check_one "--runs 0: expected an integer from 1 to 10000" measure "$good" --runs 0
check_one "--runs abc: expected an integer from 1 to 10000" measure "$good" --runs abc
check_one "--config Nope: no such configuration" measure "$good" --config Nope
# topology and help
check_one "say --host" topology
check_one "/nonexistent/cpu/online: cannot read" topology --host --sysfs-root /nonexistent
check_flag "The following argument was not expected: --bogus" topology --host --bogus
check_one "unknown topic 'bogus'" help bogus
echo "$((n-fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
