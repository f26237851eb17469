#!/usr/bin/python3
"""Issue 37 item 1's cases: an ethanol hydroxyl (EOH A 101, CCD ideal coordinates) between two Asp
carboxylates (ASP A 10, ASP A 20, CCD ideal coordinates, each turned so that CG -> OD1 points at the hydroxyl O):
ASP 10 OD1 2.90 Å from O along the deposited O-H (D-H...A 180°), ASP 20 OD1 2.70 Å from O at 95° from the O-H
direction (D-H...A about 63°, below PLIP's 100°; the heavy-atom angle C1-O...OD1 above 60°).
  with_h.pdb     the ethanol with its CCD hydrogens (HO among them): the H-bond is O-HO...ASP 10 OD1
  without_h.pdb  the same without any H: today's rule (no H position) keeps the shorter D...A, ASP 20
usage: make_hbond_h.py CCD.cif[.gz] OUT_DIR
"""
import os
import sys

import gemmi
import numpy as np


def ideal(block):
    t = block.find("_chem_comp_atom.", ["atom_id", "type_symbol", "pdbx_model_Cartn_x_ideal",
                                        "pdbx_model_Cartn_y_ideal", "pdbx_model_Cartn_z_ideal"])
    return [(r[0].strip('"'), r[1], np.array([float(r[2]), float(r[3]), float(r[4])])) for r in t]


def rotation(u, v):
    """Rotation matrix taking unit vector u onto unit vector v (Rodrigues)."""
    w = np.cross(u, v)
    s, c = np.linalg.norm(w), float(np.dot(u, v))
    if s < 1e-9:
        return np.eye(3)
    k = w / s
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + s * K + (1 - c) * K @ K


def place_asp(asp, target, towards):
    """ASP heavy atoms (no OXT) moved so that OD1 sits at target and CG -> OD1 points at towards."""
    pos = {n: p for n, e, p in asp}
    u = pos["OD1"] - pos["CG"]
    v = towards - target
    R = rotation(u / np.linalg.norm(u), v / np.linalg.norm(v))
    return [(n, e, R @ (p - pos["OD1"]) + target) for n, e, p in asp if e != "H" and n != "OXT"]


def line(serial, name, comp, seq, el, p, het):
    nm = name if len(name) == 4 else " " + name.ljust(3)
    return "%-6s%5d %-4s %3s A%4d    %8.3f%8.3f%8.3f  1.00 20.00          %2s\n" % (
        "HETATM" if het else "ATOM", serial, nm, comp, seq, p[0], p[1], p[2], el)


def main(ccd, out):
    doc = gemmi.cif.read(ccd)
    eoh, asp = ideal(doc["EOH"]), ideal(doc["ASP"])
    pos = {n: p for n, e, p in eoh}
    o, h, c1 = pos["O"], pos["HO"], pos["C1"]
    u = (h - o) / np.linalg.norm(h - o)
    # a direction at 95 deg from O->H, in the plane C1-O-H, away from C1
    n = np.cross(u, c1 - o)
    n /= np.linalg.norm(n)
    v = np.cos(np.radians(95)) * u + np.sin(np.radians(95)) * np.cross(n, u)
    if np.dot(v, c1 - o) > 0:
        v = np.cos(np.radians(95)) * u - np.sin(np.radians(95)) * np.cross(n, u)
    a10, a20 = o + 2.90 * u, o + 2.70 * v
    for fname, keep_h in (("with_h.pdb", True), ("without_h.pdb", False)):
        rows, k = ["HEADER    SYNTHETIC: ISSUE 37 DEPOSITED-H CASE (make_hbond_h.py)\n",
                   "CRYST1  100.000  100.000  100.000  90.00  90.00  90.00 P 1           1\n"], 1
        for seq, target in ((10, a10), (20, a20)):
            for nm, el, p in place_asp(asp, target, o):
                rows.append(line(k, nm, "ASP", seq, el, p, False))
                k += 1
        rows.append("TER\n")
        for nm, el, p in eoh:
            if el != "H" or keep_h:
                rows.append(line(k, nm, "EOH", 101, el, p, True))
                k += 1
        rows.append("END\n")
        open(os.path.join(out, fname), "w").writelines(rows)


if __name__ == "__main__":
    main(*sys.argv[1:3])
