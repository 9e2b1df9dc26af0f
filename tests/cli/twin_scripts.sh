#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The twin kernel's scripts, without building or booting a kernel (docs/vm.md): bad arguments
# exit 2 with a message, a missing image is a FAIL line, the guest's /init compiles statically
# without warnings, and the initramfs writer makes a newc archive holding /init and the
# /dev/console node. Usage: twin_scripts.sh SOURCE_DIR
set -u
src=$(realpath "$1"); tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; n=0
check() { n=$((n+1)); if ! eval "$2"; then echo "FAIL: $1"; fail=$((fail+1)); fi; }

bash "$src/scripts/build-kernel.sh" --version 6.1 >"$tmp/out" 2>"$tmp/err"; rc=$?
check "build-kernel --version 6.1 exits 2 (got $rc)" '[ $rc -eq 2 ]'
check "build-kernel --version 6.1 names the supported version" 'grep -q "not supported (supported: 6.12)" "$tmp/err"'
check "build-kernel --version 6.1 prints nothing on stdout" '[ ! -s "$tmp/out" ]'
bash "$src/scripts/build-kernel.sh" --hz 500 >/dev/null 2>"$tmp/err"; rc=$?
check "build-kernel --hz 500 exits 2 (got $rc)" '[ $rc -eq 2 ]'
check "build-kernel --hz 500 says why" 'grep -q -- "--hz 500 is not a HZ" "$tmp/err"'
bash "$src/scripts/build-kernel.sh" --frobnicate >/dev/null 2>"$tmp/err"; rc=$?
check "build-kernel with an unknown option exits 2 (got $rc)" '[ $rc -eq 2 ]'

bash "$src/scripts/vm-smoke.sh" >/dev/null 2>"$tmp/err"; rc=$?
check "vm-smoke without an image exits 2 (got $rc)" '[ $rc -eq 2 ] && grep -q usage "$tmp/err"'
bash "$src/scripts/vm-smoke.sh" "$tmp/none" --out "$tmp/vm" >/dev/null 2>"$tmp/err"; rc=$?
check "vm-smoke with a missing image exits 1 (got $rc)" '[ $rc -eq 1 ]'
check "vm-smoke with a missing image says so" 'grep -q "FAIL: no kernel image at" "$tmp/err"'
bash "$src/scripts/vm-smoke.sh" "$tmp/none" --accel hvf >/dev/null 2>"$tmp/err"; rc=$?
check "vm-smoke --accel hvf exits 2 (got $rc)" '[ $rc -eq 2 ]'

gcc -static -O2 -Wall -Wextra -Werror -o "$tmp/init" "$src/tools/vm-init/init.c" 2>"$tmp/cc"; rc=$?
check "tools/vm-init/init.c builds statically without warnings: $(head -c 300 "$tmp/cc")" '[ $rc -eq 0 ]'
check "the /init is static" '! LC_ALL=C ldd "$tmp/init" >/dev/null 2>&1 || LC_ALL=C ldd "$tmp/init" 2>&1 | grep -q "not a dynamic"'
python3 "$src/tools/vm-init/mkcpio.py" "$tmp/initrd.gz" "$tmp/init"; rc=$?
check "mkcpio.py exits 0 (got $rc)" '[ $rc -eq 0 ]'
# Read the archive back: names, modes, device numbers, and that /init is the binary.
python3 - "$tmp/initrd.gz" "$tmp/init" >"$tmp/cpio" 2>&1 <<'PY'
import gzip, sys
data = gzip.open(sys.argv[1]).read()
init = open(sys.argv[2], "rb").read()
pos = 0
while True:
    assert data[pos:pos + 6] == b"070701", "bad magic at %d" % pos
    f = [int(data[pos + 6 + 8 * i:pos + 14 + 8 * i], 16) for i in range(13)]
    namesize, size = f[11], f[6]
    name = data[pos + 110:pos + 110 + namesize - 1].decode()
    pos += 110 + namesize
    pos += -pos % 4
    body = data[pos:pos + size]
    pos += size
    pos += -pos % 4
    if name == "TRAILER!!!":
        break
    print(name, oct(f[1]), "%d:%d" % (f[9], f[10]), "same" if body == init else len(body))
PY
check "the archive reads back: $(head -c 300 "$tmp/cpio")" 'grep -qx "init 0o100755 0:0 same" "$tmp/cpio"'
check "the archive has /dev/console as char 5:1" 'grep -qx "dev/console 0o20600 5:1 0" "$tmp/cpio"'
check "the archive has /dev, /proc, /sys" '[ "$(grep -c "^\(dev\|proc\|sys\) 0o40755" "$tmp/cpio")" -eq 3 ]'

echo "twin_scripts: $((n - fail))/$n checks passed"
[ $fail -eq 0 ]
