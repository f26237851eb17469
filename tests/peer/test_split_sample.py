"""sitepack cluster / split on the bundled sample (tests/data; no corpus needed): docs/usage.md "Splits".

usage: test_split_sample.py SITEPACK MPIEXEC STRUCTURES CCD OUTDIR

- the sample run at -np 1 and -np 2 (mpirun), clustered with --threads 1 and 2: /clusters and /splits equal,
  byte for byte (the answer depends neither on ranks nor on MMseqs2 threads); a merge of 2 shards is the
  -np 1 file (compare_h5.py), so it gets the same answer too;
- every site assigned; the sides equal the rule of docs/usage.md recomputed in Python (split_rule.py); no
  val/test site shares an entry, a protein cluster (or, with --by both, a ligand cluster) with train;
- /split_scores equal at -np 1 with MMseqs2 --threads 1 and -np 2 with --threads 2, and on a rerun;
- units / codes / method attributes; sitepack survey's split and strata lines equal the counts of the file; sitepack check still accepts the file; Python ds.split and SiteDataset;
- rerun with --force gives the same bytes; without --force exit 2;
- bad input, exit 2 and nothing written (file bytes and listings unchanged): no /clusters, mmseqs2 missing, a
  file without /sequences, an empty side;
- a new entry added later: the sample without its last entry, clustered and split with the same seed: at most
  15 % of the sites move side (the fill's frontiers move; 9 of 82 measured).
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import split_rule as R  # noqa: E402

SP, MPIEXEC, STRUCT, CCD, OUT = sys.argv[1:6]
MPI = [MPIEXEC, "--allow-run-as-root", "--oversubscribe", "--mca", "osc", "sm"]
SEED = 5
fails = []


def check(cond, msg):
    if not cond:
        fails.append(msg)
        print("FAIL:", msg)


def run(args, rc=0):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != rc:
        print(p.stdout, p.stderr)
    check(p.returncode == rc, f"{' '.join(args[:3])}...: exit {p.returncode}, expected {rc}: {p.stderr.strip()[:300]}")
    return p


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def group_bytes(path, group):
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                out[name] = (obj[()].tobytes(), sorted((k, str(v)) for k, v in obj.attrs.items()))
        f[group].visititems(visit)
        out["@"] = sorted((k, str(v)) for k, v in f[group].attrs.items())
    return out


shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)
a, b = f"{OUT}/np1.h5", f"{OUT}/np2.h5"
run([SP, "run", "--input", STRUCT, "--ccd", CCD, "--out", a, "--quiet"])
run(MPI + ["-np", "2", SP, "run", "--input", STRUCT, "--ccd", CCD, "--out", b, "--quiet"])

# a shard merge (2 shards) is the file of one run: what cluster and split read is the same, so is their answer
for i in (0, 1):
    run([SP, "run", "--input", STRUCT, "--ccd", CCD, "--out", f"{OUT}/shard{i}.h5", "--shard", f"{i}/2", "--quiet"])
run([SP, "merge", f"{OUT}/shards.h5", f"{OUT}/shard0.h5", f"{OUT}/shard1.h5", "--quiet"])
run(["/usr/bin/python3", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration", "compare_h5.py"),
     a, f"{OUT}/shards.h5"])

# bad input before any /clusters: split without clusters; mmseqs2 missing
h0 = sha(a)
p = run([SP, "split", a, "--seed", str(SEED)], rc=2)
check("sitepack cluster" in p.stderr, f"no /clusters: message names the command to run: {p.stderr}")
p = run([SP, "cluster", a, "--mmseqs", f"{OUT}/no-such-mmseqs"], rc=2)
check("is not an executable file" in p.stderr and a in p.stderr, f"mmseqs2 missing: {p.stderr}")
p = run([SP, "cluster", a, "--mmseqs", "no-such-mmseqs"], rc=2)
check("mmseqs2 not found" in p.stderr and "in PATH" in p.stderr, f"mmseqs2 not in PATH: {p.stderr}")
nos = f"{OUT}/noseq.h5"
shutil.copy(a, nos)
with h5py.File(nos, "a") as f:
    del f["sequences"]
h1 = sha(nos)
p = run([SP, "cluster", nos], rc=2)
check("/sequences" in p.stderr and nos in p.stderr, f"no /sequences: {p.stderr}")
check(sha(nos) == h1, "no /sequences: file changed")
check(sha(a) == h0, "bad input changed the file")
check(not [x for x in os.listdir(OUT) if x.startswith(".sitepack-cluster")], "temporary folder left behind")

# cluster both runs (threads 1 and 2): same /clusters
run([SP, "cluster", a, "--threads", "1", "--quiet"])
run([SP, "cluster", b, "--threads", "2", "--quiet"])
ga, gb = group_bytes(a, "clusters"), group_bytes(b, "clusters")
check(ga == gb, f"/clusters differ between -np 1/--threads 1 and -np 2/--threads 2: "
      f"{[k for k in ga if ga.get(k) != gb.get(k)]}")
p = run([SP, "cluster", a], rc=2)
check("--force" in p.stderr, "cluster again without --force: exit 2 naming --force")

with h5py.File(a, "r") as f:
    c = f["clusters"]
    for name in ("protein_30", "protein_90", "chain_protein_30", "chain_protein_90", "ligand", "site_chain",
                 "ligand_molecule"):
        check(name in c and c[name].attrs.get("units") in ("1", b"1"), f"/clusters/{name}: units 1")
        check(c[name].id.get_create_plist().get_layout() == h5py.h5d.CONTIGUOUS, f"/clusters/{name} contiguous")
    check(abs(c["protein_30"].attrs["identity"] - 0.3) < 1e-12 and abs(c["protein_30"].attrs["coverage"] - 0.8) < 1e-12,
          "protein_30: identity / coverage attributes")
    check(abs(c["ligand"].attrs["threshold"] - 0.5) < 1e-12, "ligand: threshold attribute")
    n = len(f["sites/structure_idx"])
    check(c["fingerprint"].shape == (len(np.unique(c["ligand_molecule"][()])), 256), "fingerprint shape")
    # the site's chain: the cluster of the chosen chain
    sc = c["site_chain"][()]
    for lv in ("30", "90"):
        exp = np.where(sc >= 0, c["chain_protein_" + lv][()][np.maximum(sc, 0)], -1)
        check((c["protein_" + lv][()] == exp).all(), f"protein_{lv} is the cluster of site_chain")

# splits: every side rule, P-independence, apartness, rerun bytes
for by in ("protein", "ligand", "both"):
    run([SP, "split", a, "--seed", str(SEED), "--by", by, "--quiet"])
    run([SP, "split", b, "--seed", str(SEED), "--by", by, "--quiet", "--threads", "2"])
    ha = group_bytes(a, "splits")
    hb = group_bytes(b, "splits")
    check(ha == hb, f"--by {by}: /splits differ between -np 1 and -np 2")
    check(group_bytes(a, "split_scores") == group_bytes(b, "split_scores"),
          f"--by {by}: /split_scores differ between -np 1 / MMseqs2 --threads 1 and -np 2 / --threads 2")
    with h5py.File(a, "r") as f:
        side = f["splits/by_" + by][()]
        check(R.codes_ok(f["splits/by_" + by]), f"--by {by}: codes attribute")
        check(np.isin(side, [-2, -1, 0, 1, 2]).all() and len(side) == n, f"--by {by}: every site assigned")
        exp, _ = R.expected_split(f, SEED, 0.1, 0.1, by)
        check((side == exp).all(), f"--by {by}: sides differ from the documented rule at {np.flatnonzero(side != exp)[:10]}")
        bad = R.check_apart(f, side, by)
        check(not bad, f"--by {by}: {bad[:5]}")
        if by != "both":
            check((side != -1).all(), f"--by {by}: dropped sites")
        print(f"--by {by}: sites train/val/test/dropped {[(side == k).sum() for k in (0, 1, 2, -1)]}")
    tsv = f"{OUT}/np1.split-by_{by}.tsv"
    js_text = open(f"{OUT}/np1.split-by_{by}.json").read()
    js = json.loads(js_text)
    # the options' floats in the shortest text that reads back as the same double (Python's repr: 0.1, not
    # 0.10000000000000001)
    for key, want in (("test", 0.1), ("val", 0.1), ("max_tanimoto", None)):
        m = re.search(r'"%s": ([^,\n]+),' % key, js_text)
        text = m.group(1) if m else ""
        check(m is not None and text == repr(float(text)) and (want is None or float(text) == want),
              f"--by {by}: JSON {key} printed as {text!r}, not the shortest round-trip form")
    check(js["sites"]["test"] == int((side == 2).sum()) and js["sites"]["dropped"] == int((side == -1).sum()),
          f"--by {by}: JSON counts")
    lines = open(tsv).read().splitlines()
    check(len(lines) == n + 1 and all(R.SIDES[ln.split("\t")[6]] == side[i] for i, ln in enumerate(lines[1:])),
          f"--by {by}: TSV sides")
    with h5py.File(a, "r") as f:
        strat = f[f"split_scores/by_{by}/stratum"][()]
    names = {-1: "."} | {v: k for k, v in {"not_novel": 0, "novel_protein": 1, "novel_ligand": 2, "novel_both": 3}.items()}
    check(all(ln.split("\t")[9] == names[int(strat[i])] for i, ln in enumerate(lines[1:])), f"--by {by}: TSV strata")
    before, tb = group_bytes(a, "splits"), open(tsv, "rb").read()
    run([SP, "split", a, "--seed", str(SEED), "--by", by], rc=2)
    run([SP, "split", a, "--seed", str(SEED), "--by", by, "--force", "--quiet"])
    check(group_bytes(a, "splits") == before and open(tsv, "rb").read() == tb, f"--by {by}: rerun not byte-identical")
    if by == "both":   # (an MMseqs2 run each: once is enough)
        sc_before = group_bytes(a, "split_scores")
        run([SP, "split", a, "--seed", str(SEED), "--by", by, "--force", "--quiet"])
        check(group_bytes(a, "split_scores") == sc_before, f"--by {by}: rerun scores not byte-identical")

# an empty side: exit 2, nothing written
h0 = sha(a)
p = run([SP, "split", a, "--seed", str(SEED), "--test", "0.000001", "--name", "tiny"], rc=2)
check("no site on the test side" in p.stderr, f"empty side message: {p.stderr}")
check(sha(a) == h0 and not os.path.exists(f"{OUT}/np1.split-tiny.tsv"), "empty side: something written")

run([SP, "check", a, "--quiet"])
# issue 39 item 5: every dataset, /clusters and /splits too, has a description that agrees with its data
run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "test_descriptions.py"), a])

# survey summarizes the splits and their strata (one line per split, one per val / test strata)
p = run([SP, "survey", a])
with h5py.File(a, "r") as f:
    for by in ("both", "ligand", "protein"):
        side = f["splits/by_" + by][()]
        strat = f[f"split_scores/by_{by}/stratum"][()]
        want = (f"split by_{by} (by {by}): train {(side == 0).sum()}, val {(side == 1).sum()}, test {(side == 2).sum()}, "
                f"dropped {(side == -1).sum()}, copy {(side == -2).sum()}, undated {(side == -3).sum()}")
        check(want in p.stdout, f"survey: no line '{want}'")
        t = [int(((side == 2) & (strat == k)).sum()) for k in (3, 1, 2, 0)]
        want = (f"split by_{by} test strata: novel_both {t[0]}, novel_protein {t[1]}, novel_ligand {t[2]}, "
                f"not_novel {t[3]}")
        check(want in p.stdout, f"survey: no line '{want}'")

# the C fingerprints against RDKit's Morgan(2, 2048) on the same graphs
try:
    with h5py.File(a, "r") as f:
        st, _ = R.rdkit_agreement(a, f)
    print("RDKit agreement:", st)
    check(st["molecules"] >= 0.9 * st["of"] and st["pearson"] >= 0.98 and st["threshold_agreement"] >= 0.98,
          f"fingerprints disagree with RDKit: {st}")
except ImportError as e:
    print("no RDKit: fingerprints not compared:", e)

# Python
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import sitepack  # noqa: E402
ds = sitepack.open(a)
with h5py.File(a, "r") as f:
    side = f["splits/by_both"][()]
for s, code in R.SIDES.items():
    check((ds.split(s, name="by_both") == np.flatnonzero(side == code)).all(), f"ds.split({s})")
with h5py.File(a, "r") as f:
    strat = f["split_scores/by_both/stratum"][()]
    ident = f["split_scores/by_both/max_identity"][()]
sc = ds.split_scores("by_both")
check(np.array_equal(sc["stratum"], strat) and np.array_equal(sc["max_identity"], ident, equal_nan=True),
      "ds.split_scores equals /split_scores")
check(((strat >= 0) == ((side == 1) | (side == 2))).all(), "a stratum exactly for the val/test sites")
for st, k in ds.SPLIT_STRATA.items():
    check((ds.split("test", name="by_both", stratum=st) == np.flatnonzero((side == 2) & (strat == k))).all(),
          f"ds.split(test, stratum={st})")
try:
    ds.split("test", name="by_both", stratum="novel")
    check(False, "ds.split with an unknown stratum: no error")
except ValueError:
    pass
try:
    ds.split("train")
    check(False, "ds.split without name among several splits: no error")
except ValueError:
    pass
try:
    from sitepack.torch import SiteDataset
    sd = SiteDataset(ds, split="test", split_name="by_both")
    check(len(sd) == (side == 2).sum() and sd[0]["site"] == np.flatnonzero(side == 2)[0], "SiteDataset(split=)")
    k = int(strat[side == 2][0])
    name_k = [n_ for n_, v in ds.SPLIT_STRATA.items() if v == k][0]
    sd = SiteDataset(ds, split="test", split_name="by_both", split_stratum=name_k)
    check(len(sd) == ((side == 2) & (strat == k)).sum(), "SiteDataset(split_stratum=)")
except ImportError:
    print("no torch: SiteDataset(split=) not checked")

# a new entry added later: the sample without its last entry
with h5py.File(a, "r") as f:
    paths = [x.decode() for x in f["structures/path"][()]]
    eids = f["structures/entry_id"][()]
last = paths[-1]
sub = f"{OUT}/sub_in"
os.makedirs(sub)
for p_ in paths:
    if p_ != last:
        os.makedirs(os.path.dirname(f"{sub}/{p_}"), exist_ok=True)
        os.symlink(os.path.abspath(f"{STRUCT}/{p_}"), f"{sub}/{p_}")
c = f"{OUT}/sub.h5"
run([SP, "run", "--input", sub, "--ccd", CCD, "--out", c, "--quiet"])
run([SP, "cluster", c, "--quiet"])
run([SP, "split", c, "--seed", str(SEED), "--quiet"])


def sides_of(path):
    """(path, ligand residues) -> side of every site."""
    with h5py.File(path, "r") as f:
        side = f["splits/by_protein"][()]
        sp_ = f["structures/path"][()][f["sites/structure_idx"][()]]
        res = f["ligands/residues"][()][f["sites/ligand_idx"][()]]
        return {(sp_[s], res[s]): int(side[s]) for s in range(len(side))}


full, part = sides_of(a), sides_of(c)
moved = [k for k in part if full[k] != part[k]]
new = len(full) - len(part)
print(f"entry added: {len(part)} sites before, {new} added, {len(moved)} moved")
# the fill moves components at its frontiers when one is added (docs/usage.md "Splits": the trade-off); on the
# sample 9 of 82 sites move for an entry of 3 sites; more than 15 % would be a regression
check(len(part) > 0 and len(moved) <= 0.15 * len(part), f"{len(moved)} sites moved side when an entry was added: {moved[:5]}")

# issue 26: /clusters and /splits describe themselves as the rest of the file (units, codes, missing), and
# docs/format.md "Units and codes" lists them
doc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "format.md")
p = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "test_format_attrs.py"),
                    a, doc], capture_output=True, text=True)
check(p.returncode == 0, f"test_format_attrs.py on the clustered and split file: {p.stdout}{p.stderr}")

if fails:
    print(f"{len(fails)} failures")
    sys.exit(1)
print("ok")
