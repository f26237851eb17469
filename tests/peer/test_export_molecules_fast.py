#!/usr/bin/python3
"""Issue 39 items 3 and 4 on small made-up entries (default set, no corpus), against RDKit and the package.

usage: test_export_molecules_fast.py SITEPACK CCD PYTHON_DIR WORK_DIR

Three PDB files, each a three-residue peptide and one ligand without a CCD block (CCD: the bundled sample's):
  - frag.pdb: ZZZ, two pieces of three carbons 4 A apart (a disordered ligand: the bonds from distances do not
    join them): the record's SD field fragments says "warning: 2 disconnected fragments of 3, 3 atoms; not in the
    largest: atoms 4 5 6", RDKit finds the same two fragments, the summary counts 1 such ligand;
  - link.pdb: YYA-YYB joined O2-C3 by CONECT, YYA keeping the hydrogen HO2 of O2 (CONECT O2-HO2): HO2 is left out
    (5 of the 6 atoms written, SD field link_hydrogens names it on O2), the record sanitizes, and RDKit rejects it
    with HO2 put back on O2; Site.to_rdkit() gives the same SMILES with property link_hydrogens "3";
  - nolink.pdb: the same atoms with C3 bonded to C2 instead of O2: O2 is linked to no other residue, HO2 stays
    (6 atoms, no link_hydrogens), and the record sanitizes.
"""
import os
import re
import subprocess
import sys

from rdkit import Chem, RDLogger

RDLogger.DisableLog("rdApp.*")
FAILS = []


def check(cond, msg):
    if not cond:
        FAILS.append(msg)
        print("FAIL:", msg)


def pdb(path, ligand, conect):
    """A peptide ALA A 1-3 and the ligand atoms (name, comp, seq, xyz, element); CONECT both ways per pair."""
    lines, s, ser = [], 1, {}

    def atom(rec, name, res, chain, seq, xyz, el):
        nonlocal s
        lines.append(f"{rec:<6}{s:>5} {name:<4} {res:>3} {chain}{seq:>4}    {xyz[0]:8.3f}{xyz[1]:8.3f}{xyz[2]:8.3f}"
                     f"  1.00 20.00          {el:>2}")
        s += 1

    for i in range(3):
        for nm, dx, dy, el in (("N", 0, 0, "N"), ("CA", 1.45, 0, "C"), ("C", 2.4, 1.1, "C"), ("O", 2.2, 2.3, "O"),
                               ("CB", 1.9, -1.3, "C")):
            atom("ATOM", nm, "ALA", "A", i + 1, (3.6 * i + dx, dy, 0.0), el)
    for nm, res, seq, xyz, el in ligand:
        ser[nm] = s
        atom("HETATM", nm, res, "B", seq, xyz, el)
    for a, b in conect:
        lines += [f"CONECT{ser[a]:>5}{ser[b]:>5}", f"CONECT{ser[b]:>5}{ser[a]:>5}"]
    open(path, "w").write("\n".join(lines + ["END"]) + "\n")


def export(sp, ccd, work, name):
    """Run and export the one file work/name/in/name.pdb; (record text, RDKit mol unsanitized, fields, stderr)."""
    d = os.path.join(work, name)
    h5, out = os.path.join(d, "out.h5"), os.path.join(d, "sdf")
    r = subprocess.run([sp, "run", "--input", os.path.join(d, "in"), "--ccd", ccd, "--out", h5, "--force", "--quiet"],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"{name}: run: {r.stderr[-300:]}")
    r = subprocess.run([sp, "export", h5, "--all", "--format", "sdf", "--out", out, "--force"], capture_output=True,
                       text=True)
    check(r.returncode == 0, f"{name}: export: {r.stderr[-300:]}")
    files = sorted(os.listdir(out))
    check(len(files) == 1, f"{name}: {files}")
    text = open(os.path.join(out, files[0])).read()
    mol = Chem.MolFromMolBlock(text.split("M  END")[0] + "M  END\n", sanitize=False, removeHs=False)
    return text, mol, dict(re.findall(r">  <(\w+)>\n(.*?)\n\n", text, re.S)), r.stderr, h5


def sanitizes(mol):
    try:
        Chem.SanitizeMol(Chem.Mol(mol))
        return True
    except Exception:  # noqa: BLE001 -- RDKit's valence errors
        return False


