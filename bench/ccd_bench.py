#!/usr/bin/python3
"""CCD benchmark (issue 4): index / open throughput of a >= 300 MB CCD-format file, plain and gzip,
component lookup + parse time, peers measured in the same run, and memory per rank with and
without the node-shared CCD. Writes results/ccd-<date>.json and .md.

  make bench-ccd                      (= bench/ccd_bench.py --build build)
  bench/ccd_bench.py --build build-ccd [--mb 320] [--reps 5] [--work /tmp/sitepack-ccd-bench]

The big file is generated into --work (never committed) by bench/ccd_make_big.py from the
excerpt's blocks with renamed ids, then gzipped (gzip -6). Steps:
  1. bench/ccd_bench.c (built here with mpicc against BUILD/libsitepack.a): read, inflate (zlib,
     in process), sp_ccd_open, sp_ccd_open_source (SP_CCD_SRC_MAPPED), sp_ccd_index_build on text in memory,
     sp_ccd_open_source (SP_CCD_SRC_BORROWED), cold/warm sp_ccd_get; medians of --reps.
  2. peers, same run: `zcat GZ | wc -c` (the inflate bound of the gz open) and gemmi.cif.read of
     the plain and gz file (Debian python3-gemmi: a full CIF parse, not an index; the ratio is
     what a rank would pay to get at the same components through gemmi).
  3. memory: mpirun -np 2 bench/ccd_shared_bench.c, shared vs SITEPACK_CCD_PRIVATE=1, plain and gz:
     VmHWM (peak RSS), RssAnon, RssFile, RssShmem, Pss per rank.
  4. `sitepack run` of tests/data/structures at -np 2 with the big gz CCD, shared vs private: the
     run report's peak_rss_bytes per rank and the wall time.
"""
import argparse, datetime, json, os, platform, shutil, socket, statistics, subprocess, sys, time

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=isinstance(cmd, str), check=True, capture_output=True, text=True, **kw)


def load():
    return [float(x) for x in open("/proc/loadavg").read().split()[:3]]


