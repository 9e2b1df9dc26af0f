#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Writes a gzip'd initramfs (cpio "newc") holding a static /init, the /dev/console
device node and the mount points the init uses. Needs no root: the device node is
written into the archive, not created on disk.

Usage: mkcpio.py OUT.cpio.gz INIT_BINARY
"""
import gzip
import sys


def entry(ino, name, mode, data=b"", rdev=(0, 0), nlink=1):
    name_b = name.encode() + b"\0"
    fields = [ino, mode, 0, 0, nlink, 0, len(data), 0, 0, rdev[0], rdev[1], len(name_b), 0]
    head = b"070701" + b"".join(b"%08X" % f for f in fields)
    out = head + name_b
    out += b"\0" * (-len(out) % 4)
    out += data
    out += b"\0" * (-len(out) % 4)
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: mkcpio.py OUT.cpio.gz INIT_BINARY")
    out_path, init_path = sys.argv[1], sys.argv[2]
    with open(init_path, "rb") as f:
        init = f.read()
    dirmode, chrmode, regmode = 0o040755, 0o020600, 0o100755
    archive = b"".join([
        entry(1, "dev", dirmode, nlink=2),
        entry(2, "dev/console", chrmode, rdev=(5, 1)),
        entry(3, "proc", dirmode, nlink=2),
        entry(4, "sys", dirmode, nlink=2),
        entry(5, "init", regmode, data=init),
        entry(0, "TRAILER!!!", 0),
    ])
    with gzip.open(out_path, "wb", compresslevel=6) as f:
        f.write(archive)


if __name__ == "__main__":
    main()
