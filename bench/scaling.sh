#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Two-core scaling of an experiment, end to end (the speed targets of docs/performance.md:
# `--jobs 2` and `mpirun -np 2 --mpi` each >= 1.8x one process). Runs the three ways back to
# back in each round, so that the host's slow and quiet spells hit all three alike, and prints
# each round and the medians.
#
#   bench/scaling.sh [--rounds N] [--runs R] [SCHEDLAB]
#
# SCHEDLAB defaults to build/release/schedlab. The experiment is the seed mail's three
# configurations of scenarios/wakeup-fastpath.toml with R runs each (default 200: about 8 s in
# one process, so that Open MPI's start-up of about 0.15 s weighs little). Without mpirun on
# the PATH, or with a schedlab built without MPI, the MPI column is left out.
set -euo pipefail
rounds=5 runs=200 bin=
while (($#)); do
  case $1 in
    --rounds|--runs)
      (($# >= 2)) || { echo "scaling.sh: $1 needs a value" >&2; exit 2; }
      if [[ $1 == --rounds ]]; then rounds=$2; else runs=$2; fi
      shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "scaling.sh: unknown option '$1' (--rounds N, --runs R, SCHEDLAB)" >&2; exit 2 ;;
    *) bin=$(realpath -m -- "$1"); shift ;;  # relative to where it was called from
  esac
done
cd "$(dirname "$0")/.."
bin=${bin:-build/release/schedlab}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "scaling.sh: --rounds must be a positive integer, not '$rounds'" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "scaling.sh: --runs must be a positive integer, not '$runs'" >&2; exit 2; }
[[ -x $bin ]] || { echo "scaling.sh: no schedlab at '$bin' (build it first)" >&2; exit 2; }

args=(experiment scenarios/wakeup-fastpath.toml --config "No cookie" --config Cookie
      --config "Cookie + patch" --runs "$runs")
mpi=0
if command -v mpirun >/dev/null && "$bin" experiment --help 2>&1 | grep -q -- '--mpi'; then
  mpi=1
  # Open MPI refuses root unless told; a container or CI runner is often root.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

wall() {  # wall seconds of a command, its output discarded
  local t0 t1
  t0=$(date +%s%N)
  "$@" >/dev/null
  t1=$(date +%s%N)
  awk -v d=$((t1 - t0)) 'BEGIN {printf "%.3f", d / 1e9}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.4f\n", a / b}'; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-6s %9s %9s %9s %8s %8s\n' round "1 proc" "--jobs 2" "mpi -np 2" "jobs2 x" "mpi x"
for ((i = 1; i <= rounds; i++)); do
  one=$(wall "$bin" "${args[@]}" --jobs 1)
  two=$(wall "$bin" "${args[@]}" --jobs 2)
  ratio "$one" "$two" >>"$tmp/jobs2"
  if ((mpi)); then
    m=$(wall mpirun -np 2 "$bin" "${args[@]}" --jobs 1 --mpi)
    ratio "$one" "$m" >>"$tmp/mpi"
    printf '%-6s %9.2f %9.2f %9.2f %8.2f %8.2f\n' "$i" "$one" "$two" "$m" "$(tail -1 "$tmp/jobs2")" \
      "$(tail -1 "$tmp/mpi")"
  else
    printf '%-6s %9.2f %9.2f %9s %8.2f %8s\n' "$i" "$one" "$two" - "$(tail -1 "$tmp/jobs2")" -
  fi
done
median() { sort -g "$1" | awk '{v[NR] = $1} END {printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
echo "median speed-up over $rounds rounds: --jobs 2 $(median "$tmp/jobs2")x" \
  "$( ((mpi)) && echo "mpirun -np 2 $(median "$tmp/mpi")x" || echo "(no MPI)")"
