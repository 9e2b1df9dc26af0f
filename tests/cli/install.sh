#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `cmake --install` into a staging root (DESTDIR): the program, the twin's guest off the PATH,
# every shipped scenario, the docs, the manual page and the bash completion; and the installed
# program runs an installed scenario away from the source tree.
# Usage: install.sh SCHEDLAB BUILD_DIR SOURCE_DIR
set -u
bin=$(realpath "$1"); build=$(realpath "$2"); src=$(realpath "$3"); tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0; n=0
check() { n=$((n+1)); if ! eval "$2"; then echo "FAIL: $1"; fail=$((fail+1)); fi; }

DESTDIR=$tmp/root cmake --install "$build" --prefix /usr >"$tmp/install.log" 2>&1; rc=$?
check "cmake --install exits 0 (got $rc: $(tail -3 "$tmp/install.log"))" '[ $rc -eq 0 ]'
u=$tmp/root/usr
check "bin/schedlab is installed and executable" '[ -x "$u/bin/schedlab" ]'
check "bin/ holds schedlab alone (the guest is no command)" '[ "$(ls "$u/bin")" = schedlab ]'
if [ -e "$build/schedlab-guest" ]; then
  check "the guest is in libexec/schedlab/, where measure --vm looks" '[ -x "$u/libexec/schedlab/schedlab-guest" ]'
fi
check "every shipped scenario is in share/schedlab/scenarios/, subfolders kept: $(diff <(cd "$src/scenarios" && find . -type f | sort) <(cd "$u/share/schedlab/scenarios" 2>/dev/null && find . -type f | sort) | grep '^[<>]' | tr '\n' ' ')" \
  'diff <(cd "$src/scenarios" && find . -type f | sort) <(cd "$u/share/schedlab/scenarios" && find . -type f | sort) >/dev/null'
check "the manual page, compressed, with the version filled in" '[ -f "$u/share/man/man1/schedlab.1.gz" ] && zcat "$u/share/man/man1/schedlab.1.gz" | grep -q "^\.TH SCHEDLAB 1 .*\"schedlab $("$bin" --version | awk "{print \$2}")\""'
check "the bash completion" 'bash -n "$u/share/bash-completion/completions/schedlab" && grep -q "complete -F _schedlab schedlab" "$u/share/bash-completion/completions/schedlab"'
d=$u/share/doc/schedlab
check "the README, licence and docs" '[ -f "$d/README.md" ] && [ -f "$d/LICENSE" ] && [ -f "$d/docs/cli.md" ] && [ -f "$d/docs/experiments/wakeup-fastpath.md" ]'
# The README's relative links and images resolve in the installed docs.
broken=$(grep -o '](docs/[^)#]*' "$d/README.md" | cut -c3- | sort -u | while read -r f; do [ -e "$d/$f" ] || printf '%s ' "$f"; done)
check "the README's links to docs/ resolve in the installed docs (broken: $broken)" '[ -z "$broken" ]'

# The installed program on an installed scenario, from a directory that is not the source.
mkdir "$tmp/cwd" && cd "$tmp/cwd" || exit 1
"$u/bin/schedlab" run "$u/share/schedlab/scenarios/wakeup-fastpath.toml" >"$tmp/run.out" 2>"$tmp/run.err"; rc=$?
check "the installed schedlab runs the installed flagship scenario (rc $rc: $(head -2 "$tmp/run.err"))" '[ $rc -eq 0 ]'
check "... and prints its completion line" 'grep -Eq "^completion time: [0-9]+\.[0-9]+ s" "$tmp/run.out"'
check "... the same summary as the build's schedlab on the source's scenario (but the wall time)" \
  'diff <("$bin" run "$src/scenarios/wakeup-fastpath.toml" 2>&1 | grep -v "wall time") <(grep -v "wall time" "$tmp/run.out") >/dev/null'
"$u/bin/schedlab" run "$u/share/schedlab/scenarios/twin/smoke.toml" >/dev/null 2>"$tmp/twin.err"; rc=$?
check "a scenario from a subfolder runs too (rc $rc: $(head -1 "$tmp/twin.err"))" '[ $rc -eq 0 ]'

# measure --vm finds the installed guest in ../libexec/schedlab: it gets as far as starting
# "QEMU" (here a program that fails at once) with the guest in the initramfs.
if [ -e "$build/schedlab-guest" ]; then
  : >"$tmp/bzImage"
  "$u/bin/schedlab" measure "$u/share/schedlab/scenarios/twin/smoke.toml" --vm --kernel "$tmp/bzImage" \
    --qemu /bin/false --accel tcg --workdir "$tmp/vm" >/dev/null 2>"$tmp/vm.err"; rc=$?
  check "the installed measure --vm finds the installed guest (rc $rc: $(head -1 "$tmp/vm.err"))" \
    '[ $rc -eq 1 ] && ! grep -q "cannot find schedlab-guest" "$tmp/vm.err" && grep -q "QEMU exited" "$tmp/vm.err" && [ -s "$tmp/vm/initramfs.cpio" ]'
fi

echo "install: $((n - fail))/$n checks passed"
[ $fail -eq 0 ]
