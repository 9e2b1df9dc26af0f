#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# replay reads `perf script` output of `perf sched record` and gives back the traced CPU time:
# a live capture of `perf bench sched messaging` when perf can record scheduler tracepoints here,
# and always the checked-in capture (tests/data/traces/perf-sched-messaging.txt: perf 6.1 on a
# 2-CPU host, `perf sched record -- perf bench sched messaging -g 1 -l 10`, then `perf script`
# with the sched_stat_runtime lines left out). The replayed total must be within 1 % of the
# traced total, and the layout must give what the same events in ftrace's layout give.
set -euo pipefail
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() {  # NAME CAPTURE
  local name=$1 cap=$2 out
  if ! out=$("$bin" replay "$cap" 2>&1); then
    echo "FAIL: $name: replay exited non-zero: $(tail -n 1 <<<"$out")"
    fails=$((fails + 1))
    return
  fi
  read -r traced replayed < <(awk '$1 == "total" { print $2, $3 }' <<<"$out")
  if python3 -c "import sys; t, r = float(sys.argv[1]), float(sys.argv[2]); sys.exit(not (t > 1 and abs(r - t) <= 0.01 * t))" "$traced" "$replayed"; then
    echo "ok: $name: traced $traced ms of CPU time, replayed $replayed ms"
  else
    echo "FAIL: $name: traced $traced ms of CPU time, replayed $replayed ms (more than 1 % apart, or nothing traced)"
    fails=$((fails + 1))
  fi
  # The same events in ftrace's layout (TASK-PID [CPU] FLAGS SECONDS: EVENT: FIELDS).
  sed -E 's/^ *(.*[^ ]) +([0-9]+) \[([0-9]+)\] ([0-9.]+): +sched:([a-z_]+): /\1-\2 [\3] d.... \4: \5: /' \
    "$cap" >"$tmp/ftrace.txt"
  if [ "$("$bin" replay "$tmp/ftrace.txt" 2>&1 | sed -n '/^Replay of/,$p' | tail -n +2)" = \
       "$(sed -n '/^Replay of/,$p' <<<"$out" | tail -n +2)" ]; then
    echo "ok: $name: the ftrace layout of the same events replays the same"
  else
    echo "FAIL: $name: perf script and ftrace layouts of the same events replay differently"
    fails=$((fails + 1))
  fi
}
check "checked-in capture" "$src/tests/data/traces/perf-sched-messaging.txt"
live=0
if command -v perf >/dev/null 2>&1 &&
   perf sched record -o "$tmp/perf.data" -- perf bench sched messaging -g 1 -l 10 >/dev/null 2>&1 &&
   perf script -i "$tmp/perf.data" 2>/dev/null | grep -v sched_stat_runtime >"$tmp/live.txt" &&
   [ -s "$tmp/live.txt" ]; then
  live=1
  check "live capture" "$tmp/live.txt"
fi
[ $fails -eq 0 ] || exit 1
if [ $live -eq 0 ]; then
  echo "replay_perf: perf cannot record scheduler tracepoints here: the live capture was skipped"
  exit 77
fi
