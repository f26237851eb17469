#!/usr/bin/env python3
"""Writes the synthetic input files of the reader cases R01-R06 (tests/cases/Rxx_*/) from ideal
geometry: a CA trace of a straight-ish helix (3.8 A between CA atoms), a ZN ion, a small ligand.
Run from this folder: python3 make_cases.py. The files are committed; this script documents how
they were made and rewrites them byte for byte."""
import math, os

AA = ["ALA", "GLY", "SER", "LEU", "VAL", "THR", "LYS", "GLU", "ASP", "ILE"]


def atom(rec, serial, name4, res, chain, seq, xyz, occ="1.00", b="20.00", el="", chg=""):
    """One ATOM/HETATM line, PDB format v3.3 columns; name4 is columns 13-16 exactly."""
    x, y, z = xyz
    line = (f"{rec:<6}{serial:>5} {name4:<4} {res:>3} {chain:1}{seq:>4}    "
            f"{x:8.3f}{y:8.3f}{z:8.3f}{occ:>6}{b:>6}          {el:>2}{chg:<2}")
    return line.rstrip() + "\n"


def ca_xyz(i):
    t = i * 100.0 / 180.0 * math.pi
    return (2.3 * math.cos(t), 2.3 * math.sin(t), 1.5 * i)


def seqres(chain, names):
    out = []
    for k in range(0, len(names), 13):
        out.append(f"SEQRES {k // 13 + 1:>3} {chain:1} {len(names):>4}  " + " ".join(f"{n:>3}" for n in names[k:k + 13]) + "\n")
    return "".join(out)


def write(folder, name, text):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "w", newline="") as f:
        f.write(text)


def r01():
    d = "R01_unknown_first_record"
    body = "".join(atom("ATOM", i + 1, " CA ", AA[i], "A", i + 1, ca_xyz(i), el="C") for i in range(6))
    write(d, "titel_then_model.pdb", "TITEL     STRUCTURE WRITTEN BY A LOCALISED TOOL\nMODEL        1\n" + body + "ENDMDL\nEND\n")
    write(d, "free_text_then_atoms.pdb", "frame 0 of a simulation, t = 0 ps\n\n" + body + "TER\nEND\n")
    write(d, "text_without_records.pdb", "TITEL     NO COORDINATES HERE\nATOMIC MODEL PENDING\n  ATOM      1  CA  ALA A   1\n")


def r02():
    d = "R02_blank_chain_seqres_ca_only"
    names = [AA[i % 10] for i in range(12)]
    for chain, fn in ((" ", "blank_chain.pdb"), ("A", "chain_a.pdb")):
        t = seqres(chain, names)
        t += "".join(atom("ATOM", i + 1, " CA ", names[i], chain, i + 1, ca_xyz(i), el="C") for i in range(12))
        t += "TER\n" + atom("HETATM", 13, "ZN  ", "ZN", chain, 101, (6.0, 0.0, 8.0), el="ZN", chg="2+") + "END\n"
        write(d, fn, t)


if __name__ == "__main__":
    r01()
    r02()
