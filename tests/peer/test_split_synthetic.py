#!/usr/bin/python3
"""`sitepack split` on a large synthetic file with many components (docs/usage.md "Splits"; issue 35).

usage: test_split_synthetic.py SITEPACK OUTDIR

The file holds only what `split` reads (root attributes, /structures, /sites, /ligands, /residues, /chains,
/sequences, /clusters), drawn from a fixed numpy seed: 2,000 entries (200 of them also as a second file: copies),
1 or 2 sites each, 1 to 3 chains (80 % one), 1,700 coarse protein clusters of skewed sizes, every site contacting
1 to 3 of its entry's chains, 3,000 molecules in families of about two near-identical fingerprints (pairs at
Tanimoto >= 0.5 that Butina-like cluster ids, here one per molecule, do not join), 8 % ions, release dates
1990-2023 (5 % without a release date: the deposition date). For --by protein, ligand, both, time (--no-scores):
  - the sides equal tests/peer/split_rule.py's recomputation of the documented rule, site by site;
  - no val/test site shares an entry, a protein cluster of any contacted chain or a ligand component with train;
    every cross pair below Tanimoto 0.5 on the stored bits (numpy) for ligand, both, time;
  - sizes within 2 points of those asked (protein, ligand, both: many small components allow it);
  - the copies on no side; time: dates on the right side of the cut;
  - a rerun gives the same bytes (determinism run to run).
"""
import os
import shutil
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import split_rule as R  # noqa: E402
from cli_checks import check, fails, run  # noqa: E402

SP, OUT = sys.argv[1:3]
rng = np.random.default_rng(35)
N_ENTRY, N_COPY, N_P30, N_MOL = 2000, 200, 1700, 3000


def families(n_fam, n_items, n_bits=2048, on=60, flips=12):
    """n_items fingerprints (bytes (n, 256)) in n_fam families: a random base each, members with a few bits
    flipped (Tanimoto of members about 0.6-0.8)."""
    base = np.zeros((n_fam, n_bits), np.uint8)
    for k in range(n_fam):
        base[k, rng.choice(n_bits, on + int(rng.integers(0, 40)), replace=False)] = 1
    fam = rng.integers(0, n_fam, n_items)
    bits = base[fam].copy()
    for i in range(n_items):
        bits[i, rng.choice(n_bits, flips, replace=False)] ^= 1
    return np.packbits(bits, axis=1, bitorder="little")


