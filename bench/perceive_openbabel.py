#!/usr/bin/python3
"""Open Babel's bond-order perception (OBMol::PerceiveBondOrders, Open Babel 3.1.1, Debian libopenbabel7 through
python3-openbabel: the same C++ function a sitepack shim would call) measured against the CCD (issue 37 item 2).

Set 1, ideal coordinates: every block of the CCD excerpt whose atoms all have pdbx_model_Cartn_{x,y,z}_ideal
(not '?'), no metal (sitepack's sp_element_is_metal list) and no unknown element, and whose own bonds and charges
RDKit sanitizes, is hidden and perceived from those coordinates, (a) with all its atoms (its hydrogens too, as a
deposited ligand with hydrogens would be) and (b) from its heavy atoms only (protonation unknowable).
Set 2, deposited coordinates: the corpus ligands (non-polymer residues of /work/shared/data/structures, first
model, first altloc) whose comp_id has a block in set 1; atoms matched to the block by name, the block's bonds
among the matched atoms as the reference.

Set 3, no CCD block (no reference: a sanity check only): the corpus ligands whose comp_id the excerpt lacks (the
ligands sitepack gives distance bonds today), first instance of each comp_id; each perceived molecule's SMILES and
whether RDKit sanitizes it (an invalid valence is a perception error whatever the reference).

Connectivity given to Open Babel: sitepack's distance bonds (covalent radii of src/chem/elements.c, Cordero 2008,
+ 0.4 Å; no pair closer than 0.4 Å), as bonds.c residue_from_distance makes them; PerceiveBondOrders then assigns
the orders. Formal charges: those sitepack's one charge function (src/chem/formal_charge.c sp_ligand_charges)
derives from orders for atoms without a CCD charge, i.e. its valence rule (a non-aromatic N of valence 4 is N+,
its terminal single-bonded O / double-bonded N the anion); Open Babel assigns no formal charges itself.

Comparison (the independent side: RDKit 2022.09): the RDKit canonical SMILES of both molecules after SanitizeMol
and RemoveHs (so Kekulé-insensitive: aromatic rings compare through RDKit's aromaticity). A component is right
when the two are equal. Failure reasons: "connectivity" (the distance bonds differ from the block's bonds),
"orders" (per-bond class differs: aromatic as one class, else the order), "charge" (bonds equal, a charge
differs), "invalid valence" (the perceived molecule does not sanitize).

Writes results/perception-openbabel-<date>.json (provenance, counts, every failure) and .md, prints the table.
Usage: /usr/bin/python3 bench/perceive_openbabel.py [--ccd FILE] [--structures DIR] [--out FILE]
"""
import argparse
import datetime
import json
import os
import re
import socket
import subprocess
import sys

import gemmi
from openbabel import openbabel as ob
from rdkit import Chem, RDLogger, rdBase

RDLogger.DisableLog("rdApp.*")
ob.obErrorLog.SetOutputLevel(0)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The protocol's shared pieces (the CCD blocks, sitepack's covalent radii, heavy atoms) are those of the sitepack
# perception check, tests/peer/perceive_ccd.py, which holds no Open Babel
sys.path.insert(0, os.path.join(ROOT, "tests", "peer"))
from perceive_ccd import BT, NOT_METAL, ccd_blocks, heavy_only, rcov  # noqa: E402


def distance_bonds(atoms):
    """sitepack's distance rule (bonds.c residue_from_distance): d <= r1 + r2 + 0.4 Å and d > 0.4 Å."""
    out = []
    for i in range(len(atoms)):
        for j in range(i + 1, len(atoms)):
            d2 = sum((atoms[i][2 + k] - atoms[j][2 + k]) ** 2 for k in range(3))
            r = rcov(atoms[i][1]) + rcov(atoms[j][1]) + 0.4
            if 0.16 < d2 <= r * r:
                out.append((i, j))
    return out


def perceive(atoms, bonds):
    """Open Babel: the atoms (Z, coordinates Å), the given connectivity as single bonds, no implicit hydrogens on
    atoms (they are as deposited), then PerceiveBondOrders. Returns [(i, j, order)]."""
    mol = ob.OBMol()
    mol.BeginModify()
    for a in atoms:
        at = mol.NewAtom()
        at.SetAtomicNum(a[1])
        at.SetVector(a[2], a[3], a[4])
    for i, j in bonds:
        mol.AddBond(i + 1, j + 1, 1)
    mol.EndModify()
    mol.PerceiveBondOrders()
    return [(b.GetBeginAtomIdx() - 1, b.GetEndAtomIdx() - 1, b.GetBondOrder()) for b in ob.OBMolBondIter(mol)]


def sitepack_charges(m):
    """sp_ligand_charges' valence rule on atoms without a CCD charge (formal_charge.c valence_rule): a
    non-aromatic N whose bond orders (hydrogens included) sum to 4 is +1; a terminal O singly, or N doubly, bonded
    to it is -1."""
    for at in m.GetAtoms():
        if at.GetAtomicNum() != 7 or sum(b.GetBondTypeAsDouble() for b in at.GetBonds()) != 4:
            continue
        at.SetFormalCharge(1)
        for b in at.GetBonds():
            o = b.GetOtherAtom(at)
            if o.GetDegree() == 1 and ((o.GetAtomicNum() == 8 and b.GetBondType() == BT[1]) or
                                       (o.GetAtomicNum() == 7 and b.GetBondType() == BT[2])):
                o.SetFormalCharge(-1)


