#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Every rt-app example Debian ships (/usr/share/doc/rt-app/examples, package rt-app) either runs
# in `schedlab run` (exit 0) or is refused with exactly the reason in the table below (exit 2);
# docs/rt-app.md lists the same outcomes. Then a file with schedlab's annotations
# (tests/data/rtapp/annotated.json) still loads and runs in the real rt-app.
# Skips what needs rt-app when it is not installed: a message, and exit 77 (CTest's
# SKIP_RETURN_CODE) if everything that ran passed.
# Usage: rtapp_examples.sh SCHEDLAB SOURCE_DIR
set -u
bin=$1; src=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ex=/usr/share/doc/rt-app/examples
fail=0; n=0
check() {  # description, then a command that succeeds when the check passes
  local what=$1; shift; n=$((n+1))
  if ! "$@"; then echo "FAIL $what"; fail=$((fail+1)); fi
}

# file (relative to $ex) | expected: "ok" or the error line after "FILE:"
expected=$(cat <<'TABLE'
browser-long.json|ok
browser-short.json|ok
cpufreq_governor_efficiency/calibration.json|19:22: error: global.default_policy: SCHED_FIFO is not modelled: schedlab simulates the fair class only (SCHED_OTHER, SCHED_BATCH, SCHED_IDLE)
cpufreq_governor_efficiency/dvfs.json|5:15: error: thread:policy: SCHED_FIFO is not modelled: schedlab simulates the fair class only (SCHED_OTHER, SCHED_BATCH, SCHED_IDLE)
merge/global.json| error: tasks: missing required object "tasks"
merge/resources.json| error: tasks: missing required object "tasks"
merge/thread0.json|4:10: error: thread0:exec: unknown key (rt-app's task keys: instance, loop, delay, cpus, policy, priority, phases, taskgroup, nodes_membind, util_min, util_max, dl-runtime, dl-period, dl-deadline, and events)
merge/thread1.json|4:10: error: thread1:exec: unknown key (rt-app's task keys: instance, loop, delay, cpus, policy, priority, phases, taskgroup, nodes_membind, util_min, util_max, dl-runtime, dl-period, dl-deadline, and events)
merge/thread2.json|4:10: error: thread2:exec: unknown key (rt-app's task keys: instance, loop, delay, cpus, policy, priority, phases, taskgroup, nodes_membind, util_min, util_max, dl-runtime, dl-period, dl-deadline, and events)
merge/thread3.json|4:10: error: thread3:exec: unknown key (rt-app's task keys: instance, loop, delay, cpus, policy, priority, phases, taskgroup, nodes_membind, util_min, util_max, dl-runtime, dl-period, dl-deadline, and events)
mp3-long.json|ok
mp3-short.json|ok
spreading-tasks.json|ok
template.json|ok
tutorial/example1.json|ok
tutorial/example2.json|ok
tutorial/example3.json|ok
tutorial/example4.json| error: global.duration: every task loops forever (loop -1) and no duration is set: set global.duration (seconds) or schedlab.duration
tutorial/example5.json|ok
tutorial/example6.json|11:4: error: thread0:-:mem: mem event: memory-bound load is not modelled
tutorial/example7.json|ok
tutorial/example8.json|13:6: error: thread0:phase1:cpus: changing the affinity per phase is not modelled (a task's cpus are fixed); give the phase the task's cpus or drop the key
video-long.json|ok
video-short.json|ok
TABLE
)

if [ ! -d "$ex" ]; then
  echo "SKIP: rt-app's examples are not installed ($ex; apt-get install rt-app)"
  skipped=1
else
  while IFS='|' read -r file want; do
    [ -z "$file" ] && continue
    f=$ex/$file
    if [ ! -e "$f" ] && [ -e "$f.gz" ]; then
      mkdir -p "$tmp/$(dirname "$file")"; zcat "$f.gz" >"$tmp/$file"; f=$tmp/$file
    fi
    if [ ! -e "$f" ]; then check "$file is installed" false; continue; fi
    if [ "$want" = ok ]; then
      # Runs are shortened to at most 2 simulated seconds.
      mkdir -p "$tmp/short/$(dirname "$file")"
      sed -E 's/"duration"[[:space:]]*:[[:space:]]*[0-9]+/"duration" : 2/' "$f" >"$tmp/short/$file"
      "$bin" run "$tmp/short/$file" >"$tmp/out" 2>"$tmp/err"; rc=$?
      check "$file runs (exit $rc: $(head -c 300 "$tmp/err"))" [ $rc -eq 0 ]
      check "$file: summary printed" grep -q . "$tmp/out"
      # Every example sleeps or waits: a run without wakeups would be a workload stuck at its start.
      check "$file: tasks woke up ($(grep -o '([0-9]* wakeups)' "$tmp/out"))" \
        grep -qE '\([1-9][0-9]* wakeups\)' "$tmp/out"
    else
      "$bin" run "$f" >"$tmp/out" 2>"$tmp/err"; rc=$?
      check "$file refused with 2 (got $rc)" [ $rc -eq 2 ]
      got=$(sed "s|^$f:||" "$tmp/err")
      check "$file: reason
   want: $want
   got:  $got" [ "$got" = "$want" ]
    fi
  done <<<"$expected"
  # Nothing shipped is left out of the table.
  listed=$(printf '%s\n' "$expected" | cut -d'|' -f1 | sort)
  shipped=$(cd "$ex" && find . -name '*.json' -o -name '*.json.gz' | sed 's|^\./||; s|\.gz$||' | sort)
  check "the table lists every shipped example
$(diff <(echo "$listed") <(echo "$shipped"))" [ "$listed" = "$shipped" ]
fi

# The annotated file: schedlab runs it...
ann=$src/tests/data/rtapp/annotated.json
"$bin" run "$ann" --config Cookie >"$tmp/ann.out" 2>&1; rc=$?
check "schedlab runs annotated.json (exit $rc)" [ $rc -eq 0 ]
# ... and so does the real rt-app, which ignores the "schedlab" object (global.duration = 1 s).
if command -v rt-app >/dev/null; then
  (cd "$tmp" && timeout 5 rt-app "$ann" >"$tmp/rtapp.out" 2>&1); rc=$?
  check "real rt-app loads and runs annotated.json (exit $rc: $(tail -n 3 "$tmp/rtapp.out"))" [ $rc -eq 0 ]
else
  echo "SKIP: rt-app is not installed: cannot check that annotated.json loads in it"
  skipped=1
fi

echo "$((n - fail))/$n checks passed"
[ $fail -eq 0 ] || exit 1
[ -z "${skipped:-}" ] || exit 77
