"""The split rule of docs/usage.md "Splits", written again in Python from the documentation, and the checks the
split tests share (tests/peer/test_split_sample.py, test_split_corpus.py). Nothing here calls sitepack."""
import json

import numpy as np

M64 = (1 << 64) - 1
SIDES = {"train": 0, "val": 1, "test": 2, "dropped": -1, "copy": -2, "undated": -3, "redundant": -4}


def mix64(z):
    """splitmix64's finaliser (include/sitepack/base.h sp_mix64)."""
    z &= M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def fnv1a(b):
    h = 1469598103934665603
    for c in b:
        h = ((h ^ c) * 1099511628211) & M64
    return h


def side_of_key(key, seed, test, val):
    u = (mix64(fnv1a(key) ^ mix64(seed ^ 0x73706C6974)) >> 11) * 2.0 ** -53
    return 2 if u < test else 1 if u < test + val else 0


class UF:
    def __init__(self, n):
        self.p = list(range(n))

    def find(self, x):
        while self.p[x] != x:
            self.p[x] = self.p[self.p[x]]
            x = self.p[x]
        return x

    def union(self, a, b):
        a, b = self.find(a), self.find(b)
        if a != b:
            self.p[max(a, b)] = min(a, b)


def site_tables(f):
    """Per-site arrays the rule needs, from an h5py File."""
    st = f["sites/structure_idx"][()]
    lig = f["sites/ligand_idx"][()]
    ef = f["structures/entry_first"][()]
    eid = f["structures/entry_id"][()]
    path = f["structures/path"][()]
    ent = np.where(ef[st] >= 0, ef[st], st)
    keys = [eid[e] if eid[e] else path[e] for e in ent]
    cls = f["ligands/class"][()][lig]
    follows = np.isin(cls, [b"ion", b"artifact", b"detergent"])
    return ent, keys, follows


def copies(f):
    """Sites of a later file of an entry: /structures/entry_first is another row."""
    st = f["sites/structure_idx"][()]
    ef = f["structures/entry_first"][()][st]
    return (ef >= 0) & (ef != st)


def cluster_columns(f):
    """Per-site coarse protein cluster (the column /clusters@protein_low names) and ligand cluster."""
    low = f["clusters"].attrs["protein_low"]
    low = low.decode() if isinstance(low, bytes) else low
    return f["clusters"][low][()], f["clusters/ligand"][()]


def protein_keys(f):
    """Per site, the set of coarse clusters of its chain (protein_low) and of every polymer chain it contacts
    (/residues kind 1 with contact 1)."""
    low = f["clusters"].attrs["protein_low"]
    low = low.decode() if isinstance(low, bytes) else low
    pcl = f["clusters"][low][()]
    ccl = f["clusters"]["chain_" + low][()]
    rp = f["sites/residue_ptr"][()]
    kind, contact, chain = f["residues/kind"][()], f["residues/contact"][()], f["residues/chain_idx"][()]
    out = []
    for s in range(len(pcl)):
        sl = slice(rp[s], rp[s + 1])
        c = chain[sl][(kind[sl] == 1) & (contact[sl] != 0) & (chain[sl] >= 0)]
        ks = set(int(x) for x in ccl[c] if x >= 0)
        if pcl[s] >= 0:
            ks.add(int(pcl[s]))
        out.append(ks)
    return out


def tanimoto_matrix(f):
    """Tanimoto of every pair of /clusters/fingerprint rows (numpy, from the stored bits)."""
    bits = np.unpackbits(f["clusters/fingerprint"][()], axis=1, bitorder="little").astype(np.int32)
    cnt = bits.sum(1)
    inter = bits @ bits.T
    union = cnt[:, None] + cnt[None, :] - inter
    return np.where(union > 0, inter / np.maximum(union, 1), 0.0)


def ligand_components(f, t=0.5, tm=None):
    """Per site, its ligand component at Tanimoto >= t: molecules of non-ion, non-artifact sites joined by every
    pair >= t (single linkage), named by the smallest molecule row; -1 for ions and artifacts."""
    _, _, follows = site_tables(f)
    mol = f["clusters/ligand_molecule"][()]
    tm = tanimoto_matrix(f) if tm is None else tm
    used = np.zeros(tm.shape[0], bool)
    used[mol[~follows]] = True
    uf = UF(tm.shape[0])
    ii, jj = np.nonzero(np.triu(tm >= t, 1) & used[:, None] & used[None, :])
    for i, j in zip(ii, jj):
        uf.union(int(i), int(j))
    return np.array([-1 if follows[s] else uf.find(int(mol[s])) for s in range(len(mol))], dtype=np.int64)


