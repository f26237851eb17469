#!/usr/bin/python3
"""The site quality bits of the corpus (issue 36; docs/format.md "Site quality", result.h SP_QUAL_*), recomputed here:

  - the entry bits from /structures (resolution, r_work, r_free) and the ligand bits from /ligands (flags,
    occupancy_mean, b_mean, site_b_mean) with the thresholds of docs/format.md, independently of the C rule;
  - ligand_altlocs with gemmi: distinct altloc ids among the atoms of the ligand's residues (every conformer);
  - pocket_incomplete with gemmi and the CCD (read with gemmi): a polymer residue of the site whose heavy atoms
    (distinct names, model 1) are fewer than its CCD block's non-leaving heavy atoms;
  - pocket_gap with gemmi, for mmCIF files (their label_seq_id): a chain's label_seq_id missing between the
    smallest and largest of its site residues;
  - crystal_contact exactly where the site flag symmetry is set (a --symmetry-mates run; never otherwise);
  - pass_quality == (quality == 0).
Every site must agree bit for bit, except pocket_incomplete where the chosen conformer (sitepack: the altloc of
the highest mean occupancy; here: every conformer) can differ: those are counted and must stay under 1 %. Prints
how many sites meet each criterion (the note's table).
usage: test_site_quality.py CORPUS_H5 STRUCTURES_DIR CCD_CIF
"""
import math
import os
import sys

import gemmi
import h5py
import numpy as np

NAMES = ["resolution", "r_work", "r_free", "r_gap", "ligand_incomplete", "ligand_altlocs", "ligand_occupancy",
         "ligand_b", "pocket_incomplete", "pocket_gap", "crystal_contact"]
BIT = {n: 1 << i for i, n in enumerate(NAMES)}
FAILS = []


def fail(msg):
    FAILS.append(msg)
    if len(FAILS) <= 30:
        print("FAIL:", msg)


def s(b):
    return b.decode() if isinstance(b, bytes) else str(b)


def ccd_need(path):
    """comp_id -> non-leaving heavy atoms of its CCD block."""
    out = {}
    for b in gemmi.cif.read(path):
        cid = b.find_value("_chem_comp.id")
        t = b.find("_chem_comp_atom.", ["type_symbol", "?pdbx_leaving_atom_flag"])
        if not cid or not len(t):
            continue
        out[gemmi.cif.as_string(cid)] = sum(1 for r in t if r.str(0).upper() not in ("H", "D", "T")
                                            and not (r.has(1) and r.str(1).upper() == "Y"))
    return out


def entry_ligand_bits(st, lg, si, li):
    res, rw, rf = (float(st[k][si]) for k in ("resolution", "r_work", "r_free"))
    b = 0
    if not res <= 3.5:
        b |= BIT["resolution"]
    if not rw <= 0.4:
        b |= BIT["r_work"]
    if not rf <= 0.45:
        b |= BIT["r_free"]
    if not rf - rw <= 0.05:
        b |= BIT["r_gap"]
    if int(lg["flags"][li]) & 2:
        b |= BIT["ligand_incomplete"]
    if not float(lg["occupancy_mean"][li]) >= 0.8:
        b |= BIT["ligand_occupancy"]
    bm, sbm = float(lg["b_mean"][li]), float(lg["site_b_mean"][li])
    if not math.isnan(bm) and not math.isnan(sbm) and bm > 2 * sbm:
        b |= BIT["ligand_b"]
    return b


INDEX = {}


def residue_of(model, chain, seq, ins, comp):
    """The residues of model 1 with these ids (an index per model, built once)."""
    if id(model) not in INDEX:
        INDEX.clear()
        ix = {}
        for ch in model:
            for r in ch:
                ix.setdefault((ch.name, r.seqid.num, r.seqid.icode.strip(), r.name), []).append(r)
        INDEX[id(model)] = (model, ix)
    return INDEX[id(model)][1].get((chain, seq, ins, comp), [])


