#!/usr/bin/python3
"""The rules of `sitepack export` that a fresh-user trial found missing (docs/usage.md "Export", docs/format.md
"Export files"), against RDKit and the merged file's own tables.

usage: test_export_rules.py SITEPACK CORPUS_H5 CONECT_PDB CCD_GZ USAGE_MD WORK_DIR

CORPUS_H5 is the merged output of shared/data/structures (fixture py_corpus). Checks:
  1. every SDF record of `export --all --format sdf` sanitizes in RDKit, or carries the SD field `warning`
     naming the atom RDKit rejects (and a record with `warning` does not sanitize); the counts are printed
     (1716 of 1716 sanitize; before the valence rule 1684 did, before link_hydrogens 1715: issue 39);
  2. `bond_orders` of every record equals the value derived here from /bonds (sources of the orders; a bond
     inside a residue from CONECT in an entry whose CONECT bonds are all order 1, or a bond of order 0: the
     `unknown: ...` value; orders perceived from the coordinates, format version 8: `perceived`), every value
     written is one that docs/usage.md's SD-field table lists, 3PXF 2AN and 1HVR XK2 (CONECT only) are
     `perceived`, and the export's summary line counts the unknown records (5: doubtful perceptions, metals); a file
     whose CONECT repeats serials for double and triple bonds (CONECT_PDB) keeps its orders (`conect`);
  3. the valence rule: ligands without CCD charges whose N has valence 4 come out as the known molecules
     (acetylcholine, choline, trimethylamine N-oxide, lauryldimethylamine N-oxide, ammonium, protonated tris,
     the 1-azido sugar of C4W), the charges set are listed in `valence_charges`, /atoms/charge is unchanged;
  4. file names do not depend on the selection: two per-site exports of the two copies of 1A4W's ANS H 373 (its
     .cif and its .pdb) into one directory both survive, and every name of --site, --comp and --class exports
     equals the name --all gives the site.
"""
import os
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np
from rdkit import Chem, RDLogger
from test_export_chem import METALS  # tests/peer/test_export_chem.py: the same metal elements

RDLogger.DisableLog("rdApp.*")
FAILS = []
UNKNOWN_DIST = "no CCD block and no bond table in the file: bonds from distances"
UNKNOWN_CONECT = "bonds from CONECT records, which give connectivity only in this entry"


def check(cond, msg):
    if not cond:
        FAILS.append(msg)
        print("FAIL:", msg)


def s(b):
    return b.decode() if isinstance(b, bytes) else str(b)


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def records(d):
    """site_idx -> (file name, RDKit molecule unsanitized, its text) of every SDF file of directory d."""
    out = {}
    for fn in sorted(os.listdir(d)):
        if fn.endswith("_ligand.sdf"):
            text = open(os.path.join(d, fn)).read()
            mol = Chem.MolFromMolBlock(text.split("M  END")[0] + "M  END\n", sanitize=False, removeHs=False)
            fields = dict(re.findall(r">  <(\w+)>\n(.*?)\n\n", text, re.S))
            out[int(fields["site_idx"])] = (fn, mol, fields)
    return out


def documented_values(usage_md):
    """The `bond_orders` values of docs/usage.md's SD-field table: rows `| `bond_orders` | `V1`, `V2`: what |`."""
    text = open(usage_md).read()
    out = set()
    for lead in re.findall(r"^\| `bond_orders` \| ((?:`[^`]+`(?:, )?)+)", text, re.M):
        out.update(re.findall(r"`([^`]+)`", lead))
    return out


def expected_bond_orders(f):
    """site -> the bond_orders value derived from /bonds (docs/usage.md's table); site -> its bond block as
    sorted (atom1, atom2, order) with 0-based atoms and order 0 (unknown) written as 1 (single)."""
    sites, bonds = f["sites"], f["bonds"]
    bp, nl, ap, sst = sites["bond_ptr"][:], sites["n_ligand"][:], sites["atom_ptr"][:], sites["structure_idx"][:]
    a1, a2, order, src, flags = (bonds[c][:] for c in ("atom1", "atom2", "order", "source", "flags"))
    elem = f["atoms/element"][:]
    metal_z = {Chem.GetPeriodicTable().GetAtomicNumber(m) for m in METALS}
    conect_orders = set()  # structures whose CONECT bonds carry orders (some order > 1)
    for i in range(len(nl)):
        sl = slice(bp[i], bp[i + 1])
        if np.any((src[sl] == b"conect") & (order[sl] > 1)):
            conect_orders.add(int(sst[i]))
    out, block = {}, {}
    for i in range(len(nl)):
        srcs, dist, conect_only, block[i] = set(), False, False, []
        for k in range(bp[i], bp[i + 1]):
            if a2[k] >= nl[i] or elem[ap[i] + a1[k]] in metal_z or elem[ap[i] + a2[k]] in metal_z:
                continue
            srcs.add(s(src[k]))
            block[i].append((int(a1[k]), int(a2[k]), max(int(order[k]), 1)))
            dist |= order[k] == 0
            conect_only |= src[k] == b"conect" and not flags[k] & 1 and int(sst[i]) not in conect_orders
        if dist or conect_only:
            why = "; ".join(w for w, on in ((UNKNOWN_DIST, dist), (UNKNOWN_CONECT, conect_only)) if on)
            out[i] = f"unknown: bond orders not known ({why}); written as single bonds"
        else:
            out[i] = " ".join(x for x in ("ccd", "file", "conect", "perceived") if x in srcs) or "none"
        block[i].sort()
    return out, block


