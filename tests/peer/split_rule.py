"""The split rule of docs/usage.md "Splits", written again in Python from the documentation, and the checks the
split tests share (tests/peer/test_split_sample.py, test_split_corpus.py). Nothing here calls sitepack."""
import json

import numpy as np

M64 = (1 << 64) - 1
SIDES = {"train": 0, "val": 1, "test": 2, "dropped": -1}


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
    follows = np.isin(cls, [b"ion", b"artifact"])
    return ent, keys, follows


def cluster_columns(f):
    """Per-site coarse protein cluster (the column /clusters@protein_low names) and ligand cluster."""
    low = f["clusters"].attrs["protein_low"]
    low = low.decode() if isinstance(low, bytes) else low
    return f["clusters"][low][()], f["clusters/ligand"][()]


def component_keys(f, by):
    """Per site, the key of its component: the smallest entry key among the sites joined with it (by entry
    always; by coarse protein cluster for "protein" / "both"; by ligand cluster, ions and artifacts apart,
    for "ligand")."""
    ent, keys, follows = site_tables(f)
    pcl, lcl = cluster_columns(f)
    n = len(ent)
    uf = UF(n)
    first = {}
    groups = [("e", ent, np.zeros(n, bool))]
    if by in ("protein", "both"):
        groups.append(("p", pcl, pcl < 0))
    if by == "ligand":
        groups.append(("l", lcl, (lcl < 0) | follows))
    for tag, col, skip in groups:
        for s in range(n):
            if skip[s]:
                continue
            k = (tag, int(col[s]))
            if k in first:
                uf.union(first[k], s)
            else:
                first[k] = s
    kmin = {}
    for s in range(n):
        r = uf.find(s)
        if r not in kmin or keys[s] < kmin[r]:
            kmin[r] = keys[s]
    return [kmin[uf.find(s)] for s in range(n)]


def expected_split(f, seed, test, val, by):
    """The sides the documented rule gives, recomputed from /clusters and the tables."""
    _, _, follows = site_tables(f)
    _, lcl = cluster_columns(f)
    side = np.array([side_of_key(k, seed, test, val) for k in component_keys(f, by)], dtype=np.int8)
    if by == "both":
        train_l = set(lcl[(side == 0) & ~follows & (lcl >= 0)].tolist())
        drop = (side != 0) & ~follows & (lcl >= 0) & np.isin(lcl, list(train_l))
        side[drop] = -1
    return side


def check_apart(f, side, by):
    """No val/test site shares an entry or (by) a cluster with a train site; returns the list of problems."""
    ent, keys, follows = site_tables(f)
    pcl, lcl = cluster_columns(f)
    bad = []
    tr = side == 0
    for name, col, use in (("entry", ent, np.ones(len(side), bool)), ("protein", pcl, pcl >= 0),
                           ("ligand", lcl, (lcl >= 0) & ~follows)):
        if name == "protein" and by == "ligand" or name == "ligand" and by == "protein":
            continue
        train_vals = set(col[tr & use].tolist())
        for s in np.flatnonzero((side > 0) & use):
            if col[s] in train_vals:
                bad.append(f"site {s} ({['train', 'val', 'test'][side[s]]}) shares {name} {col[s]} with train")
    return bad


def codes_ok(d):
    c = d.attrs["codes"]
    c = c.decode() if isinstance(c, bytes) else c
    return json.loads(c) == {"-1": "dropped", "0": "train", "1": "val", "2": "test"}


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
