#!/usr/bin/python3
"""The ligand's own chemistry against RDKit, gemmi and the CCD (docs/format.md "/bonds", "Export files").

Over the merged output of shared/data/structures:
  1. every exported ligand SDF whose components all have CCD blocks is read by RDKit with
     sanitization (100 %: any exception is a failure), with heavy atoms == /ligands/n_heavy_atoms;
  2. for the complete single-component ones with a CCD InChIKey: the InChIKey first block computed from
     the SDF equals its reference for >= 99 % of them, each exception listed with its kind, two figures
     printed: the ligands with every CCD heavy atom against the CCD's InChIKey, and those whose CCD
     leaving atoms are absent (a glycan's O1 at its glycosidic link: "complete", yet not the free
     component the CCD's key describes) against the key of the CCD block without exactly those atoms
     (tests/peer/ccd_inchi.py). Debian's python3-rdkit is built without InChI support
     (rdkit.Chem.inchi.INCHI_AVAILABLE is False), so the keys are computed by Open Babel (Debian
     python3-openbabel, the IUPAC InChI library) from the same SDF file;
  3. gemmi reads every pocket (PDB and mmCIF): atoms equal the site's (count, names, coordinates to 3
     decimals), mmCIF pockets carry the residues' label_seq_id; in a --symmetry-mates run of crystal
     entries, the residues of each symmetry image are under a chain label of their own;
  4. /bonds of every CCD-defined ligand residue equals the CCD's bond list restricted to its observed
     atoms (orders from both value_order spellings, aromatic flags), and /atoms/ccd_charge, ccd_atom
     equal the CCD atom's charge and aromatic flag, for every component of the excerpt that occurs;
  5. the one-stream form (--all --out -) is one SDF record per site, and a missing site exits 2.
usage: test_export_chem.py SITEPACK DATA_DIR WORK_DIR
"""
import os
import shutil
import subprocess
import sys

import gemmi
import h5py
import numpy as np

import ccd_inchi  # tests/peer/ccd_inchi.py: the InChIKey references (Open Babel)
from rdkit import Chem, RDLogger

RDLogger.DisableLog("rdApp.*")
FAILS = []


def check(cond, msg):
    if not cond:
        FAILS.append(msg)
        print("FAIL:", msg)


def s(b):
    return b.decode() if isinstance(b, bytes) else str(b)


ORDER = {"SING": 1, "DOUB": 2, "TRIP": 3, "QUAD": 4, "AROM": 4, "DELO": 4, "POLY": 4, "PI": 4,
         "SINGLE": 1, "DOUBLE": 2, "TRIPLE": 3, "AROMATIC": 4, "DELOC": 4}
METALS = set("Li Be Na Mg Al K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Cs "
             "Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po Fr Ra Ac Th "
             "Pa U Np Pu Am Cm".split())
RESERVED = {"DRG", "DUM", "INH", "LIG", "UNK", "UNL", "UNX"}


def ccd_definitions(path):
    """comp_id -> (atoms {name: (charge, aromatic, atomic number, leaving)}, bonds {(a, b): (order, aromatic)}) of usable blocks."""
    out = {}
    for b in gemmi.cif.read(path):
        cid = b.find_value("_chem_comp.id")
        status = b.find_value("_chem_comp.pdbx_release_status")
        atoms = b.find("_chem_comp_atom.", ["atom_id", "charge", "?pdbx_aromatic_flag", "type_symbol",
                                                 "?pdbx_leaving_atom_flag"])
        if not cid or not len(atoms) or (status and gemmi.cif.as_string(status) == "OBS"):
            continue
        cid = gemmi.cif.as_string(cid)
        if cid in RESERVED or (len(cid) == 2 and cid.isdigit() and cid != "00"):
            continue
        am = {}
        for r in atoms:
            ch = r.str(1)
            arom = r.has(2) and r.str(2).upper() == "Y"
            z = gemmi.Element(r.str(3)).atomic_number
            leaving = r.has(4) and r.str(4).upper() == "Y"
            am[r.str(0)] = (int(float(ch)) if ch not in ("?", ".", "") else 0, arom, z, leaving)
        bm = {}
        for r in b.find("_chem_comp_bond.", ["atom_id_1", "atom_id_2", "value_order", "?pdbx_aromatic_flag"]):
            o = ORDER.get(r.str(2).upper(), 4)
            arom = (r.has(3) and r.str(3).upper() == "Y") or r.str(2).upper() in ("AROM", "AROMATIC")
            bm[tuple(sorted((r.str(0), r.str(1))))] = (o, int(arom))
        out[cid] = (am, bm)
    return out


