#!/usr/bin/python3
"""make bench-export: ligands/s exported to SDF for the whole corpus (sitepack export --all --format sdf
--out FILE.sdf, one multi-molecule SDF), and RDKit's own SDF read rate on the same file (SDMolSupplier
with sanitization), in the same run. Writes results/export-DATE.json and .md (a second run of a day:
export-DATE-2 ...). Wall-clock medians of --repeat runs; the merged file is made once (not timed).

usage: export_bench.py --build BUILD [--shared ../shared] [--out results] [--repeat 5]
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import rdkit
from rdkit import Chem, RDLogger

RDLogger.DisableLog("rdApp.*")


def git_sha(root):
    try:
        return subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def out_path(outdir, day):
    base = os.path.join(outdir, f"export-{day}")
    k = 1
    while os.path.exists(base + ("" if k == 1 else f"-{k}") + ".json"):
        k += 1
    return base + ("" if k == 1 else f"-{k}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared"))
    ap.add_argument("--out", default="results")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    exe = os.path.join(a.build, "bin", "sitepack")
    root = os.path.dirname(os.path.abspath(__file__)) + "/.."
    with tempfile.TemporaryDirectory() as tmp:
        h5 = os.path.join(tmp, "all.h5")
        subprocess.run([exe, "run", "--input", os.path.join(a.shared, "data", "structures"), "--ccd",
                        os.path.join(a.shared, "data", "ccd", "components_excerpt.cif.gz"), "--out", h5, "--force",
                        "--quiet"], check=True, capture_output=True)
        sdf = os.path.join(tmp, "all.sdf")
        t_export, t_read, n_mol, n_read = [], [], 0, 0
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            with open(sdf, "w") as fh:
                subprocess.run([exe, "export", h5, "--all", "--format", "sdf", "--out", "-"], stdout=fh, check=True)
            t_export.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            mols = [m for m in Chem.SDMolSupplier(sdf, sanitize=True, removeHs=False)]
            t_read.append(time.perf_counter() - t0)
            n_mol = len(mols)
            n_read = sum(m is not None for m in mols)
        size = os.path.getsize(sdf)
    me, mr = statistics.median(t_export), statistics.median(t_read)
    res = {
        "benchmark": "export", "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "git_sha": git_sha(root), "host": platform.node(), "cpus": os.cpu_count(),
        "load_avg": os.getloadavg(), "python": platform.python_version(), "rdkit": rdkit.__version__,
        "sitepack": subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.strip(),
        "corpus": "shared/data/structures (CCD excerpt)", "repeat": a.repeat,
        "ligands": n_mol, "sdf_bytes": size,
        "export_seconds": t_export, "export_median_s": me, "export_ligands_per_s": n_mol / me,
        "rdkit_read_seconds": t_read, "rdkit_read_median_s": mr, "rdkit_read_ligands_per_s": n_mol / mr,
        "rdkit_sanitized": n_read,
        "note": "export: wall time of the whole command (process start, HDF5 load of the tables, writing); "
                "RDKit: SDMolSupplier(sanitize=True, removeHs=False) over the same file, in this process",
    }
    os.makedirs(a.out, exist_ok=True)
    base = out_path(a.out, datetime.date.today().isoformat())
    with open(base + ".json", "w") as fh:
        json.dump(res, fh, indent=1)
    with open(base + ".md", "w") as fh:
        fh.write(f"# make bench-export, {res['date']}\n\n"
                 f"host {res['host']} ({res['cpus']} CPUs, load {res['load_avg'][0]:.1f}), git {res['git_sha'][:12]}, "
                 f"{res['sitepack']}, RDKit {res['rdkit']}, Python {res['python']}\n\n"
                 f"| step | ligands | median of {a.repeat} (s) | ligands/s |\n|---|---|---|---|\n"
                 f"| `sitepack export --all --format sdf --out -` ({size / 1e6:.2f} MB SDF) | {n_mol} | {me:.3f} | "
                 f"{n_mol / me:,.0f} |\n"
                 f"| RDKit `SDMolSupplier` read + sanitize of that file | {n_mol} ({n_read} sanitized) | {mr:.3f} | "
                 f"{n_mol / mr:,.0f} |\n\n{res['note']}.\n")
    print(open(base + ".md").read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
