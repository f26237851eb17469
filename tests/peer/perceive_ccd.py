#!/usr/bin/python3
"""sitepack's bond-order and charge perception (sp_perceive, include/sitepack/perceive.h) measured against the CCD
(issue 37 item 2): the protocol of bench/perceive_openbabel.py, with sitepack's own function in Open Babel's place.

Set 1, ideal coordinates: every block of the CCD excerpt whose atoms all have pdbx_model_Cartn_{x,y,z}_ideal
(not '?'), no metal (sitepack's sp_element_is_metal list) and no unknown element, and whose own bonds and charges
RDKit sanitizes, is hidden and perceived from those coordinates,
  (a) ideal_with_h: with all its atoms, its hydrogens too (flags SP_PERCEIVE_EXPLICIT_H), as a deposited ligand
      with hydrogens would be; the reference is the block;
  (b) ideal_heavy_only: from its heavy atoms only (flags 0); the reference is the block with its hydrogens
      removed (its charges kept, RDKit's implicit hydrogens), so that the protonation of acids and amines, which
      cannot be seen without hydrogens, fails as "charge": "% orders right (charges aside)" is the number there.
Set 2, deposited coordinates: the corpus ligands (non-polymer residues of the structures folder, first model, first
altloc) whose comp_id has a block in set 1; atoms matched to the block by name, the block's bonds among the
matched atoms as the reference; deposited_heavy_only (flags 0, their hydrogens dropped) and, for the instances
with deposited hydrogens, deposited_with_h (flags SP_PERCEIVE_EXPLICIT_H). One item per (file, comp_id). An
instance that lacks atoms of its block is a fragment, counted apart too: mostly a residue linked to another (a
glycan's O1 and the H of its linked O are absent), whose linked atom then has an open valence that the
perception fills (an oxocarbenium C1=O5+ with explicit H) where the reference puts an implicit H.

Connectivity given to sp_perceive: sitepack's distance bonds (covalent radii of src/chem/elements.c, Cordero 2008,
+ 0.4 Å; no pair closer than 0.4 Å), as bonds.c residue_from_distance makes them. The orders AND the formal
charges are sp_perceive's (it returns charges itself; no other charge rule is applied). Every molecule of every
set goes through one run of tests/unit/sp_perceive_tool.c (stdin / stdout; its header says the format).

Comparison (the independent side: RDKit 2022.09): the RDKit canonical SMILES of both molecules after SanitizeMol
and RemoveHs (so Kekulé-insensitive: aromatic rings compare through RDKit's aromaticity). A component is right
when the two are equal. Failure reasons: "connectivity" (the distance bonds differ from the block's bonds; not
perceived), "invalid valence" (the perceived molecule does not sanitize), "charge" (the orders are right, a
charge differs), "orders" (the rest). "Orders right (charges aside)": the two molecules' charge-blind heavy-atom
SMILES (hydrogens removed, charges 0, orders and aromatic flags of their sanitization) are equal, i.e. the orders
agree up to the graph's symmetry: a sulfate whose two O- are other O than the block's has its orders right. Where
bench/perceive_openbabel.py compares bond classes atom by atom, this counts such resonance partners as right
orders (and a perceived molecule that only its missing charges keep from sanitizing is judged with the block's
charges for this number).

Sanity molecules (built here from SMILES, RDKit ETKDG with hydrogens, seed fixed, MMFF-relaxed; sulfate from the
SO4 block's ideal coordinates): benzene, pyridinium, nitrobenzene, sulfate, acetate, guanidinium, imidazolium,
acetonitrile, each perceived with its hydrogens (mode a) and compared as above.

--check (the ctest peer_perceive_ccd) asserts: the tool's input contract (bad lines exit 2 with a message; what
sp_perceive refuses, an index out of range, a pair of one atom, 1025 atoms, is its rc with orders 1 and charges 0);
every sanity molecule right; ideal_with_h >= 95.0 % right (the
issue's bar: "≥ 95 % of components with every order and charge right"); the tool exits 0 and returns rc 0 for
every molecule (all are valid input); the other sets only run (reported). Failures are printed with both SMILES.
--sanity-only: the sanity molecules alone (no corpus needed: the bundled CCD sample has SO4).

Writes DIR/perception-sitepack-<date>.json (provenance, counts, every failure with both SMILES) and .md, DIR =
--results (default results/), or the JSON at --out FILE; prints the table.
Usage: /usr/bin/python3 tests/peer/perceive_ccd.py --tool BUILD/tests/sp_perceive_tool [--ccd FILE]
       [--structures DIR] [--results DIR | --out FILE] [--check] [--sanity-only]
Exit: 0 pass (or no --check), 1 a check failed, 2 the tool failed or bad usage.
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
import numpy as np
from rdkit import Chem, RDLogger, rdBase
from rdkit.Chem import AllChem

RDLogger.DisableLog("rdApp.*")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PT = Chem.GetPeriodicTable()
ORDERS = {"SING": 1, "DOUB": 2, "TRIP": 3}
BT = {1: Chem.BondType.SINGLE, 2: Chem.BondType.DOUBLE, 3: Chem.BondType.TRIPLE}
NOT_METAL = {0, 1, 2, 5, 6, 7, 8, 9, 10, 14, 15, 16, 17, 18, 32, 33, 34, 35, 36, 51, 52, 53, 54, 85, 86}
EXPLICIT_H = 1  # SP_PERCEIVE_EXPLICIT_H
BAR = 95.0      # issue 37 item 2: >= 95 % of the components with every order and charge right (mode a)
SETS = ("ideal_with_h", "ideal_heavy_only", "deposited_with_h", "deposited_heavy_only", "ideal_heavy_only_reversed",
        "ideal_with_h_reversed")
# (name, SMILES) of the sanity molecules; sulfate comes from the SO4 block
SANITY = [("benzene", "c1ccccc1"), ("pyridinium", "c1cc[nH+]cc1"), ("nitrobenzene", "O=[N+]([O-])c1ccccc1"),
          ("acetate", "CC(=O)[O-]"), ("guanidinium", "NC(N)=[NH2+]"), ("imidazolium", "c1c[nH+]c[nH]1"),
          ("acetonitrile", "CC#N")]


def die(msg):
    """The tool failed (or the harness cannot go on): the message on stderr, exit 2."""
    print("perceive_ccd:", msg, file=sys.stderr)
    sys.exit(2)


def covalent_radii():
    """Cordero radii by Z, read from sitepack's own table (src/chem/elements.c k_cov); 1.5 Å where 0."""
    src = open(os.path.join(ROOT, "src/chem/elements.c")).read()
    body = re.search(r"k_cov\[[^]]*\]\s*=\s*\{([^}]*)\}", src).group(1)
    return [float(x.rstrip("f")) for x in re.findall(r"[0-9.]+f?", body)]


