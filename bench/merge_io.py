#!/usr/bin/env python3
"""The parallel merge's write paths on its own extents: pwrite (today), MPI-IO independent and collective,
parallel HDF5 independent and collective (issue 21; docs/decisions.md "The parallel merge").

  make bench-merge-io          (= bench/merge_io.py --build build --shared ../shared --out results)

Input: REPLICAS (4) distinct replicas of SHARED/data/structures (bench/replicas.sh, as `make bench-scaling
SCALING_REPLICAS=4` makes them: 900 files), run as 2 shards (`sitepack run --shard i/2`). The real merge is
`mpirun -np P sitepack merge` of those shards with SITEPACK_MERGE_TRACE (store.h): every rank records the
offset, bytes and seconds of each of its row writes. The extents depend only on the tasks and P, so a merge
of shards writes those of `sitepack run` at -np P.

Per rep (REPS, 5), per P (NP, "1 2"), alternated: the real merge once (its pwrite seconds per rank from its
trace, and its copy step), then for each MPI-IO component (IO, "ompio romio321": `--mca io`) one
`mpirun -np P sitepack_bench_merge_io` that writes the reference trace's extents with every backend (order
rotated by the rep) into a new file under WORK, verifies them, and reports per rank the seconds of the
writes and of open + writes + close. Figures: medians over reps of the slowest rank.

Writes OUT/merge-io-DATE.json and .md (provenance: git sha, host, CPUs, load before/after, Open MPI and HDF5
versions, file system, inputs). Scratch data under WORK (a temporary directory, removed) is never kept.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

BACKENDS = ["pwrite", "mpiio-indep", "mpiio-coll", "phdf5-indep", "phdf5-coll"]


def sh(cmd, env=None, **kw):
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if r.returncode:
        sys.exit(f"failed ({r.returncode}): {' '.join(cmd)}\n{r.stdout[-3000:]}")
    return r.stdout


def mpirun_flags():
    f = ["--oversubscribe", "--mca", "osc", "sm"]
    return f + ["--allow-run-as-root"] if os.geteuid() == 0 else f


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def read_trace(prefix, np_):
    """Per rank: the extents [(offset, bytes)], the pwrite seconds and the copy step's seconds."""
    out = []
    for r in range(np_):
        ext, secs, copy = [], 0.0, None
        with open(f"{prefix}.{r}") as f:
            for line in f:
                if line.startswith("# copy_seconds"):
                    copy = float(line.split()[2])
                elif line.strip():
                    o, b, s = line.split()
                    ext.append((int(o), int(b)))
                    secs += float(s)
        out.append({"extents": ext, "pwrite_s": secs, "copy_s": copy})
    if os.path.exists(f"{prefix}.{np_}"):
        sys.exit(f"trace {prefix} has more than {np_} ranks")
    return out


def provenance(args, src, work):
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    sha = subprocess.run(["git", "-C", src, "rev-parse", "--short=12", "HEAD"], stdout=subprocess.PIPE, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", src, "status", "--porcelain", "--untracked-files=no"], stdout=subprocess.PIPE,
                           text=True).stdout.strip()
    hdf5 = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "libhdf5-openmpi-dev"], stdout=subprocess.PIPE,
                          text=True).stdout.strip()
    fs = subprocess.run(["df", "-T", work], stdout=subprocess.PIPE, text=True).stdout.splitlines()[-1].split()
    return {"git": sha + ("-dirty" if dirty else ""), "host": platform.node(), "cpus": os.cpu_count(), "cpu": cpu,
            "date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
            "mpirun": sh(["mpirun", "--version"]).splitlines()[0], "hdf5": f"libhdf5-openmpi-dev {hdf5}",
            "file_system": f"{fs[1]} ({fs[0]}), {work}", "reps": args.reps, "np": args.np, "io": args.io}