def main():
    sp, ccd, pydir, work = sys.argv[1:5]
    sys.path.insert(0, pydir)
    import sitepack
    for name in ("frag", "link", "nolink", "linkn"):
        os.makedirs(os.path.join(work, name, "in"), exist_ok=True)
    two = [(f"C{k + 1}", "ZZZ", 101, xyz, "C") for k, xyz in
           enumerate([(2, 0, 4), (3.5, 0, 4), (4.3, 1.2, 4), (8.3, 1.2, 4), (9.8, 1.2, 4), (10.6, 0, 4)])]
    pdb(os.path.join(work, "frag", "in", "frag.pdb"), two, [])
    glyc = [("C1", "YYA", 101, (2.0, 0, 4), "C"), ("C2", "YYA", 101, (3.5, 0, 4), "C"),
            ("O2", "YYA", 101, (4.2, 1.2, 4), "O"), ("HO2", "YYA", 101, (4.2, 1.5, 4.9), "H"),
            ("C3", "YYB", 102, (5.6, 1.2, 4), "C"), ("C4", "YYB", 102, (6.3, 2.5, 4), "C")]
    pdb(os.path.join(work, "link", "in", "link.pdb"), glyc,
        [("C1", "C2"), ("C2", "O2"), ("O2", "HO2"), ("O2", "C3"), ("C3", "C4")])
    moved = [g if g[0] != "C3" else ("C3", "YYB", 102, (4.0, -1.4, 4), "C") for g in glyc]
    pdb(os.path.join(work, "nolink", "in", "nolink.pdb"), moved,
        [("C1", "C2"), ("C2", "O2"), ("O2", "HO2"), ("C2", "C3"), ("C3", "C4")])

    amine = [("C1", "YYA", 101, (2.0, 0, 4), "C"), ("C2", "YYA", 101, (3.5, 0, 4), "C"),
             ("N2", "YYA", 101, (4.2, 1.2, 4), "N"), ("H2A", "YYA", 101, (4.2, 1.5, 4.9), "H"),
             ("H2B", "YYA", 101, (3.9, 1.9, 3.4), "H"), ("C3", "YYB", 102, (5.6, 1.2, 4), "C"),
             ("C4", "YYB", 102, (6.3, 2.5, 4), "C")]
    pdb(os.path.join(work, "linkn", "in", "linkn.pdb"), amine,
        [("C1", "C2"), ("C2", "N2"), ("N2", "H2A"), ("N2", "H2B"), ("N2", "C3"), ("C3", "C4")])

    # item 3: two fragments
    text, mol, fields, err, _ = export(sp, ccd, work, "frag")
    frags = sorted(Chem.GetMolFrags(mol), key=min)
    check([len(x) for x in frags] == [3, 3], f"frag: RDKit fragments {frags}")
    want = "warning: 2 disconnected fragments of 3, 3 atoms; not in the largest: atoms 4 5 6 ("
    check(fields.get("fragments", "").startswith(want), f"frag: fragments field {fields.get('fragments')!r}")
    check(fields.get("bond_orders") == "perceived", f"frag: bond_orders {fields.get('bond_orders')!r}")
    check("1 ligands written as several disconnected fragments (SD field fragments)" in err, f"frag: summary {err!r}")
    # item 4: the H of the linked O2 left out
    text, mol, fields, err, h5 = export(sp, ccd, work, "link")
    check(mol.GetNumAtoms() == 5 and "H" not in [a.GetSymbol() for a in mol.GetAtoms()], f"link: {mol.GetNumAtoms()}")
    check(fields.get("link_hydrogens", "") == "left out: HO2 YYA/B/101 on O2 (linked to another residue: with it O2 "
          "would have valence 3)", f"link: link_hydrogens {fields.get('link_hydrogens')!r}")
    check(sanitizes(mol) and "fragments" not in fields and "warning" not in fields, f"link: record {fields}")
    back = Chem.RWMol(mol)
    h = back.AddAtom(Chem.Atom(1))
    o2 = [a.GetIdx() for a in mol.GetAtoms() if a.GetSymbol() == "O"][0]
    back.AddBond(o2, h, Chem.BondType.SINGLE)
    check(not sanitizes(back), "link: the record with HO2 put back on O2 sanitizes")
    check("1 deposited hydrogens on linked atoms left out (SD field link_hydrogens)" in err, f"link: summary {err!r}")
    m = sitepack.open(h5)[0].to_rdkit()
    ref = Chem.Mol(mol)
    Chem.SanitizeMol(ref)
    check(Chem.MolToSmiles(m) == Chem.MolToSmiles(ref) and m.GetProp("link_hydrogens") == "3"
          and [a.GetIntProp("ligand_atom") for a in m.GetAtoms()] == [0, 1, 2, 4, 5],
          f"link: to_rdkit {Chem.MolToSmiles(m)} vs {Chem.MolToSmiles(ref)}")
    # control: O2 linked to no other residue keeps its H
    text, mol, fields, err, _ = export(sp, ccd, work, "nolink")
    check(mol.GetNumAtoms() == 6 and "link_hydrogens" not in fields and sanitizes(mol), f"nolink: {fields}")
    # the link-hydrogen rule before the charge rules, in one place (valence.h sp_ligand_charges): a linked N2 with
    # two deposited H (valence 4) loses H2A and stays a neutral amine N (valence 3), not the N+ the valence rule
    # gives a four-valent N; the stored /atoms/formal_charge, the record's charges, `sitepack check` and to_rdkit
    # all say 0
    text, mol, fields, err, h5 = export(sp, ccd, work, "linkn")
    check(mol.GetNumAtoms() == 6 and fields.get("link_hydrogens", "").startswith("left out: H2A YYA/B/101 on N2")
          and "valence_charges" not in fields and "M  CHG" not in text and sanitizes(mol), f"linkn: {fields}")
    import h5py
    with h5py.File(h5, "r") as f:
        nl = int(f["sites/n_ligand"][0])
        fc = f["atoms/formal_charge"][:nl].tolist()
    check(fc == [0] * 7, f"linkn: /atoms/formal_charge {fc} (the N+ of a four-valent N: the H not left out first)")
    r = subprocess.run([sp, "check", h5], capture_output=True, text=True)
    check(r.returncode == 0, f"linkn: check: {r.returncode} {r.stderr[-300:]}")
    m = sitepack.open(h5)[0].to_rdkit()
    check([a.GetFormalCharge() for a in m.GetAtoms()] == [0] * 6 and m.GetProp("link_hydrogens") == "3",
          f"linkn: to_rdkit charges {[a.GetFormalCharge() for a in m.GetAtoms()]}")
    if FAILS:
        print(f"{len(FAILS)} failure(s)")
        return 1
    print("ok: fragments (2 of 3 atoms), HO2 of a linked O2 left out, kept when O2 is not linked; linked N2 "
          "loses H2A and stays neutral in the record, /atoms/formal_charge, check and to_rdkit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
