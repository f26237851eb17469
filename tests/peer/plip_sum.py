#!/usr/bin/env python3
"""Interaction counts of sitepack against Debian PLIP 2.2.2 summed over every binding site of a set of PDB
files (issue 13): PLIP is run on each file as `plipcmd` runs it (PDBComplex().load_pdb; characterize_complex
for every ligand PLIP finds), sitepack on the same files (`sitepack run`, pH 7.4, model 1); binding sites are
matched by comp id, chain and residue number (PLIP's HETID:CHAIN:NUMBER, sitepack's first residue). The
counts of the matched sites are summed per type; PLIP's metal rows of a metal's own ligand (location
"ligand": a haem's porphyrin N) are counted apart, since sitepack makes rows for ligand-site pairs only.

usage: plip_sum.py SITEPACK STRUCTURES_DIR CCD WORK_DIR [--check PCT] [--json OUT] FILE...
  --check PCT: exit 1 unless hydrophobic, hbond, water_bridge, salt_bridge, pi_stack and metal are each
               within PCT % of PLIP's sum (pi_cation and halogen reported), and at least 60 sites matched.
"""
import json
import os
import subprocess
import sys
import time

import h5py
from plip.basic import config as plip_config
from plip.structure.preparation import PDBComplex

TYPES = ["hydrophobic", "hbond", "water_bridge", "salt_bridge", "pi_stack", "metal", "pi_cation", "halogen"]
CHECKED = TYPES[:6]
PLIP_LISTS = {
    "hydrophobic": ["hydrophobic_contacts"], "hbond": ["hbonds_ldon", "hbonds_pdon"],
    "water_bridge": ["water_bridges"], "salt_bridge": ["saltbridge_lneg", "saltbridge_pneg"],
    "pi_stack": ["pistacking"], "metal": ["metal_complexes"], "pi_cation": ["pication_laro", "pication_paro"],
    "halogen": ["halogen_bonds"],
}
SP_TYPES = {1: "hydrophobic", 2: "hbond", 3: "salt_bridge", 4: "pi_stack", 5: "pi_stack", 6: "pi_cation",
            7: "halogen", 8: "water_bridge", 9: "metal"}


def plip_sets(path):
    """PLIP's interaction set of every ligand of the file, as plipcmd makes them: {bsid: PLInteraction}."""
    plip_config.DNARECEPTOR = False
    m = PDBComplex()
    m.load_pdb(path)
    sets = {}
    for lig in m.ligands:
        bsid = ":".join([lig.hetid, lig.chain, str(lig.position)])
        m.characterize_complex(lig)
        sets[bsid] = m.interaction_sets[bsid]
    return sets


def plip_file(path, sets=None):
    """Counts per type of every PLIP binding site of the file (of `sets`, plip_sets(path), when given)."""
    out = {}
    for bsid, s in (sets if sets is not None else plip_sets(path)).items():
        d = {t: sum(len(getattr(s, n)) for n in PLIP_LISTS[t]) for t in TYPES}
        own = sum(1 for x in s.metal_complexes if x.location == "ligand")
        d["metal"] -= own
        d["metal_own_ligand"] = own
        out[bsid] = d
    return out


def sitepack_files(cli, structures, ccd, work, files):
    inp = os.path.join(work, "in")
    os.makedirs(inp, exist_ok=True)
    for f in files:
        dst = os.path.join(inp, f)
        if not os.path.lexists(dst):
            os.symlink(os.path.join(structures, f), dst)
    out = os.path.join(work, "plip_sum.h5")
    subprocess.run([cli, "run", "--input", inp, "--ccd", ccd, "--out", out, "--force", "--quiet"], check=True,
                   stdout=subprocess.DEVNULL)
    res = {}
    with h5py.File(out, "r") as f:
        lig, ix = f["ligands"], f["interactions"]
        paths = [os.path.basename(x.decode()) for x in f["structures/path"][:]]
        ip = f["sites/interaction_ptr"][:]
        types = ix["type"][:]
        for li in range(len(lig["comp_id"])):
            si = int(lig["site_idx"][li])
            if si < 0:
                continue
            key = (paths[lig["structure_idx"][li]], "%s:%s:%d" % (lig["comp_id"][li].decode(),
                                                               lig["auth_asym_id"][li].decode(), lig["auth_seq_id"][li]))
            d = {t: 0 for t in TYPES}
            for x in range(ip[si], ip[si + 1]):
                t = SP_TYPES.get(int(types[x]))
                if t:
                    d[t] += 1
            res[key] = d
    return res