RCOV = covalent_radii()


def rcov(z):
    return RCOV[z] if z < len(RCOV) and RCOV[z] > 0 else 1.5


def distance_bonds(atoms):
    """sitepack's distance rule (bonds.c residue_from_distance): d <= r1 + r2 + 0.4 Å and d > 0.4 Å (in float32,
    as bonds.c computes it). atoms: [(name, Z, x, y, z, charge)] -> [(i, j)], i < j, in bonds.c's order."""
    n = len(atoms)
    if n < 2:
        return []
    xyz = np.array([a[2:5] for a in atoms], dtype=np.float32)
    r = np.array([rcov(a[1]) for a in atoms], dtype=np.float32)
    d2 = ((xyz[:, None, :] - xyz[None, :, :]) ** 2).sum(axis=2, dtype=np.float32)
    lim = r[:, None] + r[None, :] + np.float32(0.4)
    ok = (d2 <= lim * lim) & (d2 > np.float32(0.16))
    return [(i, j) for i, j in zip(*np.nonzero(np.triu(ok, 1)))]


class Tool:
    """The molecules for one run of sp_perceive_tool: add() queues one, run() perceives them all."""

    def __init__(self, path):
        self.path, self.queue, self.results, self.bad_rc, self.stderr = path, [], {}, [], ""

    def add(self, atoms, bonds, flags):
        """Queues a molecule; returns its label."""
        label = f"m{len(self.queue)}"
        self.queue.append((label, atoms, bonds, flags))
        return label

    def run(self):
        lines = []
        for label, atoms, bonds, flags in self.queue:
            lines.append(f"MOL {label} {len(atoms)} {len(bonds)} {flags}")
            lines += [f"{a[1]} {a[2]:.4f} {a[3]:.4f} {a[4]:.4f}" for a in atoms]
            lines += [f"{i} {j}" for i, j in bonds]
        p = subprocess.run([self.path], input="\n".join(lines) + "\n", capture_output=True, text=True)
        self.stderr = p.stderr
        if p.returncode != 0:
            die(f"sp_perceive_tool exited {p.returncode} on valid input: {p.stderr.strip()[-2000:]}")
        out = p.stdout.split("\n")
        k = 0
        for label, atoms, bonds, _ in self.queue:
            if k + 1 + len(bonds) >= len(out):
                die(f"sp_perceive_tool: output ends before molecule {label}'s results")
            head = out[k].split()
            if len(head) != 7 or head[0] != "MOL" or head[1] != label:
                die(f"sp_perceive_tool: expected 'MOL {label} ...', got '{out[k]}'")
            rc, info = int(head[2]), dict(zip(("n_charged", "net_charge", "n_unpaired", "exhausted"),
                                              map(int, head[3:7])))
            orders = []
            for (i, j), line in zip(bonds, out[k + 1:k + 1 + len(bonds)]):
                f = line.split()
                if len(f) != 3 or (int(f[0]), int(f[1])) != (i, j) or f[2] not in ("1", "2", "3"):
                    die(f"sp_perceive_tool: {label}: bad bond line '{line}'")
                orders.append((i, j, int(f[2])))
            charges = [int(x) for x in out[k + 1 + len(bonds)].split()]
            if len(charges) != len(atoms) or len(orders) != len(bonds):
                die(f"sp_perceive_tool: {label}: {len(charges)} charges / {len(orders)} bonds")
            k += 2 + len(bonds)
            if rc != 0:
                self.bad_rc.append(label)
            self.results[label] = (rc, info, orders, charges)


