#!/usr/bin/python3
"""The pipeline's perception against the CCD (issue 37 item 2), end to end: `sitepack run` on the corpus twice,
with the CCD excerpt and with no CCD, so that every ligand residue of the second run has its bonds perceived from
the deposited coordinates (bonds.c: the links to other residues counted, the file's H used when they are all
there, /bonds/source `perceived`, /atoms/formal_charge from the perception), and every ligand instance whose
bonds come from the CCD in the first run and are perceived in the second is compared, atom for atom (the two runs
lay out the same site blocks), through RDKit 2022.09 (the independent side): canonical SMILES of the heavy-atom
molecule (RDKit's implicit H; a deposited H is left out as the SDF leaves out one a link replaced) built from /atoms/element, /atoms/formal_charge and /bonds (order 1, 2, 3; 4 aromatic) after SanitizeMol.
Classes: `right` (equal SMILES), `orders` (equal once the charges are set to 0 and the H recomputed: the
protonation of acids and amines, which the deposited heavy atoms do not show), `wrong`, `invalid` (the perceived
molecule does not sanitize). Instances missing atoms of their CCD definition (n_heavy_atoms < n_ccd_heavy_atoms)
are counted apart: their CCD reading keeps the definition's orders on a fragment, which is no reference.

Asserts (exit 1 otherwise): at least 300 complete instances compared; orders right (right + orders) >= 90 % of
them; every perceived molecule without a metal sanitizes in >= 98 % of the instances, and >= 99 % of its bonds
have /bonds/aromatic (sp_perceive_aromatic) equal to RDKit's aromaticity of the sanitized molecule; the merged file of the
no-CCD run passes `sitepack check` (which recomputes every formal charge from the stored columns). Prints the
table and the failures of the complete instances (first instance of each comp_id), writes --json.

usage: perceive_pipeline.py SITEPACK STRUCTURES_DIR CCD WORK_DIR [--json OUT]
Exit 0: all hold; 1: a check failed; 2: usage; 77: h5py or RDKit missing.
"""
import collections
import json
import os
import subprocess
import sys

try:
    import h5py
    from rdkit import Chem, RDLogger
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"SKIP: {e} (apt-get install python3-h5py python3-rdkit)")
    sys.exit(77)

RDLogger.DisableLog("rdApp.*")
BT = {1: Chem.BondType.SINGLE, 2: Chem.BondType.DOUBLE, 3: Chem.BondType.TRIPLE, 4: Chem.BondType.AROMATIC}
METALS = {3, 4, 11, 12, 13, 19, 20} | set(range(21, 32)) | set(range(37, 51)) | set(range(55, 85)) | set(range(87, 104))
MIN_COMPLETE, MIN_ORDERS_PCT, MIN_SANITIZE_PCT, MIN_AROM_PCT = 300, 90.0, 98.0, 99.0
aroms = {}  # (file, instance_key): /bonds/aromatic of the ligand's bonds, in the order of instances()' bonds


def aromatic_agreement(el, fc, bonds, flags):
    """(bonds whose /bonds/aromatic equals RDKit's GetIsAromatic after SanitizeMol, bonds) of one molecule."""
    m = Chem.RWMol()
    keep = [k for k, z in enumerate(el) if z != 1]
    at = {k: n for n, k in enumerate(keep)}
    for k in keep:
        a = Chem.Atom(int(el[k]))
        a.SetFormalCharge(int(fc[k]))
        m.AddAtom(a)
    idx = []
    for (i, j, o), f in zip(bonds, flags):
        if i in at and j in at and not m.GetBondBetweenAtoms(at[i], at[j]):
            m.AddBond(at[i], at[j], BT.get(o, BT[1]))
            idx.append((at[i], at[j], f))
    Chem.SanitizeMol(m)
    same = sum(int(m.GetBondBetweenAtoms(i, j).GetIsAromatic()) == f for i, j, f in idx)
    return same, len(idx)


def run(cli, structures, ccd, out):
    cmd = [cli, "run", "--force", "--input", structures, "--out", out] + (["--ccd", ccd] if ccd else [])
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def instances(path):
    """{(file, instance_key): (sources, molecule builder args, complete)} of every site's ligand."""
    out = {}
    aroms.clear()
    with h5py.File(path, "r") as f:
        paths = [os.path.basename(x.decode()) for x in f["structures/path"][:]]
        lig = f["ligands"]
        keys = [x.decode() for x in lig["instance_key"][:]]
        nh, nccd, sidx = lig["n_heavy_atoms"][:], lig["n_ccd_heavy_atoms"][:], lig["site_idx"][:]
        st = lig["structure_idx"][:]
        ap, nl, bp, nbs = (f["sites/" + c][:] for c in ("atom_ptr", "n_ligand", "bond_ptr", "n_bonds"))
        el, fc = f["atoms/element"][:], f["atoms/formal_charge"][:]
        a1, a2, od, src, ar = (f["bonds/" + c][:] for c in ("atom1", "atom2", "order", "source", "aromatic"))
        for li, s in enumerate(sidx):
            if s < 0:
                continue
            a0, n, b0, nb = int(ap[s]), int(nl[s]), int(bp[s]), int(nbs[s])
            bonds = [(int(a1[k]), int(a2[k]), int(od[k])) for k in range(b0, b0 + nb) if a2[k] < n]
            aroms[(paths[st[li]], keys[li])] = [int(ar[k]) for k in range(b0, b0 + nb) if a2[k] < n]
            srcs = {src[k].decode() for k in range(b0, b0 + nb) if a2[k] < n}
            out[(paths[st[li]], keys[li])] = (srcs, (list(el[a0:a0 + n]), list(fc[a0:a0 + n]), bonds),
                                              nccd[li] > 0 and nh[li] >= nccd[li])
    return out


