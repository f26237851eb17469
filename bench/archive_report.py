#!/usr/bin/env python3
"""The results of one archive-scale run (bench/archive.sh): RESULTS.json and RESULTS.md from the run's
report, with the projection to PROJECT_FILES files at P = 22 and 22 x 10.

usage: archive_report.py REPORT.json OUTBASE LOAD_BEFORE LOAD_AFTER INPUT_BYTES MERGED_BYTES REPORT_BYTES
                         PROJECT_FILES SOURCE_DIR MPIRUN MADE_SECONDS DF_BEFORE DF_AFTER

Each step of the run (the report's steps_seconds, the merge split into its own steps) is classed by how
it grows: "share" (every rank does its share: files / P), "all" (rank 0, or every rank, does it for every
file: files), "const" (neither: the CCD open is the CCD's size). The projection scales each measured step
by its class; the serial seconds are the sum of the steps that are not "share"."""
import json, os, platform, subprocess, sys
rep, base, lb, la, in_b, out_b, rep_b, pf, src, mpirun, gen_s, df0, df1 = sys.argv[1:]
in_b, out_b, rep_b, pf = int(in_b), int(out_b), int(rep_b), int(pf)
def sh(c):
    try: return subprocess.run(c, shell=True, capture_output=True, text=True, cwd=src).stdout.strip()
    except Exception: return ""
r = json.load(open(rep))
files, P = r["files"]["total"], r["n_ranks"]
steps, m = r["steps_seconds"], r["merge"]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "")
# How each step grows: "share" = every rank does its share (files / P), "all" = one rank (or every rank)
# does it for every file (files), "const" = neither (the CCD: its size, not the input's).
# "resume" is the SHA-256 pre-pass of equal sizes (hashed by every rank, a share each: src/app/hash_share.c;
# the decisions on rank 0 are a sort of the sizes); "gzip flags" (since: "file heads") reads every P-th file's head on each rank.
kind = {"check output": "const", "lock": "const", "scan": "all", "share files": "all", "gzip flags": "share", "file heads": "share",
        "CCD": "const", "CCD check": "const", "shard plan": "all", "resume": "share", "per-rank output": "all",
        "plan A": "all", "phase A": "share", "plan B": "all", "phase B": "share", "close output": "share",
        "gather": "all"}
merge_kind = {"index_seconds": "all", "union_seconds": "share", "create_seconds": "all", "copy_seconds": "share",
              "close_seconds": "const", "read_back_seconds": "all"}
parts = [(k, v, kind.get(k, "all")) for k, v in steps.items() if k != "merge"]
merge_other = steps.get("merge", 0) - sum(m.get(k, 0) for k in merge_kind)
parts += [("merge " + k.replace("_seconds", ""), m.get(k, 0), merge_kind[k]) for k in merge_kind]
parts.append(("merge (rest: rename, agreement)", max(merge_other, 0.0), "all"))
def project(n, p):
    tot, ser = 0.0, 0.0
    for name, v, k in parts:
        x = v if k == "const" else v * n / files if k == "all" else v * (n / files) * (P / p)
        tot += x
        if k != "share": ser += x
    return {"files": n, "ranks": p, "wall_seconds": tot, "serial_seconds": ser, "serial_fraction": ser / tot if tot else 0}
rss = [x["peak_rss_bytes"] for x in r["ranks"]]
serial = sum(v for _, v, k in parts if k != "share")
res = {"benchmark": "archive-scale run of sitepack run", "git_sha": r.get("git_sha"), "tree_git_sha": sh("git rev-parse HEAD"),
       "host": platform.node(), "cpus": os.cpu_count(), "cpu_model": cpu, "kernel": platform.release(),
       "mpi": sh(f"{mpirun} --version | head -1"), "loadavg": {"before": lb, "after": la},
       "df_scratch": {"before": df0, "after": df1},
       "inputs": {"files": files, "bytes": in_b, "made_seconds": int(gen_s),
                  "how": "shared/data/structures replicas made distinct (bench/scaling.sh rule)",
                  "ccd": "shared/data/ccd/components_excerpt.cif.gz"},
       "n_ranks": P, "wall_seconds": r["wall_seconds"], "makespan_seconds": r["schedule"]["makespan_seconds"],
       "steps_seconds": steps, "merge": m, "sites": r["sites"], "ligands": r["ligands"],
       "peak_rss_bytes_per_rank": rss, "report_bytes": rep_b, "merged_bytes": out_b,
       "serial_seconds": serial, "per_step": [{"step": n, "seconds": v, "grows_with": k} for n, v, k in parts],
       "projection": [project(pf, 22), project(pf, 220)],
       "ranks": [{"rank": x["rank"], "tasks": x["tasks"], "busy_seconds": x["busy_seconds"],
                  "merge": x.get("merge")} for x in r["ranks"]]}
note = os.environ.get("ARCHIVE_NOTE", "")  # what the figures do not show by themselves
if note: res["note"] = note
json.dump(res, open(base + ".json", "w"), indent=1)
L = [f"# Archive-scale run: {os.path.basename(base)}", "",
     f"git {str(res['git_sha'])[:12]}, host {res['host']} ({res['cpus']} CPUs, {cpu}), {res['mpi']}; "
     f"load average before {lb.split()[0]}, after {la.split()[0]} (1-min; the host is shared).", "",
     f"Input: {files} files, {in_b/1e9:.2f} GB ({res['inputs']['how']}, made in {gen_s} s in a scratch directory, "
     f"removed after); excerpt CCD; -np {P}. {r['sites']} sites, {r['ligands']} ligands; merged file "
     f"{out_b/1e6:.0f} MB, report {rep_b/1e3:.0f} kB.", "",
     f"Wall {r['wall_seconds']:.2f} s (the report's: mpirun's start excluded), scheduled phase "
     f"{r['schedule']['makespan_seconds']:.2f} s, serial steps {serial:.2f} s; peak RSS per rank "
     + ", ".join(f"{b/2**20:.0f} MiB" for b in rss) + ".", "",
     "| step (rank 0) | seconds | grows with |", "|---|---|---|"]
L += [f"| {n} | {v:.3f} | {'files / P' if k == 'share' else 'files' if k == 'all' else '-'} |" for n, v, k in parts]
L += ["", f"Projection to {pf} files (every step scaled by how it grows; the CCD open as measured):", "",
      "| files | ranks | wall s | serial s | serial fraction |", "|---|---|---|---|---|"]
L += [f"| {q['files']} | {q['ranks']} | {q['wall_seconds']:.1f} | {q['serial_seconds']:.1f} | {q['serial_fraction']:.3f} |"
      for q in res["projection"]]
if note: L += ["", "Note: " + note]
open(base + ".md", "w").write("\n".join(L) + "\n")
print("\n".join(L))
