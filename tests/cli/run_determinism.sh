#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `schedlab run` twice with one seed: identical JSON outside "host"; another seed differs.
set -eu
bin=$1; src=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sc=$src/scenarios/wakeup-fastpath.toml
"$bin" run "$sc" --config "No cookie" --seed 4 --json "$tmp/a.json" >/dev/null
"$bin" run "$sc" --config "No cookie" --seed 4 --json "$tmp/b.json" >/dev/null
"$bin" run "$sc" --config "No cookie" --seed 5 --json "$tmp/c.json" >/dev/null
strip() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("host"); print(json.dumps(d))' "$1"; }
[ "$(strip "$tmp/a.json")" = "$(strip "$tmp/b.json")" ] || { echo "same seed, different JSON"; exit 1; }
[ "$(strip "$tmp/a.json")" != "$(strip "$tmp/c.json")" ] || { echo "different seeds, same JSON"; exit 1; }
for key in completion_time_s events forceidle_ns newidle_attempts newidle_skipped_avg_idle newidle_pulled newidle_cost_ns mean_avg_idle_ns select_idle_sibling; do grep -q "\"$key\"" "$tmp/a.json" || { echo "missing $key"; exit 1; }; done
echo "3 passed, 0 failed"