MATES_FILES = ["1r6a.pdb", "5kc1.cif", "1a4w.cif", "4hhb.cif.gz"]


def site_of_pocket(exp, fn):
    sdf = fn.replace("_pocket.pdb", "_ligand.sdf").replace("_pocket.cif", "_ligand.sdf")
    with open(os.path.join(exp, sdf)) as fh:
        return int(fh.read().split(">  <site_idx>\n")[1].split("\n")[0])


def check_pockets(exp, h5, what, min_images=0):
    """gemmi reads every pocket of `exp`: its atoms are the site's (names, coordinates to 3 decimals, in
    block order); mmCIF pockets give every residue its /residues/label_seq_id ('.' when none); the residues of
    a symmetry image are under a chain label of their own: one label per (chain, symop) of the pocket,
    used by no residue of the asymmetric unit. Returns the number of pocket files."""
    with h5py.File(h5, "r") as f:
        ap, rp = f["sites/atom_ptr"][:], f["sites/residue_ptr"][:]
        pos, name, ares = f["atoms/position"][:], f["atoms/atom_name"][:], f["atoms/residue_idx"][:]
        rauth, rlseq = f["residues/auth_asym_id"][:], f["residues/label_seq_id"][:]
        rsym = f["residues/symop"][:] if "symop" in f["residues"] else np.array([b""] * len(rauth))
    n_pockets = n_images = n_label_seq = 0
    for fn in sorted(os.listdir(exp)):
        if not (fn.endswith("_pocket.pdb") or fn.endswith("_pocket.cif")):
            continue
        i = site_of_pocket(exp, fn)
        try:
            stt = gemmi.read_structure(os.path.join(exp, fn), merge_chain_parts=False)
        except Exception as e:  # noqa: BLE001
            check(False, f"{what} {fn}: gemmi: {e}")
            continue
        got = [(a.name, a.pos.x, a.pos.y, a.pos.z, ch.name, rr.label_seq) for ch in stt[0] for rr in ch for a in rr]
        a0, a1 = ap[i], ap[i + 1]
        want = [(s(name[k]), *np.round(pos[k].astype(np.float64), 3)) for k in range(a0, a1)]
        same = len(got) == len(want) and all(
            g[0] == w[0] and all(abs(g[j] - w[j]) < 1.5e-3 for j in (1, 2, 3)) for g, w in zip(got, want))
        check(same, f"{what} {fn}: gemmi atoms {len(got)} vs site {len(want)} (first difference at "
                    f"{next((k for k, (g, w) in enumerate(zip(got, want)) if g[0] != w[0]), None)})")
        n_pockets += 1
        if not same:
            continue
        label_of, au_chains = {}, set()
        for k, g in zip(range(a0, a1), got):
            r = ares[k]
            sym = s(rsym[r])
            if fn.endswith(".cif"):
                lw = None if rlseq[r] == np.iinfo(np.int32).min else int(rlseq[r])
                check(g[5] == lw, f"{what} {fn}: atom {k - a0}: label_seq_id {g[5]}, /residues says {lw}")
                n_label_seq += lw is not None
            if sym:
                label_of.setdefault((s(rauth[r]), sym), set()).add(g[4])
            else:
                au_chains.add(g[4])
                check(g[4] == s(rauth[r]), f"{what} {fn}: atom {k - a0}: chain {g[4]}, input {s(rauth[r])}")
        labels = [next(iter(v)) for v in label_of.values()]
        check(all(len(v) == 1 for v in label_of.values()) and len(set(labels)) == len(labels)
              and not set(labels) & au_chains,
              f"{what} {fn}: symmetry images (chain, symop) -> labels {label_of}, asymmetric-unit chains {au_chains}")
        n_images += len(label_of)
    print(f"{what}: {n_pockets} pockets read by gemmi with the site's atoms; {n_label_seq} atoms of mmCIF pockets "
          f"with their label_seq_id; {n_images} (chain, symmetry image) pairs, each under a chain label of its own")
    check(n_images >= min_images, f"{what}: {n_images} symmetry images in pockets, want >= {min_images}")
    check(n_label_seq > 1000 or what != "corpus", f"{what}: {n_label_seq} atoms with a label_seq_id")
    return n_pockets


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def main():
    exe, data, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    h5 = os.path.join(work, "export_all.h5")
    r = run([exe, "run", "--input", os.path.join(data, "structures"), "--ccd",
             os.path.join(data, "ccd", "components_excerpt.cif.gz"), "--out", h5, "--force", "--quiet"])
    check(r.returncode == 0, f"run: {r.returncode} {r.stderr[-300:]}")
    r = run([exe, "check", h5, "--quiet"])
    check(r.returncode == 0, f"check: {r.stderr[-300:]}")
    exp = os.path.join(work, "export_all")
    shutil.rmtree(exp, ignore_errors=True)   # files of an earlier build (other names) would be counted too
    r = run([exe, "export", h5, "--all", "--format", "sdf,pdb,cif", "--out", exp, "--force", "--quiet"])
    check(r.returncode == 0, f"export --all: {r.returncode} {r.stderr[-300:]}")
    r = run([exe, "export", h5, "--site", "100000000", "--out", "-"])
    check(r.returncode == 2 and "no site 100000000" in r.stderr, f"missing site: exit {r.returncode} {r.stderr}")
    stream = run([exe, "export", h5, "--all", "--format", "sdf", "--out", "-"])
    check(stream.returncode == 0, "export --all --out -")

    ccd = ccd_definitions(os.path.join(data, "ccd", "components_excerpt.cif"))
    f = h5py.File(h5, "r")
    sites, ligs, st, res, atoms, bonds = (f[g] for g in ("sites", "ligands", "structures", "residues", "atoms", "bonds"))
    n_sites = sites["n_ligand"].shape[0]
    check(stream.stdout.count("$$$$\n") == n_sites, f"stream: {stream.stdout.count('$$$$')} records, {n_sites} sites")
    ap, rp, bp = sites["atom_ptr"][:], sites["residue_ptr"][:], sites["bond_ptr"][:]
    nlig, lig_of = sites["n_ligand"][:], sites["ligand_idx"][:]
    lflags, lheavy, lnres = ligs["flags"][:], ligs["n_heavy_atoms"][:], ligs["n_residues"][:]
    lcomp, lchain, lseq, lins = ligs["comp_id"][:], ligs["auth_asym_id"][:], ligs["auth_seq_id"][:], ligs["ins_code"][:]
    comps = {s(c): s(k) for c, k in zip(f["components/comp_id"][:], f["components/inchikey"][:])}
    pos, name, elem = atoms["position"][:], atoms["atom_name"][:], atoms["element"][:]
    ccd_charge, ccd_atom, ares = atoms["ccd_charge"][:], atoms["ccd_atom"][:], atoms["residue_idx"][:]
    rcomp, rkind = res["comp_id"][:], res["kind"][:]
    b_a1, b_a2, b_ord, b_ar, b_src = (bonds[c][:] for c in ("atom1", "atom2", "order", "aromatic", "source"))

    files = sorted(os.listdir(exp))
    sdf_files = [x for x in files if x.endswith("_ligand.sdf")]
    check(len(sdf_files) == n_sites, f"{len(sdf_files)} SDF files for {n_sites} sites")
    # site index of each file: SD field site_idx
    n_ccd_lig = n_ok = 0
    figures = {"ccd": [0, 0], "derived": [0, 0]}  # compared, agreeing
    graphs = ccd_inchi.ccd_graphs(os.path.join(data, "ccd", "components_excerpt.cif"))
    exceptions = []
    for fn in sdf_files:
        path = os.path.join(exp, fn)
        mols = list(Chem.SDMolSupplier(path, sanitize=False, removeHs=False))
        mol = mols[0] if len(mols) == 1 else None
        check(mol is not None, f"{fn}: RDKit cannot parse")
        if mol is None:
            continue
        i = int(mol.GetProp("site_idx"))
        l = lig_of[i]
        if lflags[l] & 8:  # not_in_ccd: some component has no CCD block
            continue
        n_ccd_lig += 1
        try:
            Chem.SanitizeMol(mol)
        except Exception as e:  # noqa: BLE001 -- any exception is a failure of the export
            check(False, f"{fn}: sanitization: {e}")
            continue
        n_ok += 1
        heavy = sum(1 for a in mol.GetAtoms() if a.GetAtomicNum() > 1)
        check(heavy == lheavy[l], f"{fn}: {heavy} heavy atoms, /ligands/n_heavy_atoms {lheavy[l]}")
        ref = comps.get(s(lcomp[l]), "")
        if lflags[l] & 2 or lnres[l] != 1 or not ref:
            continue
        got = ccd_inchi.inchikey_of_sdf(path)
        comp = s(lcomp[l])
        observed = {s(name[ap[i] + k]) for k in range(nlig[i])}
        syms = {a.GetSymbol() for a in mol.GetAtoms()}
        metal = bool(syms & METALS)
        if comp not in graphs:
            exceptions.append((fn, got, ref, "no CCD block to compare with"))
            continue
        want, which, removed, absent_heavy = ccd_inchi.reference(graphs[comp], observed)
        tally = figures[which]
        tally[0] += 1
        if got[:14] == want[:14]:
            tally[1] += 1
            continue
        kind = ("metal (InChI disconnects metal bonds)" if metal else
                "CCD atoms absent that are not leaving atoms: " + " ".join(absent_heavy) if absent_heavy else
                "altloc/zero occupancy conformer" if lflags[l] & (4 | 16) else
                "renamed atom (name_not_in_ccd)" if lflags[l] & 128 else
                "CCD InChI not of its own atoms (the derived key agrees)"
                if which == "ccd" and ccd_inchi.inchikey_of_molfile(ccd_inchi.molfile(graphs[comp]))[:14] == got[:14]
                else "other")
        exceptions.append((fn, got, want, f"{which}: {kind}" + (f" (removed {' '.join(removed)})" if removed else "")))
    print(f"RDKit sanitization: {n_ok} of {n_ccd_lig} ligands whose components all have CCD blocks")
    check(n_ccd_lig > 500 and n_ok == n_ccd_lig, f"sanitized {n_ok} of {n_ccd_lig}")
    (n_key, n_key_ok), (n_der, n_der_ok) = figures["ccd"], figures["derived"]
    n_all, n_all_ok = n_key + n_der, n_key_ok + n_der_ok
    pct = 100.0 * n_all_ok / max(n_all, 1)
    print(f"InChIKey first block, complete single-component ligands: {n_all_ok} of {n_all} ({pct:.2f} %)")
    print(f"  with every CCD heavy atom, against the CCD's InChIKey: {n_key_ok} of {n_key}")
    print(f"  with CCD leaving atoms absent (linked), against the CCD block without exactly those atoms "
          f"(Open Babel): {n_der_ok} of {n_der}")
    kinds = {}
    for e in exceptions:
        kinds[e[3].split(" (removed")[0]] = kinds.get(e[3].split(" (removed")[0], 0) + 1
        print(f"  exception: {e[0]}: SDF {e[1]}, reference {e[2]}: {e[3]}")
    for k, n in sorted(kinds.items()):
        print(f"  exceptions of kind {k}: {n}")
    check(n_key > 200 and n_der > 100 and pct >= 99.0, f"InChIKey agreement {pct:.2f} % < 99 %")
    # the derived reference's method on the whole components: Open Babel's key of each CCD block with
    # nothing removed against the CCD's own descriptor (metal complexes aside: InChI disconnects metals)
    same, differ = 0, []
    for comp, g in sorted(graphs.items()):
        if not g["inchikey"] or {a[1] for a in g["atoms"]} & METALS:
            continue
        k = ccd_inchi.inchikey_of_molfile(ccd_inchi.molfile(g))
        same += k[:14] == g["inchikey"][:14]
        if k[:14] != g["inchikey"][:14]:
            differ.append(f"{comp} (Open Babel {k}, CCD {g['inchikey']})")
    print(f"  the reference method on the excerpt's metal-free components: {same} of {same + len(differ)} give the "
          f"CCD's own InChIKey first block; differing: {', '.join(differ) or 'none'}")
    check(same >= 0.98 * (same + len(differ)), "the derived reference does not reproduce the CCD's keys")
    check(all("other" not in e[3] for e in exceptions), "an InChIKey exception of no known kind")

    n_pockets = check_pockets(exp, h5, "corpus")
    check(n_pockets == 2 * n_sites, f"{n_pockets} pocket files for {n_sites} sites x 2 formats")
    # a --symmetry-mates run (crystal entries): image residues under chain labels of their own
    mates_in = os.path.join(work, "mates_in")
    os.makedirs(mates_in, exist_ok=True)
    for fn in MATES_FILES:
        dst = os.path.join(mates_in, fn)
        if not os.path.exists(dst):
            os.symlink(os.path.join(data, "structures", fn), dst)
    h5m, expm = os.path.join(work, "export_mates.h5"), os.path.join(work, "export_mates")
    r = run([exe, "run", "--input", mates_in, "--ccd", os.path.join(data, "ccd", "components_excerpt.cif.gz"),
             "--out", h5m, "--force", "--quiet", "--symmetry-mates"])
    check(r.returncode == 0, f"run --symmetry-mates: {r.returncode} {r.stderr[-300:]}")
    r = run([exe, "export", h5m, "--all", "--format", "sdf,pdb,cif", "--out", expm, "--force", "--quiet"])
    check(r.returncode == 0, f"export --all (mates): {r.returncode} {r.stderr[-300:]}")
    check_pockets(expm, h5m, "symmetry-mates run", min_images=20)

    # /bonds against the CCD, residue by residue
    seen, n_res_checked = set(), 0
    for i in range(n_sites):
        a0, nl = ap[i], nlig[i]
        lig_res = {}
        for k in range(nl):
            lig_res.setdefault(ares[a0 + k], []).append(k)
        src = [s(x) for x in b_src[bp[i]:bp[i + 1]]]
        got_all, linked = {}, set()
        for j, b in enumerate(range(bp[i], bp[i + 1])):
            if src[j] == "ccd":
                got_all[(b_a1[b], b_a2[b])] = (int(b_ord[b]), int(b_ar[b]))
            elif bonds["flags"][b] & 1:  # an inter-residue link
                linked.update((int(b_a1[b]), int(b_a2[b])))
        for r, offs in lig_res.items():
            comp = s(rcomp[r])
            if comp not in ccd or rkind[r] != 0:
                continue
            am, bm = ccd[comp]
            by_name = {s(name[a0 + k]): k for k in offs}
            want = {}
            for (x, y), v in bm.items():
                if x not in by_name or y not in by_name:
                    continue
                # a leaving hydrogen still in the file on a linked atom has left: no bond (docs/format.md)
                if any(am[h][2] == 1 and am[h][3] and by_name[o] in linked for h, o in ((x, y), (y, x))):
                    continue
                want[tuple(sorted((by_name[x], by_name[y])))] = v
            got = {p: v for p, v in got_all.items() if p[0] in offs and p[1] in offs}
            check(got == want, f"site {i} {comp}: /bonds {len(got)} vs CCD {len(want)} "
                               f"(e.g. {sorted(set(want.items()) ^ set(got.items()))[:3]})")
            for nm, k in by_name.items():
                if nm in am:
                    c, arom = am[nm][:2]
                    check(ccd_charge[a0 + k] == c and bool(ccd_atom[a0 + k] & 2) == arom and ccd_atom[a0 + k] & 1,
                          f"site {i} {comp} {nm}: ccd_charge {ccd_charge[a0 + k]} / ccd_atom {ccd_atom[a0 + k]} vs {c}/{arom}")
                else:
                    check(ccd_atom[a0 + k] == 0 and lflags[lig_of[i]] & 128, f"site {i} {comp} {nm}: unmatched, not flagged")
            seen.add(comp)
            n_res_checked += 1
    print(f"/bonds equal to the CCD's bonds for {n_res_checked} ligand residues of {len(seen)} components "
          f"({len(ccd)} usable blocks in the excerpt)")
    occurring = {s(c) for c, k in zip(rcomp, rkind) if k == 0 and s(c) in ccd}
    check(seen == occurring and len(seen) >= 40,
          f"{len(seen)} components checked, {len(occurring)} of the excerpt occur as ligand residues")
    if FAILS:
        print(f"{len(FAILS)} failure(s)")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