def check_sanitize(recs):
    n_ok = n_warn = 0
    for i, (fn, mol, fields) in sorted(recs.items()):
        try:
            Chem.SanitizeMol(Chem.Mol(mol))
            ok, err = True, ""
        except Exception as e:  # noqa: BLE001 -- RDKit's valence / kekulization errors
            ok, err = False, str(e)
        n_ok += ok
        warn = fields.get("warning", "")
        n_warn += bool(warn)
        check(ok != bool(warn), f"{fn}: sanitizes {ok}, warning '{warn}' ({err})")
        m = re.search(r"atom # (\d+)", err)
        if not ok and m:
            check(f"atom {int(m.group(1)) + 1} " in warn, f"{fn}: RDKit rejects atom #{m.group(1)}, warning '{warn}'")
    print(f"RDKit sanitization: {n_ok} of {len(recs)} records; {n_warn} carry the SD field warning")
    check(n_ok + n_warn == len(recs) and n_ok == 1716 and len(recs) == 1716, f"sanitized {n_ok} of {len(recs)}")
    return n_ok


def kept_block(block, mol, f, i):
    """The bond block of site i as the record numbers its atoms: the hydrogens link_hydrogens leaves out (issue 39)
    are not written, so the record's atoms are matched to the ligand's by their coordinates (4 decimals)."""
    a0, nl = int(f["sites/atom_ptr"][i]), int(f["sites/n_ligand"][i])
    if mol.GetNumAtoms() == nl:
        return block
    pos = f["atoms/position"][a0:a0 + nl].astype(np.float64)
    num = {}
    for j, p in enumerate(mol.GetConformer().GetPositions()):
        num[int(np.flatnonzero(np.abs(pos - p).max(axis=1) < 1e-3)[0])] = j
    return sorted((min(num[a], num[b]), max(num[a], num[b]), o) for a, b, o in block if a in num and b in num)


def check_bond_orders(recs, f, stderr, usage_md):
    want, orders = expected_bond_orders(f)
    listed = documented_values(usage_md)
    check(len(listed) >= 8, f"docs/usage.md lists {len(listed)} bond_orders values: {sorted(listed)}")
    counts = {}
    for i, (fn, mol, fields) in sorted(recs.items()):
        got = fields.get("bond_orders", "")
        check(got == want[i], f"{fn}: bond_orders '{got}', /bonds says '{want[i]}'")
        check(got in listed, f"{fn}: bond_orders '{got}' is not in docs/usage.md's table")
        counts[got] = counts.get(got, 0) + 1
        written = sorted((b.GetBeginAtomIdx(), b.GetEndAtomIdx(), int(b.GetBondTypeAsDouble())) for b in mol.GetBonds())
        check(written == kept_block(orders[i], mol, f, i), f"{fn}: SDF bonds {written[:4]}..., /bonds (order 0 as 1) "
              f"{orders[i][:4]}...")
    for name in ("3PXF_2AN_", "1HVR_XK2_"):  # CONECT only (connectivity): orders perceived since format version 8
        hit = [fields["bond_orders"] for fn, _, fields in recs.values() if fn.startswith(name)]
        check(hit and all(v == "perceived" for v in hit), f"{name}: {hit}")
    n_unknown = sum(n for v, n in counts.items() if v.startswith("unknown:"))
    for v, n in sorted(counts.items(), key=lambda t: -t[1]):
        print(f"  bond_orders {n:5d}  {v}")
    check(f"{n_unknown} ligands with bond orders not known" in stderr, f"summary: {stderr!r}, {n_unknown} unknown")
    # format version 8: 561 before (152 from distances, 409 from CONECT); now only the doubtful perceptions
    check(n_unknown == 5 and counts.get("perceived", 0) >= 400,
          f"{n_unknown} unknown records (want 5: 2 from distances, 3 from CONECT), {counts.get('perceived', 0)} perceived")


