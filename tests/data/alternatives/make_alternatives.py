#!/usr/bin/python3
"""Issue 37 item 4's cases, cut from the corpus' 4E43 (PDB format; shared/data/structures/4e43.pdb).

Both keep the residues (ATOM and HETATM records, waters included) with an atom within 12 Å of GOL A 104 or
GOL A 105 (12.9 Å apart), nothing else (no LINK/CONECT records touch them):
  microhet.pdb       GOL A 104 becomes altloc A at occupancy 0.60, followed by an ethanol EOH A 104 altloc B at
                     occupancy 0.40 on GOL's O1, C1, C2 (named O, C1, C2 as in the CCD; serials 9001-9003): microheterogeneity,
                     one position with two identities.
  duplicate_ids.pdb  GOL A 105 renumbered 104: two copies of GOL A 104 in different places.
usage: make_alternatives.py 4e43.pdb OUT_DIR
"""
import math
import os
import sys


def res_of(line):
    if not line.startswith(("ATOM", "HETATM")):
        return None
    return line[17:20].strip(), line[21], line[22:27]


def xyz(line):
    return tuple(float(line[30 + 8 * i:38 + 8 * i]) for i in range(3))


def cut(lines):
    atoms = [l for l in lines if l.startswith(("ATOM", "HETATM"))]
    centres = [xyz(l) for l in atoms if res_of(l) in (("GOL", "A", " 104 "), ("GOL", "A", " 105 "))]
    keep = {res_of(l) for l in atoms if any(math.dist(xyz(l), c) <= 12.0 for c in centres)}
    head = [l for l in lines if l.startswith(("HEADER", "CRYST1", "SCALE", "ORIGX"))]
    return head + [l for l in atoms if res_of(l) in keep] + ["END\n"]


def with_altloc(line, alt, occ):
    return line[:16] + alt + line[17:54] + "%6.2f" % occ + line[60:]


def microhet(lines):
    out = []
    gol = [l for l in lines if res_of(l) == ("GOL", "A", " 104 ")]
    for l in lines:
        if res_of(l) != ("GOL", "A", " 104 ") or not l.startswith("HETATM"):
            out.append(l)
            continue
        out.append(with_altloc(l, "A", 0.60))
        if l is gol[-1]:
            names = {"O1": " O  ", "C1": " C1 ", "C2": " C2 "}
            for g in gol:
                n = g[12:16].strip()
                if n in names:
                    e = with_altloc(g, "B", 0.40)
                    serial = "%5d" % (9001 + len(out) - out.index(with_altloc(gol[0], "A", 0.60)) - len(gol))
                    out.append(e[:6] + serial + e[11:12] + names[n] + e[16:17] + "EOH" + e[20:])
    return out


def duplicate(lines):
    return [l[:22] + " 104 " + l[27:] if l.startswith("HETATM") and res_of(l) == ("GOL", "A", " 105 ") else l
            for l in lines]


def main(src, out):
    lines = cut(open(src).readlines())
    open(os.path.join(out, "microhet.pdb"), "w").writelines(microhet(lines))
    open(os.path.join(out, "duplicate_ids.pdb"), "w").writelines(duplicate(lines))


if __name__ == "__main__":
    main(*sys.argv[1:3])