def molecule(atoms, bonds, charges):
    m = Chem.RWMol()
    for a in atoms:
        x = Chem.Atom(a[1])
        x.SetNoImplicit(False)
        if charges:
            x.SetFormalCharge(a[5])
        m.AddAtom(x)
    for i, j, o in bonds:
        m.AddBond(i, j, BT.get(o, BT[1]))
    return m


def bond_classes(m):
    return {(min(b.GetBeginAtomIdx(), b.GetEndAtomIdx()), max(b.GetBeginAtomIdx(), b.GetEndAtomIdx())):
            "a" if b.GetIsAromatic() else int(b.GetBondTypeAsDouble()) for b in m.GetBonds()}


def judge(atoms, ref_bonds):
    """(ok, reason, reference SMILES, perceived SMILES) for one molecule (atoms: name, Z, x, y, z, charge)."""
    ref = molecule(atoms, ref_bonds, True)
    Chem.SanitizeMol(ref)
    conn = distance_bonds(atoms)
    got = molecule(atoms, perceive(atoms, conn), False)
    sitepack_charges(got)
    rs = Chem.MolToSmiles(Chem.RemoveHs(ref))
    if sorted(conn) != sorted((min(i, j), max(i, j)) for i, j, _ in ref_bonds):
        return False, "connectivity", rs, ""
    try:
        Chem.SanitizeMol(got)
    except Exception:
        return False, "invalid valence", rs, Chem.MolToSmiles(got, kekuleSmiles=True)
    ps = Chem.MolToSmiles(Chem.RemoveHs(got))
    if ps == rs:
        return True, "", rs, ps
    same_bonds = bond_classes(ref) == bond_classes(got)
    return False, "charge" if same_bonds else "orders", rs, ps


def run_set(items):
    """items: [(label, atoms, bonds)] -> summary dict."""
    res = {"checked": 0, "right": 0, "failures": [], "unsanitizable_reference": []}
    for label, atoms, bonds in items:
        try:
            ok, why, rs, ps = judge(atoms, bonds)
        except Exception:
            res["unsanitizable_reference"].append(label)
            continue
        res["checked"] += 1
        if ok:
            res["right"] += 1
        else:
            res["failures"].append({"component": label, "reason": why, "ccd": rs, "perceived": ps})
    res["percent_right"] = round(100.0 * res["right"] / res["checked"], 1) if res["checked"] else None
    reasons = {}
    for f in res["failures"]:
        reasons[f["reason"]] = reasons.get(f["reason"], 0) + 1
    res["failures_by_reason"] = reasons
    wrong_bonds = sum(reasons.get(k, 0) for k in ("orders", "invalid valence", "connectivity"))
    n = res["checked"]
    res["percent_orders_right"] = round(100.0 * (n - wrong_bonds) / n, 1) if n else None
    return res


def corpus_items(structures, blocks, with_h):
    """One item per (file, comp_id): its first instance with every atom name in the block."""
    items, seen = [], set()
    for fn in sorted(os.listdir(structures)):
        if not re.search(r"\.(cif|pdb|ent)(\.gz)?$", fn):
            continue
        try:
            st = gemmi.read_structure(os.path.join(structures, fn))
        except Exception:
            continue
        st.setup_entities()
        for ch in st[0]:
            for res in ch:
                if res.het_flag != "H" or res.name not in blocks or (fn, res.name) in seen or res.name == "HOH":
                    continue
                atoms_b, bonds_b = blocks[res.name]
                idx = {a[0]: k for k, a in enumerate(atoms_b)}
                got = {}
                for a in res:
                    if a.name in idx and a.name not in got and (with_h or a.element.atomic_number != 1):
                        got[a.name] = a
                if len(got) < 2 or any(n not in idx for n in got):
                    continue
                seen.add((fn, res.name))
                names = [a[0] for a in atoms_b if a[0] in got]
                m = {n: k for k, n in enumerate(names)}
                atoms = [(n, got[n].element.atomic_number, got[n].pos.x, got[n].pos.y, got[n].pos.z,
                          atoms_b[idx[n]][5]) for n in names]
                bonds = [(m[atoms_b[i][0]], m[atoms_b[j][0]], o) for i, j, o in bonds_b
                         if atoms_b[i][0] in m and atoms_b[j][0] in m]
                has_h = any(a[1] == 1 for a in atoms)
                if with_h and not has_h:
                    continue
                items.append((f"{fn}:{res.name}", atoms, bonds))
    return items


