#!/usr/bin/python3
"""The list classes (issue 36 item 2; docs/ligands.md "Classes"): lipid, detergent, and the artifact and ion ids
taken from PLINDER's and BioLiP's published lists.

usage: test_ligand_classes.py lists REPO
         the ids of src/survey/lists.c (k_artifact, k_detergent, k_lipid, k_poly_ion) against the curated table
         tests/data/ligand_classes/classes.tsv (artifact, detergent, lipid: the same sets; its ion rows: in
         k_poly_ion), every row's `source` against the stored published lists (third_party/ligand_lists: an id is
         named PLINDER exactly when artifacts_badlist.csv holds it, BioLiP exactly when the BioLiP list holds it,
         and its name is the BioLiP list's), the stored files' SHA-256 against PROVENANCE.md, the BioLiP copy
         against Debian's PLIP (plip.basic.config.biolip_list, an independent copy of the same list), and no list
         id in the cofactor list (the class order would hide it); docs/ligands.md's rows name the same ids.
       test_ligand_classes.py case SITEPACK PDB WORK_DIR [STRUCTURES_DIR]
         `sitepack run` on tests/data/ligand_classes/list_classes.pdb (synthetic, one ligand per rule) gives the
         class of every rule; with the corpus's structures, 1GZM (C8E x12, LDA x3 detergent; PLM x4, PEF x2 lipid,
         PLM 1333/1334 covalent to CYS 322/323 as the MANIFEST says) and 1TCC (BOG detergent before glycan).
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys

FAILS = []


def check(cond, msg):
    if not cond:
        FAILS.append(msg)
        print("FAIL:", msg)


def c_list(src, name):
    m = re.search(r"static const char \*const " + name + r"\[\] = \{(.*?)\};", src, re.S)
    check(m is not None, f"lists.c: no {name}")
    return re.findall(r'"([^"]*)"', m.group(1)) if m else []


def check_lists(repo):
    src = open(os.path.join(repo, "src/survey/lists.c")).read()
    code = {k: c_list(src, "k_" + k) for k in ("artifact", "detergent", "lipid", "poly_ion", "cofactor")}
    tp = os.path.join(repo, "third_party/ligand_lists")
    plinder_path, biolip_path = (os.path.join(tp, f) for f in ("plinder_artifacts_badlist.csv",
                                                                 "plinder_biolip_ligand_list.tsv"))
    prov = open(os.path.join(tp, "PROVENANCE.md")).read()
    for p in (plinder_path, biolip_path):
        sha = hashlib.sha256(open(p, "rb").read()).hexdigest()
        check(f"`{os.path.basename(p)}`" in prov and sha in prov, f"{p}: SHA-256 {sha} not in PROVENANCE.md")
    plinder = [ln.strip() for ln in open(plinder_path) if ln.strip() and not ln.startswith("#")]
    biolip_rows = [ln.rstrip("\n").split("\t") for ln in open(biolip_path) if ln.strip()]
    biolip = {r[0]: r[1] for r in biolip_rows}
    check(len(plinder) == 265 and len(set(plinder)) == 265, f"PLINDER list: {len(plinder)} ids")
    check(len(biolip_rows) == 463 and len(biolip) == 463, f"BioLiP list: {len(biolip_rows)} rows")
    try:
        import plip.basic.config as plip_config
        plip_ids = [x for x in plip_config.biolip_list if not x.startswith("_")]
        check(plip_ids == [r[0] for r in biolip_rows], "BioLiP list differs from PLIP's biolip_list")
    except ImportError as e:
        check(False, f"PLIP not importable ({e}): `make deps` installs Debian's plip")
    rows = [ln.rstrip("\n").split("\t") for ln in open(os.path.join(repo, "tests/data/ligand_classes/classes.tsv"))
            if not ln.startswith("#")]
    check(rows[0] == ["comp_id", "class", "source", "joined", "name"], f"classes.tsv header {rows[0]}")
    rows = rows[1:]
    ids = [r[0] for r in rows]
    check(len(ids) == len(set(ids)), "classes.tsv: an id on two rows")
    for cls in ("artifact", "detergent", "lipid"):
        table = {r[0] for r in rows if r[1] == cls}
        check(set(code[cls]) == table and len(code[cls]) == len(table),
              f"{cls}: lists.c - table {sorted(set(code[cls]) - table)}, "
              f"table - lists.c {sorted(table - set(code[cls]))}")
    ions = {r[0] for r in rows if r[1] == "ion"}
    check(ions and ions <= set(code["poly_ion"]), f"ion rows not in k_poly_ion: {sorted(ions - set(code['poly_ion']))}")
    for cid, cls, source, joined, name in rows:
        want = "+".join(s for s, ok in (("PLINDER", cid in plinder), ("BioLiP", cid in biolip)) if ok) or "none"
        check(source == want, f"{cid}: source {source}, the stored lists say {want}")
        if cid in biolip:
            check(name == biolip[cid].strip(), f"{cid}: name {name!r}, BioLiP {biolip[cid]!r}")
        check(cls in ("artifact", "detergent", "lipid", "ion") and joined in ("before", "before (artifact)", "added"),
              f"{cid}: class {cls} joined {joined}")
    none = sorted(r[0] for r in rows if r[2] == "none")
    check(none == ["POL"], f"ids of no published list: {none} (only POL, kept from the earlier list)")
    hidden = set(code["cofactor"]) & set(ids)
    check(not hidden, f"list ids also cofactors: {sorted(hidden)}")
    docs = [ln for ln in open(os.path.join(repo, "docs/ligands.md")) if ln.startswith("| `")]
    for cls in ("artifact", "detergent", "lipid"):  # the rule cell of the class's row names every id of its list
        row = [ln for ln in docs if ln.startswith(f"| `{cls}`")]
        ids_doc = set(re.findall(r"\b[0-9A-Z]{2,4}\b", row[0].split("|")[2])) if row else set()
        check(ids_doc == set(code[cls]), f"docs/ligands.md {cls} row: not in lists.c "
              f"{sorted(ids_doc - set(code[cls]))}, missing {sorted(set(code[cls]) - ids_doc)}")
    union = set(plinder) | set(biolip)
    named = set().union(*(c_list(src, "k_" + k) for k in ("water", "amino", "reserved", "sugar", "cofactor")))
    n_taken, n_named = len(union & set(ids)), len((union - set(ids)) & (named | set(code["poly_ion"])))
    check((len(union), n_taken, n_named) == (521, 219, 24),
          f"lists' ids {len(union)}, in a list class {n_taken}, named by another list {n_named} (docs/ligands.md)")
    n = {c: sum(r[1] == c for r in rows) for c in ("artifact", "detergent", "lipid", "ion")}
    print(f"classes.tsv: {n}; PLINDER ids {len(plinder)}, BioLiP ids {len(biolip)}")


def run(exe, inp, out):
    r = subprocess.run([exe, "run", "--input", inp, "--out", out, "--force", "--quiet"], capture_output=True,
                       text=True)
    check(r.returncode == 0, f"run {inp}: exit {r.returncode} {r.stderr[-300:]}")
    import h5py
    with h5py.File(out, "r") as f:
        L = f["ligands"]
        path = [p.decode() for p in f["structures/path"][()]]
        return [(os.path.basename(path[int(L["structure_idx"][i])]), L["comp_id"][i].decode(),
                 L["class"][i].decode(), int(L["n_residues"][i]), int(L["flags"][i]) & 1,
                 L["residues"][i].decode()) for i in range(L["comp_id"].shape[0])]


def check_case(exe, pdb, work, structures):
    inp = os.path.join(work, "in")
    shutil.rmtree(inp, ignore_errors=True)
    os.makedirs(inp)
    shutil.copy(pdb, inp)
    got = [(c, k, n, cov) for _, c, k, n, cov, _ in run(exe, inp, os.path.join(work, "case.h5"))]
    want = [("PLM", "lipid", 1, 0),            # a lipid of the lists, lone residue
            ("PLM", "lipid", 1, 1),            # covalent to CYS 4 (LINK): still a lipid, flagged covalent
            ("C8E", "detergent", 1, 0),        # a detergent (artifact before issue 36)
            ("MPO", "artifact", 1, 0),         # MOPS buffer, added from the lists
            ("IRI", "ion", 1, 0),              # iridium hexammine, a metal ammine of the BioLiP list
            ("TFA", "artifact", 1, 0),         # trifluoroacetic acid, PLINDER's list
            ("OLC", "small_molecule", 2, 0),   # a list lipid LINKed to ethanol: two residues, no list class
            ("CHT", "small_molecule", 1, 0),   # choline: on both lists, left out (a real ligand)
            ("LMT", "detergent", 1, 0)]        # dodecyl maltoside
    check(got == want, f"case classes:\n got  {got}\n want {want}")
    if not structures:
        return
    inp = os.path.join(work, "corpus")
    shutil.rmtree(inp, ignore_errors=True)
    os.makedirs(inp)
    for f in ("1gzm.pdb", "1tcc.cif.gz"):
        shutil.copy(os.path.join(structures, f), inp)
    lig = run(exe, inp, os.path.join(work, "corpus.h5"))
    def classes(fname, comp):
        return sorted({k for f, c, k, *_ in lig if f == fname and c == comp})
    count = lambda fname, comp: sum(1 for f, c, *_ in lig if f == fname and c == comp)
    for comp, cls, n in (("C8E", "detergent", 12), ("LDA", "detergent", 3), ("PLM", "lipid", 4), ("PEF", "lipid", 2)):
        check(classes("1gzm.pdb", comp) == [cls] and count("1gzm.pdb", comp) == n,
              f"1GZM {comp}: {count('1gzm.pdb', comp)} of class {classes('1gzm.pdb', comp)}, want {n} {cls}")
    cov = sorted(r for f, c, k, n, cv, r in lig if f == "1gzm.pdb" and c == "PLM" and cv)
    check(cov == ["PLM/A/1333", "PLM/A/1334", "PLM/B/1333", "PLM/B/1334"],
          f"1GZM covalent PLM: {cov} (MANIFEST: CYS322-PLM1333, CYS323-PLM1334, in both chains)")
    check(classes("1tcc.cif.gz", "BOG") == ["detergent"], f"1TCC BOG: {classes('1tcc.cif.gz', 'BOG')}")
    check(classes("1tcc.cif.gz", "NAG") == ["glycan"], f"1TCC NAG: {classes('1tcc.cif.gz', 'NAG')}")


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "lists":
        check_lists(sys.argv[2])
    elif len(sys.argv) >= 5 and sys.argv[1] == "case":
        check_case(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5] if len(sys.argv) > 5 else None)
    else:
        print(__doc__)
        sys.exit(2)
    print(f"{len(FAILS)} failures")
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
