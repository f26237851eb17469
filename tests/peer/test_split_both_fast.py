#!/usr/bin/python3
"""`sitepack split --by both` on the bundled sample (fast, no corpus; docs/usage.md "Splits", rule step 3).

usage: test_split_both_fast.py SITEPACK STRUCTURES CCD OUTDIR

The files: every file of the sample (STRUCTURES; its HEM ligand cluster spans the protein clusters of 19HC and
4HHB) and copies of three of them under new entry ids (4HHB as 9HHB, 1STP as 9STP, 1C4Q as 9C4Q: one coarse
protein cluster over two entries each). `sitepack run`, `cluster` (--sensitivity 1: fast; the checks read the
file's own cluster columns), `split --by both`, then, recomputed from /clusters, /sites and /ligands with
numpy (not from the side hash):
  - no entry and no coarse protein cluster of any contacted chain has kept (not dropped) sites on two sides;
  - no ligand component at Tanimoto 0.5 (recomputed from the stored fingerprint bits; ions and artifacts
    apart) has a train site and a kept val or test site, and the largest train-val/test Tanimoto is < 0.5 and
    equals the attribute max_cross_tanimoto;
  - the sites of later files of an entry have the code copy (-2), no other site has;
  - a dropped site is not an ion or artifact, its ligand component has a train site, and its entry and
    protein clusters have no train site: nothing is dropped that the rule keeps;
  - sizes within 2 points of the fractions asked (and the attribute deviation equals the recomputed one);
  - --non-redundant: the rule with one site per (fine protein cluster, molecule) kept; ds.split("redundant");
  - errors exit 2 and write nothing: --max-tanimoto 0 or 1.5, a --before date that leaves train or test
    empty, a date not YYYY-MM-DD, --by time without --before and --before without --by time;
  - the sides equal tests/peer/split_rule.py's recomputation of the documented rule, site by site;
  - the case is not trivial: every side and the dropped set are non-empty, some protein cluster spans
    entries whose keys alone fall on two sides, and some ligand cluster spans protein clusters.
"""
import gzip
import hashlib
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import split_rule as R  # noqa: E402
from cli_checks import check, fails, run  # noqa: E402

SP, STRUCT, CCD, OUT = sys.argv[1:5]
COPIES = [("4hhb.pdb.gz", "9hhb.pdb", "4HHB", "9HHB"), ("1stp.cif", "9stp.cif", "1STP", "9STP"),
          ("1c4q.cif.gz", "9c4q.cif", "1C4Q", "9C4Q")]
SEED, TEST, VAL = 0, 0.25, 0.25


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
p = run([SP, "cluster", h5, "--threads", "2", "--sensitivity", "1"])
# the summary: the MMseqs2 version labelled, the sites without a chain counted from /clusters/site_chain (singular
# for 1: "1 site touches no chain")
ver = subprocess.run(["mmseqs", "version"], capture_output=True, text=True).stdout.strip()
with h5py.File(h5, "r") as f:
    no_chain = int((f["clusters/site_chain"][()] < 0).sum())
touch = "1 site touches no chain" if no_chain == 1 else f"{no_chain} sites touch no chain"
check(f"MMseqs2 {ver}); {touch}; " in p.stdout, f"cluster summary: want 'MMseqs2 {ver}); {touch}': {p.stdout.strip()}")
p = run([SP, "split", h5, "--seed", str(SEED), "--test", str(TEST), "--val", str(VAL), "--by", "both"])
check("Tanimoto " in p.stdout and " (ions, artifacts, detergents excepted; bound < 0.50) (" in p.stdout,
      f"split summary: the Tanimoto bound without its exception: {p.stdout.strip()}")
# one file: "1 file in", not "1 files in"; a missing input named once
p = run([SP, "run", "--input", os.path.join(STRUCT, "1stp.cif"), "--ccd", CCD, "--out", f"{OUT}/one.h5"])
check("sitepack: 1 file in " in p.stdout, f"run summary of one file: {p.stdout.splitlines()[:1]}")
p = subprocess.run([SP, "run", "--input", f"{OUT}/nonexist", "--ccd", CCD, "--out", f"{OUT}/none.h5"],
                   capture_output=True, text=True)
check(p.returncode == 2 and p.stderr.count(f"{OUT}/nonexist") == 1 and
      f"sitepack run: input {OUT}/nonexist: cannot stat: " in p.stderr, f"run --input nonexist: {p.stderr.strip()}")
if fails:
    sys.exit(1)

# --non-redundant: one kept site per (fine protein cluster, molecule), the documented order, then the same rule
run([SP, "split", h5, "--seed", str(SEED), "--test", str(TEST), "--val", str(VAL), "--by", "both", "--non-redundant",
     "--name", "nr", "--quiet", "--no-scores"])
with h5py.File(h5, "r") as f:
    nr = f["splits/nr"][()]
    exp_nr, _ = R.expected_split(f, SEED, TEST, VAL, "both", non_redundant=True)
    high = f["clusters"].attrs["protein_high"]
    p90 = f["clusters"][high.decode() if isinstance(high, bytes) else high][()]
    mol = f["clusters/ligand_molecule"][()]
check((nr == exp_nr).all(), f"--non-redundant: sides differ from the rule at {np.flatnonzero(nr != exp_nr)[:10]}")
placed = nr != -4
groups = {}
for s_ in np.flatnonzero(nr != -2):
    groups.setdefault((int(p90[s_]), int(mol[s_])), []).append(s_)
check(all(sum(placed[g]) == 1 for g in groups.values()), "--non-redundant: a group without exactly one kept site")
check((nr == -4).sum() > 0, "--non-redundant: nothing redundant on the sample (the case is trivial)")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import sitepack  # noqa: E402
check((sitepack.open(h5).split("redundant", name="nr") == np.flatnonzero(nr == -4)).all(), "ds.split('redundant')")