def molecule(el, fc, bonds, charges=True):
    """Canonical SMILES (heavy atoms, RDKit's implicit H). charges=False: the anions' charges set to 0 (their H
    recomputed), and the cations' too where the molecule still sanitizes (an ammonium; not a pyridinium)."""
    if not charges:
        try:
            return molecule(el, [0] * len(fc), bonds)
        except Exception:
            return molecule(el, [q if q > 0 else 0 for q in fc], bonds)
    m = Chem.RWMol()
    keep = [k for k, z in enumerate(el) if z != 1]  # heavy atoms (a deposited H a link replaced would count)
    at = {k: n for n, k in enumerate(keep)}
    for k in keep:
        a = Chem.Atom(int(el[k]))
        a.SetFormalCharge(int(fc[k]))
        m.AddAtom(a)
    for i, j, o in bonds:
        if i in at and j in at and not m.GetBondBetweenAtoms(at[i], at[j]):
            m.AddBond(at[i], at[j], BT.get(o, BT[1]))
    Chem.SanitizeMol(m)
    return Chem.MolToSmiles(m)


def judge(ref, got):
    """'right', 'orders', 'wrong' or 'invalid' for one instance (args of molecule())."""
    try:
        ps = molecule(*got)
    except Exception:
        return "invalid", "", ""
    rs = molecule(*ref)
    if ps == rs:
        return "right", rs, ps
    try:
        same = molecule(*ref, charges=False) == molecule(*got, charges=False)
    except Exception:
        same = False
    return ("orders" if same else "wrong"), rs, ps


def main(argv):
    if len(argv) not in (5, 7):
        print(__doc__)
        return 2
    cli, structures, ccd, work = argv[1:5]
    jout = argv[6] if len(argv) == 7 and argv[5] == "--json" else None
    os.makedirs(work, exist_ok=True)
    with_ccd, no_ccd = os.path.join(work, "with_ccd.h5"), os.path.join(work, "no_ccd.h5")
    run(cli, structures, ccd, with_ccd)
    run(cli, structures, None, no_ccd)
    ref = instances(with_ccd)
    got = instances(no_ccd)
    aroms_no_ccd = dict(aroms)
    counts = {"complete": collections.Counter(), "fragment": collections.Counter()}
    fails, shown = [], set()
    sane, sane_n = 0, 0
    arom_same = arom_n = 0
    for key, (srcs, mol, complete) in sorted(got.items()):
        if "perceived" not in srcs:
            continue
        if not any(z in METALS for z in mol[0]):
            sane_n += 1
            try:
                molecule(*mol)
                sane += 1
                a, b = aromatic_agreement(*mol, aroms_no_ccd[key])
                arom_same, arom_n = arom_same + a, arom_n + b
            except Exception:
                pass
        r = ref.get(key)
        if not r or r[0] != {"ccd"} or srcs != {"perceived"} or len(r[1][0]) != len(mol[0]):
            continue
        if any(z in METALS for z in mol[0]):
            counts["with a metal (not compared)"] = counts.get("with a metal (not compared)", 0) + 1
            continue
        verdict, rs, ps = judge(r[1], mol)
        part = "complete" if r[2] else "fragment"
        counts[part][verdict] += 1
        comp = key[1].split(":")[0]
        if part == "complete" and verdict != "right" and comp not in shown:
            shown.add(comp)
            fails.append({"file": key[0], "instance": key[1], "class": verdict, "ccd": rs, "perceived": ps})
    print("| instances | compared | right | orders right, charges aside | wrong | invalid | orders right % |")
    print("|---|---|---|---|---|---|---|")
    for part, c in counts.items():
        if not isinstance(c, collections.Counter):
            print(f"| {part} | {c} | | | | | |")
            continue
        n = sum(c.values())
        pct = 100.0 * (c["right"] + c["orders"]) / n if n else 0.0
        print(f"| {part} | {n} | {c['right']} | {c['orders']} | {c['wrong']} | {c['invalid']} | {pct:.1f} |")
    print(f"perceived molecules without a metal that RDKit sanitizes: {sane} of {sane_n}; their bonds whose "
          f"/bonds/aromatic is RDKit's aromaticity: {arom_same} of {arom_n}")
    for x in fails:
        print(f"  {x['file']} {x['instance']} ({x['class']}): {x['ccd']} / {x['perceived']}")
    errors = []
    c = counts["complete"]
    n = sum(c.values())
    if n < MIN_COMPLETE:
        errors.append(f"{n} complete instances compared (< {MIN_COMPLETE})")
    elif 100.0 * (c["right"] + c["orders"]) / n < MIN_ORDERS_PCT:
        errors.append(f"orders right below {MIN_ORDERS_PCT} %")
    if not sane_n or 100.0 * sane / sane_n < MIN_SANITIZE_PCT:
        errors.append(f"perceived molecules sanitized: {sane} of {sane_n} (< {MIN_SANITIZE_PCT} %)")
    if not arom_n or 100.0 * arom_same / arom_n < MIN_AROM_PCT:
        errors.append(f"aromatic flags equal to RDKit's on {arom_same} of {arom_n} bonds (< {MIN_AROM_PCT} %)")
    chk = subprocess.run([cli, "check", no_ccd], capture_output=True, text=True)
    if chk.returncode:
        errors.append("sitepack check refuses the no-CCD file: " + chk.stdout[-300:] + chk.stderr[-300:])
    if jout:
        json.dump({"counts": {k: dict(v) if isinstance(v, dict) else v for k, v in counts.items()}, "sanitized": [sane, sane_n],
                   "failures": fails}, open(jout, "w"), indent=1)
    for e in errors:
        print("FAIL:", e)
    print("all hold" if not errors else f"{len(errors)} failures")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
