#!/usr/bin/python3
"""A dense cluster of atoms in one ligand residue (hostile input found by a new-user trial: 1,000 random C/N/O/S
atoms in a 6 Å cube, one HETATM residue without a CCD block) runs to the end: before, the ring walks of the
aromaticity (src/chem/perceive_arom.c) and of the site chemistry (src/site/sitechem_graph.c) enumerated every
path of up to 6 atoms through atoms with dozens of distance bonds, minutes for 200 atoms and hours for 1,000,
and nothing stopped the run. The input is made here with a fixed seed; ctest's TIMEOUT (60 s) is the bound.
Asserts: `sitepack run` exits 0, `sitepack check` passes its file, the ligand is in /ligands.

usage: perceive_dense.py SITEPACK WORK_DIR
"""
import os
import random
import subprocess
import sys

try:
    import h5py
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"SKIP: {e}")
    sys.exit(77)


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    cli, work = argv[1:3]
    d = os.path.join(work, "in")
    os.makedirs(d, exist_ok=True)
    rnd = random.Random(1)
    with open(os.path.join(d, "dense.pdb"), "w") as f:
        for k in range(1000):
            el = rnd.choice("CCCNOS")
            x, y, z = (rnd.uniform(0, 6) for _ in range(3))
            f.write("HETATM%5d %-4s BLB A   1    %8.3f%8.3f%8.3f  1.00 20.00          %2s  \n"
                    % (k + 1, "%s%03X" % (el, k), x, y, z, el))
        f.write("END\n")
    out = os.path.join(work, "dense.h5")
    r = subprocess.run([cli, "run", "--force", "--quiet", "--input", d, "--out", out], capture_output=True, text=True)
    fails = []
    if r.returncode:
        fails.append(f"run exit {r.returncode}: {r.stderr[-400:]}")
    c = subprocess.run([cli, "check", out], capture_output=True, text=True)
    if c.returncode:
        fails.append(f"check exit {c.returncode}: {c.stderr[-400:]}")
    else:
        with h5py.File(out, "r") as h:
            n = len(h["ligands/comp_id"])
            if n != 1:
                fails.append(f"{n} ligands (want the one BLB)")
    for x in fails:
        print("FAIL:", x)
    print("ok" if not fails else f"{len(fails)} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