def date_of(f):
    """Per site, the release date of its entry (deposition date when none), bytes, b"" when neither."""
    ent, _, _ = site_tables(f)
    rd, dd = f["structures/release_date"][()], f["structures/deposition_date"][()]
    return [rd[e] if rd[e] else dd[e] for e in ent]


def representatives(f, eligible):
    """--non-redundant: per (fine protein cluster, molecule) among the eligible sites, the first by resolution
    (ascending, none or <= 0 last), completeness n_heavy / n_ccd_heavy (descending), occupancy_mean
    (descending, NaN as -1), entry key (bytes), site index. Boolean per site."""
    high = f["clusters"].attrs["protein_high"]
    high = high.decode() if isinstance(high, bytes) else high
    p90, mol = f["clusters"][high][()], f["clusters/ligand_molecule"][()]
    st, lig = f["sites/structure_idx"][()], f["sites/ligand_idx"][()]
    res = f["structures/resolution"][()].astype(np.float64)[st]
    nh = f["ligands/n_heavy_atoms"][()][lig].astype(np.int64)
    nc = f["ligands/n_ccd_heavy_atoms"][()][lig].astype(np.int64)
    occ = f["ligands/occupancy_mean"][()].astype(np.float64)[lig]
    _, keys, _ = site_tables(f)
    best = {}
    for s in np.flatnonzero(eligible):
        good = res[s] > 0 and not np.isnan(res[s])
        comp = nh[s] / nc[s] if nc[s] > 0 else 0.0
        o = -1.0 if np.isnan(occ[s]) else occ[s]
        k = (not good, res[s] if good else 0.0, -comp, -o, keys[s], s)
        g = (int(p90[s]), int(mol[s]))
        if g not in best or k < best[g][0]:
            best[g] = (k, s)
    out = np.zeros(len(p90), bool)
    out[[v[1] for v in best.values()]] = True
    return out


def expected_split(f, seed, test, val, by, t=0.5, keep_copies=False, before=None, time_rules=True,
                   non_redundant=False, tm=None):
    """The sides the documented rule gives (docs/usage.md "Splits"), recomputed from /clusters and the tables;
    returns (side, summary dict with asked, got, deviation, dropped)."""
    ent, keys, follows = site_tables(f)
    n = len(ent)
    fixed = np.full(n, 99, np.int8)
    if not keep_copies:
        fixed[copies(f)] = -2
    if by == "time":
        d = date_of(f)
        cut = before.encode()
        for s in range(n):
            if fixed[s] == 99:
                fixed[s] = -3 if len(d[s]) < 10 else 0 if d[s][:10] < cut else 99
    if non_redundant:
        rep = representatives(f, (fixed == 99) | (fixed == 0))
        fixed[((fixed == 99) | (fixed == 0)) & ~rep] = -4
    lc = np.full(n, -1) if by == "protein" else ligand_components(f, t, tm)
    pk = protein_keys(f)
    elig = np.flatnonzero(fixed == 99)
    uf = UF(n)
    first = {}
    for s in elig:
        first.setdefault(("e", int(ent[s])), s)
        uf.union(first[("e", int(ent[s]))], s)
    for s in elig:
        ks = pk[s] if by != "ligand" else ([int(lc[s])] if lc[s] >= 0 else [])
        for k in sorted(ks):
            first.setdefault(("k", k), s)
            uf.union(first[("k", k)], s)
    size, kmin = {}, {}
    for s in elig:
        r = uf.find(s)
        size[r] = size.get(r, 0) + 1
        if r not in kmin or keys[s] < kmin[r]:
            kmin[r] = keys[s]
    mixed = mix64(seed ^ 0x73706C6974)
    u = {r: (mix64(fnv1a(k) ^ mixed) >> 11) * 2.0 ** -53 for r, k in kmin.items()}
    order = sorted(u, key=lambda r: (u[r], r))
    E = len(elig)
    timed = by == "time"
    drops = by == "both" or (timed and time_rules)
    tt = E * (test / (test + val)) if timed else test * E
    tv = float(E) if timed else val * E
    best = None
    for it in range(32 if by == "both" else 1):
        cur, cs = [0, 0, 0], {}
        for r in order:
            k = 2 if cur[2] + size[r] <= tt else 1 if cur[1] + size[r] <= tv else 0
            cur[k] += size[r]
            cs[r] = k
        side = fixed.copy()
        for s in elig:
            side[s] = cs[uf.find(s)]
        dropped = 0
        if drops:
            tr = side == 0
            tl = set(lc[tr & (lc >= 0)].tolist())
            tp = set().union(*[pk[s] for s in np.flatnonzero(tr)]) if timed else set()
            for s in np.flatnonzero((side == 1) | (side == 2)):
                if (lc[s] >= 0 and lc[s] in tl) or (pk[s] & tp):
                    side[s] = -1
                    dropped += 1
        cnt = [int((side == k).sum()) for k in range(3)]
        tot = sum(cnt)
        got = [c / tot if tot > 0 else 0 for c in cnt]
        asked = [1 - test - val, val, test]
        if timed:
            vt = got[1] + got[2]
            asked = [got[0], vt * (val / (test + val)), vt * (test / (test + val))]
        dev = max(abs(g - a) for g, a in zip(got, asked))
        if best is None or dev < best[1]["deviation"]:
            best = (side, {"asked": asked, "got": got, "deviation": dev, "dropped": dropped, "passes": it + 1})
        if dev <= 0.02:
            break
        tt = tt * (test / got[2]) if got[2] > 0 else tt * 2
        tv = tv * (val / got[1]) if got[1] > 0 else tv * 2
        tt, tv = min(tt, float(E)), min(tv, float(E))
    return best


