#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Regenerates docs/fidelity.md's tables: runs every scenario of scenarios/twin/fidelity.toml in
# the simulator (schedlab experiment) and on the twin kernel (schedlab measure --vm) on the same
# seeds, then tools/fidelity.py sets their effects side by side with a tolerance per row.
# The whole set takes about half an hour on a two-core host under TCG; scripts/test.sh runs the
# smallest scenario (--only twin-smoke --check).
#
# Usage: scripts/fidelity.sh [--schedlab BIN] [--kernel IMG] [--out DIR] [--only NAME]...
#                            [--runs N] [--accel auto|kvm|tcg] [--reuse-twin] [--check]
#                            [--write-doc]
#   --out DIR      where the results go (default build/fidelity)
#   --only NAME    only this scenario of the spec (may be repeated)
#   --runs N       seeds per scenario instead of the spec's
#   --accel A      passed to measure --vm (default auto: KVM when a guest starts under it)
#   --reuse-twin   keep a twin result already in DIR (the simulator side always re-runs)
#   --check        exit 1 when a row is outside its tolerance and no mechanism is named
#   --write-doc    replace the generated part of docs/fidelity.md
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
spec="$root/scenarios/twin/fidelity.toml"
bin="$root/build/release/schedlab"
img=""
out="$root/build/fidelity"
only=()
runs=""
reuse=0
accel=auto
check=()
write_doc=0

die() { echo "fidelity: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --schedlab) [ $# -ge 2 ] || die "--schedlab needs a path"; bin=$2; shift 2 ;;
    --kernel) [ $# -ge 2 ] || die "--kernel needs a path"; img=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || die "--out needs a directory"; out=$2; shift 2 ;;
    --only) [ $# -ge 2 ] || die "--only needs a scenario name"; only+=("$2"); shift 2 ;;
    --runs) [ $# -ge 2 ] || die "--runs needs a number"; runs=$2; shift 2 ;;
    --accel) [ $# -ge 2 ] || die "--accel needs auto, kvm or tcg"; accel=$2; shift 2 ;;
    --reuse-twin) reuse=1; shift ;;
    --check) check=(--check); shift ;;
    --write-doc) write_doc=1; shift ;;
    -h|--help) sed -n '3,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ -z "$runs" || "$runs" =~ ^[1-9][0-9]*$ ]] || die "--runs: '$runs' is not a positive integer"
case "$accel" in auto|kvm|tcg) ;; *) die "--accel: '$accel' is not auto, kvm or tcg" ;; esac
[ -x "$bin" ] || die "$bin: no schedlab binary (build it, or give --schedlab)"
if [ -z "$img" ]; then
  img=$(bash "$root/scripts/build-kernel.sh") || die "the twin kernel did not build"
fi
[ -f "$img" ] || die "$img: no kernel image"
mkdir -p "$out"

mapfile -t list < <(python3 "$root/tools/fidelity.py" "$spec" --list)
[ ${#list[@]} -gt 0 ] || die "$spec lists no scenario"
for w in "${only[@]}"; do
  printf '%s\n' "${list[@]}" | grep -q "^$w " || die "--only $w: not a scenario of $spec"
done
names=()
for line in "${list[@]}"; do
  read -r name file n <<<"$line"
  if [ ${#only[@]} -gt 0 ] && ! printf '%s\n' "${only[@]}" | grep -qx "$name"; then continue; fi
  names+=("$name")
  n=${runs:-$n}
  echo "fidelity: $name: simulator, $n seeds" >&2
  "$bin" experiment "$root/$file" --runs "$n" --json "$out/$name.sim.json" > "$out/$name.sim.txt"
  if [ $reuse -eq 1 ] && [ -s "$out/$name.twin.json" ]; then
    echo "fidelity: $name: twin result kept" >&2
  else
    echo "fidelity: $name: twin, $n seeds" >&2
    "$bin" measure "$root/$file" --vm --kernel "$img" --accel "$accel" --runs "$n" \
      --json "$out/$name.twin.json" > "$out/$name.twin.txt"
  fi
done

# The tables for the scenarios run (all of them unless --only).
sel=()
if [ ${#only[@]} -gt 0 ]; then for n in "${names[@]}"; do sel+=(--only "$n"); done; fi
status=0
python3 "$root/tools/fidelity.py" "$spec" "$out" "${sel[@]}" "${check[@]}" > "$out/fidelity.md" || status=$?
cat "$out/fidelity.md"
if [ $write_doc -eq 1 ]; then
  python3 - "$root/docs/fidelity.md" "$out/fidelity.md" <<'PY'
import sys
doc, tables = sys.argv[1], open(sys.argv[2], encoding="utf-8").read()
text = open(doc, encoding="utf-8").read()
begin, end = "<!-- fidelity.sh: begin -->", "<!-- fidelity.sh: end -->"
if begin not in text or end not in text:
    sys.exit(f"fidelity: {doc}: markers '{begin}' and '{end}' missing")
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(doc, "w", encoding="utf-8").write(head + begin + "\n" + tables.strip() + "\n" + end + tail)
PY
  echo "fidelity: wrote $root/docs/fidelity.md" >&2
fi
exit $status
