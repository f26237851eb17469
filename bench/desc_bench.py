#!/usr/bin/python3
"""make bench-desc: the ligand descriptors' share of `sitepack run` (issue 36: under 10 % of the run), and RDKit's
Python computing the same descriptors on the same molecules, in one run.

Sides, alternating (each leads in turn), REPS times each, medians:
  np1, np2: `mpirun -np N sitepack run --input DATA --ccd CCD --out SCRATCH/desc.h5 --force --quiet` on the corpus;
      from its run report: work_seconds (the tasks' own seconds by phase, all ranks summed; "descriptors" = the
      time in the RDKit shim, sp_sv_component_desc of the survey and sp_pl_fill_ligand_desc of each site, timed
      around the calls) and wall_seconds. The share: descriptors / the sum of work_seconds (the task work), and
      descriptors / (wall_seconds x N) (the ranks' whole time); the wall clock of the whole command too.
  before1, before2 (--before BUILD2): an earlier build's sitepack, the same commands (before/after in one run).
  rdkit: `/usr/bin/python3 bench/desc_rdkit.py SDF_DIR` in a fresh process: RDKit's Descriptors, rdMolDescriptors
      and QED on every ligand's SDF record as `sitepack export` writes it (made once, before the reps, from the
      run's output), plain (every record) and cached (once per canonical SMILES, as sitepack does); wall and CPU.
The ratio: RDKit's seconds (each loop) / sitepack's descriptor seconds at -np 1.
Writes results/desc-<UTC date>.json and .md (a later run of the same day: desc-<date>-2, ...), with provenance: git
sha (and whether src/ has uncommitted changes), host, CPUs, load averages before and after every rep, Open MPI,
HDF5, RDKit versions, the inputs.
Usage: desc_bench.py --build BUILD --shared ../shared --out results [--reps 5] [--before BUILD2]
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3"
sys.path.insert(0, HERE)
from job_bench import _cache, inputs, mpirun_flags, sh  # noqa: E402  (the same provenance helpers)


def run_sitepack(a, build, np):
    out = os.path.join(a.scratch, "desc.h5")
    cmd = ["mpirun"] + mpirun_flags() + ["-np", str(np), os.path.join(build, "bin", "sitepack"), "run", "--input",
                                         a.data, "--ccd", a.ccd, "--out", out, "--force", "--quiet"]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    with open(out[:-3] + ".report.json") as f:
        r = json.load(f)
    w = r["work_seconds"]
    work = sum(w.values())
    return {"wall_s": wall, "report_wall_s": r["wall_seconds"], "work_seconds": w, "work_s": work,
            "descriptors_s": w["descriptors"], "share_of_work": w["descriptors"] / work,
            "share_of_rank_time": w["descriptors"] / (r["wall_seconds"] * np), "ligands": r["ligands"]}


def run_rdkit(sdf_dir):
    t0 = time.perf_counter()
    r = json.loads(sh([PY, os.path.join(HERE, "desc_rdkit.py"), sdf_dir]))
    r["wall_s"] = time.perf_counter() - t0
    return r


def export_sdf(a):
    """The run's ligands as SDF records (the peer's molecules), from one -np 1 run of this build."""
    run_sitepack(a, a.build, 1)
    d = os.path.join(a.scratch, "desc_sdf")
    subprocess.run([os.path.join(a.build, "bin", "sitepack"), "export", os.path.join(a.scratch, "desc.h5"), "--all",
                    "--format", "sdf", "--out", d, "--force"], check=True, stdout=subprocess.DEVNULL)
    return d


def summarize(reps, np):
    med = statistics.median
    return {"np": np, "reps": reps, "median_wall_s": med(x["wall_s"] for x in reps),
            "median_report_wall_s": med(x["report_wall_s"] for x in reps),
            "median_work_s": med(x["work_s"] for x in reps),
            "median_descriptors_s": med(x["descriptors_s"] for x in reps),
            "median_share_of_work": med(x["share_of_work"] for x in reps),
            "median_share_of_rank_time": med(x["share_of_rank_time"] for x in reps)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--out", default="results")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--scratch", default="/tmp/sitepack-bench")
    ap.add_argument("--before", default="", help="build directory of an earlier sitepack, run as more sides")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    a.data = os.path.abspath(os.path.join(a.shared, "data", "structures"))
    a.ccd = os.path.abspath(os.path.join(a.shared, "data", "ccd", "components_excerpt.cif.gz"))
    os.makedirs(a.scratch, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)
    before = os.path.abspath(a.before) if a.before else None
    load_start = list(os.getloadavg())
    sdf = export_sdf(a)  # also the warm-up of this build's side
    sides = {"np1": (a.build, 1), "np2": (a.build, 2)}
    if before:
        sides.update({"before1": (before, 1), "before2": (before, 2)})
        run_sitepack(a, before, 1)  # its warm-up
    names = list(sides) + ["rdkit"]
    got = {k: [] for k in names}
    loads = []
    for rep in range(a.reps):
        order = names[rep % len(names):] + names[:rep % len(names)]
        l0 = os.getloadavg()[0]
        for k in order:
            got[k].append(run_rdkit(sdf) if k == "rdkit" else run_sitepack(a, *sides[k]))
        loads.append([round(l0, 2), round(os.getloadavg()[0], 2)])
        print("rep %d: %s, load %.2f/%.2f" % (rep, ", ".join(
            "%s %.2f s" % (k, got[k][-1]["wall_s"]) for k in names), *loads[-1]), flush=True)
    med = statistics.median
    res = {k: summarize(got[k], sides[k][1]) for k in sides}
    rd = got["rdkit"]
    res["rdkit"] = {"reps": rd, "records": rd[0]["records"], "distinct": rd[0]["distinct"], "failed": rd[0]["failed"]}
    for k in ("plain_s", "plain_cpu_s", "cached_s", "cached_cpu_s", "wall_s"):
        res["rdkit"]["median_" + k] = med(x[k] for x in rd)
    d1 = res["np1"]["median_descriptors_s"]
    res["ratio_rdkit_plain_over_sitepack"] = res["rdkit"]["median_plain_s"] / d1
    res["ratio_rdkit_cached_over_sitepack"] = res["rdkit"]["median_cached_s"] / d1
    res["ms_per_distinct_molecule"] = {"sitepack_np1": 1e3 * d1 / rd[0]["distinct"],
                                       "rdkit_cached": 1e3 * res["rdkit"]["median_cached_s"] / rd[0]["distinct"]}
    if before:
        res["ms_per_distinct_molecule"]["before_np1"] = 1e3 * res["before1"]["median_descriptors_s"] / rd[0]["distinct"]
    res["load_per_rep"] = loads
    from rdkit import rdBase
    try:
        hdf5 = sh(["dpkg-query", "-W", "-f=${Version}", "libhdf5-openmpi-dev"])
    except Exception:
        hdf5 = None
    dirty = bool(sh(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no", "--", "src", "include",
                     "bench"]).strip())
    res["provenance"] = {
        "date_utc": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
        "git_sha": sh(["git", "-C", ROOT, "rev-parse", "HEAD"]).strip(), "git_dirty": dirty,
        "host": platform.node(), "n_cpus": os.cpu_count(), "kernel": platform.release(),
        "loadavg_start": load_start, "loadavg_end": list(os.getloadavg()),
        "mpi": sh(["mpirun", "--version"]).splitlines()[0], "hdf5": hdf5, "rdkit": rdBase.rdkitVersion,
        "python": sys.version.split()[0],
        "sitepack": sh([os.path.join(a.build, "bin", "sitepack"), "--version"]).strip(),
        "before": sh([os.path.join(before, "bin", "sitepack"), "--version"]).strip() if before else None,
        "cmake_build_type": _cache(a.build, "CMAKE_BUILD_TYPE"), "reps": a.reps,
        "inputs": inputs(a.data), "ccd": {"path": a.ccd, "bytes": os.path.getsize(a.ccd)}, "sdf_dir": sdf,
        "timing": "sitepack: the run report's work_seconds (task seconds by phase, wall clock inside the tasks) and "
                  "wall_seconds; the whole command's wall clock; RDKit: its two loops' perf_counter and process_time "
                  "in one process; files in the page cache (warm-up runs first); sides alternating; medians",
    }
    day = datetime.datetime.utcnow().strftime("%Y-%m-%d")
    stem, k = "desc-%s" % day, 1
    while os.path.exists(os.path.join(a.out, stem + ".json")) or os.path.exists(os.path.join(a.out, stem + ".md")):
        k += 1
        stem = "desc-%s-%d" % (day, k)
    with open(os.path.join(a.out, stem + ".json"), "w") as f:
        json.dump(res, f, indent=1)
    with open(os.path.join(a.out, stem + ".md"), "w") as f:
        f.write(markdown(res))
    print("descriptors %.1f %% of the task work at -np 1, %.1f %% at -np 2; RDKit Python %.2fx (plain), %.2fx "
          "(cached); wrote %s" % (100 * res["np1"]["median_share_of_work"], 100 * res["np2"]["median_share_of_work"],
                                  res["ratio_rdkit_plain_over_sitepack"], res["ratio_rdkit_cached_over_sitepack"],
                                  os.path.join(a.out, stem + ".json")))


def markdown(r):
    p, rd = r["provenance"], r["rdkit"]
    i = p["inputs"]
    out = ["# Ligand descriptors: their share of `sitepack run`, and RDKit's Python on the same molecules (%s)" %
           p["date_utc"], "",
           "git %s%s, %s (%d CPUs), %s, HDF5 %s, RDKit %s, Python %s, %s build; median of %d, sides alternating; "
           "`make bench-desc` (bench/desc_bench.py, bench/desc_rdkit.py)." % (
               p["git_sha"][:12], " (dirty)" if p["git_dirty"] else "", p["host"], p["n_cpus"], p["mpi"], p["hdf5"],
               p["rdkit"], p["python"], p["cmake_build_type"], p["reps"]), "",
           "Inputs: %s, %d files, %.1f MB; CCD %s. Load averages (1, 5, 15 min) at the start %s, at the end %s; "
           "1-minute load before/after each rep: %s." % (
               i["dir"], i["files"], i["bytes"] / 1e6, os.path.basename(p["ccd"]["path"]),
               " / ".join("%.2f" % x for x in p["loadavg_start"]), " / ".join("%.2f" % x for x in p["loadavg_end"]),
               ", ".join("%.1f/%.1f" % tuple(x) for x in r["load_per_rep"])), "",
           "| side | descriptors s | task work s | share of task work | share of rank time | report wall s | "
           "command wall s |", "|---|---|---|---|---|---|---|"]
    for k in ("np1", "np2", "before1", "before2"):
        if k in r:
            s = r[k]
            out.append("| %s -np %d | %.3f | %.3f | %.1f %% | %.1f %% | %.2f | %.2f |" % (
                "sitepack" if k.startswith("np") else "before (%s)" % p["before"], s["np"], s["median_descriptors_s"],
                s["median_work_s"], 100 * s["median_share_of_work"], 100 * s["median_share_of_rank_time"],
                s["median_report_wall_s"], s["median_wall_s"]))
    m = r["ms_per_distinct_molecule"]
    out += ["", "RDKit's Python (%s records, %d distinct molecules by canonical SMILES, %d failed): plain %.2f s "
            "(CPU %.2f s), cached %.2f s (CPU %.2f s). **Ratio RDKit / sitepack's descriptors at -np 1: %.1fx plain, "
            "%.1fx cached.** Per distinct molecule: sitepack %.2f ms%s, RDKit cached %.2f ms (sitepack's seconds also "
            "hold the CCD components' descriptors, from their definitions; RDKit's only the instances)." % (
                rd["records"], rd["distinct"], rd["failed"], rd["median_plain_s"], rd["median_plain_cpu_s"],
                rd["median_cached_s"], rd["median_cached_cpu_s"], r["ratio_rdkit_plain_over_sitepack"],
                r["ratio_rdkit_cached_over_sitepack"], m["sitepack_np1"],
                " (before %.2f ms)" % m["before_np1"] if "before_np1" in m else "", m["rdkit_cached"]), ""]
    return "\n".join(out)


if __name__ == "__main__":
    main()
