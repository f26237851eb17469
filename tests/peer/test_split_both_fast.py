#!/usr/bin/python3
"""`sitepack split --by both` on the bundled sample (fast, no corpus; docs/usage.md "Splits", rule step 3).

usage: test_split_both_fast.py SITEPACK STRUCTURES CCD OUTDIR

The files: every file of the sample (STRUCTURES; its HEM ligand cluster spans the protein clusters of 19HC and
4HHB) and copies of three of them under new entry ids (4HHB as 9HHB, 1STP as 9STP, 1C4Q as 9C4Q: one coarse
protein cluster over two entries each). `sitepack run`, `cluster` (--sensitivity 1: fast; the checks read the
file's own cluster columns), `split --by both`, then, recomputed from /clusters, /sites and /ligands with
numpy (not from the side hash):
  - no entry and no coarse protein cluster has kept (not dropped) sites on two sides;
  - no ligand cluster (ions and artifacts apart) has a train site and a kept val or test site;
  - a dropped site is not an ion or artifact, its ligand cluster has a train site (ions and artifacts
    apart), and its entry and protein cluster have no train site: nothing is dropped that the rule keeps;
  - the sides equal tests/peer/split_rule.py's recomputation of the documented rule, site by site;
  - the case is not trivial: every side and the dropped set are non-empty, some protein cluster spans
    entries whose keys alone fall on two sides, and some ligand cluster spans protein clusters.
"""
import gzip
import os
import shutil
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import split_rule as R  # noqa: E402
from cli_checks import check, fails, run  # noqa: E402

SP, STRUCT, CCD, OUT = sys.argv[1:5]
COPIES = [("4hhb.pdb.gz", "9hhb.pdb", "4HHB", "9HHB"), ("1stp.cif", "9stp.cif", "1STP", "9STP"),
          ("1c4q.cif.gz", "9c4q.cif", "1C4Q", "9C4Q")]
SEED, TEST, VAL = 3, 0.25, 0.25


shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(f"{OUT}/in")
for fn in sorted(os.listdir(STRUCT)):
    os.symlink(os.path.abspath(os.path.join(STRUCT, fn)), f"{OUT}/in/{fn}")
for src, dst, old, new in COPIES:  # the same chains under another entry id (PDB HEADER idCode, mmCIF _entry.id)
    op = gzip.open if src.endswith(".gz") else open
    with op(os.path.join(STRUCT, src), "rt") as fi, open(f"{OUT}/in/{dst}", "w") as fo:
        fo.write(fi.read().replace(old, new))
h5 = f"{OUT}/both.h5"
run([SP, "run", "--input", f"{OUT}/in", "--ccd", CCD, "--out", h5, "--quiet"])
run([SP, "cluster", h5, "--threads", "2", "--sensitivity", "1", "--quiet"])
run([SP, "split", h5, "--seed", str(SEED), "--test", str(TEST), "--val", str(VAL), "--by", "both", "--quiet"])
if fails:
    sys.exit(1)

with h5py.File(h5, "r") as f:
    side = f["splits/by_both"][()]
    ent, keys, follows = R.site_tables(f)
    pcl, lcl = R.cluster_columns(f)
    exp = R.expected_split(f, SEED, TEST, VAL, "both")
n = len(side)
kept = side >= 0
counts = {k: int((side == v).sum()) for k, v in R.SIDES.items()}
print(f"{n} sites: {counts}")

# apart: entries and coarse protein clusters on one side (of the kept sites)
for name, col, use in (("entry", ent, np.ones(n, bool)), ("protein cluster", pcl, pcl >= 0)):
    for v in np.unique(col[use & kept]):
        sides = set(side[use & kept & (col == v)].tolist())
        check(len(sides) == 1, f"{name} {v}: kept sites on sides {sorted(sides)}")
# ligand clusters: no train site beside a kept val/test site (ions and artifacts apart, on both sides)
lig = (lcl >= 0) & ~follows
train_l = set(lcl[lig & (side == 0)].tolist())
for s in np.flatnonzero(lig & (side > 0)):
    check(lcl[s] not in train_l, f"site {s} (side {side[s]}) shares ligand cluster {lcl[s]} with a train site")
# dropped: only what the rule drops (not an ion/artifact, ligand cluster with a train site, its protein
# component off train: no kept train site shares its entry or protein cluster)
train_e = set(ent[side == 0].tolist())
train_p = set(pcl[(side == 0) & (pcl >= 0)].tolist())
for s in np.flatnonzero(side == -1):
    check(not follows[s], f"site {s}: an ion or artifact dropped")
    check(lcl[s] >= 0 and lcl[s] in train_l, f"site {s} dropped, its ligand cluster {lcl[s]} has no train site")
    check(ent[s] not in train_e and (pcl[s] < 0 or pcl[s] not in train_p), f"site {s} dropped, but its component is train")
check((side == exp).all(), f"sides differ from the documented rule at {np.flatnonzero(side != exp)[:10]}")
# the case is not trivial
check(min(counts.values()) > 0, f"an empty side or nothing dropped: {counts}: choose another SEED")
multi_p = [v for v in np.unique(pcl[pcl >= 0]) if len(set(ent[pcl == v].tolist())) > 1]
multi_l = [v for v in np.unique(lcl[lig]) if len(set(pcl[lig & (lcl == v)].tolist())) > 1]
check(multi_p and multi_l, f"no protein cluster over entries ({multi_p}) or ligand cluster over proteins ({multi_l})")
split_p = [v for v in multi_p if len({R.side_of_key(keys[s], SEED, TEST, VAL) for s in np.flatnonzero(pcl == v)}) > 1]
check(split_p, "no protein cluster whose entries alone would fall on two sides: the protein rule is not exercised")
if fails:
    print(f"{len(fails)} failures")
    sys.exit(1)
print("ok")
