#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# --mpi: 2 ranks on localhost give the same experiment and sweep results as one process (the
# JSON byte-identical outside "host", the CSV and table identical); without MPI in the build,
# --mpi is refused with a clear line.
set -u
bin=$1; src=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; n=0
check() { n=$((n+1)); if ! eval "$2"; then echo "FAIL: $1"; fail=$((fail+1)); fi; }
sc="$src/scenarios/wakeup-fastpath.toml"
if ! ldd "$bin" | grep -q libmpi; then
  "$bin" experiment "$sc" --runs 1 --mpi >/dev/null 2>"$tmp/err"; rc=$?
  check "--mpi without MPI: exit 2" '[ $rc -eq 2 ]'
  check "--mpi without MPI: says so" 'grep -q "built without MPI" "$tmp/err"'
  echo "skip: this schedlab was built without MPI; the 2-rank runs are not tested"
  # 77: CTest's SKIP_RETURN_CODE (tests/CMakeLists.txt), once the checks that ran have passed.
  echo "$((n-fail)) passed, $fail failed"; [ "$fail" -eq 0 ] || exit 1; exit 77
fi
command -v mpirun >/dev/null || { echo "FAIL: built with MPI but no mpirun"; exit 1; }
# Open MPI refuses root unless told; CI runs as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Under ASan: Open MPI keeps allocations past MPI_Finalize that LeakSanitizer would report.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0"
mpi() { timeout 300 mpirun -np 2 --oversubscribe "$@"; }
same_json() {
  python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); [x.pop("host") for x in (a,b)]; sys.exit(a!=b)' "$1" "$2"
}
"$bin" experiment "$sc" --runs 5 --jobs 1 --json "$tmp/1.json" --csv "$tmp/1.csv" >"$tmp/1.out"; rc1=$?
mpi "$bin" experiment "$sc" --runs 5 --jobs 1 --mpi --json "$tmp/2.json" --csv "$tmp/2.csv" >"$tmp/2.out"; rc2=$?
check "experiment: 1 process and 2 ranks run" '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]'
check "experiment: JSON identical outside host" 'same_json "$tmp/1.json" "$tmp/2.json"'
check "experiment: CSV identical" 'cmp -s "$tmp/1.csv" "$tmp/2.csv"'
check "experiment: one table (rank 0 prints), identical" 'cmp -s <(grep -v "runs in" "$tmp/1.out") <(grep -v "runs in" "$tmp/2.out")'
# 3 ranks: the runs do not divide evenly among them; still the same bytes.
timeout 300 mpirun -np 3 --oversubscribe "$bin" experiment "$sc" --runs 5 --jobs 1 --mpi \
  --json "$tmp/3.json" --csv "$tmp/3.csv" >/dev/null; rc3=$?
check "experiment: 3 ranks run, JSON and CSV identical" '[ $rc3 -eq 0 ] && same_json "$tmp/1.json" "$tmp/3.json" && cmp -s "$tmp/1.csv" "$tmp/3.csv"'
args=(--param machine.cores_per_llc=4,8 --config Cookie --runs 3 --jobs 1)
"$bin" sweep "$sc" "${args[@]}" --json "$tmp/s1.json" --csv "$tmp/s1.csv" >/dev/null; rc1=$?
mpi "$bin" sweep "$sc" "${args[@]}" --mpi --json "$tmp/s2.json" --csv "$tmp/s2.csv" >/dev/null; rc2=$?
check "sweep: 1 process and 2 ranks run" '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]'
check "sweep: JSON identical outside host" 'same_json "$tmp/s1.json" "$tmp/s2.json"'
check "sweep: CSV identical" 'cmp -s "$tmp/s1.csv" "$tmp/s2.csv"'
mpi "$bin" experiment "$sc" --runs 2 --config nobody --mpi >/dev/null 2>"$tmp/err"; rc=$?
check "a bad configuration under MPI: non-zero exit, no hang" '[ $rc -ne 0 ] && grep -q "nobody" "$tmp/err"'
echo "$((n-fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
