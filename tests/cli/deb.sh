#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The Debian package (CPack, cmake/Packaging.cmake): built from this build directory, its
# control fields, its files, and the program in it, unpacked (not installed), running the
# packaged flagship scenario. Exit 77 without dpkg-dev (dpkg-shlibdeps computes Depends).
# Usage: deb.sh SCHEDLAB BUILD_DIR
set -u
bin=$(realpath "$1"); build=$(realpath "$2"); tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for t in dpkg-deb dpkg-shlibdeps dpkg; do
  command -v $t >/dev/null || { echo "SKIP: no $t (dpkg-dev: scripts/install-deps.sh --all)"; exit 77; }
done
fail=0; n=0
check() { n=$((n+1)); if ! eval "$2"; then echo "FAIL: $1"; fail=$((fail+1)); fi; }

# Into a directory of its own, so that the build directory is left as it was.
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1; rc=$?
check "cpack -G DEB exits 0 (got $rc: $(grep -i error "$tmp/cpack.log" | head -3))" '[ $rc -eq 0 ]'
version=$("$bin" --version | awk '{ print $2 }')
arch=$(dpkg --print-architecture)
deb=$tmp/pkg/schedlab_${version}_$arch.deb
check "the package is schedlab_${version}_$arch.deb (got: $(cd "$tmp/pkg" 2>/dev/null && ls -- *.deb 2>/dev/null))" '[ -f "$deb" ]'
[ -f "$deb" ] || { echo "deb: $((n - fail))/$n checks passed"; exit 1; }

field() { dpkg-deb -f "$deb" "$1"; }
check "Package: schedlab" '[ "$(field Package)" = schedlab ]'
check "Version: the program's ($version; got $(field Version))" '[ "$(field Version)" = "$version" ]'
check "Architecture: $arch" '[ "$(field Architecture)" = "$arch" ]'
check "Section: devel" '[ "$(field Section)" = devel ]'
check "Maintainer: a name and an address" '[[ "$(field Maintainer)" =~ ^[^\<]+\ \<[^\>]+@[^\>]+\>$ ]]'
check "Description: a summary, then a longer text indented one space" \
  '[ -n "$(field Description | head -1)" ] && [ "$(field Description | wc -l)" -gt 2 ] && ! field Description | tail -n +2 | grep -qv "^ [^ ]"'
deps=$(field Depends)
check "Depends names the libraries it links: libc6, libstdc++6, libfmt (got: $deps)" \
  'grep -q "libc6 (>=" <<<"$deps" && grep -q "libstdc++6" <<<"$deps" && grep -q "libfmt" <<<"$deps"'
dpkg-deb -I "$deb" >"$tmp/info.txt" 2>&1
check "dpkg-deb -I reads it" 'grep -q "^ Package: schedlab$" "$tmp/info.txt"'

dpkg-deb -x "$deb" "$tmp/root"
u=$tmp/root/usr
dpkg-deb -c "$deb" >"$tmp/contents.txt"
check "owned by root in the archive" '! awk "{ print \$2 }" "$tmp/contents.txt" | grep -qv "^root/root$"'
for f in bin/schedlab libexec/schedlab/schedlab-guest share/schedlab/scenarios/wakeup-fastpath.toml \
         share/schedlab/scenarios/twin/smoke.toml share/man/man1/schedlab.1.gz \
         share/bash-completion/completions/schedlab share/doc/schedlab/README.md share/doc/schedlab/docs/cli.md \
         share/doc/schedlab/copyright; do
  check "the package holds /usr/$f" '[ -e "$u/$f" ]'
done
check "the licence statement: GPL-2.0-only" 'grep -qx "License: GPL-2.0-only" "$u/share/doc/schedlab/copyright"'
mkdir "$tmp/cwd" && cd "$tmp/cwd" || exit 1
"$u/bin/schedlab" run "$u/share/schedlab/scenarios/wakeup-fastpath.toml" >"$tmp/run.out" 2>"$tmp/run.err"; rc=$?
check "the packaged schedlab runs the packaged flagship scenario (rc $rc: $(head -2 "$tmp/run.err"))" \
  '[ $rc -eq 0 ] && grep -Eq "^completion time: [0-9]+\.[0-9]+ s" "$tmp/run.out"'

echo "deb: $((n - fail))/$n checks passed"
[ $fail -eq 0 ]
