#!/usr/bin/python3
"""Issue 37's halogen case, cut from PDB entry 2FZZ (factor XIa with inhibitor 5QC; CC0, the wwPDB archive's file,
sha256 of the .pdb 32cf6cb04719d0b0a0657a09cbef6104083befad8e8b1dd4489036abf816ed4e, as fetched for
tests/data/fetched from schrodinger/pymol-open-source modules/web/examples/data/2fzz.pdb at 9b9cd6f).
5QC I 1's F2 lies 3.98 Å from Cys191 SG with C-F...S 135° and F...S-CB 142°, inside PLIP's halogen-bond
windows; Cys191 SG is disulfide-bonded to Cys220 SG (2.67 Å; SSBOND and CONECT records), so for PLIP (Open
Babel's bonds from CONECT) SG has two neighbours, CB and SG 220, and is no halogen acceptor (find_hal wants one).
  with_ss.pdb     5QC, every residue with an atom within 8 Å of F2, Cys220, the SSBOND and the CONECT records of
                  the disulfide and of the ligand (serials renumbered 1..n, CONECT with them): PLIP 2.2.2 reports
                  no halogen bond
  without_ss.pdb  the same without Cys220, the SSBOND and the disulfide's CONECT: SG has one neighbour, PLIP reports
                  F2...Cys191 SG
usage: make_halogen_ss.py 2fzz.pdb OUT_DIR
"""
import os
import sys

import numpy as np


def xyz(line):
    return np.array([float(line[30:38]), float(line[38:46]), float(line[46:54])])


def main(argv):
    src, out = argv[1:3]
    lines = open(src).read().splitlines()
    atoms = [l for l in lines if l.startswith(("ATOM", "HETATM"))]
    f2 = [l for l in atoms if l[17:20] == "5QC" and l[12:16] == " F2 "][0]
    key = lambda l: (l[17:20], l[21], l[22:27])
    near = {key(l) for l in atoms if l[17:20] != "HOH" and np.linalg.norm(xyz(l) - xyz(f2)) <= 8.0}
    for ss in (True, False):
        keep = set(near) | ({("CYS", "A", " 220 ")} if ss else set())
        if not ss:
            keep.discard(("CYS", "A", " 220 "))
        body = [l for l in atoms if key(l) in keep]
        # serials renumbered 1..n (PLIP renumbers non-consecutive ATOM serials, which would break the CONECT)
        new = {l[6:11]: "%5d" % (i + 1) for i, l in enumerate(body)}
        serials = set(new)
        body = [l[:6] + new[l[6:11]] + l[11:] for l in body]
        head = [l for l in lines if l.startswith("CRYST1")]
        if ss:
            head += [l for l in lines if l.startswith("SSBOND") and " 191 " in l and " 220 " in l]
        conect = []
        for l in lines:
            if not l.startswith("CONECT"):
                continue
            fields = [l[i:i + 5] for i in range(6, len(l.rstrip()), 5)]
            if all(x in serials for x in fields if x.strip()):
                conect.append("CONECT" + "".join(new[x] for x in fields if x.strip()))
        name = "with_ss.pdb" if ss else "without_ss.pdb"
        with open(os.path.join(out, name), "w") as f:
            f.write("\n".join(head + body + ["TER"] + conect + ["END"]) + "\n")
        print(name, len(body), "atoms,", len(conect), "CONECT")


if __name__ == "__main__":
    main(sys.argv)
