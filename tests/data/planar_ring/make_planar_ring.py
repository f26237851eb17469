#!/usr/bin/python3
"""Issue 37's planar-ring case, cut from PDB entry 1U5U (CC0, the wwPDB archive's file, sha256 of the .pdb
de9cbb857c8ce8ab8dd7f8c49f0df80fd31173ade80476d5d4e4678f7a67c988, as fetched for tests/data/fetched from
Acellera/moleculekit tests/pdb/1u5u.pdb at e5fe60b). The CCD flags only pyrroles A and C of HEM aromatic (a
Kekule form of the porphyrin); PLIP's find_rings keeps any 5- or 6-ring that Open Babel calls aromatic or that is
planar (ring_is_planar), so it also has pyrroles B and D, and Arg349's guanidinium 3.37 Å above one of them is a
pi-cation for PLIP.
  haem_arg.pdb   HEM A 999 and every residue of chain A with an atom within 6 Å of it (waters left out), serials
                 renumbered 1..n (PLIP renumbers non-consecutive serials), the CONECT records among them
usage: make_planar_ring.py 1u5u.pdb OUT_DIR
"""
import os
import sys

import numpy as np


def xyz(line):
    return np.array([float(line[30:38]), float(line[38:46]), float(line[46:54])])


def main(argv):
    src, out = argv[1:3]
    lines = open(src).read().splitlines()
    atoms = [l for l in lines if l.startswith(("ATOM", "HETATM")) and l[21] == "A"]
    key = lambda l: (l[17:20], l[21], l[22:27])
    hem = [xyz(l) for l in atoms if key(l) == ("HEM", "A", " 999 ")]
    near = {key(l) for l in atoms if l[17:20] != "HOH" and min(np.linalg.norm(xyz(l) - h) for h in hem) <= 6.0}
    body = [l for l in atoms if key(l) in near]
    new = {l[6:11]: "%5d" % (i + 1) for i, l in enumerate(body)}
    body = [l[:6] + new[l[6:11]] + l[11:] for l in body]
    conect = []
    for l in lines:
        if l.startswith("CONECT"):
            fields = [l[i:i + 5] for i in range(6, len(l.rstrip()), 5)]
            if all(x in new for x in fields if x.strip()):
                conect.append("CONECT" + "".join(new[x] for x in fields if x.strip()))
    head = [l for l in lines if l.startswith("CRYST1")]
    with open(os.path.join(out, "haem_arg.pdb"), "w") as f:
        f.write("\n".join(head + body + ["TER"] + conect + ["END"]) + "\n")
    print("haem_arg.pdb", len(body), "atoms,", len(conect), "CONECT")


if __name__ == "__main__":
    main(sys.argv)