def no_block_items(structures, names):
    """Set 3: [(file:comp_id, SMILES or 'INVALID ...')] of the first instance of every corpus het residue whose
    comp_id is not in the CCD excerpt (first altloc: the first atom of each name)."""
    out, seen = [], set()
    for fn in sorted(os.listdir(structures)):
        if not re.search(r"\.(cif|pdb|ent)(\.gz)?$", fn):
            continue
        try:
            st = gemmi.read_structure(os.path.join(structures, fn))
        except Exception:
            continue
        for ch in st[0]:
            for res in ch:
                if res.het_flag != "H" or res.name in names or res.name in seen or res.name in ("HOH", "DOD"):
                    continue
                got = {}
                for a in res:
                    if a.name not in got and a.element.atomic_number not in (0,):
                        got[a.name] = a
                atoms = [(n, a.element.atomic_number, a.pos.x, a.pos.y, a.pos.z, 0) for n, a in got.items()]
                if len(atoms) < 2 or any(x[1] not in NOT_METAL for x in atoms):
                    continue
                seen.add(res.name)
                m = molecule(atoms, perceive(atoms, distance_bonds(atoms)), False)
                sitepack_charges(m)
                try:
                    Chem.SanitizeMol(m)
                    smi = Chem.MolToSmiles(Chem.RemoveHs(m))
                except Exception:
                    smi = "INVALID " + Chem.MolToSmiles(m, kekuleSmiles=True)
                out.append({"ligand": f"{fn}:{res.name}", "n_h": sum(1 for x in atoms if x[1] == 1), "perceived": smi})
    return out


def markdown(out):
    p = out["provenance"]
    lines = [f"# Open Babel bond-order perception vs the CCD, {p['date']}", "",
             f"`/usr/bin/python3 bench/perceive_openbabel.py` (git {p['git_sha'][:12]}, host {p['host']}, "
             f"Open Babel {p['openbabel']}, RDKit {p['rdkit']}, gemmi {p['gemmi']}). Method and rules: the script's "
             "docstring; every failure with both SMILES: the JSON beside this file.", "",
             f"Blocks left out: {out['skipped_blocks']}.", "",
             "| set | checked | all orders and charges right | % | % orders right (charges aside) | "
             "failures by reason |",
             "|---|---|---|---|---|---|"]
    for k in ("ideal_with_h", "ideal_heavy_only", "deposited_with_h", "deposited_heavy_only"):
        r = out[k]
        lines.append(f"| {k} | {r['checked']} | {r['right']} | {r['percent_right']} | {r['percent_orders_right']} | "
                     f"{r['failures_by_reason']} |")
    lines += ["", "Failures (set: component, reason):", ""]
    for k in ("ideal_with_h", "ideal_heavy_only", "deposited_with_h", "deposited_heavy_only"):
        fl = ", ".join(f"{f['component']} ({f['reason']})" for f in out[k]["failures"])
        lines.append(f"- {k}: {fl or 'none'}")
    nb = out["no_ccd_block"]
    bad = [x["ligand"] for x in nb if x["perceived"].startswith("INVALID")]
    lines += ["", f"No CCD block (set 3, no reference): {len(nb)} ligands, {len(bad)} perceived with an invalid "
              f"valence ({', '.join(bad) or 'none'}).", ""]
    lines += [f"- {x['ligand']} (H {x['n_h']}): `{x['perceived']}`" for x in nb]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ccd", default="/work/shared/data/ccd/components_excerpt.cif")
    ap.add_argument("--structures", default="/work/shared/data/structures")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    blocks, skipped = ccd_blocks(a.ccd)
    out = {
        "what": "Open Babel PerceiveBondOrders vs the CCD (issue 37 item 2)",
        "provenance": {"git_sha": subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True,
                                                 text=True).stdout.strip(),
                       "host": socket.gethostname(), "openbabel": ob.OBReleaseVersion(), "rdkit": rdBase.rdkitVersion,
                       "gemmi": gemmi.__version__, "ccd": a.ccd, "structures": a.structures,
                       "date": datetime.datetime.utcnow().isoformat(timespec="seconds") + "Z"},
        "skipped_blocks": {k: len(v) for k, v in skipped.items()},
    }
    out["ideal_with_h"] = run_set([(k, at, bd) for k, (at, bd) in blocks.items()])
    out["ideal_heavy_only"] = run_set([(k,) + heavy_only(at, bd) for k, (at, bd) in blocks.items()])
    out["deposited_heavy_only"] = run_set(corpus_items(a.structures, blocks, False))
    out["deposited_with_h"] = run_set(corpus_items(a.structures, blocks, True))
    out["no_ccd_block"] = no_block_items(a.structures, {b.name for b in gemmi.cif.read(a.ccd)})
    path = a.out or os.path.join(ROOT, "results", f"perception-openbabel-{datetime.date.today().isoformat()}.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
    print(f"{'set':24} {'checked':>8} {'right':>6} {'%':>6} {'%orders':>7}  failures by reason")
    for k in ("ideal_with_h", "ideal_heavy_only", "deposited_with_h", "deposited_heavy_only"):
        r = out[k]
        print(f"{k:24} {r['checked']:8} {r['right']:6} {r['percent_right'] or 0:6} {r['percent_orders_right'] or 0:7}  "
              f"{r['failures_by_reason']}")
    with open(path[:-5] + ".md" if path.endswith(".json") else path + ".md", "w") as f:
        f.write(markdown(out))
    print("wrote", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
