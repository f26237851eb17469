#!/usr/bin/python3
"""make bench-job: the whole job per core, sitepack against a minimal gemmi pipeline, in one run.

(a) sitepack: `mpirun -np NP sitepack run --input DATA --ccd CCD --out SCRATCH/job.h5 --force --quiet`
    (NP = 1: one core); the wall clock of the whole command (mpirun's start, the scan, every file read,
    hashed, parsed, surveyed, its sites with their chemistry (protonation at pH 7.4, interactions, bonds,
    SASA), the per-rank HDF5 write, the merge, the report). The run report's phases are kept per rep:
    steps_seconds (scan, merge, ...) and work_seconds (read, sha256, parse, survey, site, chemistry, write).
(b) gemmi: `/usr/bin/python3 bench/job_gemmi.py DATA` in a fresh process (one core): read every file with
    gemmi, ligands = residues of a non-polymer entity that are not water, their residues within 6 A with
    gemmi.NeighborSearch; nothing written. The wall clock of the whole command (Python's start and
    `import gemmi` included, as mpirun's start is on the sitepack side) and the loop's own time.
The two alternate (a b, b a, ...), REPS times each; medians. The ratio is gemmi's median / sitepack's.
Writes results/job-<UTC date>.json and .md (a later run of the same day: job-<date>-2, ...; nothing is
overwritten), with provenance: git sha (and whether src/ has uncommitted changes), host, CPUs, load
averages before and after every rep, Open MPI, HDF5 and gemmi versions, the inputs (files, bytes).
--before BUILD2 runs an earlier build's sitepack as a third side of the same run (before/after).
Usage: job_bench.py --build BUILD --shared ../shared --out results [--reps 5] [--np 1] [--before BUILD2]
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


def sh(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def mpirun_flags():
    f = ["--oversubscribe", "--mca", "osc", "sm", "--mca", "pml", "ob1"]   # one node: docs/usage.md
    return f + (["--allow-run-as-root"] if os.getuid() == 0 else [])


def run_sitepack(a, out, build=None):
    cmd = ["mpirun"] + mpirun_flags() + ["-np", str(a.np), os.path.join(build or a.build, "bin", "sitepack"), "run",
                                         "--input", a.data, "--ccd", a.ccd, "--out", out, "--force", "--quiet"]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    with open(out[:-3] + ".report.json") as f:
        r = json.load(f)
    return {"wall_s": wall, "report_wall_s": r["wall_seconds"], "steps_seconds": r["steps_seconds"],
            "work_seconds": r.get("work_seconds", {}), "ligands": r["ligands"], "sites": r["sites"],
            "site_atoms": r["site_atoms"], "files_ok": r["files"]["ok"] if isinstance(r.get("files"), dict) else None}


def run_gemmi(a):
    t0 = time.perf_counter()
    out = sh([PY, os.path.join(HERE, "job_gemmi.py"), a.data])
    wall = time.perf_counter() - t0
    g = json.loads(out)
    g["wall_s"] = wall
    return g


def inputs(data):
    n = b = 0
    kinds = {}
    for root, _, names in os.walk(data):
        for nm in names:
            n += 1
            b += os.path.getsize(os.path.join(root, nm))
            k = nm.split(".", 1)[1] if "." in nm else ""
            kinds[k] = kinds.get(k, 0) + 1
    return {"dir": data, "files": n, "bytes": b, "by_suffix": kinds}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--out", default="results")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--np", type=int, default=1)
    ap.add_argument("--scratch", default="/tmp/sitepack-bench")
    ap.add_argument("--before", default="", help="build directory of an earlier sitepack, run as a third side")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    a.data = os.path.abspath(os.path.join(a.shared, "data", "structures"))
    a.ccd = os.path.abspath(os.path.join(a.shared, "data", "ccd", "components_excerpt.cif.gz"))
    os.makedirs(a.scratch, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)
    out_h5 = os.path.join(a.scratch, "job.h5")
    before = os.path.abspath(a.before) if a.before else None
    load_start = list(os.getloadavg())
    run_sitepack(a, out_h5)  # warm-up: page cache, every side
    run_gemmi(a)
    sp, gm, bf, loads = [], [], [], []
    sides = ["sp", "gemmi"] + (["before"] if before else [])
    for rep in range(a.reps):
        order = sides[rep % len(sides):] + sides[:rep % len(sides)]  # each side leads in turn
        l0 = os.getloadavg()[0]
        for who in order:
            if who == "sp":
                sp.append(run_sitepack(a, out_h5))
            elif who == "before":
                bf.append(run_sitepack(a, out_h5, before))
            else:
                gm.append(run_gemmi(a))
        loads.append([round(l0, 2), round(os.getloadavg()[0], 2)])
        print("rep %d: sitepack %.2f s, gemmi %.2f s%s, load %.2f/%.2f" % (
            rep, sp[-1]["wall_s"], gm[-1]["wall_s"], ", before %.2f s" % bf[-1]["wall_s"] if bf else "",
            *loads[-1]), flush=True)
    med = statistics.median
    t_sp, t_gm = med(x["wall_s"] for x in sp), med(x["wall_s"] for x in gm)
    phases = {}
    for k in sp[0]["work_seconds"]:
        phases[k] = med(x["work_seconds"][k] for x in sp)
    for k in ("scan", "file heads", "CCD", "resume", "per-rank output", "phase A", "phase B", "close output",
              "merge", "report"):
        if k in sp[0]["steps_seconds"]:
            phases["step " + k] = med(x["steps_seconds"][k] for x in sp)
    res = {
        "sitepack": {"reps": sp, "median_wall_s": t_sp, "median_report_wall_s": med(x["report_wall_s"] for x in sp),
                     "median_phases_s": phases},
        "gemmi": {"reps": gm, "median_wall_s": t_gm, "median_loop_s": med(x["seconds"] for x in gm)},
        "ratio": t_gm / t_sp,
        "ratio_per_rep_median": med(g["wall_s"] / s["wall_s"] for g, s in zip(gm, sp)),
        "load_per_rep": loads,
    }
    if bf:
        ph_b = {k: med(x["work_seconds"].get(k, float("nan")) for x in bf) for k in sp[0]["work_seconds"]}
        for k in ("phase A", "merge"):
            ph_b["step " + k] = med(x["steps_seconds"][k] for x in bf)
        res["before"] = {"build": before, "sitepack": sh([os.path.join(before, "bin", "sitepack"), "--version"]).strip(),
                         "reps": bf, "median_wall_s": med(x["wall_s"] for x in bf), "median_phases_s": ph_b,
                         "ratio": t_gm / med(x["wall_s"] for x in bf),
                         "ratio_per_rep_median": med(g["wall_s"] / b["wall_s"] for g, b in zip(gm, bf))}
    import gemmi
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
        "mpi": sh(["mpirun", "--version"]).splitlines()[0], "hdf5": hdf5, "gemmi": gemmi.__version__,
        "python": sys.version.split()[0], "sitepack": sh([os.path.join(a.build, "bin", "sitepack"), "--version"]).strip(),
        "cmake_build_type": _cache(a.build, "CMAKE_BUILD_TYPE"), "np": a.np, "reps": a.reps,
        "inputs": inputs(a.data), "ccd": {"path": a.ccd, "bytes": os.path.getsize(a.ccd)},
        "timing": "wall clock of each whole command (time.perf_counter around subprocess.run), files in the page "
                  "cache (one warm-up run of each first), sitepack and gemmi alternating, medians of the reps",
    }
    day = datetime.datetime.utcnow().strftime("%Y-%m-%d")
    stem, k = "job-%s" % day, 1
    while os.path.exists(os.path.join(a.out, stem + ".json")) or os.path.exists(os.path.join(a.out, stem + ".md")):
        k += 1
        stem = "job-%s-%d" % (day, k)
    with open(os.path.join(a.out, stem + ".json"), "w") as f:
        json.dump(res, f, indent=1)
    with open(os.path.join(a.out, stem + ".md"), "w") as f:
        f.write(markdown(res))
    print("ratio %.2fx (per-rep median %.2fx); wrote %s" % (res["ratio"], res["ratio_per_rep_median"],
                                                            os.path.join(a.out, stem + ".json")))


def _cache(build, key):
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return None


def markdown(r):
    p, s, g = r["provenance"], r["sitepack"], r["gemmi"]
    i = p["inputs"]
    out = ["# Whole job per core: sitepack vs a minimal gemmi pipeline (%s)" % p["date_utc"], "",
           "git %s%s, %s (%d CPUs), %s, HDF5 %s, gemmi %s, Python %s, %s build; median of %d, alternating; "
           "`make bench-job` (bench/job_bench.py)." % (p["git_sha"][:12], " (dirty)" if p["git_dirty"] else "",
                                                      p["host"], p["n_cpus"], p["mpi"], p["hdf5"], p["gemmi"],
                                                      p["python"], p["cmake_build_type"], p["reps"]), "",
           "Inputs: %s, %d files, %.1f MB stored (%s); CCD %s (%.2f MB). Load averages (1, 5, 15 min) at the start "
           "%s, at the end %s; 1-minute load before/after each rep: %s." % (
               i["dir"], i["files"], i["bytes"] / 1e6, ", ".join("%d %s" % (v, k) for k, v in sorted(i["by_suffix"].items())),
               os.path.basename(p["ccd"]["path"]), p["ccd"]["bytes"] / 1e6,
               " / ".join("%.2f" % x for x in p["loadavg_start"]), " / ".join("%.2f" % x for x in p["loadavg_end"]),
               ", ".join("%.1f/%.1f" % tuple(x) for x in r["load_per_rep"])), "",
           "| side | median wall s | per rep (s) | what it does |", "|---|---|---|---|",
           "| sitepack run -np %d | %.2f | %s | scan, SHA-256, read + inflate, parse, ligand survey (CCD), sites at 6 A, "
           "site chemistry (protonation at pH 7.4, PLIP interactions, bonds, SASA), HDF5 write, merge, report: "
           "%d ligands, %d sites, %d site atoms |" % (
               p["np"], s["median_wall_s"], ", ".join("%.2f" % x["wall_s"] for x in s["reps"]), s["reps"][0]["ligands"],
               s["reps"][0]["sites"], s["reps"][0]["site_atoms"]),
           "| gemmi pipeline | %.2f | %s | read_structure, setup_entities, NeighborSearch of model 1, ligands "
           "(non-polymer, not water), residues within 6 A of their heavy atoms: %d ligands, %d site residues, "
           "%d files failed; nothing written (loop alone: median %.2f s) |" % (
               g["median_wall_s"], ", ".join("%.2f" % x["wall_s"] for x in g["reps"]), g["reps"][0]["ligands"],
               g["reps"][0]["site_residues"], g["reps"][0]["failed"], g["median_loop_s"]), "",
           "**Ratio gemmi / sitepack: %.2fx** (median of the per-rep ratios %.2fx)." % (
               r["ratio"], r["ratio_per_rep_median"]), "",
           "Without the start-up of each side (sitepack: the run report's wall_seconds, from after MPI_Init to the "
           "report; mpirun's start and MPI_Init/Finalize are the rest, %.2f s here (median wall - median report wall; "
           "mpirun %s); gemmi: the loop, after Python's start and `import gemmi`): %.2f s against %.2f s, %.2fx%s." % (
               s["median_wall_s"] - s["median_report_wall_s"], " ".join(mpirun_flags()), s["median_report_wall_s"], g["median_loop_s"], g["median_loop_s"] / s["median_report_wall_s"],
               "; before: %.2f s, %.2fx" % (statistics.median(x["report_wall_s"] for x in r["before"]["reps"]),
                                           g["median_loop_s"] / statistics.median(x["report_wall_s"] for x in r["before"]["reps"]))
               if r.get("before") else ""), "",
           "sitepack's phases (medians over the reps; `work_seconds` of the run report = the tasks' own seconds: read "
           "= file read + inflate, sha256, parse, survey, site = search and the site tables, chemistry = bonds, "
           "protonation, interactions, SASA, write = append to the rank's HDF5 file; `step` = the run's steps on "
           "rank 0, wall; phase A holds the tasks):", "", "| phase | s |", "|---|---|"]
    b = r.get("before")
    if b:
        out[-2:] = ["| phase | s | before: s |", "|---|---|---|"]
        for k, v in s["median_phases_s"].items():
            out.append("| %s | %.3f | %s |" % (k, v, "%.3f" % b["median_phases_s"][k] if k in b["median_phases_s"] else ""))
        out += ["", "Before (a third side of the same run, alternating): %s (%s): median wall %.2f s (%s), ratio %.2fx "
                "(per-rep median %.2fx). Its report has no work_seconds (the phases came with this change): "
                "NaN there." % (b["sitepack"], b["build"], b["median_wall_s"], ", ".join("%.2f" % x["wall_s"] for x in b["reps"]),
                                b["ratio"], b["ratio_per_rep_median"])]
    else:
        for k, v in s["median_phases_s"].items():
            out.append("| %s | %.3f |" % (k, v))
    out.append("")
    return "\n".join(out)


def rewrite_md(json_path):
    """Write the .md beside a job-*.json again from its JSON (this script's markdown())."""
    with open(json_path) as f:
        r = json.load(f)
    with open(json_path[:-5] + ".md", "w") as f:
        f.write(markdown(r))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--rewrite-md":
        rewrite_md(sys.argv[2])
    else:
        main()
