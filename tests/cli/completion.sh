#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The bash completion (tools/completion/schedlab): commands, options, files and configuration
# names as a shell user sees them, and its option lists against `schedlab CMD --help`, so that
# a new or renamed option fails here until the completion knows it.
# Usage: completion.sh SCHEDLAB SOURCE_DIR
set -u
bin=$(realpath "$1"); src=$(realpath "$2"); tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; n=0
check() { n=$((n+1)); if ! eval "$2"; then echo "FAIL: $1"; fail=$((fail+1)); fi; }
# shellcheck source=/dev/null
source "$src/tools/completion/schedlab" || { echo "FAIL: cannot source the completion"; exit 1; }
# What <TAB> offers after the words given (the last one is the word being completed), sorted.
comp() {
  COMP_WORDS=(schedlab "$@"); COMP_CWORD=$#; COMPREPLY=()
  _schedlab 2>"$tmp/comp.err"
  [ -s "$tmp/comp.err" ] && echo "completion wrote to stderr: $(cat "$tmp/comp.err")"
  [ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort
}
# The options that `schedlab [CMD] --help` lists, aliases included, sorted.
help_opts() {
  "$bin" "$@" --help | awk '/^Options:/ { o = 1; next } /^[^ ]/ { o = 0 }
    o && /^  -/ { n = split($1, a, ","); for (i = 1; i <= n; i++) print a[i] }' | sort -u
}
# Those of them that take no value: nothing but spaces between the names and the description.
help_noarg() {
  "$bin" "$@" --help | awk '/^Options:/ { o = 1; next } /^[^ ]/ { o = 0 }
    o && /^  -/ { rest = substr($0, 3 + length($1)); if (rest == "" || rest ~ /^  /) {
      n = split($1, a, ","); for (i = 1; i <= n; i++) print a[i] } }'
}

check "schedlab ru<TAB> completes run" '[ "$(comp ru)" = run ]'
check "schedlab run --se<TAB> completes --seed" '[ "$(comp run --se)" = --seed ]'
check "schedlab experiment --se<TAB> completes --seed-base" '[ "$(comp experiment --se)" = --seed-base ]'
check "schedlab --v<TAB> completes --version" '[ "$(comp --v)" = --version ]'
check "schedlab help <TAB> offers the help topics" '[ "$(comp help "" | tr "\n" " ")" = "features stats tunables " ]'
check "schedlab measure --accel <TAB> offers auto kvm tcg" '[ "$(comp measure --accel "" | tr "\n" " ")" = "auto kvm tcg " ]'
check "no option is offered for a value (--seed <TAB>)" '[ -z "$(comp run --seed -)" ]'

# Drift: the commands and every command's options are those of --help.
cmds=$("$bin" --help | awk '/^Subcommands:/ { s = 1; next } /^[^ ]/ { s = 0 } s && /^  [a-z]/ { print $1 }' | sort)
check "schedlab --help lists commands" '[ "$(wc -w <<<"$cmds")" -ge 10 ]'
check "the completion offers exactly the commands of schedlab --help: $(diff <(echo "$cmds") <(comp "") | grep "^[<>]" | tr "\n" " ")" \
  'diff <(echo "$cmds") <(comp "") >/dev/null'
check "schedlab -<TAB> offers the options of schedlab --help" 'diff <(help_opts) <(comp -) >/dev/null'
noarg=$(help_noarg)
for c in $cmds; do
  check "schedlab $c -<TAB> offers the options of schedlab $c --help: $(diff <(help_opts "$c") <(comp "$c" -) | grep "^[<>]" | tr "\n" " ")" \
    'diff <(help_opts "$c") <(comp "$c" -) >/dev/null'
  noarg+=$'\n'$(help_noarg "$c")
done
check "the options that take no value are those of --help: $(diff <(sort -u <<<"$noarg") <(tr -s " \n" "\n\n" <<<"$_schedlab_noarg" | sed /^$/d | sort -u) | grep "^[<>]" | tr "\n" " ")" \
  'diff <(sort -u <<<"$noarg") <(tr -s " \n" "\n\n" <<<"$_schedlab_noarg" | sed /^$/d | sort -u) >/dev/null'

# Files: scenarios and results where a scenario goes, results only for compare and report.
mkdir -p "$tmp/w/dir" && touch "$tmp/w/a.toml" "$tmp/w/b.json" "$tmp/w/c.txt"
cd "$tmp/w" || exit 1
check "schedlab run <TAB> offers .toml, .json and directories" '[ "$(comp run "" | tr "\n" " ")" = "a.toml b.json dir " ]'
check "schedlab compare <TAB> offers .json and directories" '[ "$(comp compare "" | tr "\n" " ")" = "b.json dir " ]'
check "schedlab run --json <TAB> offers any file" '[ "$(comp run --json "" | tr "\n" " ")" = "a.toml b.json c.txt dir " ]'
check "schedlab topology <TAB> offers no file" '[ -z "$(comp topology "")" ]'

# Configuration names, from the scenario on the line, wherever the options put it.
sc=$src/scenarios/wakeup-fastpath.toml
names=$("$bin" experiment "$sc" --runs 1 --jobs 1 --json - 2>/dev/null |
  python3 -c 'import json,sys; [print(c["name"]) for c in json.load(sys.stdin)["configs"]]' 2>/dev/null)
[ -n "$names" ] || names=$(printf '%s\n' "No cookie" "Cookie" "Cookie + patch" "Cookie + patch (cpu match)" "Cookie + patch (idle-cores switch)")
quoted=$(while IFS= read -r x; do printf '%q\n' "$x"; done <<<"$names" | sort)
check "run SCENARIO --config <TAB> offers the scenario's configurations, quoted: $(comp run "$sc" --config "" | tr "\n" "|")" \
  '[ "$(comp run "$sc" --config "")" = "$quoted" ]'
check "... also after options with values (--seed 3 --check)" '[ "$(comp run --seed 3 --check "$sc" --config "")" = "$quoted" ]'
check "... and completes a prefix with a space: Cookie\\ +<TAB>" \
  '[ "$(comp experiment "$sc" --config "Cookie\\ +" | tr "\n" "|")" = "$(grep "^Cookie\\\\ +" <<<"$quoted" | tr "\n" "|")" ]'
check "replay --scenario SCENARIO --config <TAB> offers its configurations" \
  '[ "$(comp replay t.trace --scenario "$sc" --config "")" = "$quoted" ]'
check "--config without a readable scenario offers nothing" '[ -z "$(comp run /nonexistent.toml --config "")" ]'

echo "completion: $((n - fail))/$n checks passed"
[ $fail -eq 0 ]
