#!/usr/bin/python3
"""Microheterogeneity and copies with identical identifiers (issue 37 item 4; docs/ligands.md "Instances").

Cases (tests/data/alternatives, cut from 4E43 by make_alternatives.py), one `sitepack run` over both, the
expectations computed with gemmi 0.5 on the same files:
  microhet.pdb       GOL A 104 altloc A and EOH A 104 altloc B (gemmi: two residues at one seqid, each atom in
                     an altloc): one ligand GOL A 104, altloc A (the higher mean occupancy, gemmi), its atoms
                     gemmi's GOL atoms, /ligands/identities "GOL:A:0.60 EOH:B:0.40" (gemmi's mean occupancies),
                     one site, and no site (its own or another's) holds EOH; the other ligands as gemmi lists them
                     (HETATM non-water residues less the one alternative; a peptide fragment of the cut aside).
                     Before: two ligands, each in the other's site.
  duplicate_ids.pdb  two GOL A 104 in different places (gemmi: one residue of 12 atoms, names repeated): two
                     ligands of 6 atoms, instance_key GOL:A:104#1 and #2 in file order (centres: gemmi's first and
                     second six atoms), two sites, and one warning naming GOL A 104 in /structures/warnings.

usage: test_alternatives.py SITEPACK CASES_DIR CCD OUT_DIR
"""
import os
import shutil
import subprocess
import sys

import gemmi
import h5py
import numpy as np

fails = 0


def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += not ok


def table(f, name):
    return {k: f[name][k][:] for k in f[name].keys() if isinstance(f[name][k], h5py.Dataset)}


def site_residues(f, si):
    rp = f["sites/residue_ptr"][:]
    r = f["residues"]
    return {(r["comp_id"][k].decode(), r["auth_asym_id"][k].decode(), int(r["auth_seq_id"][k]))
            for k in range(rp[si], rp[si + 1])}


def ligand_centre(f, li):
    si = int(f["ligands/site_idx"][li])
    return f["sites/center"][si]


def microhet(f, rows, cases):
    st = gemmi.read_structure(os.path.join(cases, "microhet.pdb"))
    at104 = [r for r in st[0]["A"] if r.seqid.num == 104]
    occ = {r.name: float(np.mean([a.occ for a in r])) for r in at104}
    alts = {r.name: "".join(sorted({a.altloc for a in r})) for r in at104}
    chosen = max(at104, key=lambda r: occ[r.name])
    want = " ".join(f"{r.name}:{alts[r.name]}:{occ[r.name]:.2f}" for r in at104)
    het = [(r.name, ch.name, r.seqid.num) for ch in st[0] for r in ch if r.het_flag == "H" and not r.is_water()
           and not (r.seqid.num == 104 and r.name != chosen.name)]
    L = rows
    idx = [i for i in range(len(L["comp_id"])) if L["auth_seq_id"][i] == 104]
    check(len(at104) == 2 and all(a.altloc != "\0" for r in at104 for a in r),
          f"gemmi: two residues at A 104 ({[r.name for r in at104]}), every atom in an altloc")
    check(len(idx) == 1, f"one ligand at A 104 (got {len(idx)})")
    if len(idx) != 1:
        return
    i = idx[0]
    check(L["comp_id"][i].decode() == chosen.name and L["altloc"][i].decode() == alts[chosen.name],
          f"its identity {L['comp_id'][i].decode()} altloc {L['altloc'][i].decode()} (gemmi: {chosen.name} "
          f"{alts[chosen.name]}, occupancy {occ[chosen.name]:.2f})")
    check(L["identities"][i].decode() == want, f"identities '{L['identities'][i].decode()}' (gemmi: '{want}')")
    check(L["n_atoms"][i] == len(chosen), f"{L['n_atoms'][i]} atoms (gemmi's {chosen.name}: {len(chosen)})")
    got = sorted((L["comp_id"][k].decode(), L["auth_asym_id"][k].decode(), int(L["auth_seq_id"][k]))
                 for k in range(len(L["comp_id"])) if L["class"][k] != b"peptide")
    check(got == sorted(het), f"the ligands but peptides {got} (gemmi: the HETATM non-water residues less the "
          f"alternative, {sorted(het)})")
    others = [r.name for r in at104 if r is not chosen]
    holds = [li for li in range(len(L["comp_id"])) if L["site_idx"][li] >= 0 and
             any(c in others for c, _, _ in site_residues(f, int(L["site_idx"][li])))]
    check(L["site_idx"][i] >= 0 and not holds, f"one site for it; no site holds {others} (sites that do: {holds})")


def duplicates(f, rows, cases, warnings):
    st = gemmi.read_structure(os.path.join(cases, "duplicate_ids.pdb"))
    res = [r for r in st[0]["A"] if r.seqid.num == 104 and r.name == "GOL"]
    atoms = [a for r in res for a in r]
    centres = [np.mean([a.pos.tolist() for a in atoms[k:k + 6]], axis=0) for k in (0, 6)]
    L = rows
    idx = [i for i in range(len(L["comp_id"])) if L["auth_seq_id"][i] == 104 and L["comp_id"][i] == b"GOL"]
    check(len(atoms) == 12 and np.linalg.norm(centres[0] - centres[1]) > 10,
          f"gemmi: GOL A 104 holds {len(atoms)} atoms, two copies "
          f"{np.linalg.norm(centres[0] - centres[1]):.1f} Å apart")
    check(len(idx) == 2, f"two ligands GOL A 104 (got {len(idx)})")
    if len(idx) != 2:
        return
    keys = [L["instance_key"][i].decode() for i in idx]
    check(keys == ["GOL:A:104#1", "GOL:A:104#2"], f"instance keys {keys}")
    for k, i in enumerate(idx):
        c = ligand_centre(f, i)
        check(L["n_atoms"][i] == 6 and np.linalg.norm(c - centres[k]) < 0.01,
              f"#{k + 1}: {L['n_atoms'][i]} atoms, site centre {np.round(c, 2)} (gemmi copy {k + 1}: "
              f"{np.round(centres[k], 2)})")
    n = sum(1 for line in warnings.split("\n") if "ligand identifiers shared: GOL A 104" in line)
    check(n == 1, f"one warning naming GOL A 104 (got {n}: {warnings!r})")
    other = [L["instance_key"][i].decode() for i in range(len(L["comp_id"])) if i not in idx]
    check(all("#" not in k for k in other), f"no other key has a suffix ({other})")


def main(argv):
    cli, cases, ccd, out = argv[1:5]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "in"))
    for n in ("microhet.pdb", "duplicate_ids.pdb"):
        os.symlink(os.path.abspath(os.path.join(cases, n)), os.path.join(out, "in", n))
    h5 = os.path.join(out, "alternatives.h5")
    subprocess.run([cli, "run", "--input", os.path.join(out, "in"), "--ccd", ccd, "--out", h5, "--force", "--quiet"],
                   check=True, stdout=subprocess.DEVNULL)
    f = h5py.File(h5, "r")
    paths = [os.path.basename(p.decode()) for p in f["structures/path"][:]]
    lig = table(f, "ligands")
    for name in ("microhet.pdb", "duplicate_ids.pdb"):
        s = paths.index(name)
        rows = {k: v[lig["structure_idx"] == s] for k, v in lig.items()}
        rows["site_idx"] = lig["site_idx"][lig["structure_idx"] == s]
        print(f"-- {name}")
        if name == "microhet.pdb":
            microhet(f, rows, cases)
        else:
            duplicates(f, rows, cases, f["structures/warnings"][s].decode())
    print("FAIL" if fails else "ok")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
