#!/usr/bin/python3
"""A covalent link between two ions or buffers (issue 36 item 2; docs/ligands.md "Links between ions"): the
synthetic tests/unit/link_two_sulfates.pdb has two sulfates joined O-O by a LINK record and a glycerol LINKed to
the second; `sitepack run` keeps three ligands (SO4 ion, SO4 ion, GOL artifact, one residue each), never one
16-atom small molecule (what the build before this rule made of it), and /structures/warnings names both links.
usage: test_link_ions.py SITEPACK PDB WORK_DIR
"""
import os
import shutil
import subprocess
import sys

import h5py

FAILS = []


def check(cond, msg):
    if not cond:
        FAILS.append(msg)
        print("FAIL:", msg)


def main():
    exe, pdb, work = sys.argv[1:4]
    inp = os.path.join(work, "in")
    shutil.rmtree(inp, ignore_errors=True)
    os.makedirs(inp)
    shutil.copy(pdb, inp)
    out = os.path.join(work, "out.h5")
    r = subprocess.run([exe, "run", "--input", inp, "--out", out, "--force", "--quiet"], capture_output=True, text=True)
    check(r.returncode == 0, f"run: exit {r.returncode} {r.stderr[-300:]}")
    with h5py.File(out, "r") as f:
        lig = [(f["ligands/comp_id"][i].decode(), f["ligands/class"][i].decode(), int(f["ligands/n_residues"][i]),
                int(f["ligands/n_atoms"][i])) for i in range(f["ligands/comp_id"].shape[0])]
        warn = f["structures/warnings"][0].decode()
        n_warn = int(f["structures/n_warnings"][0])
    check(lig == [("SO4", "ion", 1, 5), ("SO4", "ion", 1, 5), ("GOL", "artifact", 1, 6)], f"ligands {lig}")
    for a, b in (("SO4 A/201", "SO4 A/202"), ("SO4 A/202", "GOL A/203")):
        check(f"a covalent link joins two ions or buffers, {a} and {b}: kept as two ligands" in warn,
              f"no warning for {a} - {b}: {warn!r}")
    check(n_warn == 2, f"n_warnings {n_warn}")
    print(f"{len(FAILS)} failures")
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