def timed(fn, reps):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), ts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--mb", type=float, default=320)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--gemmi-reps", type=int, default=3)
    ap.add_argument("--work", default="/tmp/sitepack-ccd-bench")
    ap.add_argument("--out", default=os.path.join(SRC, "results"))
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    os.makedirs(a.work, exist_ok=True)
    bdir = os.path.join(build, "bench")
    os.makedirs(bdir, exist_ok=True)
    lib = os.path.join(build, "libsitepack.a")
    flags = ["-O2", "-std=c11", "-Wall", "-Wextra", "-Wshadow", "-I" + os.path.join(SRC, "include")]
    # link like the CLI: the libraries CMake put after libsitepack.a (zlib, libcrypto, libdeflate, ...)
    libs = ["-lz", "-lcrypto", "-lm"]
    lt = os.path.join(build, "CMakeFiles", "sitepack_cli.dir", "link.txt")
    if os.path.exists(lt):
        words = open(lt).read().split()
        if "libsitepack.a" in words:
            libs = [w for w in words[words.index("libsitepack.a") + 1:] if not w.endswith(".a") or "libdl" in w]
    for prog in ("ccd_bench", "ccd_shared_bench"):
        # the node-shared CCD is app's (src/app/ccd_shared.c, private header): compiled in with its bench
        app = [os.path.join(SRC, "src", "app", "ccd_shared.c"), "-I" + os.path.join(SRC, "src")] if prog == "ccd_shared_bench" else []
        sh(["mpicc", *flags, os.path.join(SRC, "bench", prog + ".c"), *app, lib, *libs, "-o", os.path.join(bdir, prog)])
    excerpt = "/work/shared/data/ccd/components_excerpt.cif"
    if not os.path.exists(excerpt):
        excerpt = os.path.join(SRC, "..", "shared", "data", "ccd", "components_excerpt.cif")
    plain = os.path.join(a.work, "ccd_big.cif")
    gz = plain + ".gz"
    stamp = os.path.join(a.work, "stamp")
    want = f"{a.mb} {os.path.getsize(excerpt)}"
    if not (os.path.exists(stamp) and open(stamp).read() == want and os.path.exists(gz)):
        print("generating", plain, file=sys.stderr)
        sh([sys.executable, os.path.join(SRC, "bench", "ccd_make_big.py"), excerpt, plain, str(a.mb)])
        sh(f"gzip -6 -c '{plain}' > '{gz}'")
        open(stamp, "w").write(want)
    load_before = load()
    res = {"date": datetime.datetime.now().isoformat(timespec="seconds")}
    res["provenance"] = {
        "git_sha": sh(["git", "-C", SRC, "rev-parse", "HEAD"]).stdout.strip(),
        "git_dirty": bool(sh(["git", "-C", SRC, "status", "--porcelain", "--untracked-files=no"]).stdout.strip()),
        "host": socket.gethostname(), "cpu": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                                                  if l.startswith("model name")), "?"),
        "cores": os.cpu_count(), "kernel": platform.release(),
        "mem_total_kib": int(next(l.split()[1] for l in open("/proc/meminfo") if l.startswith("MemTotal"))),
        "inputs": {"excerpt": excerpt, "excerpt_bytes": os.path.getsize(excerpt),
                   "generator": "bench/ccd_make_big.py (blocks repeated with renamed 5-character ids)",
                   "plain": plain, "plain_bytes": os.path.getsize(plain), "gz": gz, "gz_bytes": os.path.getsize(gz),
                   "gzip": "gzip -6"},
        "reps": a.reps, "build": build,
    }
    # 1. our numbers
    out = sh([os.path.join(bdir, "ccd_bench"), plain, gz, str(a.reps), "2000"]).stdout
    res["sitepack"] = json.loads(out)
    # 2. peers
    zc, zts = timed(lambda: sh(f"zcat '{gz}' | wc -c"), a.reps)
    res["peer_zcat_wc"] = {"median_s": zc, "runs_s": zts}
    gem = {}
    try:
        code = "import sys, gemmi; d = gemmi.cif.read(sys.argv[1]); print(len(d))"
        for name, p in (("plain", plain), ("gz", gz)):
            ts = []
            nb = None
            for _ in range(a.gemmi_reps):
                t0 = time.perf_counter()
                r = sh(["/usr/bin/python3", "-c", code, p])
                ts.append(time.perf_counter() - t0)
                nb = int(r.stdout)
            imp = timed(lambda: sh(["/usr/bin/python3", "-c", "import gemmi"]), 3)[0]
            gem[name] = {"median_s": statistics.median(ts), "runs_s": ts, "blocks": nb,
                         "python_import_s": imp, "median_minus_import_s": statistics.median(ts) - imp}
        gem["version"] = sh(["/usr/bin/python3", "-c", "import gemmi; print(gemmi.__version__)"]).stdout.strip()
    except Exception as e:  # gemmi missing: keep the rest
        gem["error"] = str(e)
    res["peer_gemmi_cif_read"] = gem
    # 3. memory with/without sharing
    mpi = ["mpirun", "--oversubscribe", "--mca", "osc", "sm", "-np", "2"]
    if os.getuid() == 0:
        mpi.insert(1, "--allow-run-as-root")
    mem = {}
    for name, p in (("plain", plain), ("gz", gz)):
        for mode in ("shared", "private"):
            env = dict(os.environ)
            env.pop("SITEPACK_CCD_PRIVATE", None)
            if mode == "private":
                env["SITEPACK_CCD_PRIVATE"] = "1"
            r = sh([*mpi, "-x", "SITEPACK_CCD_PRIVATE", os.path.join(bdir, "ccd_shared_bench"), p, "2000"]
                   if mode == "private" else [*mpi, os.path.join(bdir, "ccd_shared_bench"), p, "2000"], env=env)
            mem[f"{name}_{mode}"] = json.loads(r.stdout)
    res["memory_np2"] = mem
    # 4. sitepack run with the big gz CCD
    runs = {}
    cli = os.path.join(build, "bin", "sitepack")
    for mode in ("shared", "private"):
        env = dict(os.environ)
        env.pop("SITEPACK_CCD_PRIVATE", None)
        extra = []
        if mode == "private":
            env["SITEPACK_CCD_PRIVATE"] = "1"
            extra = ["-x", "SITEPACK_CCD_PRIVATE"]
        o = os.path.join(a.work, f"run_{mode}.h5")
        t0 = time.perf_counter()
        sh([*mpi, *extra, cli, "run", "--input", os.path.join(SRC, "tests", "data", "structures"), "--ccd", gz,
            "--out", o, "--force", "--quiet"], env=env)
        wall = time.perf_counter() - t0
        rep = json.load(open(os.path.join(a.work, f"run_{mode}.report.json")))
        ranks = rep.get("ranks") or rep.get("per_rank") or []
        runs[mode] = {"wall_s": wall, "peak_rss_bytes": [r.get("peak_rss_bytes") for r in ranks]}
    res["sitepack_run_np2_gz_ccd"] = runs
    res["load_before"] = load_before
    res["load_after"] = load()
    os.makedirs(a.out, exist_ok=True)
    day = datetime.date.today().isoformat()
    jp = os.path.join(a.out, f"ccd-{day}.json")
    json.dump(res, open(jp, "w"), indent=1)
    open(os.path.join(a.out, f"ccd-{day}.md"), "w").write(markdown(res))
    print(markdown(res))
    print("wrote", jp, file=sys.stderr)


