#!/usr/bin/python3
"""The ligand descriptors (issue 36; include/sitepack/descriptors.h, docs/format.md "Ligand descriptors") against
RDKit's Python API, computed here independently of the file:

  1. every /components row of a usable CCD block: RDKit's values of the CCD definition, read here with gemmi from
     the CCD file (every atom with its charge, every bond with its value_order; Chem.RWMol, then the molfile
     reader's steps: SanitizeMol(SANITIZE_CLEANUP), RemoveHs). A block RDKit sanitizes has desc_flags bit "computed" and the values; one it rejects has not;
  2. every /ligands row with a site: RDKit's values of its record in `sitepack export --all --format sdf`
     (Chem.SDMolSupplier: sanitize, remove hydrogens). Same rule for records RDKit rejects.
Counts (heavy atoms, formal charge, HBD/HBA both definitions, rotatable bonds, rings, aromatic rings) exactly;
MW, logP, TPSA (and MR) within 0.01, fsp3 within 1e-6, QED (rdkit.Chem.QED.qed) within 0.005; the flags Ro5, Ro3
and drug_like recomputed from RDKit's values by the rules of descriptors.h, and the bit unknown_orders (version 7) set
exactly on the records whose SD field bond_orders says the bonds are from distances. Prints per descriptor: n compared,
n within tolerance, and the largest difference (the agreement table of docs/format.md).
usage: test_descriptors_rdkit.py SITEPACK CORPUS_H5 CCD_CIF WORK_DIR
"""
import math
import os
import shutil
import subprocess
import sys

import gemmi
import h5py
import numpy as np
from rdkit import Chem, RDLogger
from rdkit.Chem import QED, Crippen, Descriptors, Lipinski, rdMolDescriptors

RDLogger.DisableLog("rdApp.*")
FAILS = []
ORDER = {"SING": 1, "DOUB": 2, "TRIP": 3, "QUAD": 4, "AROM": 4, "DELO": 4, "POLY": 4, "PI": 4,
         "SINGLE": 1, "DOUBLE": 2, "TRIPLE": 3, "AROMATIC": 4, "DELOC": 4}
RESERVED = {"DRG", "DUM", "INH", "LIG", "UNK", "UNL", "UNX"}
BOND = {1: Chem.BondType.SINGLE, 2: Chem.BondType.DOUBLE, 3: Chem.BondType.TRIPLE, 4: Chem.BondType.AROMATIC}
COUNTS = ["heavy_atoms", "formal_charge", "hbd", "hba", "hbd_lipinski", "hba_lipinski", "rotatable_bonds", "n_rings",
          "n_aromatic_rings"]
TOL = {"mw": 0.01, "logp": 0.01, "tpsa": 0.01, "mr": 0.01, "fsp3": 1e-6, "qed": 0.005}
FLAG_COMPUTED, FLAG_RO5, FLAG_RO3, FLAG_DRUG, FLAG_UNKNOWN_ORDERS = 1, 2, 4, 8, 16


def fail(msg):
    FAILS.append(msg)
    if len(FAILS) <= 40:
        print("FAIL:", msg)


def rdkit_values(m):
    """RDKit's descriptors of a sanitized, hydrogen-free molecule (the Python names of descriptors.h)."""
    v = {"heavy_atoms": m.GetNumHeavyAtoms(), "formal_charge": Chem.GetFormalCharge(m),
         "hbd": Lipinski.NumHDonors(m), "hba": Lipinski.NumHAcceptors(m), "hbd_lipinski": Lipinski.NHOHCount(m),
         "hba_lipinski": Lipinski.NOCount(m), "rotatable_bonds": Descriptors.NumRotatableBonds(m),
         "n_rings": rdMolDescriptors.CalcNumRings(m), "n_aromatic_rings": rdMolDescriptors.CalcNumAromaticRings(m),
         "mw": Descriptors.MolWt(m), "logp": Crippen.MolLogP(m), "mr": Crippen.MolMR(m), "tpsa": Descriptors.TPSA(m),
         "fsp3": rdMolDescriptors.CalcFractionCSP3(m)}
    try:
        v["qed"] = QED.qed(m)
    except (ValueError, OverflowError):  # QED.py's log of a zero ADS value: no reference
        v["qed"] = None
    return v