def make_inputs(args, src, sp, work):
    data = os.path.join(args.shared, "data")
    sh([os.path.join(src, "bench/replicas.sh"), os.path.join(data, "structures"), f"{work}/in", str(args.replicas)])
    sh(["sh", "-c", f"cat {work}/in/*/* > /dev/null"])
    files = sum(len(fs) for _, _, fs in os.walk(f"{work}/in"))
    in_bytes = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(f"{work}/in") for f in fs)
    os.makedirs(f"{work}/shards")
    for i in range(2):
        sh(["mpirun"] + mpirun_flags() + ["-np", "2", sp, "run", "--input", f"{work}/in", "--ccd",
            os.path.join(data, "ccd/components_excerpt.cif.gz"), "--shard", f"{i}/2",
            "--out", f"{work}/shards/shard-{i:05d}-of-00002.h5", "--quiet", "--force"])
    return {"replicas": args.replicas, "files": files, "input_bytes": in_bytes,
            "shards": "2 (sitepack run --shard i/2 at -np 2)"}


def real_merge(sp, work, np_, out, trace):
    env = dict(os.environ, SITEPACK_MERGE_TRACE=trace)
    log = sh(["mpirun"] + mpirun_flags() + ["-x", "SITEPACK_MERGE_TRACE", "-np", str(np_), sp, "merge", out,
              f"{work}/shards/shard-*-of-00002.h5", "--force"], env=env)
    m = re.search(r"\(([0-9.]+) s, (\d+) merge rank", log)
    if not m or int(m.group(2)) != np_:
        sys.exit(f"merge at -np {np_}: unexpected output\n{log}")
    return float(m.group(1))


def bench_run(bench, work, np_, io, order):
    out = sh(["mpirun"] + mpirun_flags() + ["--mca", "io", io, "-np", str(np_), bench, "--merged", f"{work}/ref-{np_}.h5",
              "--trace", f"{work}/trace-{np_}", "--out", f"{work}/target.h5", "--backends", ",".join(order)])
    rows = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
    for r in rows:
        if not r.get("skipped") and not r["verified"]:
            sys.exit(f"{r['backend']} at -np {np_} ({io}): the written extents differ from the merged file's")
    return rows


def median_max(rows, key):
    return statistics.median(max(r[key]) for r in rows)


def spread(vals):
    return [min(vals), max(vals)]


def summarise(res):
    """Median over reps of the slowest rank, per (np, io, backend), and of the real merge."""
    out = []
    for np_ in sorted({r["np"] for r in res["merges"]}):
        ms = [m for m in res["merges"] if m["np"] == np_]
        ref = res["reference"][str(np_)]
        nbytes = sum(ref["bytes"])
        pw = statistics.median(max(m["pwrite_s"]) for m in ms)
        out.append({"np": np_, "io": "-", "backend": "sitepack merge (real)", "write_s": pw,
                    "write_s_range": spread([max(m["pwrite_s"]) for m in ms]),
                    "open_write_close_s": statistics.median(max(m["copy_s"]) for m in ms),
                    "merge_wall_s": statistics.median(m["wall_s"] for m in ms), "bytes": nbytes,
                    "extents": ref["extents"], "mb_s": nbytes / pw / 1e6})
        for io in res["io"]:
            for be in BACKENDS:
                rows = [r for r in res["bench"] if r["np"] == np_ and r["io"] == io and r["backend"] == be]
                if not rows or rows[0].get("skipped"):
                    out.append({"np": np_, "io": io, "backend": be, "skipped": rows[0]["skipped"] if rows else "not run"})
                    continue
                w = median_max(rows, "write_s")
                row = {"np": np_, "io": io, "backend": be, "write_s": w,
                       "write_s_range": spread([max(r["write_s"]) for r in rows]),
                       "open_write_close_s": median_max(rows, "open_write_close_s"), "bytes": sum(rows[0]["bytes"]),
                       "extents": rows[0]["extents"], "mb_s": sum(rows[0]["bytes"]) / w / 1e6,
                       "per_rank_write_s": [statistics.median(r["write_s"][k] for r in rows) for k in range(np_)]}
                if "create_s" in rows[0]:
                    row["create_s"] = statistics.median(r["create_s"] for r in rows)
                    row["same_layout_as_serial_api"] = all(r["same_offsets_as_serial_api"] and
                                                           r["file_bytes"] == r["serial_api_file_bytes"] for r in rows)
                out.append(row)
    return out


