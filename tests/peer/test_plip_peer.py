"""Peer check of sitepack's typed interactions against PLIP itself (Debian's plip 2.2.2, OpenBabel).

For a few of PLIP's own test structures, PLIP is run the way its tests run it
(PDBComplex().load_pdb(file); characterize_complex(ligand) for one binding-site id) and
`sitepack run` on the same files (model 1, pH 7.4, 6 A site); the interactions of each ligand
are counted per type on both sides and compared.

Comparison, per (ligand, type):
  - hbond (PLIP hbonds_ldon + hbonds_pdon), salt_bridge (saltbridge_lneg + saltbridge_pneg),
    pi_stack (pistacking), pi_cation (pication_laro + pication_paro), halogen (halogen_bonds):
    sitepack applies PLIP's criteria and its one-H-bond-per-donor refinement, so the counts are
    compared: |sitepack - PLIP - known| <= TOL[type], where `known` is the documented difference
    of that ligand and type (KNOWN below; docs/sites.md "PLIP agreement", "Differences from PLIP
    2.2.2"), 0 when none.
  - hydrophobic: sitepack applies PLIP's refine_hydrophobic as PLIP's code does (issue 13), so the
    counts are compared as above (tolerance 0: they agree on all 20 ligands).
  - water_bridge: sitepack applies PLIP's refine_water_bridges, with PLIP's theta / omega where the
    donor's H is placed and heavy-atom substitutes where it is not (docs/sites.md); the check is on
    residues: every residue PLIP lists must be among sitepack's, except the documented ones in
    KNOWN_RES (each a PLIP donor or acceptor that OpenBabel's typing makes and sitepack's does not).
The script prints every count on both sides. Exit 0: all hold; 1: a difference beyond the
tolerance; 77: PLIP (python3 module plip, OpenBabel's python3 bindings) or h5py is not
installed (ctest SKIP_RETURN_CODE).

usage: test_plip_peer.py SITEPACK_CLI STRUCTURES_DIR CCD_FILE WORK_DIR
"""
import os
import subprocess
import sys
import time

try:
    import h5py
    from plip.structure.preparation import PDBComplex
    from plip.basic import config as plip_config
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"SKIP: {e} (apt-get install plip python3-openbabel python3-h5py)")
    sys.exit(77)

# (file, PLIP binding-site id HETID:CHAIN:NUMBER): small PLIP test structures (about 2-5 s each for
# PLIP) that cover H-bonds both ways, salt bridges both ways, pi-stacking, pi-cation both ways,
# halogen bonds, water bridges and the documented differences.
CASES = [
    ("3o1h.pdb", "TMO:B:1"),
    ("4dst.pdb", "GCP:A:202"),
    ("3tah.pdb", "BGO:A:300"),
    ("1hvi.pdb", "A77:A:800"),
    ("2reg.pdb", "CHT:A:1"),
    ("3shy.pdb", "5FO:A:1"),
    ("4alw.pdb", "HY7:A:1308"),
    ("3pxf.pdb", "2AN:A:305"),
    ("1bju.pdb", "GP6:A:910"),
    ("1eve.pdb", "E20:A:2001"),
    ("4qnb.pdb", "1B0:A:301"),
    ("3r0t.pdb", "FU9:A:338"),
    ("2efj.pdb", "37T:A:502"),
    ("1ay8.pdb", "PLP:A:413"),
    ("1xdn.pdb", "ATP:A:501"),
    ("1hii.pdb", "C20:B:101"),
    ("2zoz.pdb", "ET:B:184"),
    ("1acj.pdb", "THA:A:999"),
    ("3thy.pdb", "ADP:A:935"),
    ("1n7g.pdb", "NDP:A:701"),
]

TYPES = ["hbond", "salt_bridge", "pi_stack", "pi_cation", "halogen", "hydrophobic"]
# tolerance on |sitepack - PLIP - known|: PLIP's H-bond count depends on where OpenBabel puts the H of
# rotatable donors (PLIP's own test of 4DST accepts 16 or 17), hence 1 for H-bonds (7 of the 20 ligands
# differ by one; those are not classified one by one); 0 elsewhere.
TOL = {"hbond": 1, "salt_bridge": 0, "pi_stack": 0, "pi_cation": 0, "halogen": 0, "hydrophobic": 0}