def build(path):
    n_struct = N_ENTRY + N_COPY
    eid = np.array([f"S{e:04d}".encode() for e in range(N_ENTRY)] +
                   [f"S{e:04d}".encode() for e in rng.choice(N_ENTRY, N_COPY, replace=False)])
    order = np.argsort(eid, kind="stable")   # path order: the copy after its first file
    eid = eid[order]
    efirst = np.array([int(np.flatnonzero(eid == e)[0]) for e in eid], np.int64)
    spath = np.array([f"{e.decode().lower()}_{i}.cif".encode() for i, e in enumerate(eid)])
    days = rng.integers(0, 34 * 365, N_ENTRY)
    date = {f"S{e:04d}".encode(): np.datetime_as_string(np.datetime64("1990-01-01") + int(days[e])).encode()
            for e in range(N_ENTRY)}
    rdate = np.array([date[e] if rng.random() > 0.05 else b"" for e in eid])
    ddate = np.array([date[e] for e in eid])
    # chains: 1-3 per structure (a copy repeats its first file's), each in a coarse cluster of skewed size
    nch = rng.choice([1, 2, 3], n_struct, p=[0.8, 0.17, 0.03])
    ch_of, ccl30 = [], []
    p_weights = 1.0 / np.arange(1, N_P30 + 1) ** 0.5
    p_weights /= p_weights.sum()
    first_chains = {}
    for t in range(n_struct):
        if efirst[t] != t:
            src = first_chains[efirst[t]]
            ch_of.append(list(range(len(ccl30), len(ccl30) + len(src))))
            ccl30.extend(ccl30[c] for c in src)
            continue
        ch_of.append(list(range(len(ccl30), len(ccl30) + nch[t])))
        ccl30.extend(int(x) for x in rng.choice(N_P30, nch[t], p=p_weights))
        first_chains[t] = ch_of[-1]
    ccl30 = np.array(ccl30, np.int64)
    ccl90 = ccl30 * 3 + rng.integers(0, 3, len(ccl30))
    # sites: 1-6 per structure (a copy repeats its first file's ligands)
    sidx, mol, lcls, sc, res_chain = [], [], [], [], []
    site_mols = {}
    for t in range(n_struct):
        if efirst[t] != t:
            ms = site_mols[efirst[t]]
        else:
            ms = [(int(rng.integers(0, N_MOL)), rng.random() < 0.08) for _ in range(int(rng.integers(1, 3)))]
            site_mols[t] = ms
        for m, ion in ms:
            sidx.append(t)
            mol.append(m)
            lcls.append(b"ion" if ion else b"ligand")
            chs = list(rng.choice(ch_of[t], int(rng.integers(1, min(3, len(ch_of[t])) + 1)), replace=False))
            sc.append(chs[0])
            res_chain.append(chs + [chs[0]] * 2)
    n = len(sidx)
    rp = np.concatenate([[0], np.cumsum([len(r) for r in res_chain])]).astype(np.int64)
    rchain = np.concatenate(res_chain).astype(np.int64)
    fps = families(N_MOL // 2, N_MOL)
    with h5py.File(path, "w") as f:
        f.attrs["format"] = "sitepack"
        f.attrs["format_version"] = np.int64(5)
        st = f.create_group("structures")
        st["entry_id"], st["path"], st["entry_first"] = eid.astype("S32"), spath.astype("S64"), efirst
        st["release_date"], st["deposition_date"] = rdate.astype("S12"), ddate.astype("S12")
        st["resolution"] = rng.uniform(1.0, 3.5, n_struct).astype(np.float32)
        s = f.create_group("sites")
        s["structure_idx"], s["ligand_idx"] = np.array(sidx, np.int64), np.arange(n, dtype=np.int64)
        s["residue_ptr"] = rp
        lg = f.create_group("ligands")
        lg["class"] = np.array(lcls).astype("S16")
        lg["comp_id"] = np.array([f"M{m:03d}".encode() for m in mol]).astype("S8")
        lg["n_heavy_atoms"] = rng.integers(5, 30, n).astype(np.int32)
        lg["n_ccd_heavy_atoms"] = lg["n_heavy_atoms"][()] + rng.integers(0, 3, n).astype(np.int32)
        lg["occupancy_mean"] = rng.uniform(0.5, 1.0, n).astype(np.float32)
        r = f.create_group("residues")
        r["chain_idx"], r["kind"] = rchain, np.ones(len(rchain), np.uint8)
        r["contact"] = np.ones(len(rchain), np.uint8)
        c = f.create_group("chains")
        c["type"] = np.array([b"polypeptide(L)"] * len(ccl30)).astype("S24")
        c["seq_ptr"] = np.arange(len(ccl30) + 1, dtype=np.int64) * 10
        f.create_group("sequences")["code"] = np.full(len(ccl30) * 10, ord("A"), np.uint8)
        cl = f.create_group("clusters")
        cl.attrs["protein_low"], cl.attrs["protein_high"] = "protein_30", "protein_90"
        cl["chain_protein_30"], cl["chain_protein_90"] = ccl30, ccl90
        scn = np.array(sc, np.int64)
        cl["site_chain"], cl["protein_30"], cl["protein_90"] = scn, ccl30[scn], ccl90[scn]
        cl["ligand_molecule"], cl["ligand"] = np.array(mol, np.int64), np.array(mol, np.int64)
        cl["fingerprint"] = fps
    return n


shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)
h5 = f"{OUT}/synthetic.h5"
n = build(h5)
KINDS = {"protein": [], "ligand": [], "both": [], "time": ["--before", "2012-01-01"]}
for by, extra in KINDS.items():
    run([SP, "split", h5, "--seed", "7", "--by", by, "--no-scores", "--quiet"] + extra)
first = {by: open(f"{OUT}/synthetic.split-by_{by}.tsv", "rb").read() for by in KINDS}
with h5py.File(h5, "r") as f:
    cols = {by: f["splits/by_" + by][()] for by in KINDS}
    tm = R.tanimoto_matrix(f)
    is_copy = R.copies(f)
    dates = R.date_of(f)
    for by in KINDS:
        side = cols[by]
        exp, summ = R.expected_split(f, 7, 0.1, 0.1, by, before="2012-01-01" if by == "time" else None, tm=tm)
        check((side == exp).all(), f"--by {by}: sides differ from the rule at {np.flatnonzero(side != exp)[:10]}")
        bad = R.check_apart(f, side, by, tm=tm)
        check(not bad, f"--by {by}: {bad[:5]}")
        check((side[is_copy] == -2).all(), f"--by {by}: a copy on a side")
        cross = R.max_cross_tanimoto(f, side, tm)
        if by != "protein":
            check(cross < 0.5, f"--by {by}: cross-side Tanimoto {cross}")
        if by != "time":
            check(summ["deviation"] <= 0.02, f"--by {by}: sizes {summ['got']} vs {summ['asked']}")
        else:
            cut = b"2012-01-01"
            check(all(dates[s] < cut for s in np.flatnonzero(side == 0)) and
                  all(dates[s] >= cut for s in np.flatnonzero(side > 0)), "--by time: a date on the wrong side")
        print(f"--by {by}: {n} sites, train/val/test/dropped/copy/undated "
              f"{[int((side == k).sum()) for k in (0, 1, 2, -1, -2, -3)]}, got {[round(x, 4) for x in summ['got']]}, "
              f"off {100 * summ['deviation']:.2f} points, passes {summ['passes']}, cross Tanimoto {cross:.3f}")
# a rerun: the same bytes
for by, extra in KINDS.items():
    run([SP, "split", h5, "--seed", "7", "--by", by, "--no-scores", "--quiet", "--force"] + extra)
    check(open(f"{OUT}/synthetic.split-by_{by}.tsv", "rb").read() == first[by], f"--by {by}: rerun TSV differs")
with h5py.File(h5, "r") as f:
    for by in KINDS:
        check((f["splits/by_" + by][()] == cols[by]).all(), f"--by {by}: rerun column differs")
if fails:
    print(f"{len(fails)} failures")
    sys.exit(1)
print("ok")
