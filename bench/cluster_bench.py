#!/usr/bin/python3
"""make bench-cluster: wall time of `sitepack cluster` and `sitepack split` (docs/usage.md "Splits") on the
corpus and on N replicas of it (bench/replicas.sh), and MMseqs2's coarse-level clustering (the command sitepack
runs) on synthetic protein families of growing size, with a linear fit t = a + b * n extrapolated to the PDB's
distinct chain sequences. Writes results/cluster-DATE.json and .md (a second run of a day: cluster-DATE-2 ...).
The merged files are made once (not timed).

usage: cluster_bench.py --build BUILD [--shared ../shared] [--out results] [--threads 2] [--replicas 4]
                        [--synthetic 5000,20000] [--pdb-sequences 120000]
"""
import argparse
import datetime
import json
import os
import platform
import random
import re
import shutil
import subprocess
import tempfile
import time


def git_sha(root):
    try:
        return subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def out_path(outdir, day):
    base = os.path.join(outdir, f"cluster-{day}")
    k = 1
    while os.path.exists(base + ("" if k == 1 else f"-{k}") + ".json"):
        k += 1
    return base + ("" if k == 1 else f"-{k}")


def timed(args):
    t = time.perf_counter()
    p = subprocess.run(args, capture_output=True, text=True, check=True)
    return time.perf_counter() - t, p.stdout.strip()


def sitepack_set(exe, h5, threads):
    """cluster + three splits of one merged file: seconds and the summary lines."""
    r = {}
    r["cluster_s"], r["cluster_line"] = timed([exe, "cluster", h5, "--threads", str(threads), "--force"])
    for by in ("protein", "ligand", "both"):
        t, line = timed([exe, "split", h5, "--seed", "1", "--by", by, "--force"])
        r[f"split_{by}_s"], r[f"split_{by}_line"] = t, line.splitlines()[0]
    m = re.search(r"(\d+) sites, (\d+) chains .*?(\d+) distinct protein sequences\): (\d+) chain clusters at "
                  r".*?\((\d+) of protein chains.*?, (\d+) at .*?\((\d+) of protein chains.*?"
                  r"(\d+) molecules in (\d+) ligand clusters.*?mmseqs ([0-9.]+)", r["cluster_line"])
    if m:
        keys = ("sites", "chains", "distinct_sequences", "clusters_low", "protein_clusters_low", "clusters_high",
                "protein_clusters_high", "molecules", "ligand_clusters")
        r.update({k: int(v) for k, v in zip(keys, m.groups()[:9])})
        r["mmseqs_s"] = float(m.group(10))
    return r


