#!/usr/bin/python3
"""The one valence table (include/sitepack/valence.h, src/chem/valence.c) against the installed RDKit (fast).

usage: test_valence_table.py SP_DUMP_VALENCE

For every element that is no metal (sp_element_is_metal): the valence list equals RDKit's
Chem.GetPeriodicTable().GetValenceList where RDKit's default valence is positive (none elsewhere: noble
gases, Ts, Og); sp_valence_max at charge 0 is the list's largest, at charge +-1 for B..F that of the
isoelectronic element; sp_valence_implicit_h equals RDKit's implicit hydrogen count (GetNumImplicitHs after
UpdatePropertyCache(strict=True)) of an atom of that element and charge with `used` single bonds to carbon
atoms, wherever RDKit accepts that valence (charges -1, 0, +1; 0..7 bonds).
"""
import subprocess
import sys

from rdkit import Chem, RDLogger

RDLogger.DisableLog("rdApp.*")
pt = Chem.GetPeriodicTable()
fails = []


def check(ok, msg):
    if not ok:
        fails.append(msg)
        print("FAIL", msg)


def rdkit_implicit_h(z, charge, used):
    """RDKit's implicit H of atom z at charge with `used` explicit single bonds to methyl carbons, or None
    where RDKit refuses the molecule."""
    m = Chem.RWMol()
    a = Chem.Atom(z)
    a.SetFormalCharge(charge)
    i = m.AddAtom(a)
    for _ in range(used):
        j = m.AddAtom(Chem.Atom(6))
        m.AddBond(i, j, Chem.BondType.SINGLE)
    try:
        mol = m.GetMol()
        mol.UpdatePropertyCache(strict=True)
    except Exception:  # noqa: BLE001 (RDKit's valence error)
        return None
    return mol.GetAtomWithIdx(0).GetNumImplicitHs()


out = subprocess.run([sys.argv[1]], capture_output=True, text=True, check=True).stdout.split("\n")
n_el = n_h = 0
for line in filter(None, out):
    f = line.split()
    z = int(f[0])
    sym = pt.GetElementSymbol(z)
    mine = [] if f[1] == "-" else [int(v) for v in f[1].split(",")]
    rd = [v for v in pt.GetValenceList(z)] if pt.GetDefaultValence(z) > 0 else []
    check(mine == rd, f"{sym}: valence list {mine}, RDKit {rd}")
    mx = [int(v) for v in f[2:5]]
    want = []
    for c in (-1, 0, 1):
        e = z - c
        if c == 0:
            want.append(rd[-1] if rd else -1)
        elif 5 <= z <= 9 and 5 <= e <= 9:
            want.append(max(pt.GetValenceList(e)))
        else:
            want.append(-1)
    check(mx == want, f"{sym}: largest valence at charge -1/0/+1 {mx}, expected {want}")
    n_el += 1
    hs = [int(v) for v in f[5:]]
    if not mine:
        continue
    for ci, c in enumerate((-1, 0, 1)):
        for u in range(8):
            r = rdkit_implicit_h(z, c, u)
            if r is None:
                continue
            n_h += 1
            check(hs[ci * 8 + u] == r, f"{sym} charge {c} with {u} bonds: implicit H {hs[ci * 8 + u]}, RDKit {r}")
print(f"{n_el} non-metal elements compared, {n_h} implicit-H counts")
check(n_el >= 25 and n_h >= 150, "too few comparisons")
if fails:
    print(f"{len(fails)} failures")
    sys.exit(1)
print("ok")