# Documented differences (sitepack - PLIP), with the verified cause (PLIP 2.2.2, OpenBabel 3.1).
KNOWN = {
    # PLIP: TMO OAE is an O-H donor (OpenBabel adds H to the N-oxide O) to Trp45 NE1, which
    # OpenBabel types N2 without H (acceptor); sitepack: Trp45 NE1-H donates to the N-oxide O-.
    # PLIP 1 (ldon), sitepack 1 (pdon). (Tyr71 OH -> O-, +1 before issue 37: its H placed as
    # Open Babel places it points away.)
    ("TMO:B:1", "hbond"): 0,
    # PLIP 16 or 17 (Open Babel's random H direction where its rule finds no a-2 atom): sitepack has
    # N2->Asp119 OD2 (PLIP drops it: its "guanidine" C2 salt bridge to Asp119); PLIP has Asp12 OD2-H
    # (OpenBabel's neutral Asp) and a protonated phosphate O as donor, that sitepack does not; sitepack
    # (issue 13: PLIP's salt-bridge refinement) drops Lys16 NZ -> phosphate O inside its Lys16-phosphate
    # salt bridges. Since issue 37 the H of Tyr32 OH, Ser145 OG and O3' are placed where Open Babel puts
    # them (src/site/sitechem_hplace.c), so those three no longer count (they did with the heavy-atom rule:
    # +3 then).  -1.
    ("GCP:A:202", "hbond"): -1,
    # PLIP's "guanidine" (an aromatic C with three N neighbours: guanine C2) makes a salt bridge
    # with Asp119 / Asp116; sitepack: guanine is neutral.
    # GCP: sitepack also has Lys16 NZ with the two phosphonate P (PB, PG: each bonded to the bridging
    # C3B), which PLIP's phosphate rule (all neighbours of P are O) does not type as charged: +2 - 1.
    ("GCP:A:202", "salt_bridge"): +1,
    ("BGO:A:300", "salt_bridge"): -1,
    # PLIP 12: sitepack adds N2->Asp116 OD2 (dropped by PLIP for its "guanidine" salt bridge). Ser142 OG,
    # Ser12 OG and O2'->Ser16 OG (+3 with the heavy-atom rule) are gone since issue 37: their H placed as
    # Open Babel places it gives D-H...A 28, 40 and 87 deg, as in PLIP.
    ("BGO:A:300", "hbond"): +1,
    # PLIP types two N of the protonated amidine (pKa about 11.6) as acceptors (Ser190 N->N2, Ser195
    # OG->N4); for sitepack an amidinium N has no lone pair: -2.  sitepack types the amidinium charged:
    # its salt bridge to Asp189 (PLIP 2.2.2 types no amidine charged).
    ("GP6:A:910", "hbond"): -2,
    ("GP6:A:910", "salt_bridge"): +1,
    # sitepack adds His160 NE2 (OpenBabel puts the His H on ND1) and Trp161 NE1 (OpenBabel: N2, no H)
    # donating to O2.
    ("37T:A:502", "hbond"): +2,
    # sitepack 7, PLIP 7: Lys258 NZ -> O3 (the Schiff-base N, which OpenBabel types N2 without H);
    # PLIP's O2P -> Ser257 OG is a phosphate O that OpenBabel protonates. Tyr225 OH <-> O3 and Tyr70B OH
    # (+3 with the heavy-atom rule) are gone since issue 37: their H placed as Open Babel does gives
    # D-H...A 38, 77 and 40 deg. (Arg266 NH1 / NH2 -> phosphate O: dropped by both, PLIP's salt-bridge
    # refinement, applied by sitepack since issue 13.)  +1 - 1.
    ("PLP:A:413", "hbond"): 0,
    # Arg111 NE, Arg309 NH2 and Lys307 NZ dropped by both (PLIP's salt-bridge refinement, applied since
    # issue 13); O2' -> Glu159 OE1 (+1 with the heavy-atom rule) gone since issue 37 (the H placed as Open
    # Babel does: 45 deg).
    ("ATP:A:501", "hbond"): 0,
    # sitepack 20, PLIP 20: Arg60 NE (no H in OpenBabel) +1; PLIP's O3X -> Thr37 OG1 is a 2'-phosphate O
    # that OpenBabel protonates -1; the H-bonds of Arg61C / Arg220 inside their salt bridges are dropped by
    # both since issue 13. The rotatable OH whose Open Babel H points away (Ser63C, Thr37 -> O3B, O2D,
    # O3B, Tyr128: +4 with the heavy-atom rule) are gone since issue 37 (their H placed as Open Babel does).
    ("NDP:A:701", "hbond"): 0,
}
# (ligand, type, residue number) PLIP lists that sitepack does not, for the residue-level types.
KNOWN_RES = {
    # Asn9 O - HOH420 - BGO O3B: PLIP's donor is the phosphate O3B, which OpenBabel protonates; at pH 7.4
    # sitepack's terminal phosphate O carry no H (model pKa 6.0), so O3B is an acceptor only.
    ("BGO:A:300", "water_bridge", 9),
    # Lys14 NZ - HOH420 - BGO O3B: the same protonated O3B as donor, and Lys14 NZ as acceptor (OpenBabel's
    # neutral NH2; sitepack: NH3+, no lone pair).
    ("BGO:A:300", "water_bridge", 14),
    # Ser17 OG - HOH - GCP O2A: PLIP's donor O2A is a phosphate O that OpenBabel protonates (sitepack: O-).
    ("GCP:A:202", "water_bridge", 17),
    # GCP N - HOH387 - Lys147 NZ: PLIP's acceptor is Lys147 NZ (OpenBabel's neutral NH2; sitepack: NH3+, no lone
    # pair). Before issue 37 sitepack listed Lys147 through another bridge whose heavy-atom substitutes passed and
    # whose H placed as Open Babel does fails theta / omega.
    ("GCP:A:202", "water_bridge", 147),
    # Ser122 OG - HOH634 - THA N15: PLIP's acceptor is the aromatic amine N15 (an acceptor for Open Babel; for
    # sitepack its lone pair is conjugated, donor only). Before issue 37 sitepack listed Ser122 through the reverse
    # bridge N15-H...HOH634...OG that the heavy-atom substitutes passed; with N15's H placed as Open Babel does
    # it fails theta / omega, as in PLIP.
    ("THA:A:999", "water_bridge", 122),
    # Asp145 OD2 - HOH - 2AN: PLIP's donor is Asp145 OD2, protonated by OpenBabel (sitepack: Asp-, no donor).
    ("2AN:A:305", "water_bridge", 145),
    # Val227 N - HOH - GP6 N (amidinium): PLIP's acceptor is an amidinium N, an acceptor for OpenBabel; for
    # sitepack the protonated amidine N has no lone pair.
    ("GP6:A:910", "water_bridge", 227),
    # Arg61 O - HOH - NDP O2X: PLIP's donor O2X is a 2'-phosphate O that OpenBabel protonates (sitepack: O-).
    ("NDP:A:701", "water_bridge", 61),
}

