#!/usr/bin/python3
"""CONECT bonds of sitepack's PDB reader against a parse of the records here and RDKit's PDB reader.

usage: test_conect_peer.py SP_DUMP_ATOMS DIR_OR_FILE...
For every PDB file of the DIRs (.pdb, .ent, plain or .gz) with CONECT records, sp_dump_atoms --conect
(sp_structure.conects: one row per bonded atom pair of model 1: serials, order, atom names) must equal
  1. the bonds parsed here from the file's own lines (wwPDB format v3.3 section 10: serial 7-11, bonded
     serials 12-16, 17-21, 22-26, 27-31; the atoms of model 1, i.e. before the first ENDMDL; order =
     the times one atom lists the other, the larger of the two directions, 1 above 3), exactly;
  2. and every bond of RDKit's MolFromPDBBlock(sanitize=False, removeHs=False, proximityBonding=False)
     of the file's first model (RDKit makes bonds from CONECT only, reading a repeated serial as a
     higher order, as Open Babel does) must be one of them with the same order and atom names. Policy
     differences of RDKit, counted by kind and not compared: a bond to a metal is RDKit's ZERO bond
     (existence compared, not order); RDKit keeps the first altloc only and leaves out some CONECT
     bonds (to waters at longer distances): sitepack's bonds that RDKit lacks are counted.
A file that either reader fails on is a failure.
"""
import gzip
import os
import subprocess
import sys

from rdkit import Chem, RDLogger

RDLogger.DisableLog("rdApp.*")
ORDER = {Chem.BondType.SINGLE: 1, Chem.BondType.DOUBLE: 2, Chem.BondType.TRIPLE: 3}


def text_of(path):
    with open(path, "rb") as fh:
        raw = fh.read()
    return (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode("latin-1")


METALS = set("Li Be Na Mg Al K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Cs "
             "Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi".split())


def first_model(text):
    """The lines of the first model (up to the first ENDMDL) and every CONECT line."""
    lines, out, in_first = text.splitlines(), [], True
    for ln in lines:
        if ln.startswith("ENDMDL"):
            in_first = False
        elif ln.startswith("CONECT") or (in_first and not ln.startswith("MODEL")):
            out.append(ln)
    return out


def own_bonds(lines):
    """(serial_a, serial_b) -> (order, name_a, name_b), parsed from the lines of model 1 + CONECT."""
    names, twice, directed = {}, set(), {}
    for ln in lines:
        if ln.startswith(("ATOM  ", "HETATM")) and ln[6:11].strip().isdigit():
            s = int(ln[6:11])
            if s in names:
                twice.add(s)
            names[s] = ln[12:16].strip()
        elif ln.startswith("CONECT"):
            src = int(ln[6:11])
            for c in range(11, 31, 5):
                f = ln[c:c + 5].strip()
                if f:
                    directed[(src, int(f))] = directed.get((src, int(f)), 0) + 1
    out = {}
    for (x, y), n in directed.items():
        if x == y or x not in names or y not in names or x in twice or y in twice:
            continue
        a, b = min(x, y), max(x, y)
        o = max(directed.get((a, b), 0), directed.get((b, a), 0))
        out[(a, b)] = (1 if o > 3 else o, names[a], names[b])
    return out


def rdkit_bonds(text):
    """RDKit's bonds: (serial_a, serial_b) -> (order or 0, name_a, name_b, metal)."""
    mol = Chem.MolFromPDBBlock(text, sanitize=False, removeHs=False, proximityBonding=False)
    if mol is None:
        return None
    out = {}
    for b in mol.GetBonds():
        a1, a2 = b.GetBeginAtom(), b.GetEndAtom()
        i1, i2 = a1.GetPDBResidueInfo(), a2.GetPDBResidueInfo()
        (s1, n1), (s2, n2) = sorted(((i1.GetSerialNumber(), i1.GetName().strip()),
                                     (i2.GetSerialNumber(), i2.GetName().strip())))
        metal = a1.GetSymbol() in METALS or a2.GetSymbol() in METALS
        out[(s1, s2)] = (ORDER.get(b.GetBondType(), 0), n1, n2, metal)
    return out


def main():
    dump, folders = sys.argv[1], sys.argv[2:]
    files = sorted(os.path.join(d, f) for d in folders if os.path.isdir(d) for f in os.listdir(d)
                   if f.endswith((".pdb", ".ent", ".pdb.gz", ".ent.gz")))
    files += [f for f in folders if os.path.isfile(f)]
    fails, n_files, n_bonds, n_order = [], 0, 0, {1: 0, 2: 0, 3: 0}
    n_rd = n_rd_metal = n_rd_lacks = 0
    for path in files:
        text = text_of(path)
        if "\nCONECT" not in text:
            continue
        n_files += 1
        r = subprocess.run([dump, "--conect", path], capture_output=True, text=True)
        rows = [ln.split("\t") for ln in r.stdout.splitlines()]
        if r.returncode or any(x[1] == "ERROR" for x in rows):
            fails.append(f"{path}: sitepack: {r.stdout[-300:]} {r.stderr[-300:]}")
            continue
        got = {(int(x[2]), int(x[3])): (int(x[4]), x[5], x[6]) for x in rows if x[1] == "CONECT"}
        lines = first_model(text)
        want = own_bonds(lines)
        if got != want:
            diff = [(k, got.get(k), want.get(k)) for k in sorted(set(got) | set(want)) if got.get(k) != want.get(k)]
            fails.append(f"{path}: {len(got)} bonds, parsed here {len(want)}; first differences {diff[:5]}")
        rd = rdkit_bonds("\n".join(lines) + "\n")
        if rd is None:
            fails.append(f"{path}: RDKit cannot read it")
            continue
        for k, (o, n1, n2, metal) in rd.items():
            g = got.get(k)
            if g is None or (g[1], g[2]) != (n1, n2) or (not metal and g[0] != o):
                fails.append(f"{path}: RDKit bond {k} order {o} {n1}-{n2}, sitepack {g}")
            n_rd_metal += metal
        n_rd += len(rd)
        n_rd_lacks += len(set(got) - set(rd))
        n_bonds += len(got)
        for o, _, _ in got.values():
            n_order[o] = n_order.get(o, 0) + 1
    print(f"CONECT: {n_files} PDB files with CONECT records, {n_bonds} bonds (orders {n_order}), all equal to the "
          f"parse here: {not any('parsed here' in f for f in fails)}; RDKit: {n_rd} bonds, each one of sitepack's "
          f"({n_rd_metal} to metals, ZERO in RDKit: order not compared); {n_rd_lacks} of sitepack's bonds RDKit "
          f"leaves out (altlocs after the first, CONECT to waters); {len(fails)} failures")
    for f in fails:
        print("FAIL:", f)
    if n_files < 2 or n_order.get(2, 0) < 1 or n_order.get(3, 0) < 1 or fails:
        sys.exit(1)


if __name__ == "__main__":
    main()
