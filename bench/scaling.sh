#!/usr/bin/env bash
# Strong-scaling run of `sitepack run` (docs/scaling.md). Writes results/scaling-<date>-<host>.json and .md.
#
#   bench/scaling.sh [BUILD_DIR]        (the `make bench-scaling` target)
#
# Input: REPLICAS copies (hard links where possible) of ../shared/data/structures under one input
# directory, so that the work per run is REPLICAS x the corpus while the largest file stays the same;
# the excerpt CCD. For each P in NP_LIST, REPS runs (interleaved: rep 1 at every P, then rep 2, ...),
# plus REPS runs at the largest P with --no-steal as the same-run baseline (LPT plan only).
# Reported per P: median wall seconds (whole run: scan, plan, parse/survey/site, per-rank HDF5
# files, merge), median scheduled makespan (the parallel phase alone), median merge seconds,
# speed-up and parallel efficiency against the median at the smallest P, files/s, and the
# makespan over its lower bound max(largest task, total task time / P).
# Determinism: the merged file of the first rep at the smallest and at the largest P are compared
# with tests/integration/compare_h5.py (same content apart from timing fields) when h5py is there.
#
# Also per P: the serial seconds (wall - makespan: scan, CCD, plan, file set-up, gather, merge), each
# step of the run on rank 0 (the report's steps_seconds) and the merge's rows written per second per
# rank (issue 21: every rank writes its share). A PNG next to the JSON plots the speed-up of the wall
# clock and of the scheduled phase against P with the ideal line (matplotlib; skipped without it).
#
# Environment: NP_LIST ("1 2"), REPLICAS (1), REPS (3), DATA (../shared/data), MPIRUN (mpirun),
# MPIRUN_FLAGS (--oversubscribe --mca osc sm [--allow-run-as-root]), PY (python3 with json),
# RESULTS (results/), WORK (a fresh temporary directory), LABEL (appended to the result names).
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$SRC/build}
SP=$BUILD/bin/sitepack
DATA=${DATA:-$SRC/../shared/data}
NP_LIST=${NP_LIST:-"1 2"}
REPLICAS=${REPLICAS:-1}
REPS=${REPS:-3}
MPIRUN=${MPIRUN:-mpirun}
PY=${PY:-python3}
RESULTS=${RESULTS:-$SRC/results}
if [ -z "${MPIRUN_FLAGS:-}" ]; then
  MPIRUN_FLAGS="--oversubscribe --mca osc sm --mca pml ob1"
  [ "$(id -u)" = 0 ] && MPIRUN_FLAGS="$MPIRUN_FLAGS --allow-run-as-root"
fi
[ -x "$SP" ] || { echo "no $SP: build first (make build)"; exit 2; }
OWN_WORK=0
if [ -z "${WORK:-}" ]; then WORK=$(mktemp -d /tmp/sitepack-scaling.XXXXXX); OWN_WORK=1; fi
[ $OWN_WORK = 1 ] && trap 'rm -rf "$WORK"' EXIT
CCD="$DATA/ccd/components_excerpt.cif.gz"

