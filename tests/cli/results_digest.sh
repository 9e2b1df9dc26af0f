#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Results are a function of (scenario, seed, schedlab version): tests/data/results.sha256 keeps
# the digests of a fixed set of runs under the version that made them. A change that moves any
# of them without a new version fails here, so a speed-up that claims identical results is
# checked, and a number in a doc can be traced to its model (docs/cli.md, determinism).
#
#   results_digest.sh BIN SRC            check
#   results_digest.sh BIN SRC --update   after a deliberate model change and a version bump
#                                        (project(... VERSION ...) in CMakeLists.txt)
set -eu
bin=$1; src=$2; mode=${3:-check}
cd "$src"
list=tests/data/results.sha256
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# The JSON without what belongs to the host (timings, threads), keys sorted.
digest() {
  python3 - "$1" <<'EOF' | sha256sum | cut -d' ' -f1
import json, sys
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in ("host", "wall_s")}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
print(json.dumps(strip(json.load(open(sys.argv[1]))), sort_keys=True))
EOF
}

version=$("$bin" --version | awk '{print $2}')
{
  echo "version $version"
  # smoke-host.toml reads the machine it runs on: its results are the host's, not the model's.
  for s in scenarios/*.toml; do
    [ "$s" = scenarios/smoke-host.toml ] && continue
    "$bin" experiment "$s" --runs 2 --jobs 2 --json "$tmp/e.json" >/dev/null
    echo "$(digest "$tmp/e.json")  experiment $s --runs 2"
  done
  for run in "wakeup-fastpath|No cookie" "wakeup-fastpath|Cookie" "wakeup-fastpath|Cookie + patch" \
    "hypervisor-noise|Baseline" "hypervisor-noise|Force idle aware LB" \
    "hypervisor-noise|Push force idle tasks" "hypervisor-noise|Both"; do
    s=scenarios/${run%%|*}.toml; c=${run#*|}
    "$bin" run "$s" --config "$c" --seed 1 --json "$tmp/r.json" >/dev/null
    echo "$(digest "$tmp/r.json")  run $s --config \"$c\" --seed 1"
  done
} >"$tmp/new"

if [ "$mode" = --update ]; then
  cp "$tmp/new" "$list"
  echo "wrote $list for version $version"
  exit 0
fi
[ "$mode" = check ] || { echo "usage: results_digest.sh BIN SRC [--update]" >&2; exit 2; }
old_version=$(head -1 "$list" | awk '{print $2}')
if [ "$old_version" != "$version" ]; then
  echo "$list holds version $old_version's results, this is $version: after checking that the"
  echo "changes are the ones intended, run: bash tests/cli/results_digest.sh BIN . --update"
  exit 1
fi
if ! diff -u "$list" "$tmp/new" >"$tmp/diff"; then
  echo "results changed under the same version $version:"
  grep '^[-+][^-+]' "$tmp/diff" || true
  echo "An optimisation must leave them alone. A deliberate model change bumps the version in"
  echo "CMakeLists.txt first; a JSON field added or renamed needs no bump. Then:"
  echo "  bash tests/cli/results_digest.sh BIN . --update"
  exit 1
fi
echo "$(($(wc -l <"$list") - 1)) passed, 0 failed"
