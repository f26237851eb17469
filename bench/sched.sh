#!/usr/bin/env bash
# Scheduling benchmark (issue 6, docs/scaling.md). Writes results/sched-<date>.json and .md.
#
#   bench/sched.sh [BUILD_DIR]          real runs + simulations (the `make bench-sched` target)
#   bench/sched.sh fit [BUILD_DIR]      one -np 1 run, print the fitted cost-model constants
#
# Real: -np 1, -np 2 (stealing) and -np 2 --no-steal on ../shared/data/structures with the
# excerpt CCD, REPS runs each (default 3, interleaved), median wall time and scheduled
# makespan; speed-up = median(-np 1) / median(-np 2). The machine's load average is recorded
# before and after; runs wait (up to MAX_WAIT s) for the 1-minute load to fall below MAX_LOAD.
# Simulated: bench/sched_sim.c (sitepack_bench_sched) replays the -np 1 run's measured per-file
# times and a synthetic PDB-like set (N_SYN files) for P = 1 .. 1024 through the run's own
# planning, splitting and stealing functions.
#
# Environment: REPS (3), N_SYN (100000), MAX_LOAD (1.5), MAX_WAIT (300), DATA (../shared/data),
# LATENCY (2e-5 s per steal in the simulation).
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
MODE=all
if [ "${1:-}" = fit ]; then MODE=fit; shift; fi
BUILD=${1:-$SRC/build}
SP=$BUILD/bin/sitepack
SIM=$BUILD/bin/sitepack_bench_sched
DATA=${DATA:-$SRC/../shared/data}
REPS=${REPS:-3}
N_SYN=${N_SYN:-100000}
MAX_LOAD=${MAX_LOAD:-1.5}
MAX_WAIT=${MAX_WAIT:-300}
LATENCY=${LATENCY:-2e-5}
PY=/usr/bin/python3
FLAGS="--oversubscribe --mca osc sm"
[ "$(id -u)" = 0 ] && FLAGS="$FLAGS --allow-run-as-root"
WORK=$(mktemp -d /tmp/sitepack-bench-sched.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
IN="$DATA/structures"
CCD="$DATA/ccd/components_excerpt.cif.gz"
[ -x "$SP" ] || { echo "no $SP: build first (make build)"; exit 1; }

load1() { cut -d' ' -f1 /proc/loadavg; }
wait_quiet() {
  local t=0
  while awk -v l="$(load1)" -v m="$MAX_LOAD" 'BEGIN{exit !(l > m)}'; do
    [ $t -ge "$MAX_WAIT" ] && { echo "load $(load1) still above $MAX_LOAD after ${MAX_WAIT}s: running anyway (recorded)"; return; }
    sleep 10; t=$((t + 10))
  done
}
run() { # NAME NP [flags]
  local name=$1 np=$2; shift 2
  mpirun $FLAGS -np "$np" "$SP" run --input "$IN" --ccd "$CCD" --out "$WORK/$name.h5" --quiet --force "$@" \
    > "$WORK/$name.log"
}

if [ $MODE = fit ]; then
  run fit 1 --no-split
  "$PY" -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['schedule']['cost_model_fitted'], indent=1))" \
    "$WORK/fit.report.json"
  exit 0
fi
[ -x "$SIM" ] || { echo "no $SIM: build first"; exit 1; }

LOAD_BEFORE=$(cat /proc/loadavg)
wait_quiet
LOAD_START=$(cat /proc/loadavg)
for r in $(seq 1 "$REPS"); do
  run "np1_$r" 1
  run "np2_$r" 2
  run "np2nosteal_$r" 2 --no-steal
  echo "rep $r done (load $(load1))"
done
LOAD_AFTER=$(cat /proc/loadavg)

"$SP" dump "$WORK/np1_1.h5" structures > "$WORK/structures.tsv"
"$SIM" replay "$WORK/structures.tsv" "$LATENCY" > "$WORK/sim_replay.json"
"$SIM" synthetic "$N_SYN" 1 "$LATENCY" "$WORK/structures.tsv" > "$WORK/sim_synthetic.json"

mkdir -p "$SRC/results"
DATE=$(date -u +%Y-%m-%d)
"$PY" - "$WORK" "$REPS" "$SRC/results/sched-$DATE" "$LOAD_BEFORE" "$LOAD_START" "$LOAD_AFTER" "$IN" "$CCD" "$SRC" <<'PYEOF'
import json, os, platform, statistics, subprocess, sys
work, reps, out, lb, ls, la, inp, ccd, src = sys.argv[1], int(sys.argv[2]), *sys.argv[3:]
def rep(name): return json.load(open(f"{work}/{name}.report.json"))
def cmd(c):
    try: return subprocess.run(c, shell=True, capture_output=True, text=True, cwd=src).stdout.strip()
    except Exception: return ""