def main():
    h5, sdir, ccd_path = sys.argv[1:4]
    need = ccd_need(ccd_path)
    with h5py.File(h5, "r") as f:
        st = {k: f["structures"][k][:] for k in ("path", "resolution", "r_work", "r_free", "format")}
        lg = {k: f["ligands"][k][:] for k in ("flags", "occupancy_mean", "b_mean", "site_b_mean", "residues",
                                              "structure_idx")}
        sites = {k: f["sites"][k][:] for k in ("ligand_idx", "structure_idx", "quality", "pass_quality", "flags")}
        rp = f["sites/residue_ptr"][:]
        rs = {k: f["residues"][k][:] for k in ("auth_asym_id", "auth_seq_id", "ins_code", "comp_id", "kind",
                                                "label_seq_id")}
        extra = {k: f["residues"][k][:] for k in ("symop", "assembly_op") if k in f["residues"]}
    n = len(sites["quality"])
    structs, meet, n_conf = {}, {k: 0 for k in NAMES}, 0
    for i in range(n):
        q = int(sites["quality"][i])
        li, si = int(sites["ligand_idx"][i]), int(sites["structure_idx"][i])
        if int(sites["pass_quality"][i]) != (q == 0):
            fail(f"site {i}: pass_quality {sites['pass_quality'][i]} with quality {q}")
        want = entry_ligand_bits(st, lg, si, li)
        path = os.path.join(sdir, s(st["path"][si]))
        if si not in structs:
            structs = {si: gemmi.read_structure(path, merge_chain_parts=False)}
        model = structs[si][0]
        # altlocs of the ligand's residues ("COMP/CHAIN/NUM[ICODE]" list; a cut list ends with " ...")
        alts = set()
        for key in s(lg["residues"][li]).replace(" ...", "").split():
            comp, chain, num = key.split("/")
            ins = num.lstrip("-0123456789")
            for r in residue_of(model, chain, int(num[:len(num) - len(ins)]), ins, comp):
                alts |= {a.altloc for a in r if a.altloc != "\0"}
        if len(alts) > 1:
            want |= BIT["ligand_altlocs"]
        spans, incomplete = {}, False
        for k in range(int(rp[i]), int(rp[i + 1])):
            if int(rs["kind"][k]) != 1 or any(s(extra[c][k]) for c in extra):
                continue
            comp, chain = s(rs["comp_id"][k]), s(rs["auth_asym_id"][k])
            if comp in need:
                for r in residue_of(model, chain, int(rs["auth_seq_id"][k]), s(rs["ins_code"][k]), comp):
                    names = {a.name for a in r if a.element.name not in ("H", "D")}
                    incomplete |= len(names) < need[comp]
            ls = int(rs["label_seq_id"][k])
            if ls != -2**31:
                spans.setdefault(chain, []).append(ls)
        if incomplete:
            want |= BIT["pocket_incomplete"]
        if s(st["format"][si]) == "mmcif":
            for chain, seqs in spans.items():
                lo, hi = min(seqs), max(seqs)
                seen = {r.label_seq for ch in model if ch.name == chain for r in ch if r.label_seq is not None}
                if any(x not in seen for x in range(lo, hi + 1)):
                    want |= BIT["pocket_gap"]
        else:  # PDB files: label_seq_id is sitepack's own numbering; keep the file's bit
            want |= q & BIT["pocket_gap"]
        if int(sites["flags"][i]) & 4:  # site flag symmetry: residues of a crystal symmetry image
            want |= BIT["crystal_contact"]
        diff = want ^ q
        if diff == BIT["pocket_incomplete"]:
            n_conf += 1
        elif diff:
            fail(f"site {i} ({s(st['path'][si])} {s(lg['residues'][li])}): quality {q:#x}, recomputed {want:#x}: "
                 + ", ".join(nm for nm in NAMES if diff & BIT[nm]))
        for nm in NAMES:
            meet[nm] += not q & BIT[nm]
    if n_conf > n // 100:
        fail(f"{n_conf} sites differ in pocket_incomplete only (chosen conformer): more than 1 %")
    if n < 1000:
        fail(f"only {n} sites: the corpus has more")
    print(f"{n} sites, {int(np.sum(sites['pass_quality']))} pass every criterion; meeting each: "
          + ", ".join(f"{k} {v}" for k, v in meet.items()) + f"; pocket_incomplete by conformer only: {n_conf}")
    print(f"{len(FAILS)} failures")
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