def synthetic(n, path, seed=1):
    """n sequences in families of 10 (150-350 residues, 10-60 % of positions mutated per member)."""
    rnd = random.Random(seed)
    aa = "ACDEFGHIKLMNPQRSTVWY"
    with open(path, "w") as f:
        k = 0
        while k < n:
            base = [rnd.choice(aa) for _ in range(rnd.randint(150, 350))]
            for _ in range(10):
                mut = rnd.uniform(0.1, 0.6)
                f.write(f">u{k}\n{''.join(rnd.choice(aa) if rnd.random() < mut else c for c in base)}\n")
                k += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared"))
    ap.add_argument("--out", default="results")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--replicas", type=int, default=4)
    ap.add_argument("--synthetic", default="5000,20000")
    ap.add_argument("--pdb-sequences", type=int, default=120000)
    ap.add_argument("--mmseqs", default="mmseqs")
    a = ap.parse_args()
    exe = os.path.abspath(os.path.join(a.build, "bin", "sitepack"))
    root = os.path.dirname(os.path.abspath(__file__)) + "/.."
    structs = os.path.join(a.shared, "data", "structures")
    ccd = os.path.join(a.shared, "data", "ccd", "components_excerpt.cif.gz")
    res = {"git_sha": git_sha(root), "host": platform.node(), "cpus": os.cpu_count(),
           "loadavg_start": os.getloadavg(), "date": datetime.datetime.utcnow().isoformat() + "Z",
           "mmseqs_version": subprocess.run([a.mmseqs, "version"], capture_output=True, text=True).stdout.strip(),
           "threads": a.threads, "inputs": {"structures": os.path.abspath(structs), "ccd": os.path.abspath(ccd)}}
    with tempfile.TemporaryDirectory() as tmp:
        h5 = os.path.join(tmp, "corpus.h5")
        subprocess.run([exe, "run", "--input", structs, "--ccd", ccd, "--out", h5, "--quiet"], check=True,
                       capture_output=True)
        res["corpus"] = sitepack_set(exe, h5, a.threads)
        if a.replicas > 1:
            rep = os.path.join(tmp, "rep")
            subprocess.run(["bash", os.path.join(root, "bench", "replicas.sh"), structs, rep, str(a.replicas)],
                           check=True)
            h5r = os.path.join(tmp, "replicas.h5")
            subprocess.run([exe, "run", "--input", rep, "--ccd", ccd, "--out", h5r, "--quiet"], check=True,
                           capture_output=True)
            res["replicas"] = {"copies": a.replicas, "files": sum(len(fs) for _, _, fs in os.walk(rep))}
            res["replicas"].update(sitepack_set(exe, h5r, a.threads))
            shutil.rmtree(rep)
        pts = []
        for n in [int(x) for x in a.synthetic.split(",") if x]:
            fa = os.path.join(tmp, f"s{n}.fasta")
            synthetic(n, fa)
            t, _ = timed([a.mmseqs, "easy-cluster", fa, os.path.join(tmp, f"r{n}"), os.path.join(tmp, f"w{n}"),
                          "--min-seq-id", "0.3", "-c", "0.8", "--cov-mode", "0", "--cluster-mode", "1",
                          "--threads", str(a.threads), "-v", "1"])
            pts.append((n, round(t, 2)))
        res["mmseqs_synthetic"] = pts
        if len(pts) >= 2:
            (n0, t0), (n1, t1) = pts[0], pts[-1]
            b = (t1 - t0) / (n1 - n0)
            res["projection"] = {"distinct_sequences": a.pdb_sequences, "seconds_per_sequence": b,
                                 "fixed_seconds": t0 - b * n0,
                                 "coarse_level_seconds": round(t0 + b * (a.pdb_sequences - n0), 1),
                                 "note": "linear fit through the smallest and largest synthetic set, same threads; "
                                         "MMseqs2's prefilter is near-linear in n for a fixed sensitivity"}
    res["loadavg_end"] = os.getloadavg()
    os.makedirs(a.out, exist_ok=True)
    base = out_path(a.out, datetime.date.today().isoformat())
    json.dump(res, open(base + ".json", "w"), indent=1)
    with open(base + ".md", "w") as f:
        f.write(f"# sitepack cluster / split, {res['date']}\n\n`make bench-cluster` (bench/cluster_bench.py), git "
                f"{res['git_sha'][:12]}, host {res['host']} ({res['cpus']} CPUs, load {res['loadavg_start'][0]:.1f}), "
                f"{res['mmseqs_version']}, --threads {a.threads}.\n\n")
        for k in ("corpus", "replicas"):
            if k in res:
                r = res[k]
                f.write(f"- {k}: cluster {r['cluster_s']:.1f} s (MMseqs2 {r.get('mmseqs_s', 0):.1f} s); "
                        f"split {r['split_protein_s']:.2f} / {r['split_ligand_s']:.2f} / {r['split_both_s']:.2f} s\n"
                        f"  - {r['cluster_line']}\n  - {r['split_protein_line']}\n  - {r['split_both_line']}\n")
        f.write(f"- MMseqs2 coarse level on synthetic families (n, s): {res['mmseqs_synthetic']}\n")
        if "projection" in res:
            p = res["projection"]
            f.write(f"- projection to {p['distinct_sequences']} distinct sequences: {p['coarse_level_seconds']} s "
                    f"({p['note']})\n")
    print(base + ".json")


if __name__ == "__main__":
    main()