def rule_flags(v):
    """SP_DESCF_RO5 / RO3 / DRUG_LIKE of descriptors.h from RDKit's values."""
    viol = (v["mw"] > 500) + (v["logp"] > 5) + (v["hbd_lipinski"] > 5) + (v["hba_lipinski"] > 10)
    f = FLAG_RO5 if viol <= 1 else 0
    if (v["mw"] <= 300 and v["logp"] <= 3 and v["hbd"] <= 3 and v["hba"] <= 3 and v["rotatable_bonds"] <= 3
            and v["tpsa"] <= 60):
        f |= FLAG_RO3
    if viol == 0 and v["rotatable_bonds"] <= 10 and v["tpsa"] <= 140 and v["heavy_atoms"] >= 10:
        f |= FLAG_DRUG
    return f


def ccd_mols(path):
    """comp_id -> RDKit molecule of the CCD definition (sanitized, hydrogens removed), or None when RDKit rejects it;
    only the blocks sitepack calls usable (atoms, not OBS, not a reserved placeholder)."""
    out = {}
    for b in gemmi.cif.read(path):
        cid = b.find_value("_chem_comp.id")
        status = b.find_value("_chem_comp.pdbx_release_status")
        atoms = b.find("_chem_comp_atom.", ["atom_id", "type_symbol", "charge"])
        if not cid or not len(atoms) or (status and gemmi.cif.as_string(status) == "OBS"):
            continue
        cid = gemmi.cif.as_string(cid)
        if cid in RESERVED or (len(cid) == 2 and cid.isdigit()):
            continue
        m = Chem.RWMol()
        idx = {}
        for r in atoms:
            a = Chem.Atom(gemmi.Element(r.str(1)).atomic_number)
            ch = r.str(2)
            a.SetFormalCharge(int(float(ch)) if ch not in ("?", ".", "") else 0)
            idx[r.str(0)] = m.AddAtom(a)
        for r in b.find("_chem_comp_bond.", ["atom_id_1", "atom_id_2", "value_order"]):
            o = ORDER.get(r.str(2).upper(), 4)
            i, j = idx[r.str(0)], idx[r.str(1)]
            m.AddBond(i, j, BOND[o])
            if o == 4:
                m.GetBondBetweenAtoms(i, j).SetIsAromatic(True)
                m.GetAtomWithIdx(i).SetIsAromatic(True)
                m.GetAtomWithIdx(j).SetIsAromatic(True)
        try:  # the steps of RDKit's molfile reader (descriptors.h): cleanup, remove hydrogens, sanitize
            Chem.SanitizeMol(m, Chem.SanitizeFlags.SANITIZE_CLEANUP)
            out[cid] = Chem.RemoveHs(m)
        except Exception:  # RDKit rejects it (valence, kekulization): the file must say "not computed"
            out[cid] = None
    return out


class Tally:
    def __init__(self):
        self.n = {k: 0 for k in COUNTS + list(TOL) + ["flags"]}
        self.ok = dict(self.n)
        self.worst = {k: 0.0 for k in self.n}
        self.n_unknown = 0

    def compare(self, what, row, v, extra=0):
        for k in COUNTS:
            got = int(row["desc_heavy_atoms" if k == "heavy_atoms" else k])
            self.n[k] += 1
            if got == v[k]:
                self.ok[k] += 1
            else:
                self.worst[k] = max(self.worst[k], abs(got - v[k]))
                fail(f"{what}: {k} {got} != RDKit {v[k]}")
        for k, tol in TOL.items():
            if v[k] is None:
                continue
            got = float(row[k])
            d = abs(got - v[k])
            self.n[k] += 1
            self.worst[k] = max(self.worst[k], d)
            if d <= tol:
                self.ok[k] += 1
            else:
                fail(f"{what}: {k} {got} != RDKit {v[k]:.5f} (tolerance {tol})")
        self.n["flags"] += 1
        want = rule_flags(v) | FLAG_COMPUTED | extra
        if int(row["desc_flags"]) == want:
            self.ok["flags"] += 1
        else:
            fail(f"{what}: desc_flags {int(row['desc_flags'])} != {want} from RDKit's values")

    def report(self, title):
        print(f"{title}: descriptor n_compared n_agree max_difference")
        for k in self.n:
            print(f"  {k:18s} {self.n[k]:6d} {self.ok[k]:6d} {self.worst[k]:.6g}")


def table_rows(g, names, extra):
    cols = {c: g[c][:] for c in names + extra}
    return [{c: cols[c][i] for c in cols} for i in range(len(cols[names[0]]))]


