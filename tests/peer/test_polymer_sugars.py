#!/usr/bin/python3
"""Sugars of `polymer` entities without a polypeptide/nucleic-acid type are glycan ligands (issue 37 item 3).

For each PDB-format file of the corpus given, make_oldstyle_sugars.py writes two old-style mmCIF files of
the same entry whose oligosaccharides (sugars joined by LINK records) are `polymer` entities: one with no
_entity_poly row for them (`nopoly`), one with _entity_poly.type 'polysaccharide(D)' (`polysac`). One
`sitepack run` over the PDB files and the old-style files; asserted, per entry:
  - every site of the PDB file is a site of each old-style file, with the same ligand residues and the
    same site residues (author chain, number, comp_id: h5py over /sites and /residues), and no more sites;
  - the ligands of the oligosaccharides are class glycan (the sugar-only instances of the PDB file);
  - the wwPDB site records of the entry (reference/wwpdb_sites/struct_site.tsv, parsed as
    test_site_wwpdb_h5.py does): the non-water members inside the matched sites, counted on each file, are
    as many in each old-style file as in the PDB file (printed: the count before this rule was 0 for every
    record of a polymer-typed oligosaccharide, whose residues were no ligand).
The residue and member lists are from the files themselves (gemmi writes the old-style files from the PDB
file, so the two must agree residue for residue).

usage: test_polymer_sugars.py SITEPACK DATA_DIR CCD WORK_DIR FILE.pdb...
"""
import os
import shutil
import subprocess
import sys

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_oldstyle_sugars  # noqa: E402
import test_site_wwpdb_h5 as ww  # noqa: E402



def run(cli, data, ccd, work, files):
    inp = os.path.join(work, "in")
    shutil.rmtree(inp, ignore_errors=True)
    os.makedirs(inp)
    for f in files:
        os.symlink(os.path.join(data, "structures", f), os.path.join(inp, f))
        make_oldstyle_sugars.main(os.path.join(data, "structures", f), inp)
    out = os.path.join(work, "polymer_sugars.h5")
    subprocess.run([cli, "run", "--input", inp, "--ccd", ccd, "--out", out, "--force", "--quiet"], check=True,
                   stdout=subprocess.DEVNULL)
    return out


def glycans(h5):
    """{file: [(auth chain, first auth_seq_id, n_residues)] of class-glycan ligands of two or more residues}"""
    f = h5py.File(h5, "r")
    paths = [os.path.basename(p.decode()) for p in f["structures/path"][:]]
    L = f["ligands"]
    out = {}
    for i in range(len(L["comp_id"])):
        if L["class"][i] == b"glycan" and L["n_residues"][i] > 1:
            out.setdefault(paths[L["structure_idx"][i]], []).append(
                (L["auth_asym_id"][i].decode(), int(L["auth_seq_id"][i]), int(L["n_residues"][i])))
    return out


def members_inside(sites, records):
    """Non-water members of the ligand records inside the union of the sites matched by each record."""
    n, inside = 0, 0
    for details, members in records:
        kind, keys = ww.parse_record(details)
        if kind != "ligand":
            continue
        matched = [s for s in sites if any(ww.key_matches(k, *r) for k in keys for r in s[1])]
        union = set().union(*[s[2] for s in matched]) if matched else set()
        for m in members.split():
            p = m.split(":")
            if len(p) == 3 and p[0] not in ww.WATERS:
                n += 1
                inside += (p[1], p[2], p[0]) in union
    return n, inside


def main(argv):
    cli, data, ccd, work = argv[1:5]
    files = argv[5:]
    os.makedirs(work, exist_ok=True)
    h5 = run(cli, data, ccd, work, files)
    by_file = {os.path.basename(k): v for k, v in ww.load_sites(h5).items()}
    gly = glycans(h5)
    rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(data, "reference/wwpdb_sites/struct_site.tsv"))][1:]
    fails = 0
    for f in files:
        stem = f.split(".")[0]
        recs = [(r[3], r[5]) for r in rows if len(r) >= 6 and os.path.basename(r[1]) == f]
        ref = sorted((tuple(sorted(s[1])), tuple(sorted(s[2]))) for s in by_file.get(f, []))
        n_ref, in_ref = members_inside(by_file.get(f, []), recs)
        line = [f"{f}: {len(ref)} sites, {len(gly.get(f, []))} oligosaccharide glycans, wwPDB members inside "
                f"{in_ref}/{n_ref}"]
        for v in ("nopoly", "polysac"):
            g = f"{stem}_{v}.cif"
            got = sorted((tuple(sorted(s[1])), tuple(sorted(s[2]))) for s in by_file.get(g, []))
            n_g, in_g = members_inside(by_file.get(g, []), recs)
            line.append(f"{v}: {len(got)} sites, {len(gly.get(g, []))} glycans, inside {in_g}/{n_g}")
            if got != ref:
                fails += 1
                only_ref = [s[0] for s in ref if s not in got][:4]
                only_got = [s[0] for s in got if s not in ref][:4]
                print(f"FAIL {g}: sites differ from {f}; only in the PDB file {only_ref}; only here {only_got}")
            if sorted(gly.get(g, [])) != sorted(gly.get(f, [])) or not gly.get(f):
                fails += 1
                print(f"FAIL {g}: glycans {sorted(gly.get(g, []))} vs {f} {sorted(gly.get(f, []))}")
            if in_g != in_ref:
                fails += 1
                print(f"FAIL {g}: {in_g} wwPDB members inside vs {in_ref} from {f}")
        print("; ".join(line))
    print("FAIL" if fails else "ok")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
