#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds the twin kernel: Debian's linux-source, `make tinyconfig`, the fragment in
# kernel/config/, the patches in kernel-patches/<version>/, then bzImage. The result is
# cached under --out by a hash of its inputs; a second run with the same inputs only
# prints the path. The bzImage path is the one line written to standard output;
# progress and errors go to standard error. See docs/vm.md.
#
# Usage: scripts/build-kernel.sh [--version 6.12] [--hz 1000] [--out DIR] [--jobs N]
#                                [--keep-tree] [--config-only]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

version=6.12
hz=1000
out="$root/build/kernel"
jobs=$(nproc)
keep_tree=0
config_only=0
# Bump when the recipe below changes in a way that changes the image.
recipe=1

die() { echo "build-kernel: $*" >&2; exit 1; }
usage() {
  echo "usage: scripts/build-kernel.sh [--version 6.12] [--hz 100|250|300|1000] [--out DIR] [--jobs N] [--keep-tree] [--config-only]" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --version) [ $# -ge 2 ] || usage; version=$2; shift 2 ;;
    --hz) [ $# -ge 2 ] || usage; hz=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    --jobs|-j) [ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
    --keep-tree) keep_tree=1; shift ;;
    --config-only) config_only=1; shift ;;
    -h|--help) usage ;;
    *) echo "build-kernel: unknown argument '$1'" >&2; usage ;;
  esac
done

case "$version" in
  6.12) ;;
  *) echo "build-kernel: kernel version '$version' is not supported (supported: 6.12)" >&2; exit 2 ;;
esac
case "$hz" in
  100|250|300|1000) ;;
  *) echo "build-kernel: --hz $hz is not a HZ the kernel offers (100, 250, 300, 1000)" >&2; exit 2 ;;
esac
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "build-kernel: --jobs needs a positive integer" >&2; exit 2; }

pkg="linux-source-$version"
tarball="/usr/src/$pkg.tar.xz"
fragment="$root/kernel/config/twin-$version.fragment"
patchdir="$root/kernel-patches/$version"

# Inputs present?
pkgver=$(dpkg-query -W -f='${Status} ${Version}' "$pkg" 2>/dev/null | sed -n 's/^install ok installed //p') || true
if [ -z "$pkgver" ] || [ ! -f "$tarball" ]; then
  die "Debian's $pkg is not installed ($tarball missing): apt-get install $pkg, or bash scripts/install-deps.sh --twin"
fi
[ -f "$fragment" ] || die "config fragment $fragment is missing"
[ -d "$patchdir" ] || die "patch folder $patchdir is missing"

# Tools and headers the kernel build needs (Debian packages in brackets).
missing=()
for t in make:make gcc:gcc bc:bc bison:bison flex:flex xz:xz-utils tar:tar patch:patch \
         perl:perl sha256sum:coreutils flock:util-linux; do
  command -v "${t%%:*}" >/dev/null 2>&1 || missing+=("${t%%:*} (${t#*:})")