rm -rf "$WORK/in" "$WORK/out"; mkdir -p "$WORK/in" "$WORK/out"
# REPLICAS distinct copies of the corpus (bench/replicas.sh: copy i >= 2 of each file padded, so that no
# copy has the size or SHA-256 of another)
"$SRC/bench/replicas.sh" "$DATA/structures" "$WORK/in" "$REPLICAS"
# warm the page cache once so that rep 1 is not a cold-cache outlier
cat "$WORK"/in/*/* > /dev/null

NPS=($NP_LIST)
PMAX=${NPS[$((${#NPS[@]} - 1))]}
LOAD_BEFORE=$(cat /proc/loadavg)
for r in $(seq 1 "$REPS"); do
  for np in "${NPS[@]}"; do
    $MPIRUN $MPIRUN_FLAGS -np "$np" "$SP" run --input "$WORK/in" --ccd "$CCD" \
      --out "$WORK/out/np${np}_r$r.h5" --quiet --force > "$WORK/out/np${np}_r$r.log" 2>&1 ||
      { echo "run -np $np rep $r failed:"; tail -20 "$WORK/out/np${np}_r$r.log"; exit 1; }
    echo "rep $r -np $np: $("$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); print("%.3f s wall, %.3f s makespan" % (r["wall_seconds"], r["schedule"]["makespan_seconds"]))' "$WORK/out/np${np}_r$r.report.json")"
  done
  $MPIRUN $MPIRUN_FLAGS -np "$PMAX" "$SP" run --input "$WORK/in" --ccd "$CCD" --no-steal \
    --out "$WORK/out/nosteal_r$r.h5" --quiet --force > "$WORK/out/nosteal_r$r.log" 2>&1 ||
    { echo "run --no-steal failed"; tail -20 "$WORK/out/nosteal_r$r.log"; exit 1; }
done
LOAD_AFTER=$(cat /proc/loadavg)

SAME=unchecked
if "$PY" -c 'import h5py, numpy' 2>/dev/null; then
  if "$PY" "$SRC/tests/integration/compare_h5.py" "$WORK/out/np${NPS[0]}_r1.h5" "$WORK/out/np${PMAX}_r1.h5" \
       > "$WORK/out/compare.log" 2>&1; then SAME=equal; else SAME=different; cat "$WORK/out/compare.log"; fi
fi

mkdir -p "$RESULTS"
HOST=$(hostname | tr -c 'A-Za-z0-9._\n-' '_')
OUTBASE="$RESULTS/scaling-$(date -u +%Y-%m-%d)-$HOST-$(nproc)cpu${LABEL:+-$LABEL}"
"$PY" - "$WORK/out" "$REPS" "$OUTBASE" "$LOAD_BEFORE" "$LOAD_AFTER" "$REPLICAS" "$SAME" "$SRC" "$MPIRUN" "$NP_LIST" <<'PYEOF'
import json, os, platform, statistics as st, subprocess, sys
out, reps, base, lb, la, replicas, same, src, mpirun, nplist = sys.argv[1:]
reps, replicas, nps = int(reps), int(replicas), [int(x) for x in nplist.split()]
def sh(c):
    try: return subprocess.run(c, shell=True, capture_output=True, text=True, cwd=src).stdout.strip()
    except Exception: return ""
def rep(name): return json.load(open(f"{out}/{name}.report.json"))
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "")
rows, ref = [], None
def summarise(label, np, names):
    rs = [rep(n) for n in names]
    w = st.median(r["wall_seconds"] for r in rs)
    return {"run": label, "np": np, "wall_seconds": [r["wall_seconds"] for r in rs], "median_wall_seconds": w,
            "median_makespan_seconds": st.median(r["schedule"]["makespan_seconds"] for r in rs),
            "median_merge_seconds": st.median(r["merge_seconds"] for r in rs),
            "median_makespan_over_lower_bound": st.median(r["schedule"]["makespan_over_lower_bound"] for r in rs),
            "median_steals": st.median(sum(x["steals"] for x in r["ranks"]) for r in rs),
            "files": rs[0]["files"], "sites": rs[0]["sites"], "bytes_read": rs[0]["bytes_read"],
            "largest_task_seconds": st.median(r["schedule"]["largest_task_seconds"] for r in rs),
            "total_task_seconds": st.median(r["schedule"]["total_task_seconds"] for r in rs),
            "peak_rss_bytes_max": max(max(x["peak_rss_bytes"] for x in r["ranks"]) for r in rs),
            "median_serial_seconds": st.median(r["wall_seconds"] - r["schedule"]["makespan_seconds"] for r in rs),
            "median_steps_seconds": {k: st.median(r["steps_seconds"][k] for r in rs)
                                     for k in rs[0].get("steps_seconds", {})},
            "median_merge_steps_seconds": {k: st.median(r["merge"][k] for r in rs)
                                           for k in rs[0].get("merge", {}) if k.endswith("_seconds")},
            "median_merge_rate_per_rank_MBps": st.median(
                st.mean(x["merge"]["bytes_written"] / max(x["merge"]["copy_seconds"], 1e-9) / 1e6 for x in r["ranks"])
                for r in rs) if "merge" in rs[0]["ranks"][0] else None}
for np in nps: rows.append(summarise(f"np{np}", np, [f"np{np}_r{i}" for i in range(1, reps + 1)]))
rows.append(summarise(f"np{nps[-1]} --no-steal", nps[-1], [f"nosteal_r{i}" for i in range(1, reps + 1)]))
w0, m0, p0 = rows[0]["median_wall_seconds"], rows[0]["median_makespan_seconds"], rows[0]["np"]
for r in rows:
    r["speedup_wall"] = w0 / r["median_wall_seconds"]
    r["speedup_makespan"] = m0 / r["median_makespan_seconds"]
    r["efficiency_wall"] = r["speedup_wall"] * p0 / r["np"]
    r["files_per_second"] = (r["files"]["total"] if isinstance(r["files"], dict) else r["files"]) / r["median_wall_seconds"]
first = rep(f"np{nps[0]}_r1")
# git_sha: the binary's own (its run report); the tree's HEAD only where they agree (a copied tree can be stale)
tree = sh("git rev-parse HEAD")
res = {"benchmark": "strong scaling of sitepack run", "git_sha": first.get("git_sha"),
       "tree_git_sha": tree, "tree_matches_binary": bool(tree) and tree.startswith(str(first.get("git_sha"))), "host": platform.node(), "cpus": os.cpu_count(), "cpu_model": cpu,
       "kernel": platform.release(), "mpi": sh(f"{mpirun} --version | head -1"),
       "loadavg": {"before": lb, "after": la}, "replicas": replicas, "reps": reps,
       "inputs": {"structures": "shared/data/structures x %d" % replicas, "files": rows[0]["files"],
                  "bytes": rows[0]["bytes_read"], "ccd": "shared/data/ccd/components_excerpt.cif.gz",
                  "ccd_sha256": first.get("ccd_sha256")},
       "merged_output_np%d_vs_np%d" % (nps[0], nps[-1]): same, "runs": rows}
json.dump(res, open(base + ".json", "w"), indent=1)
nf = rows[0]["files"]["total"] if isinstance(rows[0]["files"], dict) else rows[0]["files"]
L = [f"# Strong scaling: {os.path.basename(base)}", "",
     f"git {str(res['git_sha'])[:12]}, host {res['host']} ({res['cpus']} CPUs, {cpu}), {res['mpi']}; "
     f"load average before {lb.split()[0]}, after {la.split()[0]} (1-min).", "",
     f"Input: {replicas} cop{'y' if replicas == 1 else 'ies'} of shared/data/structures = {nf} files, {rows[0]['bytes_read']/1e6:.1f} MB stored, "
     f"{rows[0]['sites']} sites; excerpt CCD. Median of {reps} runs per row (interleaved). "
     f"Total task time at -np {p0}: {rows[0]['total_task_seconds']:.2f} s; largest task {rows[0]['largest_task_seconds']:.3f} s.", "",
     "| run | median wall s | speed-up (wall) | efficiency | median makespan s | speed-up (makespan) | makespan / bound | merge s | serial s | merge MB/s per rank | steals | files/s | peak RSS MiB |",
     "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    rate = r["median_merge_rate_per_rank_MBps"]
    L.append(f"| {r['run']} | {r['median_wall_seconds']:.3f} | {r['speedup_wall']:.2f} | {r['efficiency_wall']:.2f} | "
             f"{r['median_makespan_seconds']:.3f} | {r['speedup_makespan']:.2f} | {r['median_makespan_over_lower_bound']:.3f} | "
             f"{r['median_merge_seconds']:.3f} | {r['median_serial_seconds']:.3f} | {'-' if rate is None else f'{rate:.0f}'} | "
             f"{r['median_steals']:.0f} | {r['files_per_second']:.0f} | {r['peak_rss_bytes_max']/2**20:.0f} |")
steps = rows[0]["median_steps_seconds"]
if steps:
    L += ["", "Each step of the run on rank 0 (median seconds, the report's steps_seconds; waiting for the other ranks included):", "",
          "| run | " + " | ".join(steps) + " |", "|---|" + "---|" * len(steps)]
    for r in rows:
        L.append(f"| {r['run']} | " + " | ".join(f"{r['median_steps_seconds'].get(k, 0):.3f}" for k in steps) + " |")
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    pr = [r for r in rows if "no-steal" not in r["run"]]
    x = [r["np"] for r in pr]
    fig, ax = plt.subplots(figsize=(5, 3.6), dpi=120)
    ax.plot(x, [p / p0 for p in x], "k--", label="ideal")
    ax.plot(x, [r["speedup_wall"] for r in pr], "o-", label="wall clock")
    ax.plot(x, [r["speedup_makespan"] for r in pr], "s-", label="scheduled phase")
    ax.set_xlabel("MPI ranks"); ax.set_ylabel(f"speed-up over -np {p0}"); ax.set_xticks(x)
    ax.set_title(f"{nf} files, {res['cpus']} CPUs, load {lb.split()[0]}", fontsize=9); ax.legend(); ax.grid(alpha=0.3)
    fig.tight_layout(); fig.savefig(base + ".png"); res["plot"] = os.path.basename(base) + ".png"
    json.dump(res, open(base + ".json", "w"), indent=1)
    L += ["", f"![speed-up]({os.path.basename(base)}.png)"]
except ImportError:
    L += ["", "(no plot: matplotlib is not installed; Debian python3-matplotlib)"]
L += ["", f"Merged output at -np {nps[0]} and -np {nps[-1]} (first rep, tests/integration/compare_h5.py): **{same}**.", "",
      "Wall = the whole `mpirun ... sitepack run` as the run report measures it (scan, plan, parallel phase, merge); "
      "makespan = the scheduled parallel phase; bound = max(largest task, total task time / P); "
      "the --no-steal row is the same-run baseline (LPT plan, no stealing)."]
open(base + ".md", "w").write("\n".join(L) + "\n")
print("\n".join(L))
PYEOF
echo "wrote $OUTBASE.json and .md"
