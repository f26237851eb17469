#!/usr/bin/python3
"""The SDF `M  CHG` block when the metal-bond and valence rules set charges (fast; docs/usage.md "Export",
src/derive/export_sdf.c), on three files of the bundled sample.

usage: test_export_charges_fast.py SITEPACK STRUCTURES CCD OUTDIR

19HC and 4HHB (haem: Fe bonded to four N; the CCD gives every HEM atom charge 0) and 7GSA (tris, TRS, with no
block in the sample CCD: its four-bonded N). `sitepack run`, `sitepack export --all --format sdf`; for every
record the charges are recomputed here from the record itself (its atoms and bond block, read by RDKit, and
its `metal_bonds` field) and the file's charges (/atoms/ccd_charge where /atoms/ccd_atom bit 0, else
/atoms/charge), by the rules as docs/usage.md states them:
  - metal bond rule: a non-metal X of default valence v (RDKit's periodic table, GetDefaultValence: C 4, N 3,
    P 3, O S Se 2, B 3, halogens 1 ...; an element whose default valence is not positive is left alone),
    uncharged so far, whose bond-block valence (aromatic counted 1) + 1 <= v takes -1 and its metal +1 (a
    dative bond changes nothing);
  - valence rule: an uncharged N without a CCD atom, of bond-block valence 4, no aromatic bond, is N+, and its
    terminal uncharged partner without a CCD atom (O by a single bond, N by a double bond) takes -1;
and the record's `M  CHG` lines (parsed as text, and RDKit's formal charges of the record) and the run's
/atoms/formal_charge of the site's ligand atoms must equal them; `sitepack check` passes the file and refuses a
copy whose haem Fe or whose site atom has another formal_charge (bad_value).
Known answers too: each haem has Fe +2 and two N -1 (the pyrrole N), tris N +1 listed in `valence_charges`,
and the record sanitizes in RDKit.
"""
import os
import re
import shutil
import subprocess
import sys

import h5py
from rdkit import Chem, RDLogger

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_checks import check, fails, run  # noqa: E402

RDLogger.DisableLog("rdApp.*")
SP, STRUCT, CCD, OUT = sys.argv[1:5]
FILES = ["19hc.pdb.gz", "4hhb.cif.gz", "7gsa.cif"]
METALS = set("Li Be Na Mg Al K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Cs "
             "Ba La Ce Pr Nd Sm Eu Gd Tb Dy Ho Er Tm Yb Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi U".split())
PT = Chem.GetPeriodicTable()


def default_valence(sym):
    """RDKit's default valence of a neutral atom (independent of sitepack's table, valence.h); 0 where none."""
    return max(PT.GetDefaultValence(sym), 0)


def fields(text):
    return dict(re.findall(r"^>  <([^>]+)>\n(.*)$", text, re.M))


def chg_lines(text):
    """{1-based atom: charge} from the M  CHG lines, and the count each line announces matches its pairs."""
    out = {}
    for ln in text.split("M  END")[0].splitlines():
        if ln.startswith("M  CHG"):
            n, rest = int(ln[6:9]), ln[9:].split()
            check(len(rest) == 2 * n, f"M  CHG line announces {n} pairs: {ln!r}")
            for k in range(0, len(rest), 2):
                out[int(rest[k])] = int(rest[k + 1])
    return out


def expected(mol, metal_bonds, base, ccd_matched):
    """Per atom (0-based) the charge the two rules give, from the record's graph and the file's charges."""
    q = list(base)
    sym = [a.GetSymbol() for a in mol.GetAtoms()]
    val, deg, arom = [0] * len(q), [0] * len(q), [False] * len(q)
    for b in mol.GetBonds():
        t = b.GetBondType()
        v = 1 if t == Chem.BondType.AROMATIC else int(b.GetBondTypeAsDouble())
        for k in (b.GetBeginAtomIdx(), b.GetEndAtomIdx()):
            val[k] += v
            deg[k] += 1
            arom[k] |= t == Chem.BondType.AROMATIC
    for a, b in metal_bonds:
        m, x = (a, b) if sym[a] in METALS else (b, a)
        nv = default_valence(sym[x])
        if nv and q[x] == 0 and sym[x] not in METALS and val[x] + 1 <= nv:
            q[x] -= 1
            q[m] += 1
    by_valence = {}
    for k in range(len(q)):
        if sym[k] != "N" or ccd_matched[k] or q[k] != 0 or val[k] != 4 or arom[k]:
            continue
        q[k] += 1
        by_valence[k] = 1
        for b in mol.GetAtomWithIdx(k).GetBonds():
            o = b.GetOtherAtomIdx(k)
            t = b.GetBondType()
            if deg[o] == 1 and not ccd_matched[o] and q[o] == 0 and (
                    (sym[o] == "O" and t == Chem.BondType.SINGLE) or (sym[o] == "N" and t == Chem.BondType.DOUBLE)):
                q[o] -= 1
                by_valence[o] = -1
    return q, by_valence


shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(f"{OUT}/in")
for fn in FILES:
    os.symlink(os.path.join(STRUCT, fn), f"{OUT}/in/{fn}")