def paired(res, np_, io, be):
    """The per-rep ratio of backend @p be's slowest-rank write seconds to pwrite's in the same bench run."""
    rows = [b for b in res["bench"] if b["np"] == np_ and b["io"] == io and not b.get("skipped")]
    pw = {b["rep"]: max(b["write_s"]) for b in rows if b["backend"] == "pwrite"}
    rat = [max(b["write_s"]) / pw[b["rep"]] for b in rows if b["backend"] == be and b["rep"] in pw]
    if not rat:
        return f"{be} -"
    return (f"{be} {statistics.median(rat):.2f} [{min(rat):.2f}-{max(rat):.2f}], "
            f"{sum(x < 1 for x in rat)}/{len(rat)}")


def write_md(path, res):
    p, inp = res["provenance"], res["inputs"]
    L = [f"# The parallel merge's write paths: {os.path.basename(path)[:-3]}", "",
         f"git {p['git']}, host {p['host']} ({p['cpus']} CPUs, {p['cpu']}), {p['mpirun']}, {p['hdf5']}; "
         f"file system {p['file_system']}; load average before {res['load_before']}, after {res['load_after']}.", "",
         f"Input: {inp['replicas']} replicas of shared/data/structures = {inp['files']} files "
         f"({inp['input_bytes'] / 1e6:.1f} MB); shards: {inp['shards']}; merged file {inp['merged_bytes'] / 1e6:.1f} MB. "
         f"Extents: those the real `sitepack merge` writes at each -np (SITEPACK_MERGE_TRACE), the same for every "
         f"backend. Median of {p['reps']} alternated reps (rep r: the real merge, then each MPI-IO component's "
         f"bench run, backends in an order rotated by r) of the slowest rank.", "",
         "| -np | MPI-IO component | backend | write s | (min-max) | MB/s | open+write+close s | create s | extents per rank | note |",
         "|---|---|---|---|---|---|---|---|---|---|"]
    for r in res["summary"]:
        if r.get("skipped"):
            L.append(f"| {r['np']} | {r['io']} | {r['backend']} | - | - | - | - | - | - | skipped: {r['skipped']} |")
            continue
        note = ""
        if r["backend"].startswith("sitepack"):
            note = f"pwrite seconds of the traced merge; next column: its copy step (reads, index translation, writes); merge wall {r['merge_wall_s']:.3f} s"
        elif "same_layout_as_serial_api" in r:
            note = ("same dataset offsets and file size as the same calls through the serial API"
                    if r["same_layout_as_serial_api"] else "layout differs from the same calls through the serial API")
        cr = f"{r['create_s']:.3f}" if "create_s" in r else "-"
        lo, hi = r["write_s_range"]
        L.append(f"| {r['np']} | {r['io']} | {r['backend']} | {r['write_s']:.4f} | {lo:.4f}-{hi:.4f} | {r['mb_s']:.0f} | "
                 f"{r['open_write_close_s']:.4f} | {cr} | {', '.join(map(str, r['extents']))} | {note} |")
    L += ["", "Derived (same run):", ""]
    for np_ in sorted({r["np"] for r in res["summary"]}):
        rs = [r for r in res["summary"] if r["np"] == np_ and not r.get("skipped")]
        real = next(r for r in rs if r["backend"].startswith("sitepack"))
        L.append(f"- -np {np_}: the real merge's pwrite calls are {real['write_s']:.4f} s of its {real['open_write_close_s']:.4f} s "
                 f"copy step ({100 * real['write_s'] / real['open_write_close_s']:.0f} %: the rest reads the per-rank rows, "
                 f"makes their indices global and gathers the columns).")
        for io in res["io"]:
            mine = [r for r in rs if r["io"] == io]
            pw = next(r for r in mine if r["backend"] == "pwrite")
            best = min(mine, key=lambda r: r["write_s"])
            L.append(f"  {io}: the bench's pwrite {pw['write_s']:.4f} s = {pw['write_s'] / real['write_s']:.2f} x the real merge's; "
                     + ", ".join(f"{r['backend']} {r['write_s'] / pw['write_s']:.2f}" for r in mine if r is not pw)
                     + f" x pwrite (ratio of medians); fastest median: {best['backend']}. Paired, each rep's backend / "
                     "the same bench run's pwrite (median [min-max], reps where it was faster): "
                     + "; ".join(paired(res, np_, io, be) for be in BACKENDS[1:]) + ".")
    L += ["", "write s: the extents' writes alone (pwrite(2), MPI_File_write_at[_all], H5Dwrite); open+write+close: "
          "with the open (MPI_File_open is collective) and the close (H5Fclose: the metadata); create s: "
          "parallel HDF5's collective H5Fcreate + H5Dcreate of every dataset (the raw paths write into an empty file "
          "that rank 0 made, as the merge writes into the file rank 0 created with the serial API). Every backend's "
          "extents were read back and compared with the merged file's bytes: all equal."]
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--shared", default="../shared")
    ap.add_argument("--out", default="results")
    ap.add_argument("--replicas", type=int, default=4)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--np", default="1 2")
    ap.add_argument("--io", default="ompio romio321")
    ap.add_argument("--work", default=None)
    ap.add_argument("--label", default="")
    ap.add_argument("--md-only", metavar="JSON", help="write the .md beside a results JSON again (no run)")
    args = ap.parse_args()
    if args.md_only:
        with open(args.md_only) as f:
            write_md(args.md_only[:-5] + ".md", json.load(f))
        return
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sp = os.path.abspath(os.path.join(args.build, "bin/sitepack"))
    bench = os.path.abspath(os.path.join(args.build, "bin/sitepack_bench_merge_io"))
    for exe in (sp, bench):
        if not os.access(exe, os.X_OK):
            sys.exit(f"no {exe}: build first (make build)")
    work = args.work or tempfile.mkdtemp(prefix="sitepack-merge-io.")
    nps = [int(x) for x in args.np.split()]
    ios = args.io.split()
    try:
        res = {"provenance": provenance(args, src, work), "inputs": make_inputs(args, src, sp, work), "io": ios,
               "merges": [], "bench": []}
        ref = {}
        for np_ in nps:  # the reference merge and its trace at each P; every file equal to the serial merge's
            real_merge(sp, work, np_, f"{work}/ref-{np_}.h5", f"{work}/trace-{np_}")
            ref[np_] = read_trace(f"{work}/trace-{np_}", np_)
        res["reference"] = {str(n): {"extents": [len(t["extents"]) for t in ref[n]],
                                     "bytes": [sum(b for _, b in t["extents"]) for t in ref[n]]} for n in nps}
        sh([sp, "merge", f"{work}/serial.h5", f"{work}/shards/shard-*-of-00002.h5", "--quiet"])
        for np_ in nps:
            sh(["/usr/bin/python3", os.path.join(src, "tests/integration/compare_h5.py"), f"{work}/serial.h5", f"{work}/ref-{np_}.h5"])
        res["inputs"]["merged_bytes"] = os.path.getsize(f"{work}/serial.h5")
        res["load_before"] = loadavg()
        for rep in range(args.reps):
            order = BACKENDS[rep % len(BACKENDS):] + BACKENDS[:rep % len(BACKENDS)]
            for np_ in nps:
                tr = f"{work}/rt-{np_}-{rep}"
                subprocess.run(["sync"])  # as the bench does before each backend: no dirty pages left
                wall = real_merge(sp, work, np_, f"{work}/real.h5", tr)
                t = read_trace(tr, np_)
                if [x["extents"] for x in t] != [x["extents"] for x in ref[np_]]:
                    sys.exit(f"rep {rep}: the merge at -np {np_} wrote other extents than the reference merge")
                res["merges"].append({"np": np_, "rep": rep, "wall_s": wall, "pwrite_s": [x["pwrite_s"] for x in t],
                                      "copy_s": [x["copy_s"] for x in t]})
                for io in ios:
                    for r in bench_run(bench, work, np_, io, order):
                        r.update(io=io, rep=rep, np=np_)
                        res["bench"].append(r)
                print(f"rep {rep + 1}/{args.reps} -np {np_}: merge pwrite {max(res['merges'][-1]['pwrite_s']):.4f} s; " +
                      ", ".join(f"{r['io']}/{r['backend']} {max(r['write_s']):.4f}" for r in res["bench"]
                                if r["rep"] == rep and r["np"] == np_ and not r.get("skipped")), flush=True)
        res["load_after"] = loadavg()
        res["summary"] = summarise(res)
        day = datetime.datetime.utcnow().strftime("%Y-%m-%d")
        base = os.path.join(args.out, f"merge-io-{day}{args.label}")
        with open(base + ".json", "w") as f:
            json.dump(res, f, indent=1)
        write_md(base + ".md", res)
        print(open(base + ".md").read())
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