def check_components(f, ccd):
    g = f["components"]
    names = list(TOL) + [k for k in COUNTS if k != "heavy_atoms"] + ["desc_flags", "n_heavy_atoms"]
    comp = [c.decode() for c in g["comp_id"][:]]
    rows = table_rows(g, names, [])
    t = Tally()
    n_rejected = 0
    for cid, row in zip(comp, rows):
        row["desc_heavy_atoms"] = row["n_heavy_atoms"]
        if cid not in ccd:
            if int(row["desc_flags"]) & FLAG_COMPUTED:
                fail(f"component {cid}: computed without a usable CCD block")
            continue
        m = ccd[cid]
        if m is None:
            n_rejected += 1
            if int(row["desc_flags"]) & FLAG_COMPUTED:
                fail(f"component {cid}: computed, but RDKit does not sanitize its CCD definition")
            continue
        if not int(row["desc_flags"]) & FLAG_COMPUTED:
            fail(f"component {cid}: not computed, but RDKit sanitizes its CCD definition")
            continue
        t.compare(f"component {cid}", row, rdkit_values(m))
    t.report(f"components ({len(comp)} rows; {n_rejected} CCD definitions RDKit rejects)")
    return t


def export_sdf(exe, h5, work):
    out = os.path.join(work, "sdf")
    shutil.rmtree(out, ignore_errors=True)
    r = subprocess.run([exe, "export", h5, "--all", "--format", "sdf", "--out", out, "--quiet"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"export --all: exit {r.returncode}: {r.stderr[-400:]}")
    return [os.path.join(out, n) for n in sorted(os.listdir(out)) if n.endswith(".sdf")] if os.path.isdir(out) else []


def check_instances(f, exe, h5, work):
    lg = f["ligands"]
    names = list(TOL) + [k for k in COUNTS if k != "heavy_atoms"] + ["desc_flags", "n_heavy_atoms"]
    rows = table_rows(lg, names, [])
    site_lig = f["sites"]["ligand_idx"][:]
    t = Tally()
    seen, n_rejected = set(), 0
    for path in export_sdf(exe, h5, work):
        text = open(path).read()
        for rec in text.split("$$$$\n"):
            if "M  END" not in rec:
                continue
            site = int(rec.split(">  <site_idx>\n", 1)[1].split("\n", 1)[0])
            li = int(site_lig[site])
            seen.add(li)
            row = rows[li]
            row["desc_heavy_atoms"] = row["n_heavy_atoms"]
            m = Chem.MolFromMolBlock(rec.split("M  END")[0] + "M  END\n", sanitize=True, removeHs=True)
            computed = int(row["desc_flags"]) & FLAG_COMPUTED
            if m is None:
                n_rejected += 1
                if computed:
                    fail(f"ligand {li} (site {site}): computed, but RDKit does not sanitize its SDF record")
                continue
            if not computed:
                fail(f"ligand {li} (site {site}): not computed, but RDKit sanitizes its SDF record")
                continue
            # bit unknown_orders (version 7) where the record's bond_orders field says its bonds are from distances
            unknown = "bonds from distances" in rec.split(">  <bond_orders>\n", 1)[-1].split("\n\n", 1)[0]
            t.n_unknown += unknown
            t.compare(f"ligand {li} (site {site}, {os.path.basename(path)})", row, rdkit_values(m),
                      FLAG_UNKNOWN_ORDERS if unknown else 0)
    with_site = int(np.sum(lg["site_idx"][:] >= 0))
    if len(seen) != with_site:
        fail(f"{len(seen)} ligands in the exported SDF, {with_site} with a site")
    for li in range(len(rows)):
        if li not in seen and int(rows[li]["desc_flags"]) != 0:
            fail(f"ligand {li}: no site, yet desc_flags {int(rows[li]['desc_flags'])}")
    t.report(f"instances ({len(seen)} SDF records; {n_rejected} RDKit rejects; {t.n_unknown} with bonds from "
             "distances, desc_flags bit unknown_orders)")
    return t


def main():
    exe, h5, ccd_path, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    with h5py.File(h5, "r") as f:
        tc = check_components(f, ccd_mols(ccd_path))
        ti = check_instances(f, exe, h5, work)
    if tc.n["mw"] < 40 or ti.n["mw"] < 1500:
        fail(f"too few compared ({tc.n['mw']} components, {ti.n['mw']} instances): the corpus has more")
    print(f"{len(FAILS)} failures")
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
