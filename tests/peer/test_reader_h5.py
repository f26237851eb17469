#!/usr/bin/python3
"""docs/reading.md, executed: its Python blocks (h5py slicing, numpy.memmap at dataset offsets, the
flat batch) run verbatim on test_store's merged file and must give exactly the C reader's numbers
(test_reader_dump, mapped and HDF5 paths); then `sitepack check` on the file and on copies damaged
with h5py / numpy (a deleted dataset, a truncated file, flipped atom_ptr bytes): exit status and message.

Usage: test_reader_h5.py DIR docs/reading.md TEST_READER_DUMP SITEPACK
"""
import os
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg, file=sys.stderr)


def c_reader(dump, path, mode, idx):
    out = subprocess.run([dump, path, mode] + [str(i) for i in idx], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    counts = [int(x) for x in lines[0].split()[1:]]
    sites, k = [], 1
    while k < len(lines):
        _, i, n, nl = lines[k].split()
        rows = [l.split() for l in lines[k + 1:k + 1 + int(n)]]
        pos = np.array([[float(x) for x in r[:3]] for r in rows], dtype=np.float32).reshape(-1, 3)
        elem = np.array([int(r[3]) for r in rows], dtype=np.uint8)
        flags = np.array([int(r[4]) for r in rows], dtype=np.uint16)
        sites.append((int(i), pos, elem, flags, int(nl)))
        k += 1 + int(n)
    return counts, sites


def run_check(sitepack, path):
    p = subprocess.run([sitepack, "check", path], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    d, doc, dump, sitepack = sys.argv[1:5]
    blocks = re.findall(r"```python\n(.*?)```", open(doc).read(), re.S)
    check(len(blocks) == 2, f"docs/reading.md has {len(blocks)} python blocks, expected 2")
    ns = {}
    for b in blocks:
        exec(compile(b, doc, "exec"), ns)
    path = os.path.join(d, "merged_p2.h5")
    idx = [3, 0, 5, 3, 1, 2, 4]
    for mode in ("auto", "hdf5"):
        counts, sites = c_reader(dump, path, mode, idx)
        check(counts == [6, 8, 6, counts[3], 6140], f"{mode}: counts {counts}")
        with h5py.File(path, "r") as f:
            ap = f["sites/atom_ptr"][:]
            for (i, pos, elem, flags, nl) in sites:
                hp, he, hf, hn = ns["read_site_h5py"](f, ap, i)
                check(np.array_equal(hp, pos) and np.array_equal(he, elem) and np.array_equal(hf, flags) and hn == nl,
                      f"{mode}: site {i}: h5py slicing differs from the C reader")
        m = ns["open_memmaps"](path)
        for (i, pos, elem, flags, nl) in sites:
            mp, me, mf, mn = ns["read_site_memmap"](m, i)
            check(np.array_equal(mp, pos) and np.array_equal(me, elem) and np.array_equal(mf, flags) and mn == nl,
                  f"{mode}: site {i}: memmap differs from the C reader")
        fp, fe, fn, fl = ns["read_sites_flat"](m, idx)
        check(np.array_equal(fp, np.concatenate([s[1] for s in sites])) and
              np.array_equal(fe, np.concatenate([s[2] for s in sites])) and
              list(fn) == [len(s[2]) for s in sites] and list(fl) == [s[4] for s in sites],
              f"{mode}: flat batch differs from the C reader")
        # values test_store encoded: site 3 is file 2, part 1 (key 100), 14 ligand atoms of 22
        s3 = sites[0]
        check(s3[0] == 3 and len(s3[2]) == 22 and s3[4] == 14 and tuple(s3[1][0]) == (2.0, 100.0, 0.0) and
              s3[2][0] == 6 and s3[2][14] == 7 and s3[3][0] == 1 and s3[3][21] == 2,
              f"{mode}: site 3 content {s3[1][0]} {s3[2][:1]} {s3[4]}")
    # empty merged file: memmap helper copes with datasets that have no storage
    m0 = ns["open_memmaps"](os.path.join(d, "merged_empty.h5"))
    check(m0["atoms/position"].shape == (0, 3) and list(m0["sites/atom_ptr"]) == [0], "empty file memmaps")

    # sitepack check: valid file, then damaged copies
    rc, out = run_check(sitepack, path)
    check(rc == 0 and "valid sitepack file" in out and "sites 6, residues" in out and "atoms 6140" in out,
          f"check good file: rc {rc}: {out}")
    bad = os.path.join(d, "peer_deleted.h5")
    shutil.copy(path, bad)
    with h5py.File(bad, "r+") as f:
        del f["atoms/element"]
    rc, out = run_check(sitepack, bad)
    check(rc == 1 and "missing dataset /atoms/element" in out, f"check deleted dataset: rc {rc}: {out}")
    bad = os.path.join(d, "peer_truncated.h5")
    shutil.copy(path, bad)
    with open(bad, "r+b") as fh:
        fh.truncate(os.path.getsize(path) // 2)
    rc, out = run_check(sitepack, bad)
    check(rc == 1 and "truncated" in out, f"check truncated: rc {rc}: {out}")
    bad = os.path.join(d, "peer_flipped.h5")
    shutil.copy(path, bad)
    with h5py.File(bad, "r") as f:
        off = f["sites/atom_ptr"].id.get_offset()
    with open(bad, "r+b") as fh:   # atom_ptr[3]: set its bytes to 0xff: a negative value, decreasing
        fh.seek(off + 3 * 8)
        fh.write(b"\xff" * 8)
    rc, out = run_check(sitepack, bad)
    check(rc == 1 and "/sites/atom_ptr decreases at row 2" in out, f"check flipped atom_ptr: rc {rc}: {out}")
    rc, out = run_check(sitepack, os.path.join(d, "no_such_file.h5"))
    check(rc == 2 and "No such file" in out, f"check missing file: rc {rc}: {out}")
    if failures:
        print(f"test_reader_h5: {len(failures)} failure(s)", file=sys.stderr)
        sys.exit(1)
    print("test_reader_h5: all checks passed")


main()