h5 = f"{OUT}/chg.h5"
run([SP, "run", "--input", f"{OUT}/in", "--ccd", CCD, "--out", h5, "--quiet"])
run([SP, "export", h5, "--all", "--format", "sdf", "--out", f"{OUT}/sdf", "--quiet"])
if fails:
    sys.exit(1)

with h5py.File(h5, "r") as f:
    ap = f["sites/atom_ptr"][()]
    charge, ccd_charge, ccd_atom = f["atoms/charge"][()], f["atoms/ccd_charge"][()], f["atoms/ccd_atom"][()]
    formal = f["atoms/formal_charge"][()]
n_metal = n_valence = n_haem = n_tris = 0
for fn in sorted(os.listdir(f"{OUT}/sdf")):
    text = open(f"{OUT}/sdf/{fn}").read()
    fl = fields(text)
    i = int(fl["site_idx"])
    mol = Chem.MolFromMolBlock(text.split("M  END")[0] + "M  END\n", sanitize=False, removeHs=False)
    check(mol is not None, f"{fn}: RDKit cannot read the record")
    if mol is None:
        continue
    nl = mol.GetNumAtoms()
    a0 = int(ap[i])
    matched = [bool(ccd_atom[a0 + k] & 1) for k in range(nl)]
    base = [int(ccd_charge[a0 + k]) if matched[k] else int(charge[a0 + k]) for k in range(nl)]
    mb = [tuple(int(v) - 1 for v in p.split("-")) for p in fl.get("metal_bonds", "").split()]
    q, by_val = expected(mol, mb, base, matched)
    got = chg_lines(text)
    want = {k + 1: c for k, c in enumerate(q) if c}
    check(got == want, f"{fn}: M  CHG {got}, the rules give {want} (file charges {[c for c in base if c]})")
    rd = {a.GetIdx() + 1: a.GetFormalCharge() for a in mol.GetAtoms() if a.GetFormalCharge()}
    check(rd == want, f"{fn}: RDKit reads formal charges {rd}, the rules give {want}")
    stored = {k + 1: int(formal[a0 + k]) for k in range(nl) if formal[a0 + k]}
    check(stored == want, f"{fn}: /atoms/formal_charge {stored}, the record and the rules give {want}")
    vc = {int(p.split(":")[0]) - 1: int(p.split(":")[1]) for p in fl.get("valence_charges", "").split()}
    check(set(vc) == set(by_val) and all(vc[k] == q[k] for k in vc),
          f"{fn}: valence_charges {vc}, the valence rule sets {sorted(by_val)} to {[q[k] for k in sorted(by_val)]}")
    n_metal += q != base and bool(mb)
    n_valence += bool(by_val)
    syms = [a.GetSymbol() for a in mol.GetAtoms()]
    if fl["comp_id"] == "HEM":
        n_haem += 1
        fe = syms.index("Fe")
        negative = sorted(syms[k] for k in range(nl) if q[k] == -1)
        check(want.get(fe + 1) == 2 and negative == ["N", "N"] and len(want) == 3,
              f"{fn}: haem charges {want}: expected Fe +2 and two N -1")
    if fl["comp_id"] == "TRS":
        n_tris += 1
        check(list(want.values()) == [1] and syms[next(iter(want)) - 1] == "N", f"{fn}: tris charges {want}: N +1")
    if fl["comp_id"] in ("HEM", "TRS"):
        m2 = Chem.Mol(mol)
        try:
            Chem.SanitizeMol(m2)
        except Exception as e:  # noqa: BLE001 (RDKit raises several kinds)
            check(False, f"{fn}: does not sanitize in RDKit: {e}")
# `sitepack check` recomputes the column by the same rules: a haem Fe stored +1 instead of +2, and a site atom
# whose formal_charge is not its /atoms/charge, are each refused with bad_value naming the row
with h5py.File(h5, "r") as f:
    el, nlg = f["atoms/element"][()], f["sites/n_ligand"][()]
fe = next(int(ap[i]) + k for i in range(len(nlg)) for k in range(int(nlg[i])) if el[ap[i] + k] == 26)
site_atom = int(ap[0]) + int(nlg[0])
for row, name in ((fe, "haem Fe"), (site_atom, "site atom")):
    bad = f"{OUT}/bad_formal_charge.h5"
    shutil.copy(h5, bad)
    with h5py.File(bad, "r+") as f:
        f["atoms/formal_charge"][row] = int(f["atoms/formal_charge"][row]) - 1
    p = subprocess.run([SP, "check", bad], capture_output=True, text=True)
    check(p.returncode == 1 and "bad_value" in p.stdout + p.stderr and f"/atoms/formal_charge[{row}]" in p.stderr,
          f"check of a file whose {name}'s formal_charge is off by one: exit {p.returncode} {p.stderr.strip()[:300]}")
    os.remove(bad)
p = subprocess.run([SP, "check", h5], capture_output=True, text=True)
check(p.returncode == 0 and "formal_charge" in p.stdout, f"check of the run's own file: exit {p.returncode}")
print(f"records with charges from the metal rule {n_metal} (haem {n_haem}), from the valence rule {n_valence} "
      f"(tris {n_tris})")
check(n_metal >= 8 and n_haem >= 8 and n_valence >= 1 and n_tris >= 1, "the rules are not exercised")
if fails:
    print(f"{len(fails)} failures")
    sys.exit(1)
print("ok")
