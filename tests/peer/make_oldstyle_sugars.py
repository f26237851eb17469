#!/usr/bin/python3
"""Old-style mmCIF files of real entries whose sugars are `polymer` entities (issue 37 item 3).

Before the 2020 carbohydrate remediation, mmCIF files declared an oligosaccharide as an entity of
_entity.type `polymer` with no polypeptide/nucleic-acid _entity_poly.type: no _entity_poly row at all,
or a type such as 'polysaccharide(D)' or 'other'. The entry's PDB-format file has the same sugars as
HETATM residues joined by LINK records. This script makes such files from a PDB-format file with gemmi
0.5 (read_structure, setup_entities, make_mmcif_document): each oligosaccharide (sugar residues joined by LINK
records) goes into one subchain (label_asym_id <chain>S<k>) of its own entity (id S<chain>S<k>) of type polymer; variant `nopoly`
writes no _entity_poly row for it, variant `polysac` writes _entity_poly.type 'polysaccharide(D)'.
The connections (LINK -> _struct_conn) are kept; a sugar no LINK joins to another sugar stays non-polymer. Sugars: the CCD saccharide components of SUGARS.

usage: make_oldstyle_sugars.py IN.pdb OUT_DIR   -> OUT_DIR/<stem>_nopoly.cif, OUT_DIR/<stem>_polysac.cif
"""
import os
import sys

import gemmi

# CCD components of _chem_comp.type '... saccharide ...' seen in the corpus' glycans
SUGARS = {"A2G", "BDP", "BGC", "BMA", "FRU", "FUC", "FUL", "GAL", "GCU", "GLA", "GLC", "IDR", "MAN", "NAG", "NDG",
          "NGA", "SIA", "XYP", "XYS"}


def cells(b, cat):
    """(tags without the category, rows as lists of raw strings) of category cat of block b."""
    t = b.find_mmcif_category(cat)
    tags = [x.split(".", 1)[1] for x in t.tags]
    return tags, [[t[i][k] for k in range(len(tags))] for i in range(len(t))]


def put(b, cat, tags, rows):
    b.set_mmcif_category(cat, {t: [r[k] for r in rows] for k, t in enumerate(tags)}, raw=True)


def oligosaccharides(st):
    """{gemmi subchain of a sugar residue: new label_asym_id} for the sugars joined by a LINK to another
    sugar (connected components of two or more residues, each one polymer chain <auth chain>S<k>)."""
    sug = {(ch.name, str(r.seqid)): r.subchain for ch in st[0] for r in ch if r.name in SUGARS and r.het_flag == "H"}
    up = {k: k for k in sug}

    def find(k):
        while up[k] != k:
            k = up[k]
        return k
    for c in st.connections:
        a = (c.partner1.chain_name, str(c.partner1.res_id.seqid))
        b = (c.partner2.chain_name, str(c.partner2.res_id.seqid))
        if a in sug and b in sug and a != b:
            up[find(a)] = find(b)
    groups = {}
    for k in sug:  # file order
        groups.setdefault(find(k), []).append(k)
    out, n = {}, {}
    for members in groups.values():
        if len(members) < 2:
            continue
        ch = members[0][0]
        n[ch] = n.get(ch, 0) + 1
        for k in members:
            out[sug[k]] = f"{ch}S{n[ch]}"
    return out


def write(src, variant, path):
    """Read src, move its sugar HETATM residues into one polymer entity per author chain, write path."""
    st = gemmi.read_structure(src)
    st.setup_entities()
    doc = st.make_mmcif_document(gemmi.MmcifOutputGroups(True))
    b = doc.sole_block()
    sugar_sub = oligosaccharides(st)
    tags, atoms = cells(b, "_atom_site.")
    ia, ie = tags.index("label_asym_id"), tags.index("label_entity_id")
    moved = {}  # old label_asym_id -> new
    chains = []  # new label_asym_ids, in file order
    for r in atoms:
        c = sugar_sub.get(r[ia])
        if c is not None:
            moved[r[ia]] = c
            r[ia], r[ie] = c, "S" + c
            if c not in chains:
                chains.append(c)
    put(b, "_atom_site.", tags, atoms)
    tags, conn = cells(b, "_struct_conn.")
    for k in (1, 2):
        if conn and f"ptnr{k}_label_asym_id" in tags:
            i = tags.index(f"ptnr{k}_label_asym_id")
            for r in conn:
                r[i] = moved.get(r[i], r[i])
    if conn:
        put(b, "_struct_conn.", tags, conn)
    tags, ent = cells(b, "_entity.")
    for c in chains:
        row = ["?"] * len(tags)
        row[tags.index("id")], row[tags.index("type")] = "S" + c, "polymer"
        ent.append(row)
    put(b, "_entity.", tags, ent)
    # _entity_poly (gemmi 0.5 writes none for a PDB file): the polymer entities with their gemmi type
    ptype = {gemmi.PolymerType.PeptideL: "'polypeptide(L)'", gemmi.PolymerType.PeptideD: "'polypeptide(D)'",
             gemmi.PolymerType.Dna: "polydeoxyribonucleotide", gemmi.PolymerType.Rna: "polyribonucleotide"}
    poly = []
    for e in st.entities:
        if e.entity_type == gemmi.EntityType.Polymer:
            strands = sorted({ch.name for ch in st[0] for sub in e.subchains if ch.get_subchain(sub)})
            poly.append([e.name, ptype.get(e.polymer_type, "other"), "'%s'" % ",".join(strands)])
    if variant == "polysac":
        poly += [["S" + c, "'polysaccharide(D)'", c[:c.rindex("S")]] for c in chains]
    put(b, "_entity_poly.", ["entity_id", "type", "pdbx_strand_id"], poly)
    for cat in ("_pdbx_nonpoly_scheme.", "_pdbx_branch_scheme."):
        t = b.find_mmcif_category(cat)
        if len(t):
            t.erase()
    doc.write_file(path)


def main(src, out):
    stem = os.path.basename(src).split(".")[0]
    os.makedirs(out, exist_ok=True)
    for variant in ("nopoly", "polysac"):
        write(src, variant, os.path.join(out, f"{stem}_{variant}.cif"))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