# errors: exit 2, nothing written (the file's bytes and no listing)
digest = hashlib.sha256(open(h5, "rb").read()).hexdigest()
for extra, why in ((["--max-tanimoto", "0"], "--max-tanimoto must be a number in (0, 1], got '0'"),
                   (["--max-tanimoto", "1.5"], "--max-tanimoto must be a number in (0, 1], got '1.5'"),
                   (["--by", "time", "--before", "1900-01-01"], "no site on the train side"),
                   (["--by", "time", "--before", "2100-01-01"], "no site on the val side"),
                   (["--by", "time", "--before", "2015-13"], "not a valid date '2015-13' (YYYY-MM-DD)"),
                   (["--by", "time", "--before", "2010-13-45"], "not a valid date '2010-13-45' (YYYY-MM-DD)"),
                   (["--by", "time", "--before", "2010-02-30"], "not a valid date '2010-02-30' (YYYY-MM-DD)"),
                   (["--by", "time", "--before", "2011-02-29"], "not a valid date '2011-02-29' (YYYY-MM-DD)"),
                   (["--by", "time", "--before", "1900-02-29"], "not a valid date '1900-02-29' (YYYY-MM-DD)"),
                   (["--by", "time", "--before", "2015-99-99"], "not a valid date '2015-99-99' (YYYY-MM-DD)"),
                   (["--by", "time", "--before", "2010-1-1"], "not a valid date '2010-1-1' (YYYY-MM-DD)"),
                   (["--by", "time", "--before", "2010-04-31"], "not a valid date '2010-04-31' (YYYY-MM-DD)"),
                   (["--by", "time"], "--before"), (["--before", "2015-01-01"], "--before")):
    p = subprocess.run([SP, "split", h5, "--name", "bad"] + extra, capture_output=True, text=True)
    check(p.returncode == 2 and why in p.stderr, f"split {' '.join(extra)}: exit {p.returncode}, {p.stderr.strip()}")
check(hashlib.sha256(open(h5, "rb").read()).hexdigest() == digest, "a refused split changed the file")
check(not [x for x in os.listdir(OUT) if "split-bad" in x], "a refused split left a listing")

with h5py.File(h5, "r") as f:
    side = f["splits/by_both"][()]
    attrs = dict(f["splits/by_both"].attrs)
    ent, keys, follows = R.site_tables(f)
    pcl, _ = R.cluster_columns(f)
    pk = R.protein_keys(f)
    lc = R.ligand_components(f, 0.5)
    is_copy = R.copies(f)
    exp, summ = R.expected_split(f, SEED, TEST, VAL, "both")
    cross = R.max_cross_tanimoto(f, side)
    bad = R.check_apart(f, side, "both")
n = len(side)
kept = side >= 0
counts = {k: int((side == v).sum()) for k, v in R.SIDES.items()}
print(f"{n} sites: {counts}; largest train-val/test Tanimoto {cross:.3f}")

# apart: entries, protein clusters of every contacted chain, ligand components at 0.5 (recomputed from the bits)
check(not bad, f"shared with train: {bad[:5]}")
check(cross < 0.5, f"a val/test ligand at Tanimoto {cross} >= 0.5 to a train ligand")
check(abs(attrs["max_cross_tanimoto"] - cross) < 1e-12, f"max_cross_tanimoto {attrs['max_cross_tanimoto']} != {cross}")
# one copy per entry: the sites of later files of an entry are on no side
check((side[is_copy] == -2).all() and (side[~is_copy] != -2).all(), "copy code not exactly on later files' sites")
# dropped: only what the rule drops (not an ion/artifact, its ligand component has a train site, its protein
# component is off train)
train_l = set(lc[(side == 0) & (lc >= 0)].tolist())
train_e = set(ent[side == 0].tolist())
train_p = set().union(*[pk[s] for s in np.flatnonzero(side == 0)])
for s in np.flatnonzero(side == -1):
    check(not follows[s], f"site {s}: an ion or artifact dropped")
    check(lc[s] >= 0 and lc[s] in train_l, f"site {s} dropped, its ligand component {lc[s]} has no train site")
    check(ent[s] not in train_e and not (pk[s] & train_p), f"site {s} dropped, but its component is train")
check((side == exp).all(), f"sides differ from the documented rule at {np.flatnonzero(side != exp)[:10]}")
check(abs(attrs["deviation"] - summ["deviation"]) < 1e-12, f"deviation {attrs['deviation']} != {summ['deviation']}")
check(summ["deviation"] <= 0.02, f"sizes {summ['got']} more than 2 points from {summ['asked']}")
# the case is not trivial
check(min(counts[k] for k in ("train", "val", "test", "dropped", "copy")) > 0, f"an empty side: {counts}: choose another SEED")
lig = lc >= 0
multi_p = [v for v in np.unique(pcl[pcl >= 0]) if len(set(ent[pcl == v].tolist())) > 1]
multi_l = [v for v in np.unique(lc[lig]) if len(set(pcl[lig & (lc == v)].tolist())) > 1]
check(multi_p and multi_l, f"no protein cluster over entries ({multi_p}) or ligand component over proteins ({multi_l})")
split_p = [v for v in multi_p if len({R.side_of_key(keys[s], SEED, TEST, VAL) for s in np.flatnonzero(pcl == v)}) > 1]
check(split_p, "no protein cluster whose entries alone would fall on two sides: the protein rule is not exercised")
if fails:
    print(f"{len(fails)} failures")
    sys.exit(1)
print("ok")
