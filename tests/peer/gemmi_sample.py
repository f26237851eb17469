#!/usr/bin/env python3
"""Peer cross-check of a merged sitepack file against gemmi (Debian python3-gemmi).

Per input file: the number of atoms of model 1 (every atom record, all altlocs, H
included) and the set of non-polymer, non-water residues of model 1, compared with the
residues of sitepack's ligand instances (the `residues` column of /ligands).

Policy differences, handled explicitly (never by loosening a count):
- gemmi's entity types come from _entity (mmCIF) or, for PDB files, from its own
  heuristic (setup_entities). For mmCIF, gemmi's non-polymer + branched residues must equal
  ours exactly. For PDB files sitepack decides from SEQRES and bonding (docs/ligands.md),
  so the check is the same set, with the differences printed and counted as failures unless
  listed in PDB_POLICY below with the reason.
- sitepack ligands of class `peptide` are polymer chains by the archive's entity type:
  they are excluded from our side.

usage: gemmi_sample.py MERGED.h5 STRUCTURE_DIR
"""
import os
import sys

import gemmi
import h5py

WATER = {"HOH", "DOD", "WAT", "H2O", "TIP", "TIP3", "SOL"}


def res_key(chain, name, seqid):
    num = seqid.num
    icode = seqid.icode.strip() if seqid.icode not in ("\0", "") else ""
    return f"{name}/{chain}/{num}{icode}"


def mmcif_entity_types(path):
    """label_asym_id -> _entity.type, read with gemmi's CIF parser (gemmi 0.5 has no
    EntityType.Branched, so branched entities are taken from the file itself)."""
    block = gemmi.cif.read(path).sole_block()
    etype = dict(zip(block.find_loop("_entity.id"), block.find_loop("_entity.type")))
    asym = dict(zip(block.find_loop("_struct_asym.id"), block.find_loop("_struct_asym.entity_id")))
    return {a: etype.get(e, "?") for a, e in asym.items()}


def gemmi_view(path):
    st = gemmi.read_structure(path)
    st.setup_entities()
    is_cif = st.input_format != gemmi.CoorFormat.Pdb
    types = mmcif_entity_types(path) if is_cif else None
    model = st[0]
    n_atoms = sum(1 for ch in model for r in ch for a in r)
    ligs = set()
    for ch in model:
        for r in ch:
            if r.name in WATER or r.is_water():
                continue
            if is_cif:
                is_lig = types.get(r.subchain, "?") in ("non-polymer", "branched")
            else:
                is_lig = r.entity_type == gemmi.EntityType.NonPolymer
            if is_lig:
                ligs.add(res_key(ch.name, r.name, r.seqid))
    return n_atoms, ligs


def main(h5_path, struct_dir):
    f = h5py.File(h5_path, "r")
    paths = [p.decode() for p in f["/structures/path"][()]]
    n1 = f["/structures/n_atoms_model1"][()]
    lig_struct = f["/ligands/structure_idx"][()]
    lig_res = [r.decode() for r in f["/ligands/residues"][()]]
    lig_cls = [c.decode() for c in f["/ligands/class"][()]]
    lig_model = f["/ligands/model_num"][()]
    ours = {i: set() for i in range(len(paths))}
    first_model = {}
    for i, p in enumerate(paths):
        first_model[i] = None
    for s, res, cls, m in zip(lig_struct, lig_res, lig_cls, lig_model):
        if first_model[s] is None:
            first_model[s] = m
        if m != first_model[s] or cls == "peptide":
            continue
        ours[s].update(res.split())
    failures = 0
    compared_atoms = 0
    for i, p in enumerate(paths):
        n_g, ligs_g = gemmi_view(os.path.join(struct_dir, p))
        compared_atoms += n_g
        problems = []
        if n_g != n1[i]:
            problems.append(f"atoms in model 1: sitepack {n1[i]}, gemmi {n_g}")
        only_us, only_g = ours[i] - ligs_g, ligs_g - ours[i]
        if only_us or only_g:
            problems.append(f"ligand residues only in sitepack {sorted(only_us)}, only in gemmi {sorted(only_g)}")
        if problems:
            failures += 1
            print(f"MISMATCH {p}: " + "; ".join(problems))
        else:
            print(f"ok {p}: {n_g} atoms, {len(ligs_g)} ligand residues")
    print(f"{len(paths)} files, {compared_atoms} atoms compared, {failures} files differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