done
[ -f /usr/include/gelf.h ] || missing+=("gelf.h (libelf-dev)")
[ -f /usr/include/openssl/opensslv.h ] || missing+=("openssl headers (libssl-dev)")
[ ${#missing[@]} -eq 0 ] ||
  die "missing build tools: ${missing[*]}; bash scripts/install-deps.sh --twin installs them"

# Patches: every *.patch in name order, each with its SPDX line.
shopt -s nullglob
patches=("$patchdir"/*.patch)
shopt -u nullglob
for p in ${patches[@]+"${patches[@]}"}; do
  # In the header, before the first diff: a kernel file's own SPDX line in the context
  # must not count.
  sed -n '/^\(diff \|--- \)/q;p' "$p" | grep -q 'SPDX-License-Identifier: GPL-2.0' ||
    die "$p has no 'SPDX-License-Identifier: GPL-2.0' line in its header (see kernel-patches/README.md)"
done

# Cache key: everything that decides the image.
key=$({
  echo "recipe $recipe"
  echo "package $pkg $pkgver"
  echo "hz $hz"
  echo "compiler $(gcc --version | head -n1)"
  echo "fragment $(sha256sum < "$fragment" | cut -d' ' -f1)"
  for p in ${patches[@]+"${patches[@]}"}; do
    echo "patch $(basename "$p") $(sha256sum < "$p" | cut -d' ' -f1)"
  done
} | sha256sum | cut -c1-16)
dest="$out/$version-hz$hz-$key"
if [ $config_only -eq 0 ] && [ -f "$dest/bzImage" ]; then
  echo "build-kernel: up to date (inputs unchanged): $dest/bzImage" >&2
  echo "$dest/bzImage"
  exit 0
fi

mkdir -p "$out"
# One build per output folder at a time.
exec 9>"$out/.lock"
flock -n 9 || die "another build-kernel.sh is running on $out; wait for it"
work="$dest.tmp"
rm -rf "$work"
mkdir -p "$work"
log="$work/build.log"
t0=$SECONDS
echo "build-kernel: building $pkg $pkgver, HZ=$hz, ${#patches[@]} patch(es), -j$jobs into $dest (log: $log)" >&2

echo "build-kernel: unpacking $tarball" >&2
tar -xf "$tarball" -C "$work"
src="$work/$pkg"
# On failure keep the log and the .config beside it, not the 1.5 GB tree (unless --keep-tree).
trap '[ -f "$src/.config" ] && cp "$src/.config" "$work/config" 2>/dev/null; [ $keep_tree -eq 1 ] || rm -rf "$src"' EXIT
[ -f "$src/Makefile" ] || die "$tarball did not unpack to $pkg/"

for p in ${patches[@]+"${patches[@]}"}; do
  echo "build-kernel: applying $(basename "$p")" >&2
  patch -d "$src" -p1 --batch --forward --silent < "$p" >>"$log" 2>&1 ||
    die "$(basename "$p") does not apply to $pkg $pkgver (see $log)"
done

# The fragment, plus the HZ choice from --hz.
frag="$work/twin.fragment"
{ cat "$fragment"; echo "CONFIG_HZ_$hz=y"; } > "$frag"

echo "build-kernel: configuring (tinyconfig + fragment + olddefconfig)" >&2
{
  make -C "$src" tinyconfig &&
  (cd "$src" && scripts/kconfig/merge_config.sh -m .config "$frag") &&
  make -C "$src" olddefconfig
} >>"$log" 2>&1 || die "configuration failed (see $log)"

# Every line of the fragment must hold in the final .config.
bad=0
while IFS= read -r line; do
  case "$line" in
    "# CONFIG_"*" is not set")
      opt=${line#\# }; opt=${opt%% *}
      if grep -q "^$opt=" "$src/.config"; then
        echo "build-kernel: $opt is set in the final .config ($(grep "^$opt=" "$src/.config")) but the fragment turns it off" >&2
        bad=1
      fi ;;
    CONFIG_*=*)
      opt=${line%%=*}
      if ! grep -qxF "$line" "$src/.config"; then
        have=$(grep "^$opt=" "$src/.config" || true)
        if [ -z "$have" ]; then
          echo "build-kernel: $opt is not set in the final .config (a dependency is missing)" >&2
        else
          echo "build-kernel: $opt is '${have#*=}' in the final .config, not '${line#*=}' (a dependency or a choice overrides it)" >&2
        fi
        bad=1
      fi ;;
  esac
done < "$frag"
grep -qx "CONFIG_HZ=$hz" "$src/.config" || { echo "build-kernel: CONFIG_HZ is not $hz in the final .config" >&2; bad=1; }
[ $bad -eq 0 ] || die "the configuration does not match the fragment (final .config: $work/config)"
echo "build-kernel: configuration checked: every fragment option holds" >&2
if [ $config_only -eq 1 ]; then
  # Stop before compiling: the checked .config is the result (not cached).
  echo "build-kernel: --config-only: the checked configuration is $work/config" >&2
  echo "$work/config"
  exit 0
fi

echo "build-kernel: make -j$jobs bzImage (several minutes)" >&2
if ! make -C "$src" -j"$jobs" bzImage >>"$log" 2>&1; then
  tail -n 30 "$log" >&2
  die "the kernel build failed (full log: $log)"
fi

cp "$src/arch/x86/boot/bzImage" "$work/bzImage"
cp "$src/.config" "$work/config"
cp "$src/include/config/kernel.release" "$work/kernel.release"
{
  echo "package $pkg $pkgver"
  echo "hz $hz"
  echo "patches ${#patches[@]}"
  for p in ${patches[@]+"${patches[@]}"}; do echo "  $(basename "$p")"; done
  echo "build_seconds $(( SECONDS - t0 ))"
  echo "jobs $jobs"
} > "$work/inputs.txt"
if [ $keep_tree -eq 1 ]; then
  echo "build-kernel: source tree kept in $dest/$pkg" >&2
else
  rm -rf "$src"
fi
rm -rf "$dest"
mv "$work" "$dest"
echo "build-kernel: built in $(( SECONDS - t0 )) s: $dest/bzImage" >&2
echo "$dest/bzImage"
