"""sitepack cluster / split on the corpus (docs/usage.md "Splits"), checked independently.

usage: test_split_corpus.py SITEPACK CORPUS_H5 OUTDIR

On a copy of the corpus's merged file (fixture py_corpus):
- cluster (MMseqs2, --threads 2), split --by protein and --by both (seed 1): every site assigned, sides equal
  the documented rule recomputed in Python (split_rule.py), no val/test site shares an entry, a protein cluster
  or (both) a ligand cluster with train;
- proteins, independently of MMseqs2: Biopython local alignments (BLOSUM62, gap -11/-1) of every distinct
  val/test chain sequence against every train one (the chain each site's cluster comes from) of compatible
  length: no pair at >= 30 % identity (identical columns / alignment columns, MMseqs2's --seq-id-mode 0) with
  >= 80 % coverage of both sequences;
- ligands, independently of the C fingerprints: RDKit's Morgan(radius 2, 2048 bits) of the same graphs
  (Site.to_rdkit): Tanimoto agreement, threshold agreement and Butina co-membership with the C clusters; and
  the number of val/test sites whose ligand has an RDKit-Butina cluster with a train ligand (reported);
- writes OUTDIR/split_corpus.json with the numbers (docs/usage.md quotes them).
"""
import json
import os
import shutil
import subprocess
import sys
import time

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import split_rule as R  # noqa: E402

SP, SRC, OUT = sys.argv[1:4]
fails = []
res = {}


def check(cond, msg):
    if not cond:
        fails.append(msg)
        print("FAIL:", msg)


def run(args):
    t = time.time()
    p = subprocess.run(args, capture_output=True, text=True)
    check(p.returncode == 0, f"{' '.join(args[:2])}: exit {p.returncode}: {p.stderr.strip()[:400]}")
    print(p.stdout.strip())
    return time.time() - t


shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)
h5 = f"{OUT}/corpus.h5"
shutil.copy(SRC, h5)
res["cluster_seconds"] = round(run([SP, "cluster", h5, "--threads", "2"]), 2)
for by in ("protein", "both"):
    run([SP, "split", h5, "--seed", "1", "--by", by])

f = h5py.File(h5, "r")
c = f["clusters"]
res["sites"] = int(len(c["ligand"]))
res["protein_clusters_30"] = int(c["chain_protein_30"][()].max() + 1)
res["protein_clusters_90"] = int(c["chain_protein_90"][()].max() + 1)
res["ligand_molecules"] = int(c["fingerprint"].shape[0])
res["ligand_clusters"] = int(c["ligand"][()].max() + 1)
for by in ("protein", "both"):
    side = f["splits/by_" + by][()]
    check(np.isin(side, [-1, 0, 1, 2]).all(), f"--by {by}: a site without a side")
    exp = R.expected_split(f, 1, 0.1, 0.1, by)
    check((side == exp).all(), f"--by {by}: sides differ from the rule at {np.flatnonzero(side != exp)[:10]}")
    bad = R.check_apart(f, side, by)
    check(not bad, f"--by {by}: {bad[:5]}")
    res["by_" + by] = {k: int((side == v).sum()) for k, v in R.SIDES.items()}

# proteins: Biopython against the clusters
from Bio import Align  # noqa: E402
from Bio.Align import substitution_matrices  # noqa: E402

side = f["splits/by_protein"][()]
sc = c["site_chain"][()]
sp = f["chains/seq_ptr"][()]
code = f["sequences/code"][()]
ctype = f["chains/type"][()]
by_side = {0: set(), 1: set()}
for s in np.flatnonzero((sc >= 0) & (side >= 0)):
    ch = sc[s]
    if ctype[ch].startswith(b"polypeptide"):
        by_side[int(side[s] > 0)].add(code[sp[ch]:sp[ch + 1]].tobytes().decode())
al = Align.PairwiseAligner()
al.mode = "local"
al.substitution_matrix = substitution_matrices.load("BLOSUM62")
al.open_gap_score, al.extend_gap_score = -11, -1
t0, n_al, close = time.time(), 0, []
for q in by_side[1]:
    for t in by_side[0]:
        if min(len(q), len(t)) < 0.6 * max(len(q), len(t)):   # 80 % of both cannot be covered
            continue
        n_al += 1
        try:
            a = al.align(q, t)[0]
        except IndexError:   # no local alignment of positive score
            continue
        qs, ts = a.aligned
        ident = sum(sum(q[x] == t[y] for x, y in zip(range(x0, x1), range(y0, y1))) for (x0, x1), (y0, y1) in zip(qs, ts))
        alen = (qs[-1][1] - qs[0][0]) + sum(max(0, ts[k + 1][0] - ts[k][1]) for k in range(len(ts) - 1))
        qcov, tcov = (qs[-1][1] - qs[0][0]) / len(q), (ts[-1][1] - ts[0][0]) / len(t)
        if ident / alen >= 0.3 and qcov >= 0.8 and tcov >= 0.8:
            close.append((round(ident / alen, 3), round(qcov, 2), round(tcov, 2), len(q), len(t)))
res["biopython"] = {"val_test_sequences": len(by_side[1]), "train_sequences": len(by_side[0]), "alignments": n_al,
                    "seconds": round(time.time() - t0, 1), "pairs_30_80_across_sides": len(close)}
check(not close, f"val/test chains >= 30 % identical (80 % coverage) to a train chain: {close[:5]}")

# ligands: RDKit's Morgan on the same graphs
try:
    res["rdkit"], rl = R.rdkit_agreement(h5, f)
except ImportError as e:
    print("no RDKit:", e)
    sys.exit(1)
fpb = c["fingerprint"]
mol = c["ligand_molecule"][()]
comember = res["rdkit"]["butina_comembership"]
check(res["rdkit"]["molecules"] >= 0.95 * fpb.shape[0], "RDKit read fewer than 95 % of the ligand graphs")
check(res["rdkit"]["pearson"] >= 0.99, "Tanimoto correlation with RDKit below 0.99")
check(res["rdkit"]["threshold_agreement"] >= 0.998, "Tanimoto >= 0.5 decision agrees with RDKit on < 99.8 % of pairs")
check(comember >= 0.999, "Butina co-membership with RDKit's below 99.9 %")
# --by both against RDKit's clusters: val/test sites whose molecule shares an RDKit-Butina cluster with a train one
side = f["splits/by_both"][()]
_, _, follows = R.site_tables(f)
train_rc = {rl[mol[s]] for s in np.flatnonzero((side == 0) & ~follows) if mol[s] in rl}
leak = [s for s in np.flatnonzero((side > 0) & ~follows) if mol[s] in rl and rl[mol[s]] in train_rc]
res["by_both_val_test_sites_in_a_train_rdkit_cluster"] = len(leak)
res["by_both_val_test_sites_compared"] = int(sum(1 for s in np.flatnonzero((side > 0) & ~follows) if mol[s] in rl))

json.dump(res, open(f"{OUT}/split_corpus.json", "w"), indent=1)
print(json.dumps(res, indent=1))
if fails:
    print(f"{len(fails)} failures")
    sys.exit(1)
print("ok")