def markdown(r):
    s, p = r["sitepack"], r["provenance"]
    L = []
    L.append(f"# CCD benchmark, {r['date']}\n")
    L.append(f"git {p['git_sha'][:12]}{' (dirty tree)' if p['git_dirty'] else ''}; host {p['host']}, {p['cpu']}, "
             f"{p['cores']} cores, {p['mem_total_kib'] // 1024} MiB; load average before {r['load_before']}, after "
             f"{r['load_after']}{' (other work was running on the same cores)' if max(r['load_before'][0], r['load_after'][0]) > 1.5 else ''}.\n")
    i = p["inputs"]
    L.append(f"Input: {i['plain_bytes'] / 1e6:.1f} MB CCD-format text ({s['plain']['blocks']} blocks), made by "
             f"{i['generator']} from {os.path.basename(i['excerpt'])} ({i['excerpt_bytes']} bytes); gzip copy "
             f"{i['gz_bytes'] / 1e6:.1f} MB ({i['gzip']}). Generated into {os.path.dirname(i['plain'])}, not committed. "
             f"Times are medians of {p['reps']} runs, page cache warm.\n")
    L.append("| step | plain | gz |")
    L.append("|---|---|---|")
    pl, g = s["plain"], s["gz"]
    L.append(f"| index only (`sp_ccd_index_build`, text in memory) | {pl['index_s']:.3f} s = **{pl['index_gb_per_s']:.2f} GB/s** | "
             f"{g['index_s']:.3f} s = **{g['index_gb_per_s']:.2f} GB/s** |")
    L.append(f"| index + hash table on borrowed text (what each rank does with a shared copy) | {pl['open_borrowed_s']:.3f} s = "
             f"{pl['open_borrowed_gb_per_s']:.2f} GB/s | {g['open_borrowed_s']:.3f} s |")
    L.append(f"| `sp_ccd_open` (read [+ inflate] + index) | {pl['open_s']:.3f} s = {pl['open_gb_per_s']:.2f} GB/s | "
             f"{g['open_s']:.3f} s = {g['open_gb_per_s']:.2f} GB/s of text |")
    L.append(f"| `sp_ccd_open_source` MAPPED (mmap + index) | {pl['open_mapped_s']:.3f} s = {pl['open_mapped_gb_per_s']:.2f} GB/s | (reads) |")
    L.append(f"| read of the file alone | {pl['read_s']:.3f} s | {g['read_s']:.3f} s |")
    L.append(f"| inflate alone, in process (`sp_gunzip`: libdeflate when built with it, else zlib) | | {g['inflate_s']:.3f} s |")
    z = r["peer_zcat_wc"]
    L.append(f"| peer: `zcat GZ \\| wc -c` | | {z['median_s']:.3f} s |")
    gm = r["peer_gemmi_cif_read"]
    if "plain" in gm:
        L.append(f"| peer: gemmi {gm.get('version', '')} `cif.read` (full parse, incl. python start {gm['plain']['python_import_s']:.2f} s) | "
                 f"{gm['plain']['median_s']:.2f} s | {gm['gz']['median_s']:.2f} s |")
    L.append(f"| CPU time (user + sys, this process), same medians: index / open / mapped open / inflate | "
             f"{pl['cpu_s']['index']:.3f} / {pl['cpu_s']['open']:.3f} / {pl['cpu_s']['open_mapped']:.3f} s "
             f"(index {pl['cpu_s']['index_gb_per_s']:.2f} GB/s) | {g['cpu_s']['index']:.3f} / {g['cpu_s']['open']:.3f} / "
             f"- / {g['cpu_s']['inflate']:.3f} s (open / inflate = {g['cpu_s']['open_over_inflate']:.2f}) |")
    L.append("")
    L.append(f"Ratios: gz open / in-process inflate = **{g['open_over_inflate']:.2f}** (the gz open is bounded by inflate); "
             f"gz open / `zcat | wc -c` = {g['open_s'] / z['median_s']:.2f}; plain open / plain read = {pl['open_over_read']:.2f}; "
             + (f"gemmi cif.read / sp_ccd_open: plain {gm['plain']['median_minus_import_s'] / pl['open_s']:.1f}x, "
                f"gz {gm['gz']['median_minus_import_s'] / g['open_s']:.1f}x (gemmi minus its import time)." if "plain" in gm else "") + "\n")
    L.append(f"Component lookup + parse ({s['n_lookups']} random blocks of the plain file, mean {pl['lookup_cold_us']['mean_atoms']:.0f} atoms): "
             f"cold (first use: hash lookup + CIF parse of the block) median **{pl['lookup_cold_us']['median']:.1f} µs**, "
             f"p90 {pl['lookup_cold_us']['p90']:.1f} µs, max {pl['lookup_cold_us']['max']:.0f} µs; HEM cold {pl['hem_cold_us']:.1f} µs; "
             f"warm (cached) median **{pl['lookup_warm_us']['median']:.3f} µs** (p90 {pl['lookup_warm_us']['p90']:.3f} µs; "
             f"includes the clock read).\n")
    L.append("## Memory per rank, -np 2, one node (KiB)\n")
    L.append("VmHWM is the peak RSS of the rank; it counts the shared pages the rank touched (shared modes: rank 0 "
             "indexes the text and broadcasts the index, so rank 1 touches only the pages of the blocks it parses). "
             "The node's memory is the sum of Pss (shared pages divided among the ranks that map them). Each rank "
             "looks up 2000 random components.\n")
    L.append("| CCD | mode | rank | open s | VmHWM | RssAnon | RssFile | RssShmem | Pss |")
    L.append("|---|---|---|---|---|---|---|---|---|")
    for k, v in r["memory_np2"].items():
        for rk in v["ranks_kib"]:
            L.append(f"| {k.split('_')[0]} | {v['mode']} | {rk['rank']} | {rk['open_s']:.2f} | {rk['VmHWM']} | {rk['RssAnon']} | "
                     f"{rk['RssFile']} | {rk['RssShmem']} | {rk['Pss']} |")
    L.append("")
    L.append("Sum of Pss over the 2 ranks (node memory): " + ", ".join(
        f"{k} {v['pss_sum_kib'] / 1024:.0f} MiB" for k, v in r["memory_np2"].items()) + ".\n")
    L.append("## `sitepack run` of tests/data/structures, -np 2, big gz CCD\n")
    for k, v in r["sitepack_run_np2_gz_ccd"].items():
        L.append(f"- {k}: wall {v['wall_s']:.2f} s, report peak_rss_bytes per rank "
                 + ", ".join(f"{(b or 0) / 2**20:.0f} MiB" for b in v["peak_rss_bytes"]))
    L.append("\n(peak_rss_bytes is ru_maxrss: it includes the shared pages the rank touched; see Pss above.)\n")
    L.append("Reproduce: `make bench-ccd` (or `bench/ccd_bench.py --build BUILD_DIR`).\n")
    return "\n".join(L)


if __name__ == "__main__":
    main()