def max_cross_tanimoto(f, side, tm=None):
    """Largest Tanimoto (stored fingerprints) between a train and a val/test site's molecule, ions and artifacts
    apart."""
    _, _, follows = site_tables(f)
    mol = f["clusters/ligand_molecule"][()]
    tm = tanimoto_matrix(f) if tm is None else tm
    a = np.unique(mol[(side == 0) & ~follows])
    b = np.unique(mol[(side > 0) & ~follows])
    return float(tm[np.ix_(b, a)].max()) if len(a) and len(b) else 0.0


def check_apart(f, side, by, t=0.5, tm=None):
    """No val/test site shares an entry or (by) a protein cluster of any chain it contacts / a ligand
    component at t with a train site; returns the list of problems."""
    ent, keys, follows = site_tables(f)
    pk = protein_keys(f)
    lc = ligand_components(f, t, tm)
    bad = []
    tr = side == 0
    train_e = set(ent[tr].tolist())
    train_p = set().union(*[pk[s] for s in np.flatnonzero(tr)])
    train_l = set(lc[tr & (lc >= 0)].tolist())
    for s in np.flatnonzero(side > 0):
        nm = ['train', 'val', 'test'][side[s]]
        if by != "time" and ent[s] in train_e:
            bad.append(f"site {s} ({nm}) shares entry {ent[s]} with train")
        if by in ("protein", "both", "time") and pk[s] & train_p:
            bad.append(f"site {s} ({nm}) shares protein clusters {sorted(pk[s] & train_p)} with train")
        if by in ("ligand", "both", "time") and lc[s] >= 0 and lc[s] in train_l:
            bad.append(f"site {s} ({nm}) shares ligand component {lc[s]} with train")
    return bad


def codes_ok(d):
    c = d.attrs["codes"]
    c = c.decode() if isinstance(c, bytes) else c
    return json.loads(c) == {"-4": "redundant", "-3": "undated", "-2": "copy", "-1": "dropped", "0": "train", "1": "val", "2": "test"}