def tool_contract(path):
    """[(what, passed, detail)]: sp_perceive_tool and sp_perceive on edge inputs. Bad input lines exit 2 with a
    message on stderr; empty input and a molecule of no atoms exit 0 (the latter's rc is sp_perceive's); what sp_perceive refuses (an index out of
    range, a pair of one atom: SP_E_INVALID 13; more than SP_PERCEIVE_MAX_ATOMS 1024 atoms: SP_E_TOO_LARGE 11) is
    its rc on the MOL line with orders all 1 and charges all 0, exit 0."""
    def run(text):
        p = subprocess.run([path], input=text, capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    out = []
    for what, text in (("a line that is no MOL line", "FOO x 1 0 0\n"),
                       ("a MOL line short of a field", "MOL x 1 0\n"),
                       ("an atom line short of a coordinate", "MOL x 1 0 1\n6 0 0\n"),
                       ("a coordinate that is no number", "MOL x 1 0 1\n6 0 0 zz\n"),
                       ("a negative bond index", "MOL x 2 1 1\n6 0 0 0\n6 1.5 0 0\n-1 0\n"),
                       ("the input ending inside the atoms", "MOL x 2 0 1\n6 0 0 0\n"),
                       ("the input ending inside the bonds", "MOL x 2 1 1\n6 0 0 0\n6 1.5 0 0\n")):
        rc, so, se = run(text)
        out.append((f"bad input exits 2: {what}", rc == 2 and "line" in se, f"exit {rc}, stderr {se.strip()!r}"))
    rc, so, se = run("")
    out.append(("empty input: exit 0, no output", rc == 0 and so == "", f"exit {rc}, stdout {so!r}"))
    rc, so, se = run("\nMOL empty 0 0 0\n")
    out.append(("a molecule of no atoms: exit 0, a MOL line", rc == 0 and so.split("\n")[0].split()[:2] == ["MOL", "empty"],
                f"exit {rc}, stdout {so!r}"))
    two = "6 0 0 0\n8 1.2 0 0\n"
    for what, text, nb, want in (("an index out of range", f"MOL r 2 1 1\n{two}0 2\n", 1, 13),
                                 ("a pair of one atom", f"MOL r 2 1 1\n{two}1 1\n", 1, 13),
                                 ("1025 atoms", "MOL r 1025 0 0\n" + "6 0 0 0\n" * 1025, 0, 11)):
        rc, so, se = run(text)
        lines = so.split("\n")
        head = lines[0].split() if lines else []
        orders_ok = all(ln.split()[-1] == "1" for ln in lines[1:1 + nb])
        charges_ok = set(lines[1 + nb].split()) <= {"0"} if len(lines) > 1 + nb else False
        out.append((f"sp_perceive refuses {what}: rc {want}, orders 1, charges 0, exit 0",
                    rc == 0 and len(head) == 7 and head[2] == str(want) and orders_ok and charges_ok,
                    f"exit {rc}, stdout {so[:120]!r}"))
    return out


def molecule(atoms, bonds, charges):
    """RDKit molecule: atoms [(name, Z, x, y, z, charge)], bonds [(i, j, order)], charges [q] per atom."""
    m = Chem.RWMol()
    for a, q in zip(atoms, charges):
        x = Chem.Atom(a[1])
        x.SetNoImplicit(False)
        x.SetFormalCharge(q)
        m.AddAtom(x)
    for i, j, o in bonds:
        m.AddBond(int(i), int(j), BT.get(o, BT[1]))
    return m


def skeleton(m):
    """The charge-blind heavy-atom SMILES of a molecule: its hydrogens removed, every formal charge 0 and no
    hydrogen count, bond orders and aromatic flags as they are (those of its sanitization), canonical. Two
    molecules with one skeleton have the same orders up to the graph's symmetry (the O of a sulfate that is
    doubly bonded is any of the four); None where RDKit cannot write it."""
    m = Chem.RWMol(m)
    for a in sorted((a.GetIdx() for a in m.GetAtoms() if a.GetAtomicNum() == 1), reverse=True):
        m.RemoveAtom(a)
    for a in m.GetAtoms():
        a.SetFormalCharge(0)
        a.SetNumExplicitHs(0)
        a.SetNoImplicit(True)
    try:
        return Chem.MolToSmiles(m)
    except Exception:
        return None


def smiles_of(atoms, bonds, charges):
    """(canonical SMILES after SanitizeMol + RemoveHs or None where it does not sanitize, the molecule)."""
    m = molecule(atoms, bonds, charges)
    try:
        Chem.SanitizeMol(m)
    except Exception:
        return None, m
    return Chem.MolToSmiles(Chem.RemoveHs(m)), m


def judge(atoms, ref_bonds, result):
    """{ok, orders_ok, reason, ccd, perceived, info} for one molecule (atoms: name, Z, x, y, z, charge); result:
    the tool's (rc, info, orders, charges), None where the connectivity differs (not perceived). orders_ok: the
    skeletons (skeleton()) of the reference and of the perceived molecule are equal, the perceived one sanitized
    with its own charges or, where it does not sanitize so, with the reference's. Raises ValueError where the
    reference does not sanitize."""
    ref_q = [a[5] for a in atoms]
    rs, ref = smiles_of(atoms, ref_bonds, ref_q)
    if rs is None:
        raise ValueError("reference does not sanitize")
    out = {"ok": False, "orders_ok": False, "reason": "", "ccd": rs, "perceived": ""}
    if result is None:
        out["reason"] = "connectivity"
        return out
    _, info, orders, charges = result
    out["info"] = info
    ps, got = smiles_of(atoms, orders, charges)
    if ps is None:
        out["reason"] = "invalid valence"
        out["perceived"] = Chem.MolToSmiles(got, kekuleSmiles=True)
        got = smiles_of(atoms, orders, ref_q)[1]
    else:
        out["perceived"] = ps
    try:
        Chem.SanitizeMol(got)  # a no-op where it sanitized already
        out["orders_ok"] = skeleton(got) == skeleton(ref)
    except Exception:
        out["orders_ok"] = False
    if ps == rs:
        out["ok"] = out["orders_ok"] = True
    elif ps is not None:
        out["reason"] = "charge" if out["orders_ok"] else "orders"
    return out


def same_bonds(conn, ref_bonds):
    return sorted(conn) == sorted((min(i, j), max(i, j)) for i, j, _ in ref_bonds)


def ccd_blocks(path):
    """{comp_id: (atoms [(name, Z, x, y, z, charge)], bonds [(i, j, order)])} of the usable blocks; skip lists."""
    doc = gemmi.cif.read(path)
    blocks, skipped = {}, {"no ideal coordinates": [], "metal or unknown element": []}
    for b in doc:
        ta = b.find("_chem_comp_atom.", ["atom_id", "type_symbol", "charge", "pdbx_model_Cartn_x_ideal",
                                         "pdbx_model_Cartn_y_ideal", "pdbx_model_Cartn_z_ideal"])
        tb = b.find("_chem_comp_bond.", ["atom_id_1", "atom_id_2", "value_order"])
        atoms, bad = [], None
        for r in ta:
            if "?" in (r[3], r[4], r[5]):
                bad = "no ideal coordinates"
                break
            sym = r[1].capitalize()
            z = PT.GetAtomicNumber(sym) if sym not in ("X", "D") else 0
            if z not in NOT_METAL or z == 0:
                bad = "metal or unknown element"
                break
            q = int(r[2]) if r[2] not in ("?", ".") else 0
            atoms.append((gemmi.cif.as_string(r[0]), z, float(r[3]), float(r[4]), float(r[5]), q))
        if bad or not atoms:
            skipped[bad or "no ideal coordinates"].append(b.name)
            continue
        idx = {a[0]: k for k, a in enumerate(atoms)}
        bonds = [(idx[gemmi.cif.as_string(r[0])], idx[gemmi.cif.as_string(r[1])], ORDERS.get(r[2].upper(), 1))
                 for r in tb if gemmi.cif.as_string(r[0]) in idx and gemmi.cif.as_string(r[1]) in idx]
        blocks[b.name] = (atoms, bonds)
    return blocks, skipped


def reversed_atoms(atoms, bonds):
    """The molecule with its atoms in reverse order (the bonds renumbered)."""
    n = len(atoms)
    return atoms[::-1], [(n - 1 - i, n - 1 - j, o) for i, j, o in bonds]


def heavy_only(atoms, bonds):
    keep = [k for k, a in enumerate(atoms) if a[1] != 1]
    m = {k: n for n, k in enumerate(keep)}
    return [atoms[k] for k in keep], [(m[i], m[j], o) for i, j, o in bonds if i in m and j in m]


def corpus_items(structures, blocks):
    """Set 2: ({"heavy": [...], "with_h": [...]}) of (file:comp_id, atoms, bonds), one per (file, comp_id): its
    first instance (first model, first atom of each name) with every atom name in the block; with_h only where the
    instance has deposited hydrogens. Also {"heavy": set, "with_h": set} of the labels of fragments: instances
    that lack some atom of the block (heavy atoms for heavy, any for with_h), mostly a linked residue's leaving
    atoms (a glycan's O1 and the H of its linked O): a fragment's linked atom has an open valence there."""
    items, seen, fragments = {"heavy": [], "with_h": []}, set(), {"heavy": set(), "with_h": set()}
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
                got_all = {}
                for a in res:
                    if a.name not in got_all:
                        got_all[a.name] = a
                if any(n not in idx for n in got_all):
                    continue
                added = False
                for kind, with_h in (("heavy", False), ("with_h", True)):
                    got = {n: a for n, a in got_all.items() if with_h or a.element.atomic_number != 1}
                    if len(got) < 2 or (with_h and not any(a.element.atomic_number == 1 for a in got.values())):
                        continue
                    names = [a[0] for a in atoms_b if a[0] in got]
                    m = {n: k for k, n in enumerate(names)}
                    atoms = [(n, got[n].element.atomic_number, got[n].pos.x, got[n].pos.y, got[n].pos.z,
                              atoms_b[idx[n]][5]) for n in names]
                    bonds = [(m[atoms_b[i][0]], m[atoms_b[j][0]], o) for i, j, o in bonds_b
                             if atoms_b[i][0] in m and atoms_b[j][0] in m]
                    items[kind].append((f"{fn}:{res.name}", atoms, bonds))
                    if any(a[0] not in got for a in atoms_b if with_h or a[1] != 1):
                        fragments[kind].add(f"{fn}:{res.name}")
                    added = True
                if added:
                    seen.add((fn, res.name))
    return items, fragments


def sanity_items(blocks):
    """[(name, atoms, bonds)]: the SANITY molecules embedded with their hydrogens (ETKDG, seed 0x5eed, MMFF), the
    reference orders and charges those of the SMILES; sulfate: the SO4 block."""
    out = []
    for name, smi in SANITY:
        m = Chem.AddHs(Chem.MolFromSmiles(smi))
        Chem.Kekulize(m, clearAromaticFlags=True)
        # the reference orders before MMFF, whose atom typing sets aromatic flags again
        bonds = [(b.GetBeginAtomIdx(), b.GetEndAtomIdx(), int(b.GetBondTypeAsDouble())) for b in m.GetBonds()]
        ps = AllChem.ETKDGv3()
        ps.randomSeed = 0x5eed
        if AllChem.EmbedMolecule(m, ps) != 0:
            die(f"sanity {name}: ETKDG embedding failed")
        try:
            AllChem.MMFFOptimizeMolecule(m, maxIters=2000)
        except Exception:
            pass
        pos = m.GetConformer().GetPositions()
        atoms = [(f"{a.GetSymbol()}{a.GetIdx()}", a.GetAtomicNum(), float(pos[a.GetIdx()][0]),
                  float(pos[a.GetIdx()][1]), float(pos[a.GetIdx()][2]), a.GetFormalCharge()) for a in m.GetAtoms()]
        out.append((name, atoms, bonds))
    if "SO4" in blocks:
        out.append(("sulfate (SO4 block)",) + blocks["SO4"])
    else:
        out.append(("sulfate (SO4 block)", None, None))
    return out


def summarize(judged, fragments=None):
    """judged: [(label, dict or None)] (None: unsanitizable reference) -> summary dict; fragments: the labels of
    the instances that lack block atoms (set 2), counted apart as well."""
    res = {"checked": 0, "right": 0, "orders_right": 0, "failures": [], "unsanitizable_reference": [],
           "exhausted": [], "unpaired": []}
    if fragments is not None:
        res.update({"fragments": 0, "whole_checked": 0, "whole_right": 0})
    for label, j in judged:
        if j is None:
            res["unsanitizable_reference"].append(label)
            continue
        res["checked"] += 1
        res["right"] += j["ok"]
        if fragments is not None:
            if label in fragments:
                res["fragments"] += 1
            else:
                res["whole_checked"] += 1
                res["whole_right"] += j["ok"]
        res["orders_right"] += j["orders_ok"]
        info = j.get("info") or {}
        if info.get("exhausted"):
            res["exhausted"].append(label)
        if info.get("n_unpaired"):
            res["unpaired"].append(label)
        if not j["ok"]:
            res["failures"].append({"component": label, "reason": j["reason"], "ccd": j["ccd"],
                                    "perceived": j["perceived"], "orders_right": j["orders_ok"], "info": info,
                                    "fragment": bool(fragments and label in fragments)})
    n = res["checked"]
    res["percent_right"] = round(100.0 * res["right"] / n, 1) if n else None
    res["percent_orders_right"] = round(100.0 * res["orders_right"] / n, 1) if n else None
    if fragments is not None:
        w = res["whole_checked"]
        res["percent_right_whole"] = round(100.0 * res["whole_right"] / w, 1) if w else None
    reasons = {}
    for f in res["failures"]:
        reasons[f["reason"]] = reasons.get(f["reason"], 0) + 1
    res["failures_by_reason"] = reasons
    return res


def markdown(out):
    p = out["provenance"]
    lines = [f"# sitepack bond-order and charge perception (sp_perceive) vs the CCD, {p['date']}", "",
             f"`/usr/bin/python3 tests/peer/perceive_ccd.py` (git {p['git_sha'][:12]}, host {p['host']}, "
             f"RDKit {p['rdkit']}, gemmi {p['gemmi']}; CCD {p['ccd']}, structures {p['structures']}). Method and "
             "rules: the script's docstring; the same protocol as bench/perceive_openbabel.py "
             "(results/perception-openbabel-*.md), sp_perceive's own orders and charges in Open Babel's place.", ""]
    if "skipped_blocks" in out:
        lines += [f"Blocks left out: {out['skipped_blocks']}.", ""]
    lines += ["| set | flags | checked | all orders and charges right | % | orders right (charges aside) | % | "
              "failures by reason | fragments; right of the whole instances |", "|---|---|---|---|---|---|---|---|---|"]
    for k in ("sanity",) + SETS:
        if k not in out:
            continue
        r = out[k]
        fl = 0 if "heavy" in k else EXPLICIT_H
        wh = (f"{r['fragments']}; {r['whole_right']} of {r['whole_checked']} ({r['percent_right_whole']} %)"
              if "fragments" in r else "")
        lines.append(f"| {k} | {fl} | {r['checked']} | {r['right']} | {r['percent_right']} | {r['orders_right']} | "
                     f"{r['percent_orders_right']} | {r['failures_by_reason']} | {wh} |")
    if out.get("checks"):
        lines += ["", "Checks (--check):", ""] + [f"- {'pass' if c['pass'] else 'FAIL'}: {c['what']}"
                                                      for c in out["checks"]]
    lines += ["", "Failures (reason; CCD SMILES / perceived SMILES):"]
    for k in ("sanity",) + SETS:
        if k not in out:
            continue
        lines += ["", f"## {k}", ""]
        fl = out[k]["failures"]
        if not fl:
            lines.append("none")
        for f in fl:
            lines.append(f"- {f['component']} ({f['reason']}{', orders right' if f['orders_right'] else ''}"
                         f"{', fragment' if f.get('fragment') else ''}): "
                         f"`{f['ccd']}` / `{f['perceived']}`")
        for what in ("unsanitizable_reference", "exhausted", "unpaired"):
            if out[k][what]:
                lines.append(f"- {what}: {', '.join(out[k][what])}")
    return "\n".join(lines) + "\n"


def print_failures(name, r, limit=None):
    for f in r["failures"][:limit]:
        print(f"  {name} {f['component']}: {f['reason']}{' (orders right)' if f['orders_right'] else ''}"
              f"{' (fragment)' if f.get('fragment') else ''}\n"
              f"      ccd       {f['ccd']}\n      perceived {f['perceived']}")
    if limit is not None and len(r["failures"]) > limit:
        print(f"  ... {len(r['failures']) - limit} more (the JSON has them all)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool", required=True, help="the sp_perceive_tool executable")
    ap.add_argument("--ccd", default="/work/shared/data/ccd/components_excerpt.cif")
    ap.add_argument("--structures", default="/work/shared/data/structures")
    ap.add_argument("--results", default=None, help="folder for perception-sitepack-DATE.json/.md (results/)")
    ap.add_argument("--out", default=None, help="the JSON file (the .md beside it); overrides --results")
    ap.add_argument("--check", action="store_true", help="assert (exit 1 on failure)")
    ap.add_argument("--sanity-only", action="store_true", help="the sanity molecules only (no corpus)")
    a = ap.parse_args()
    if not os.access(a.tool, os.X_OK):
        print(f"perceive_ccd: no executable {a.tool}", file=sys.stderr)
        return 2
    blocks, skipped = ccd_blocks(a.ccd)
    tool = Tool(a.tool)
    queued = {}  # set -> [(label, atoms, ref bonds, tool label or None)]

    def queue(set_name, items, flags):
        lst = queued.setdefault(set_name, [])
        for label, atoms, bonds in items:
            if atoms is None:
                lst.append((label, None, None, None))
                continue
            conn = distance_bonds(atoms)
            tl = tool.add(atoms, conn, flags) if same_bonds(conn, bonds) else None
            lst.append((label, atoms, bonds, tl))

    queue("sanity", sanity_items(blocks), EXPLICIT_H)
    # the sanity molecules from heavy atoms, in both atom orders (nitrobenzene's N-oxide test once read the N's
    # first bond only, so its orders depended on the order of the atoms in the file)
    sane = [x for x in sanity_items(blocks) if x[1] is not None]
    queue("sanity_heavy", [(k,) + heavy_only(at, bd) for k, at, bd in sane], 0)
    queue("sanity_heavy_reversed", [(k,) + reversed_atoms(*heavy_only(at, bd)) for k, at, bd in sane], 0)
    if not a.sanity_only:
        queue("ideal_with_h", [(k, at, bd) for k, (at, bd) in blocks.items()], EXPLICIT_H)
        queue("ideal_heavy_only", [(k,) + heavy_only(at, bd) for k, (at, bd) in blocks.items()], 0)
        # the same molecules with their atoms in reverse order: the perception must not depend on the file's order
        queue("ideal_heavy_only_reversed", [(k,) + reversed_atoms(*heavy_only(at, bd)) for k, (at, bd) in blocks.items()], 0)
        queue("ideal_with_h_reversed", [(k,) + reversed_atoms(at, bd) for k, (at, bd) in blocks.items()], EXPLICIT_H)
        corpus, fragments = corpus_items(a.structures, blocks)
        queue("deposited_with_h", corpus["with_h"], EXPLICIT_H)
        queue("deposited_heavy_only", corpus["heavy"], 0)
    tool.run()

    out = {
        "what": "sitepack sp_perceive (orders and charges) vs the CCD (issue 37 item 2)",
        "provenance": {"git_sha": subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True,
                                                 text=True).stdout.strip(),
                       "git_dirty": bool(subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--", "src",
                                                         "include"], capture_output=True, text=True).stdout.strip()),
                       "host": socket.gethostname(), "rdkit": rdBase.rdkitVersion, "gemmi": gemmi.__version__,
                       "tool": a.tool, "ccd": a.ccd, "structures": None if a.sanity_only else a.structures,
                       "date": datetime.datetime.utcnow().isoformat(timespec="seconds") + "Z"},
        "skipped_blocks": {k: len(v) for k, v in skipped.items()},
        "molecules_perceived": len(tool.queue),
        "tool_nonzero_rc": tool.bad_rc,
    }
    for set_name, lst in queued.items():
        judged = []
        for label, atoms, bonds, tl in lst:
            if atoms is None:
                judged.append((label, {"ok": False, "orders_ok": False, "reason": "missing (no SO4 block in --ccd)",
                                       "ccd": "", "perceived": ""}))
                continue
            try:
                judged.append((label, judge(atoms, bonds, tool.results[tl] if tl else None)))
            except ValueError:
                judged.append((label, None))
        frag = {"deposited_with_h": fragments["with_h"], "deposited_heavy_only": fragments["heavy"]} \
            if not a.sanity_only else {}
        out[set_name] = summarize(judged, frag.get(set_name))

    checks = []
    if a.check:
        for what, ok, detail in tool_contract(a.tool):
            checks.append({"what": what, "pass": ok, "detail": detail})
        s = out["sanity"]
        checks.append({"what": f"sanity molecules all right ({s['right']}/{s['checked']})",
                       "pass": s["right"] == s["checked"] == len(SANITY) + 1})
        checks.append({"what": f"sp_perceive_tool rc 0 for all {len(tool.queue)} molecules",
                       "pass": not tool.bad_rc})
        if not a.sanity_only:
            for fwd in ("sanity_heavy", "ideal_heavy_only", "ideal_with_h"):
                rev = fwd + "_reversed"
                fails = lambda k: sorted((f["component"], f["perceived"]) for f in out[k]["failures"])  # noqa: E731
                same = out[fwd]["right"] == out[rev]["right"] and fails(fwd) == fails(rev)
                checks.append({"what": f"{rev}: the same counts as {fwd} (atom order does not matter): "
                                       f"{out[rev]['right']} / {out[fwd]['right']} right", "pass": same})
            r = out["ideal_with_h"]
            checks.append({"what": f"ideal_with_h {r['percent_right']} % right >= {BAR}",
                           "pass": r["checked"] > 0 and r["percent_right"] >= BAR})
            for k in SETS[1:]:
                checks.append({"what": f"{k} ran ({out[k]['checked']} checked)", "pass": out[k]["checked"] > 0})
    out["checks"] = checks

    date = datetime.date.today().isoformat()
    path = a.out or os.path.join(a.results or os.path.join(ROOT, "results"), f"perception-sitepack-{date}.json")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
    with open(path[:-5] + ".md" if path.endswith(".json") else path + ".md", "w") as f:
        f.write(markdown(out))

    print(f"{'set':22} {'flags':>5} {'checked':>8} {'right':>6} {'%':>6} {'orders':>6} {'%':>6}  failures by reason "
          "[fragments; right of the whole instances]")
    for k in ("sanity",) + SETS:
        if k in out:
            r = out[k]
            print(f"{k:22} {0 if 'heavy' in k else EXPLICIT_H:5} {r['checked']:8} {r['right']:6} "
                  f"{r['percent_right'] or 0:6} {r['orders_right']:6} {r['percent_orders_right'] or 0:6}  "
                  f"{r['failures_by_reason']}"
                  + (f" [{r['fragments']}; {r['whole_right']}/{r['whole_checked']}]" if "fragments" in r else ""))
    print("failures:")
    print_failures("sanity", out["sanity"])
    if not a.sanity_only:
        print_failures("ideal_with_h", out["ideal_with_h"])
        for k in SETS[1:]:
            print_failures(k, out[k], limit=10)
    if tool.bad_rc:
        print(f"sp_perceive rc != 0: {tool.bad_rc}; stderr: {tool.stderr.strip()[-2000:]}")
    print("wrote", path)
    failed = [c["what"] for c in checks if not c["pass"]]
    for c in checks:
        if not c["pass"]:
            print("FAIL:", c["what"], c.get("detail", ""))
    if checks and not failed:
        print(f"PASS: {len(checks)} checks:", "; ".join(c["what"] for c in checks))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
