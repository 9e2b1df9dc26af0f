#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The manual page schedlab(1): renders with groff and man without a warning, has the usual
# sections, and names every command, every option of `schedlab CMD --help` in that command's
# part, every exit status of `schedlab help`, and the program's version.
# Usage: manpage.sh SCHEDLAB MANPAGE (the configured page, BUILD_DIR/schedlab.1)
set -u
bin=$(realpath "$1"); page=$(realpath "$2"); tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for t in groff man; do
  command -v $t >/dev/null || { echo "SKIP: no $t (groff-base, man-db: scripts/install-deps.sh --all)"; exit 77; }
done
fail=0; n=0
check() { n=$((n+1)); if ! eval "$2"; then echo "FAIL: $1"; fail=$((fail+1)); fi; }

groff -man -Tutf8 -ww -z "$page" 2>"$tmp/groff.err"; rc=$?
check "groff -man -ww renders it without a warning (rc $rc): $(head -3 "$tmp/groff.err")" '[ $rc -eq 0 ] && [ ! -s "$tmp/groff.err" ]'
MANWIDTH=80 man -l "$page" >"$tmp/man80.txt" 2>"$tmp/man.err"; rc=$?
check "man -l renders it without a warning (rc $rc): $(head -3 "$tmp/man.err")" '[ $rc -eq 0 ] && [ ! -s "$tmp/man.err" ] && [ -s "$tmp/man80.txt" ]'
# Wide lines, no hyphenation or adjustment, plain ASCII: every name stays whole on its line.
groff -man -Tascii -rLL=400n -P-cbou -dAD=l "$page" 2>/dev/null | sed 's/[[:space:]]*$//' >"$tmp/man.txt"

for s in NAME SYNOPSIS DESCRIPTION COMMANDS "EXIT STATUS" FILES EXAMPLES "SEE ALSO"; do
  check "section $s" 'grep -qx "$s" "$tmp/man.txt"'
done
version=$("$bin" --version | awk '{ print $2 }')
check "the page names the version of schedlab --version ($version)" 'head -1 "$tmp/man.txt" | grep -q "SCHEDLAB(1)" && grep -q "schedlab $version " "$tmp/man.txt"'
check "NAME is one line 'schedlab - ...' for whatis" 'grep -A1 -x NAME "$tmp/man.txt" | grep -q "^       schedlab - "'

# Each command's part: from its heading "   schedlab CMD" to the next heading.
cmds=$("$bin" --help | awk '/^Subcommands:/ { s = 1; next } /^[^ ]/ { s = 0 } s && /^  [a-z]/ { print $1 }')
check "schedlab --help lists commands" '[ "$(wc -w <<<"$cmds")" -ge 10 ]'
for c in $cmds; do
  awk -v c="$c" '/^   [^ ]/ { p = ($0 ~ "^   schedlab " c "( |$)") } /^[^ ]/ { p = 0 } p' "$tmp/man.txt" >"$tmp/part.txt"
  check "COMMANDS has a part for '$c'" '[ -s "$tmp/part.txt" ]'
  missing=$("$bin" "$c" --help | awk '/^Options:/ { o = 1; next } /^[^ ]/ { o = 0 }
      o && /^  -/ { k = split($1, a, ","); for (i = 1; i <= k; i++) print a[i] }' |
    grep -vx -- '-h\|--help' | while IFS= read -r o; do
      grep -Eq -- "(^|[^-a-z])$o([^-a-z]|$)" "$tmp/part.txt" || printf '%s ' "$o"; done)
  check "the part for '$c' names every option of schedlab $c --help (missing: $missing)" '[ -z "$missing" ]'
done
awk '/^EXIT STATUS$/ { p = 1; next } /^[^ ]/ { p = 0 } p' "$tmp/man.txt" >"$tmp/exit.txt"
codes=$("$bin" help | awk '/^Exit status/ { p = 1; next } /^[^ ]/ { p = 0 } p && /^  [0-9]/ { print $1 }')
check "schedlab help lists exit codes" '[ "$(wc -w <<<"$codes")" -ge 5 ]'
for code in $codes; do
  check "EXIT STATUS explains $code" 'grep -Eq "^       $code( |$)" "$tmp/exit.txt"'
done
check "SEE ALSO names perf-sched(1), trace-cmd(1) and rt-app" 'grep -A3 -x "SEE ALSO" "$tmp/man.txt" | grep "perf-sched(1)" | grep "trace-cmd(1)" | grep -q "rt-app"'

echo "manpage: $((n - fail))/$n checks passed"
[ $fail -eq 0 ]