real = {}
for cfg in ("np1", "np2", "np2nosteal"):
    rs = [rep(f"{cfg}_{r}") for r in range(1, reps + 1)]
    real[cfg] = {
        "wall_seconds": [r["wall_seconds"] for r in rs],
        "makespan_seconds": [r["schedule"]["makespan_seconds"] for r in rs],
        "makespan_over_lower_bound": [r["schedule"]["makespan_over_lower_bound"] for r in rs],
        "steals": [sum(x["steals"] for x in r["ranks"]) for r in rs],
        "median_wall_seconds": statistics.median(r["wall_seconds"] for r in rs),
        "median_makespan_seconds": statistics.median(r["schedule"]["makespan_seconds"] for r in rs),
    }
def sp(a, b, k): return real[a][k] / real[b][k]
np1 = rep("np1_1")
res = {
    "benchmark": "sched (issue 6)",
    "git_sha": cmd("git rev-parse HEAD"), "git_dirty": bool(cmd("git status --porcelain -- src include bench")),
    "host": platform.node(), "cpus": os.cpu_count(), "kernel": platform.release(),
    "mpi": cmd("mpirun --version | head -1"), "hdf5": cmd("dpkg-query -W -f='${Version}' libhdf5-openmpi-dev"),
    "loadavg": {"before": lb, "start": ls, "after": la},
    "inputs": {"structures": inp, "files": np1["files"]["total"], "bytes": np1["bytes_read"], "ccd": ccd,
               "ccd_sha256": np1.get("ccd_sha256")},
    "reps": reps,
    "real": real,
    "speedup_np2_wall": sp("np1", "np2", "median_wall_seconds"),
    "speedup_np2_makespan": sp("np1", "np2", "median_makespan_seconds"),
    "speedup_np2_nosteal_wall": sp("np1", "np2nosteal", "median_wall_seconds"),
    "speedup_np2_nosteal_makespan": sp("np1", "np2nosteal", "median_makespan_seconds"),
    "cost_model_fitted_np1": np1["schedule"]["cost_model_fitted"],
    "sim_replay": json.load(open(f"{work}/sim_replay.json")),
    "sim_synthetic": json.load(open(f"{work}/sim_synthetic.json")),
}
def row(sim, P): return next(x for x in sim["P"] if x["P"] == P)
res["ratio_P20_lpt_steal_split"] = {"replay": row(res["sim_replay"], 20)["lpt_steal_split"],
                                    "synthetic": row(res["sim_synthetic"], 20)["lpt_steal_split"]}
res["ratio_P1024_lpt_steal_split"] = {"replay": row(res["sim_replay"], 1024)["lpt_steal_split"],
                                      "synthetic": row(res["sim_synthetic"], 1024)["lpt_steal_split"]}
json.dump(res, open(out + ".json", "w"), indent=1)
L = [f"# Scheduling benchmark {os.path.basename(out)}", "",
     f"git {res['git_sha'][:12]}{' (dirty)' if res['git_dirty'] else ''}, host {res['host']} ({res['cpus']} CPUs), "
     f"{res['mpi']}, HDF5 {res['hdf5']}; load average before {lb.split()[0]}, at start {ls.split()[0]}, "
     f"after {la.split()[0]} (1-min).", "",
     f"Input: {res['inputs']['files']} files, {res['inputs']['bytes']/1e6:.1f} MB ({inp}), CCD {os.path.basename(ccd)}; "
     f"median of {reps} runs each.", "",
     "| run | median wall s | median makespan s | makespan / bound | steals |", "|---|---|---|---|---|"]
for cfg in ("np1", "np2", "np2nosteal"):
    r = real[cfg]
    L.append(f"| {cfg} | {r['median_wall_seconds']:.3f} | {r['median_makespan_seconds']:.3f} | "
             f"{statistics.median(r['makespan_over_lower_bound']):.3f} | {statistics.median(r['steals'])} |")
L += ["", f"Speed-up at -np 2: wall {res['speedup_np2_wall']:.2f}, scheduled phase {res['speedup_np2_makespan']:.2f} "
      f"(without stealing: {res['speedup_np2_nosteal_wall']:.2f} / {res['speedup_np2_nosteal_makespan']:.2f}).", "",
      "Simulated makespan / max(largest file, total / P) (same planning, splitting and stealing code):", ""]
for name in ("sim_replay", "sim_synthetic"):
    sim = res[name]
    L += [f"{name} ({sim['files']} files, {sim['total_seconds']:.1f} s of work, largest {sim['largest_seconds']:.3f} s):", "",
          "| P | rr | lpt | lpt+steal | lpt+steal+split | split, no guard |", "|---|---|---|---|---|---|"]
    for x in sim["P"]:
        L.append(f"| {x['P']} | {x['rr']:.3f} | {x['lpt']:.3f} | {x['lpt_steal']:.3f} | {x['lpt_steal_split']:.3f} | "
                 f"{x['lpt_steal_split_noguard']:.3f} |")
    L.append("")
open(out + ".md", "w").write("\n".join(L) + "\n")
print("\n".join(L))
PYEOF
echo "wrote results/sched-$DATE.json and .md"
