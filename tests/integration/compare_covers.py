#!/usr/bin/python3
"""The "-np 1 = -np N" checks (compare_h5.py: run_np.sh, merge_np.sh, sched_cli.sh, ...) see every column.

usage: compare_covers.py SITEPACK CCD STRUCTURE WORKDIR

RUN.h5, `sitepack run` of STRUCTURE with --symmetry-mates --assembly first (so /residues symop and
assembly_op are there too), is copied; for every dataset of it but the timing fields (compare_h5.TIMING_DATASETS), one value of the
copy is changed and compare_h5.main(RUN.h5, copy) must report the files different, then the value is put back.
Every column that format version 6 added (python/sitepack/_schema.py REQUIRED_SINCE, /atoms/formal_charge,
/ligands identities, instance_key, the descriptors, /sites quality, pass_quality ...) must be among the datasets
so checked. Exit 1 when a change goes unseen or a version-6 column is not in RUN.h5.
"""
import contextlib
import io
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import compare_h5  # noqa: E402
from sitepack import _schema  # noqa: E402


def changed(v):
    """a value of v's type that is not v"""
    if isinstance(v, bytes):
        return b"~" if v[:1] != b"~" else b"!"
    if isinstance(v, (np.floating, float)):
        return type(v)(0.0) if np.isnan(v) else type(v)(v + 1)
    if isinstance(v, (np.bool_, bool)):
        return not v
    return type(v)(v ^ 1)


def main():
    exe, ccd, structure, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    run = os.path.join(work, "run.h5")
    subprocess.run([exe, "run", "--input", structure, "--ccd", ccd, "--out", run, "--symmetry-mates", "--assembly",
                    "first", "--force", "--quiet"], check=True, stdout=subprocess.DEVNULL)
    cp = os.path.join(work, "changed.h5")
    shutil.copyfile(run, cp)
    with h5py.File(run, "r") as f:
        names = []
        f.visititems(lambda n, o: names.append("/" + n) if isinstance(o, h5py.Dataset) else None)
    unseen, checked, empty = [], [], []
    for name in sorted(names):
        if name in compare_h5.TIMING_DATASETS:
            continue
        with h5py.File(cp, "r+") as g:
            d = g[name]
            if d.size == 0:
                empty.append(name)
                continue
            idx = (0,) * d.ndim
            old = d[idx]
            d[idx] = changed(old)
        with contextlib.redirect_stdout(io.StringIO()):
            rc = compare_h5.main(run, cp)
        with h5py.File(cp, "r+") as g:
            g[name][idx] = old
        (checked if rc == 1 else unseen).append(name)
    v6 = sorted(f"/{t}/{c}" for (t, c), v in _schema.REQUIRED_SINCE.items() if v == 6)
    missing = [n for n in v6 if n not in checked]
    print(f"{len(checked)} datasets: a changed value is seen by compare_h5.py; {len(empty)} empty; "
          f"{len(v6) - len(missing)} of the {len(v6)} version-6 columns among them")
    for n in unseen:
        print(f"FAIL: a changed value of {n} is not seen")
    for n in missing:
        print(f"FAIL: version-6 column {n} not checked (absent or empty in {run})")
    sys.exit(1 if unseen or missing else 0)


if __name__ == "__main__":
    main()
