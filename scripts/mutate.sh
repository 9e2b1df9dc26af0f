#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The kill list (docs/testing.md): small, named mutations of the scheduler model, each of which
# the unit tests must kill.
#
#   scripts/mutate.sh [--build-dir DIR] [--no-build] [--keep] (--all | --rotate N | NAME...)
#   scripts/mutate.sh --list
#
# Each mutation (tests/mutations/mutations.list) is applied to a scratch copy of src/ in a
# temporary directory, never to this tree. Only the mutated file is recompiled, with the
# command the release build used for it (DIR/compile_commands.json, DIR defaults to
# build/release); the object replaces its own in a copy of its library, and the unit test binary
# is relinked against that copy with the release build's link command. A mutation thus costs one
# compile and one link, and DIR is only read (after an ordinary incremental build of
# schedlab_tests unless --no-build). The unit tests then run; a mutation is killed when they fail.
#
# Prints: mutation | killed? | first killing test (and how many tests killed it). Exits 1 if a
# mutation survives or cannot be applied or built, 2 on a usage error.
#
# --rotate N picks N mutations from the UTC date and the commit (MUTATE_SEED overrides both), so
# that repeated runs on one day and commit pick the same ones and CI exercises a rotating few.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
list="$root/tests/mutations/mutations.list"
build="$root/build/release"
do_build=1
keep=0
mode=""
rotate=0
names=()
usage() {
  sed -n '6,7p' "$0" | sed 's/^# *//' >&2
  exit 2
}
while (($#)); do
  case "$1" in
    --build-dir) build=$(cd "${2:?}" && pwd); shift 2 ;;
    --no-build) do_build=0; shift ;;
    --keep) keep=1; shift ;;
    --all) mode=all; shift ;;
    --list) mode=list; shift ;;
    --rotate) mode=rotate; rotate=${2:?}; shift 2
      [[ $rotate =~ ^[0-9]+$ ]] || usage ;;
    -h|--help) usage ;;
    -*) echo "mutate.sh: unknown option $1" >&2; usage ;;
    *) mode=${mode:-names}; names+=("$1"); shift ;;
  esac
done
[[ -n $mode ]] || usage

seed=${MUTATE_SEED:-$(date -u +%F)-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo none)}

if [[ $mode != list && $do_build == 1 ]]; then
  cmake --build "$build" --target schedlab_tests -j "$(nproc)" >/dev/null
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/schedlab-mutate.XXXXXX")
if [[ $keep == 0 ]]; then trap 'rm -rf "$scratch"' EXIT; else echo "mutate.sh: keeping $scratch" >&2; fi

python3 - "$root" "$build" "$scratch" "$list" "$mode" "$rotate" "$seed" "${names[@]}" <<'PY'
import hashlib, json, os, re, shlex, shutil, subprocess, sys, time

root, build, scratch, list_path, mode, rotate, seed = sys.argv[1:8]
wanted = sys.argv[8:]
rotate = int(rotate)


def parse(path):
    """Stanzas: '[name]' then 'key: value' lines; old/new may continue on lines starting '| '."""
    muts, cur, key = [], None, None
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if line.startswith("#") or not line.strip():
            key = None
            continue
        m = re.fullmatch(r"\[([a-z0-9_]+)\]", line)
        if m:
            cur = {"name": m.group(1), "line": n}
            muts.append(cur)
            key = None
            continue
        if cur is None:
            sys.exit(f"{path}:{n}: a line before the first [name]")
        if line.startswith("| ") and key in ("old", "new"):
            cur[key] += "\n" + line[2:]
            continue
        m = re.fullmatch(r"(kernel|breaks|file|old|new): ?(.*)", line)
        if not m:
            sys.exit(f"{path}:{n}: expected 'kernel:', 'breaks:', 'file:', 'old:' or 'new:'")
        key = m.group(1)
        cur[key] = m.group(2)
    names = set()
    for m in muts:
        for k in ("kernel", "file", "old", "new"):
            if k not in m:
                sys.exit(f"{path}:{m['line']}: [{m['name']}] has no '{k}:'")
        if m["name"] in names:
            sys.exit(f"{path}:{m['line']}: [{m['name']}] twice")
        names.add(m["name"])
    return muts


muts = parse(list_path)
if mode == "list":
    for m in muts:
        print(f"{m['name']:40} {m['kernel']}")
    sys.exit(0)
if mode == "names":
    by = {m["name"]: m for m in muts}
    missing = [w for w in wanted if w not in by]
    if missing:
        sys.exit("mutate.sh: no such mutation: " + ", ".join(missing))
    muts = [by[w] for w in wanted]
elif mode == "rotate":
    key = lambda m: hashlib.sha256(f"{seed}/{m['name']}".encode()).hexdigest()
    muts = sorted(muts, key=key)[:rotate]
    print(f"mutate.sh: --rotate {rotate} with seed {seed}", file=sys.stderr)