def check_conect_orders(exe, conect_pdb, ccd, work):
    d = os.path.join(work, "conect_in")
    os.makedirs(d, exist_ok=True)
    dst = os.path.join(d, os.path.basename(conect_pdb))
    if not os.path.exists(dst):
        os.symlink(os.path.abspath(conect_pdb), dst)
    h5, out = os.path.join(work, "conect.h5"), os.path.join(work, "conect_exp")
    r = run([exe, "run", "--input", d, "--ccd", ccd, "--out", h5, "--force", "--quiet"])
    check(r.returncode == 0, f"run {conect_pdb}: {r.stderr[-300:]}")
    r = run([exe, "export", h5, "--comp", "QQQ", "--out", out, "--force", "--quiet"])
    check(r.returncode == 0, f"export QQQ: {r.stderr[-300:]}")
    recs = records(out)
    check(len(recs) == 1, f"{len(recs)} QQQ records")
    for fn, mol, fields in recs.values():
        types = sorted(str(b.GetBondType()) for b in mol.GetBonds())
        check(fields["bond_orders"] == "conect" and "DOUBLE" in types and "TRIPLE" in types,
              f"{fn}: CONECT with repeated serials: bond_orders '{fields['bond_orders']}', bonds {types}")


KNOWN = {  # comp: the molecule, canonical SMILES of RDKit (heavy atoms)
    "ACH": "CC(=O)OCC[N+](C)(C)C",            # acetylcholine (3WIP mmCIF: the file's _chem_comp_bond orders)
    "CHT": "C[N+](C)(C)CCO",                  # choline
    "TMO": "C[N+](C)(C)[O-]",                 # trimethylamine N-oxide
    "LDA": "CCCCCCCCCCCC[N+](C)(C)[O-]",      # lauryldimethylamine N-oxide
    "NH4": "[NH4+]",                          # ammonium
    "TRS": "[NH3+]C(CO)(CO)CO",               # tris, protonated
}


def conect_linked_sites(f):
    """Sites whose ligand has a CONECT link to an atom outside it (such a link counts in the valence of the atom
    it holds; the SDF, which keeps the ligand's own atoms, leaves it out: 1GZM LDA B 1343's O1 is CONECT-bonded
    to the other conformer's LDA, so its O reads as an ether O there)."""
    src, a2, sidx = f["bonds/source"][:], f["bonds/atom2"][:], f["bonds/site_idx"][:]
    nl = f["sites/n_ligand"][:]
    hit = (src == b"conect") & (a2 >= nl[sidx])
    return set(sidx[hit].tolist())


def check_valence_rule(recs, f):
    charge, ccd_atom, ap = f["atoms/charge"][:], f["atoms/ccd_atom"][:], f["sites/atom_ptr"][:]
    linked = conect_linked_sites(f)
    seen, n_charged = {}, 0
    for i, (fn, mol, fields) in sorted(recs.items()):
        vc = fields.get("valence_charges", "")
        for item in vc.split():
            k, q = item.split(":")
            a = mol.GetAtomWithIdx(int(k) - 1)
            n_charged += 1
            check(a.GetFormalCharge() == int(q) and a.GetSymbol() in ("N", "O"), f"{fn}: valence_charges {item}")
            check(charge[ap[i] + int(k) - 1] == 0 and not ccd_atom[ap[i] + int(k) - 1] & 1,
                  f"{fn}: atom {k}: /atoms/charge {charge[ap[i] + int(k) - 1]} (the file's), ccd_atom "
                  f"{ccd_atom[ap[i] + int(k) - 1]}")
        comp = fields["comp_id"]
        # ACH from PDB has CONECT orders only (its ester C=O not known); NH4 as one N without H is ammonia
        has_h = any(a.GetAtomicNum() == 1 for a in mol.GetAtoms())
        # a lone N without H is ammonia to any reader; tris's protonation is not seen from heavy atoms (its
        # orders perceived from them, format version 8)
        heavy_perceived = fields["bond_orders"] == "perceived" and not has_h
        if comp in KNOWN and i not in linked and (has_h or comp != "NH4") and not (comp == "TRS" and heavy_perceived) and (
                not fields["bond_orders"].startswith("unknown:") or comp in ("NH4", "CHT", "TMO", "LDA")):
            try:
                m = Chem.Mol(mol)
                Chem.SanitizeMol(m)
                smi = Chem.MolToSmiles(Chem.RemoveHs(m))
            except Exception as e:  # noqa: BLE001
                smi = str(e)
            seen.setdefault(comp, set()).add(smi)
        if comp == "C4W" and "N3 " not in fields.get("warning", "") and vc:
            m = Chem.Mol(mol)
            Chem.SanitizeMol(m)
            seen.setdefault(comp, set()).add("N=[N+]=[N-]" in Chem.MolToSmiles(Chem.RemoveHs(m)))
    for comp, smi in KNOWN.items():
        want = Chem.MolToSmiles(Chem.MolFromSmiles(smi))
        check(seen.get(comp) == {want}, f"{comp}: SMILES {seen.get(comp)}, the molecule is {want}")
    check(seen.get("C4W") == {True}, f"C4W: the azide N=[N+]=[N-]: {seen.get('C4W')}")
    print(f"valence rule: {n_charged} atoms charged; molecules as known: {sorted(seen)}")
    # 38 before format version 8; the residues without a CCD block now take the perception's charges
    check(n_charged == 16, f"{n_charged} atoms charged by valence")


