#!/usr/bin/env python3
"""sched_bench_smoke: the scheduling simulator's synthetic replay (bench/sched_sim.c) exits 0 and its
figures hold what scheduling guarantees, at every P it reports:
  - P is 1, 2, 4, ..., 1024 and 20 (a 20-core node); files is N; lower_bound = max(total / P, largest task);
  - every makespan ratio (to the lower bound) is >= 1 (nothing beats the bound); lpt and lpt_steal <= 2
    (greedy list scheduling ends within total / P + largest <= 2 x bound: Graham 1966; round-robin,
    which ignores loads, has no such bound);
  - stealing never loses against the static LPT plan (lpt_steal <= lpt), splitting never loses against
    stealing (lpt_steal_split <= lpt_steal), with 1e-4 of slack for the simulator's rounding;
  - P = 1: every guarded ratio is exactly 1 and nothing is stolen.
usage: sched_bench_smoke.py SIMULATOR N SEED"""
import json
import subprocess
import sys

sim, n, seed = sys.argv[1], int(sys.argv[2]), sys.argv[3]
p = subprocess.run([sim, "synthetic", str(n), seed], capture_output=True, text=True, timeout=120)
fails = []
if p.returncode != 0:
    fails.append(f"exit status {p.returncode}: {p.stderr.strip()[-500:]}")
try:
    d = json.loads(p.stdout)
except ValueError as e:
    print(f"FAIL: output is not JSON ({e}): {p.stdout[:300]!r}", file=sys.stderr)
    sys.exit(1)
if d.get("files") != n:
    fails.append(f"files {d.get('files')} != {n}")
rows = d.get("P", [])
if [r["P"] for r in rows] != sorted([2 ** k for k in range(11)] + [20]):
    fails.append(f"P values {[r['P'] for r in rows]}")
tot, big = d["total_seconds"], d["largest_seconds"]
if not (0 < big <= tot):
    fails.append(f"largest {big} / total {tot}")
eps = 1e-4
for r in rows:
    P = r["P"]
    lb = max(tot / P, big)
    if abs(r["lower_bound"] - lb) > 1e-4 * lb:
        fails.append(f"P {P}: lower_bound {r['lower_bound']} != max(total / P, largest) = {lb}")
    for k in ("rr", "lpt", "lpt_steal", "lpt_steal_split", "lpt_steal_split_noguard"):
        if r[k] < 1 - eps:
            fails.append(f"P {P}: {k} {r[k]} below the lower bound")
    for k in ("lpt", "lpt_steal"):
        if r[k] > 2 + eps:
            fails.append(f"P {P}: {k} {r[k]} > 2 (list scheduling bound)")
    if r["lpt_steal"] > r["lpt"] + eps:
        fails.append(f"P {P}: stealing {r['lpt_steal']} worse than static LPT {r['lpt']}")
    if r["lpt_steal_split"] > r["lpt_steal"] + eps:
        fails.append(f"P {P}: splitting {r['lpt_steal_split']} worse than stealing {r['lpt_steal']}")
    if P == 1 and (any(abs(r[k] - 1) > 1e-9 for k in ("rr", "lpt", "lpt_steal", "lpt_steal_split")) or r["steals"]):
        fails.append(f"P 1: ratios {r['rr']} {r['lpt']} {r['lpt_steal']} {r['lpt_steal_split']}, steals {r['steals']}")
    if r["tasks_split"] < n:
        fails.append(f"P {P}: {r['tasks_split']} tasks after splitting, fewer than the {n} files")
for f in fails:
    print("FAIL:", f, file=sys.stderr)
print(f"sched_bench_smoke: {len(rows)} P values, {len(fails)} failure(s)")
sys.exit(1 if fails else 0)