commands = {os.path.realpath(e["file"]): e for e in json.load(open(f"{build}/compile_commands.json"))}
# The unit tests' link command, run from link_cwd: Ninja's (the presets') or Make's.
if os.path.exists(f"{build}/build.ninja"):
    out = subprocess.run(["ninja", "-C", build, "-t", "commands", "tests/schedlab_tests"],
                         capture_output=True, text=True, check=True).stdout
    link_txt, link_cwd, link_out = out.strip().splitlines()[-1], build, "tests/schedlab_tests"
else:
    link_txt = open(f"{build}/tests/CMakeFiles/schedlab_tests.dir/link.txt").read().strip()
    link_cwd, link_out = f"{build}/tests", "schedlab_tests"
shutil.copytree(f"{root}/src", f"{scratch}/src")


def run(cmd, cwd=None, timeout=None):
    return subprocess.run(cmd, cwd=cwd, shell=isinstance(cmd, str), capture_output=True,
                          text=True, timeout=timeout)


def build_mutant(m, work):
    """Returns (binary, None) or (None, why not)."""
    rel = m["file"]
    src = f"{scratch}/{rel}"
    text = open(f"{root}/{rel}", encoding="utf-8").read()
    if text.count(m["old"]) != 1:
        return None, f"old text found {text.count(m['old'])} times in {rel} (stale mutation?)"
    entry = commands.get(os.path.realpath(f"{root}/{rel}"))
    if not entry:
        return None, f"{rel} is not compiled by {build} (mutate .cpp files only)"
    try:
        with open(src, "w", encoding="utf-8") as f:
            f.write(text.replace(m["old"], m["new"]))
        args = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
        out = args[args.index("-o") + 1]
        obj = f"{work}/{os.path.basename(out)}"
        args[args.index("-o") + 1] = obj
        args = [a.replace(f"{root}/src", f"{scratch}/src") for a in args]
        r = run(args, cwd=entry["directory"])
        if r.returncode:
            return None, "does not compile: " + (r.stderr.strip().splitlines() or ["?"])[0]
        # [dir/]CMakeFiles/<target>.dir/... -> [dir/]lib<target>.a.
        target = re.search(r"CMakeFiles/([^/]+)\.dir/", out).group(1)
        lib = os.path.join(entry["directory"], out[:out.index("CMakeFiles/")], f"lib{target}.a")
        mlib = f"{work}/lib{target}.a"
        shutil.copy(lib, mlib)
        r = run(["ar", "r", mlib, obj])
        if r.returncode:
            return None, "ar: " + r.stderr.strip()
        exe = f"{work}/schedlab_tests"
        libref = os.path.relpath(lib, link_cwd)
        link = link_txt.replace(f" -o {link_out} ", f" -o {shlex.quote(exe)} ")
        if link == link_txt:
            return None, f"link: no '-o {link_out}' in the link command"
        link = re.sub(r"(?<=\s)" + re.escape(libref) + r"(?=\s|$)", shlex.quote(mlib), link)
        r = run(link, cwd=link_cwd)
        if r.returncode:
            return None, "link: " + (r.stderr.strip().splitlines() or ["?"])[0]
        return exe, None
    finally:
        shutil.copy(f"{root}/{rel}", src)


rows, bad = [], 0
t0 = time.monotonic()
for i, m in enumerate(muts):
    work = f"{scratch}/m{i}"
    os.mkdir(work)
    t = time.monotonic()
    exe, err = build_mutant(m, work)
    if err:
        rows.append((m["name"], "ERROR", err))
        bad += 1
    else:
        try:
            r = run([exe], cwd=f"{build}/tests", timeout=300)
            failed = re.findall(r"^\[  FAILED  \] ([\w/.]+)(?: \(| ,|$)", r.stdout, re.M)
            # gtest lists each failure twice (as it happens and in the summary).
            failed = list(dict.fromkeys(failed))
            if r.returncode == 0:
                rows.append((m["name"], "SURVIVED", "-"))
                bad += 1
            elif failed:
                more = f" (+{len(failed) - 1} more)" if len(failed) > 1 else ""
                rows.append((m["name"], "killed", failed[0] + more))
            else:
                last = re.findall(r"^\[ RUN      \] (\S+)", r.stdout, re.M)
                rows.append((m["name"], "killed", f"{last[-1] if last else '?'} (crash, exit {r.returncode})"))
        except subprocess.TimeoutExpired:
            rows.append((m["name"], "killed", "timeout (300 s)"))
        shutil.rmtree(work, ignore_errors=True)
    print(f"mutate.sh: {m['name']}: {rows[-1][1]} ({time.monotonic() - t:.0f} s)", file=sys.stderr)

w = max([len("mutation")] + [len(r[0]) for r in rows])
print(f"{'mutation':{w}} | killed?  | first killing test")
print(f"{'-' * w}-|----------|-------------------")
for name, status, test in rows:
    print(f"{name:{w}} | {status:8} | {test}")
print(f"{len(rows) - bad}/{len(rows)} killed in {time.monotonic() - t0:.0f} s")
sys.exit(1 if bad else 0)
PY