def names(d):
    return {int(fields["site_idx"]): fn for fn, _, fields in records(d).values()}


def check_names(exe, h5, recs_all, work):
    all_names = {i: fn for i, (fn, _, _) in recs_all.items()}
    check(len(set(all_names.values())) == len(all_names), "--all: two sites share a file name")
    f = h5py.File(h5, "r")
    lig, sst = f["sites/ligand_idx"][:], f["sites/structure_idx"][:]
    comp, entry = f["ligands/comp_id"][:], f["structures/entry_id"][:]
    seq = f["ligands/auth_seq_id"][:]
    ans = [i for i in range(len(lig)) if comp[lig[i]] == b"ANS" and entry[sst[i]] == b"1A4W" and seq[lig[i]] == 373]
    check(len(ans) == 2, f"1A4W ANS 373: sites {ans} (its .cif and its .pdb)")
    d = os.path.join(work, "per_site")
    shutil.rmtree(d, ignore_errors=True)
    for i in ans:
        r = run([exe, "export", h5, "--site", str(i), "--format", "sdf,pdb", "--out", d, "--quiet"])
        check(r.returncode == 0, f"export --site {i} into a directory with another site's files: {r.stderr}")
    got = names(d)
    check(sorted(got) == sorted(ans) and all(got[i] == all_names[i] for i in ans),
          f"per-site names {got}, --all names {[all_names[i] for i in ans]}")
    check(len(os.listdir(d)) == 2 * len(ans), f"per-site files {sorted(os.listdir(d))}")
    r = run([exe, "export", h5, "--site", f"{ans[0]},{ans[0]}", "--out", os.path.join(work, "twice"), "--force",
             "--quiet"])
    check(r.returncode == 0 and len(os.listdir(os.path.join(work, "twice"))) == 2, f"--site I,I: {r.stderr}")
    for sel in (["--comp", "ANS"], ["--class", "ion"], ["--comp", "NAG"]):
        d = os.path.join(work, "sel_" + sel[1])
        r = run([exe, "export", h5, *sel, "--out", d, "--force", "--quiet"])
        check(r.returncode == 0, f"export {sel}: {r.stderr}")
        got = names(d)
        check(got and all(all_names[i] == fn for i, fn in got.items()), f"export {sel}: names differ from --all's")
    n_rep = sum("_site" in fn for fn in all_names.values())
    print(f"file names: {len(all_names)} unique under --all, {n_rep} with _site<I> (entries read from two files); "
          f"--site / --comp / --class give the same names")


def main():
    exe, h5, conect_pdb, ccd, usage_md, work = sys.argv[1:7]
    os.makedirs(work, exist_ok=True)
    out = os.path.join(work, "all")
    r = run([exe, "export", h5, "--all", "--format", "sdf", "--out", out, "--force"])
    check(r.returncode == 0, f"export --all: {r.returncode} {r.stderr[-300:]}")
    recs = records(out)
    f = h5py.File(h5, "r")
    check(len(recs) == f["sites/n_ligand"].shape[0], f"{len(recs)} records")
    check_sanitize(recs)
    check_bond_orders(recs, f, r.stderr, usage_md)
    check_conect_orders(exe, conect_pdb, ccd, work)
    check_valence_rule(recs, f)
    check_names(exe, h5, recs, work)
    if FAILS:
        print(f"{len(FAILS)} failure(s)")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