PLIP_LISTS = {
    "hbond": ["hbonds_ldon", "hbonds_pdon"],
    "salt_bridge": ["saltbridge_lneg", "saltbridge_pneg"],
    "pi_stack": ["pistacking"],
    "pi_cation": ["pication_laro", "pication_paro"],
    "halogen": ["halogen_bonds"],
    "hydrophobic": ["hydrophobic_contacts"],
    "water_bridge": ["water_bridges"],
}
SP_TYPES = {1: "hydrophobic", 2: "hbond", 3: "salt_bridge", 4: "pi_stack", 5: "pi_stack",
            6: "pi_cation", 7: "halogen", 8: "water_bridge"}


def run_plip(path, bsid):
    plip_config.DNARECEPTOR = False
    m = PDBComplex()
    m.load_pdb(path)
    for lig in m.ligands:
        if ":".join([lig.hetid, lig.chain, str(lig.position)]) == bsid:
            m.characterize_complex(lig)
    s = m.interaction_sets[bsid]
    out = {}
    for t, lists in PLIP_LISTS.items():
        rows = [i for name in lists for i in getattr(s, name)]
        out[t] = (len(rows), {int(i.resnr) for i in rows})
    return out


def run_sitepack(cli, structures, ccd, work):
    inp = os.path.join(work, "in")
    os.makedirs(inp, exist_ok=True)
    for f, _ in CASES:
        dst = os.path.join(inp, f)
        if not os.path.lexists(dst):
            os.symlink(os.path.join(structures, f), dst)
    out = os.path.join(work, "plip_peer.h5")
    subprocess.run([cli, "run", "--input", inp, "--ccd", ccd, "--out", out, "--force", "--quiet"],
                   check=True, stdout=subprocess.DEVNULL)
    res = {}
    with h5py.File(out, "r") as f:
        lig, site, resi, ix = f["ligands"], f["sites"], f["residues"], f["interactions"]
        st = f["structures"]
        ap, ip = site["atom_ptr"][:], site["interaction_ptr"][:]
        ares = f["atoms/residue_idx"][:]
        rnum = resi["auth_seq_id"][:]
        st_file = [os.path.basename(x.decode()) for x in st["path"][:]] if "path" in st else None
        for li in range(len(lig["comp_id"])):
            key = "%s:%s:%d" % (lig["comp_id"][li].decode(), lig["auth_asym_id"][li].decode(),
                                lig["auth_seq_id"][li])
            fname = st_file[lig["structure_idx"][li]] if st_file else None
            si = lig["site_idx"][li]
            if si < 0:
                continue
            d = {t: [0, set()] for t in PLIP_LISTS}
            for x in range(ip[si], ip[si + 1]):
                t = SP_TYPES.get(int(ix["type"][x]))
                if t is None:
                    continue
                d[t][0] += 1
                d[t][1].add(int(rnum[ares[ap[si] + ix["site_atom"][x]]]))
            res[(fname, key)] = {t: (v[0], v[1]) for t, v in d.items()}
    return res


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    cli, structures, ccd, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    t0 = time.time()
    sp = run_sitepack(cli, structures, ccd, work)
    t1 = time.time()
    bad = 0
    for f, bsid in CASES:
        pl = run_plip(os.path.join(structures, f), bsid)
        s = sp.get((f, bsid)) or next((v for (ff, k), v in sp.items() if k == bsid and ff is None), None)
        if s is None:
            print(f"FAIL {f} {bsid}: no sitepack site")
            bad += 1
            continue
        for t in TYPES:
            n_p, n_s = pl[t][0], s[t][0]
            known = KNOWN.get((bsid, t), 0)
            ok = abs(n_s - n_p - known) <= TOL[t]
            bad += not ok
            print("%s %s %s %s: PLIP %d sitepack %d (documented difference %+d, tolerance %d)%s" % (
                "ok  " if ok else "FAIL", f, bsid, t, n_p, n_s, known, TOL[t],
                "" if n_s - n_p == known else "  PLIP residues %s, sitepack %s" % (
                    sorted(pl[t][1]), sorted(s[t][1]))))
        for t in ("water_bridge",):
            miss = {r for r in pl[t][1] - s[t][1] if (bsid, t, r) not in KNOWN_RES}
            ok = not miss
            bad += not ok
            print("%s %s %s %s: PLIP %d rows on residues %s; sitepack %d rows on %s%s" % (
                "ok  " if ok else "FAIL", f, bsid, t, pl[t][0], sorted(pl[t][1]), s[t][0], sorted(s[t][1]),
                "" if ok else "; missing %s" % sorted(miss)))
    print("sitepack %.1f s, PLIP %.1f s; %s" % (t1 - t0, time.time() - t1, "all hold" if not bad else f"{bad} failures"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