def match_sites(files, sp, plip_counts):
    """PLIP's binding sites of each file (plip_counts(file): plip_file's dict) matched to sitepack's (sp:
    sitepack_files' dict) by file and HETID:CHAIN:NUMBER (PLIP's chain Z also matches sitepack's blank chain:
    PLIP's PDBParser.fix_pdbline names a HETATM with no chain Z); unmatched PLIP sites are printed. Returns the
    per-type sums over the matched sites, {"plip": {...}, "sitepack": {...}}, and the matched sites."""
    sums = {"plip": {t: 0 for t in TYPES + ["metal_own_ligand"]}, "sitepack": {t: 0 for t in TYPES}}
    sites = []
    for fn in files:
        for bsid, d in plip_counts(fn).items():
            het, chain, num = bsid.split(":")
            key = (fn, bsid) if (fn, bsid) in sp or chain != "Z" else (fn, f"{het}::{num}")
            s = sp.get(key)
            if s is None:
                print(f"unmatched PLIP site {fn} {bsid}")
                continue
            sites.append({"file": fn, "site": bsid, "sitepack_site": key[1], "plip": d, "sitepack": s})
            for t in TYPES:
                sums["plip"][t] += d[t]
                sums["sitepack"][t] += s[t]
            sums["plip"]["metal_own_ligand"] += d["metal_own_ligand"]
    return sums, sites


def main(argv):
    cli, structures, ccd, work = argv[1:5]
    rest = argv[5:]
    pct, jout = None, None
    if "--check" in rest:
        i = rest.index("--check")
        pct = float(rest[i + 1])
        del rest[i:i + 2]
    if "--json" in rest:
        i = rest.index("--json")
        jout = rest[i + 1]
        del rest[i:i + 2]
    files = rest
    os.makedirs(work, exist_ok=True)
    t0 = time.time()
    sp = sitepack_files(cli, structures, ccd, work, files)
    t1 = time.time()
    sums, sites = match_sites(files, sp, lambda fn: plip_file(os.path.join(structures, fn)))
    t2 = time.time()
    print(f"{len(files)} files, {len(sites)} binding sites matched (sitepack {t1 - t0:.1f} s, PLIP {t2 - t1:.1f} s)")
    print("| type | PLIP 2.2.2 | sitepack | ratio |")
    print("|---|---|---|---|")
    bad = 0
    for t in TYPES:
        p, s = sums["plip"][t], sums["sitepack"][t]
        r = s / p if p else float("nan")
        ok = t not in CHECKED or pct is None or (p == 0 and s == 0) or (p and abs(s - p) <= pct / 100 * p)
        bad += not ok
        print(f"| {t} | {p} | {s} | {r:.2f}{'' if ok else ' FAIL'} |")
    print(f"PLIP metal rows of a metal's own ligand (not counted above): {sums['plip']['metal_own_ligand']}")
    big = [x for x in sites if any(abs(x["sitepack"][t] - x["plip"][t]) > 1 for t in TYPES)]
    print(f"sites with a difference > 1 in some type: {len(big)}")
    for x in big:
        diff = {t: x["sitepack"][t] - x["plip"][t] for t in TYPES if abs(x["sitepack"][t] - x["plip"][t]) > 1}
        print(f"  {x['file']} {x['site']}: {diff}")
    if jout:
        json.dump({"sums": sums, "sites": sites}, open(jout, "w"), indent=1)
    if pct is not None and len(sites) < 60:
        print(f"FAIL: {len(sites)} sites matched (< 60)")
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