def rdkit_agreement(h5, f):
    """The C fingerprints of /clusters against RDKit's Morgan(radius 2, 2048 bits) of the same ligand graphs
    (Site.to_rdkit of each molecule's site: most heavy atoms, first on ties, the rule of sitepack cluster).
    Returns (stats dict, {molecule row: RDKit-Butina cluster}). ImportError without RDKit or the package."""
    from rdkit import Chem, DataStructs, RDLogger
    from rdkit.Chem import AllChem
    from rdkit.ML.Cluster import Butina
    import sitepack
    RDLogger.DisableLog("rdApp.*")
    ds = sitepack.open(h5)
    c = f["clusters"]
    mol = c["ligand_molecule"][()]
    fpb = c["fingerprint"][()]
    nh = f["ligands/n_heavy_atoms"][()][f["sites/ligand_idx"][()]]
    rep = {}
    for s in range(len(mol)):
        if mol[s] not in rep or nh[s] > nh[rep[mol[s]]]:
            rep[mol[s]] = s
    keep, rfp = [], []
    for m in range(fpb.shape[0]):
        try:
            rm = Chem.RemoveHs(ds[rep[m]].to_rdkit())
        except Exception:
            continue
        keep.append(m)
        rfp.append(AllChem.GetMorganFingerprintAsBitVect(rm, 2, nBits=2048))
    bits = np.unpackbits(fpb[keep], axis=1, bitorder="little").astype(np.int32)
    cnt = bits.sum(1)
    inter = bits @ bits.T
    union = cnt[:, None] + cnt[None, :] - inter
    tc = np.where(union > 0, inter / np.maximum(union, 1), 0.0)
    tr = np.array([DataStructs.BulkTanimotoSimilarity(x, rfp) for x in rfp])
    iu = np.triu_indices(len(keep), 1)
    a, b = tc[iu], tr[iu]
    dist = []
    for i in range(1, len(rfp)):
        dist.extend(1 - np.array(DataStructs.BulkTanimotoSimilarity(rfp[i], rfp[:i])))
    rcl = Butina.ClusterData(dist, len(rfp), 0.5, isDistData=True, reordering=False)
    rlab = np.empty(len(rfp), int)
    for k, cc in enumerate(rcl):
        rlab[list(cc)] = k
    mine = c["ligand"][()]
    clab = np.array([mine[rep[m]] for m in keep])
    comember = ((rlab[:, None] == rlab[None, :]) == (clab[:, None] == clab[None, :]))[iu].mean()
    stats = {"molecules": len(keep), "of": int(fpb.shape[0]), "pairs": int(len(a)),
             "pearson": round(float(np.corrcoef(a, b)[0, 1]), 4), "mean_abs_diff": round(float(np.abs(a - b).mean()), 4),
             "threshold_agreement": round(float(((a >= 0.5) == (b >= 0.5)).mean()), 5),
             "equal_bit_count": round(float((cnt == np.array([x.GetNumOnBits() for x in rfp])).mean()), 3),
             "butina_clusters_rdkit": len(rcl), "butina_clusters_c": int(len(set(clab.tolist()))),
             "butina_comembership": round(float(comember), 5)}
    return stats, {m: rlab[k] for k, m in enumerate(keep)}


def rdkit_fps(h5, f):
    """RDKit's Morgan(radius 2, 2048 bits) of each /clusters/fingerprint row, recomputed from the ligand graph
    of the molecule's site (Site.to_rdkit; the site with most heavy atoms, first on ties: sitepack cluster's
    rule), independent of the C fingerprint. {molecule row: ExplicitBitVect}; rows RDKit cannot read are
    missing. ImportError without RDKit."""
    from rdkit import Chem, RDLogger
    from rdkit.Chem import AllChem
    import sitepack
    RDLogger.DisableLog("rdApp.*")
    ds = sitepack.open(h5)
    mol = f["clusters/ligand_molecule"][()]
    nh = f["ligands/n_heavy_atoms"][()][f["sites/ligand_idx"][()]]
    rep = {}
    for s in range(len(mol)):
        if mol[s] not in rep or nh[s] > nh[rep[mol[s]]]:
            rep[mol[s]] = s
    out = {}
    for m, s in sorted(rep.items()):
        try:
            out[int(m)] = AllChem.GetMorganFingerprintAsBitVect(Chem.RemoveHs(ds[s].to_rdkit()), 2, nBits=2048)
        except Exception:
            continue
    return out


def rdkit_cross(f, side, fps, t):
    """Over train x val/test molecule pairs (ions and artifacts apart) with an RDKit fingerprint: the largest
    RDKit Tanimoto, the number of pairs at >= t, and the pairs compared."""
    from rdkit import DataStructs
    _, _, follows = site_tables(f)
    mol = f["clusters/ligand_molecule"][()]
    a = [int(m) for m in np.unique(mol[(side == 0) & ~follows]) if int(m) in fps]
    b = [int(m) for m in np.unique(mol[(side > 0) & ~follows]) if int(m) in fps]
    best, n_over = 0.0, 0
    for m in b:
        sims = DataStructs.BulkTanimotoSimilarity(fps[m], [fps[x] for x in a]) if a else []
        if sims:
            best = max(best, max(sims))
            n_over += sum(1 for x in sims if x >= t)
    return best, n_over, len(a) * len(b)
