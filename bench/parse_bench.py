#!/usr/bin/python3
"""make bench-parse: speed and memory of sitepack's structure readers against gemmi.

Reads every file of shared/data/structures in four groups (plain mmCIF, gzip mmCIF, plain
PDB, gzip PDB; --groups a,b for a subset) into the in-memory model, REPS times (median reported), with
  - sitepack: bench/parse_bench (built here against BUILD/libsitepack.a): sp_read_structure_file
    (file read + SHA-256 + inflate + parse, the real per-file cost) and parse alone on text
    already in memory;
  - gemmi: gemmi.read_structure(path) (Debian python3-gemmi, /usr/bin/python3), same files,
    same run, after sitepack.
Also: whole-file inflate of the gzip files with zlib, libdeflate, ISA-L and sp_gunzip; bytes of
the in-memory model per atom (sp_structure_bytes); peak RSS reading the largest entry (sitepack
and gemmi, each in a fresh process). Writes results/parse-<UTC date>.json and .md (a later run of
the same day: parse-<date>-2, -3, ...; earlier results are never overwritten), with the load
averages at the start and the end.

The machine may be shared: the script waits (up to --wait-max s) for the 1-minute load average
to drop below --load-max before timing, and records the load before and after each group.
--before DIR: an earlier source tree (DIR/include, DIR/build/libsitepack.a) timed as a third side.
Usage: parse_bench.py --build BUILD --out results [--reps 5] [--data DIR] [--groups pdb_plain,pdb_gz] [--before DIR]
"""
import argparse
import datetime
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def load1():
    return os.getloadavg()[0]


def wait_quiet(load_max, wait_max):
    t0 = time.time()
    while load1() > load_max and time.time() - t0 < wait_max:
        time.sleep(10)
    return round(load1(), 2)


def build_driver(build, out_bin, include=None):
    flags = ["-O2", "-g", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-D_DEFAULT_SOURCE",
             "-I" + (include or os.path.join(ROOT, "include")), "-I" + os.path.join(build, "generated")]
    libs = ["-lz", "-lcrypto", "-lm"]
    if os.path.exists("/usr/include/libdeflate.h"):
        flags.append("-DHAVE_LIBDEFLATE")
        libs.insert(0, "-ldeflate")
    if os.path.exists("/usr/include/isa-l/igzip_lib.h"):
        flags.append("-DHAVE_ISAL")
        libs.insert(0, "-lisal")
    cmd = ["gcc"] + flags + [os.path.join(HERE, "parse_bench.c"), os.path.join(build, "libsitepack.a")] + libs + \
          ["-o", out_bin]
    subprocess.run(cmd, check=True)
    return " ".join(flags)


def gemmi_times(files, reps, warm=True):
    import gemmi
    times = []
    atoms = 0
    for f in (files if warm else []):  # warm-up and atom count (all models)
        st = gemmi.read_structure(f)
        atoms += sum(1 for m in st for ch in m for r in ch for a in r)
        del st
    gc.disable()
    for _ in range(reps):
        t0 = time.perf_counter()
        for f in files:
            st = gemmi.read_structure(f)
            del st
        times.append(time.perf_counter() - t0)
        gc.collect()
    gc.enable()
    return times, atoms


def peak_rss_gemmi(path):
    # VmHWM (not ru_maxrss, which a child inherits from its parent across fork + exec)
    code = ("import gemmi\n"
            "def hwm():\n"
            "    return int([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1])\n"
            "b=hwm();s=gemmi.read_structure(%r);print(b, hwm())" % path)
    base, peak = map(int, sh(["/usr/bin/python3", "-c", code]).split())
    return base, peak


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="results")
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "structures"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--load-max", type=float, default=1.5)
    ap.add_argument("--wait-max", type=float, default=600)
    ap.add_argument("--before", default="", help="an earlier source tree with its build in BEFORE/build: its "
                    "library is timed as a third side of the same run (read, alternating)")
    ap.add_argument("--groups", default="", help="comma-separated subset of mmcif_plain,mmcif_gz,pdb_plain,pdb_gz")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    data = os.path.abspath(a.data)
    os.makedirs(a.out, exist_ok=True)
    drv = os.path.join(build, "parse_bench")
    cflags = build_driver(build, drv)
    drv_b = None
    if a.before:
        drv_b = os.path.join(build, "parse_bench_before")
        build_driver(os.path.join(os.path.abspath(a.before), "build"), drv_b,
                     os.path.join(os.path.abspath(a.before), "include"))
    import gemmi

    loadavg_start = list(os.getloadavg())
    names = sorted(os.listdir(data))
    groups = {
        "mmcif_plain": [n for n in names if n.endswith(".cif")],
        "mmcif_gz": [n for n in names if n.endswith(".cif.gz")],
        "pdb_plain": [n for n in names if n.endswith(".pdb") or n.endswith(".ent")],
        "pdb_gz": [n for n in names if n.endswith(".pdb.gz") or n.endswith(".ent.gz")],
    }
    if a.groups:
        groups = {g: fl for g, fl in groups.items() if g in a.groups.split(",")}
    res = {"groups": {}}
    for g, fl in groups.items():
        paths = [os.path.join(data, n) for n in fl]
        load_before = wait_quiet(a.load_max, a.wait_max)
        # sitepack and gemmi alternate, one repetition each, so that a change of load on a shared
        # machine hits both alike; ratios are also given as the median of the per-repetition ratios
        sp = None
        bf = None
        gt = []
        g_atoms = 0
        for _ in range(a.reps):
            one = json.loads(sh([drv, "read", "1"] + paths))
            if sp is None:
                sp = one
            else:
                for k in ("t_file", "t_parse", "t_nohash"):
                    sp[k] += one[k]
            t1, n = gemmi_times(paths, 1, warm=not gt)
            g_atoms = g_atoms or n
            gt += t1
            if drv_b:
                one = json.loads(sh([drv_b, "read", "1"] + paths))
                if bf is None:
                    bf = one
                else:
                    for k in ("t_file", "t_parse", "t_nohash"):
                        bf[k] += one[k]
        load_after = round(load1(), 2)
        t_file, t_parse, t_gemmi = (statistics.median(sp["t_file"]), statistics.median(sp["t_parse"]),
                                    statistics.median(gt))
        t_nohash = statistics.median(sp["t_nohash"])
        mb = sp["text_bytes"] / 1e6
        res["groups"][g] = {
            "files": fl, "n_files": len(fl), "text_bytes": sp["text_bytes"], "stored_bytes": sp["stored_bytes"],
            "atoms": sp["atoms"], "atoms_gemmi": g_atoms,
            "sitepack_file_s": sp["t_file"], "sitepack_parse_s": sp["t_parse"], "gemmi_s": gt,
            "median_sitepack_file_s": t_file, "median_sitepack_parse_s": t_parse, "median_gemmi_s": t_gemmi,
            "sitepack_MBps": mb / t_file, "sitepack_parse_MBps": mb / t_parse, "gemmi_MBps": mb / t_gemmi,
            "sitepack_atoms_per_s": sp["atoms"] / t_file, "gemmi_atoms_per_s": g_atoms / t_gemmi,
            "ratio_vs_gemmi": t_gemmi / t_file, "ratio_parse_vs_gemmi": t_gemmi / t_parse,
            "sitepack_nohash_s": sp["t_nohash"], "median_sitepack_nohash_s": t_nohash,
            "sitepack_nohash_MBps": mb / t_nohash, "ratio_nohash_vs_gemmi": t_gemmi / t_nohash,
            "ratio_per_rep_median": statistics.median(g / f for g, f in zip(gt, sp["t_file"])),
            "ratio_nohash_per_rep_median": statistics.median(g / f for g, f in zip(gt, sp["t_nohash"])),
            "ratio_parse_per_rep_median": statistics.median(g / f for g, f in zip(gt, sp["t_parse"])),
            "model_bytes": sp["model_bytes"], "bytes_per_atom": sp["model_bytes"] / sp["atoms"],
            "load_before": load_before, "load_after": load_after,
        }
        if bf:
            res["groups"][g]["before"] = {k: bf[k] for k in ("t_file", "t_parse", "t_nohash")}
            for k in ("t_file", "t_parse", "t_nohash"):
                res["groups"][g]["before"]["median_" + k] = statistics.median(bf[k])
                res["groups"][g]["before"]["ratio_" + k] = t_gemmi / statistics.median(bf[k])
        print("%-12s sitepack %7.1f MB/s (no hash %7.1f, parse %7.1f)  gemmi %6.1f MB/s  ratio %5.1fx (no hash %5.1fx, "
              "parse %5.1fx)  load %.2f/%.2f" % (g, mb / t_file, mb / t_nohash, mb / t_parse, mb / t_gemmi,
                                               t_gemmi / t_file, t_gemmi / t_nohash, t_gemmi / t_parse, load_before,
                                               load_after))
    gz = [os.path.join(data, n) for n in names if n.endswith(".gz")]
    load_before = wait_quiet(a.load_max, a.wait_max)
    inf = json.loads(sh([drv, "inflate", str(a.reps)] + gz))
    inf_out = {"files": len(gz), "stored_bytes": inf["stored_bytes"], "text_bytes": inf["text_bytes"],
               "load_before": load_before, "load_after": round(load1(), 2)}
    for k, v in inf.items():
        if k.startswith("t_"):
            m = statistics.median(v)
            inf_out[k[2:]] = {"s": v, "median_s": m, "MBps_out": inf["text_bytes"] / 1e6 / m}
    inf_out["speedup_libdeflate_vs_zlib"] = inf_out["zlib"]["median_s"] / inf_out["libdeflate"]["median_s"] \
        if "libdeflate" in inf_out else None
    inf_out["speedup_isal_vs_zlib"] = inf_out["zlib"]["median_s"] / inf_out["isal"]["median_s"] \
        if "isal" in inf_out else None
    res["inflate"] = inf_out
    # largest entry (inflated text size): peak RSS in a fresh process
    sizes = {}
    for n in names:
        p = os.path.join(data, n)
        if n.endswith(".gz"):
            with open(p, "rb") as f:
                f.seek(-4, 2)
                sizes[n] = int.from_bytes(f.read(4), "little")
        else:
            sizes[n] = os.path.getsize(p)
    largest = max(sizes, key=sizes.get)
    pk = json.loads(sh([drv, "peak", os.path.join(data, largest)]))
    gb, gp = peak_rss_gemmi(os.path.join(data, largest))
    res["largest"] = {"file": largest, "text_bytes": pk["text_bytes"], "atoms": pk["atoms"],
                      "model_bytes": pk["model_bytes"], "bytes_per_atom": pk["model_bytes"] / pk["atoms"],
                      "sitepack_peak_rss_kib": pk["peak_rss_kib"], "gemmi_peak_rss_kib": gp,
                      "gemmi_python_baseline_rss_kib": gb}
    tot_b = sum(g["model_bytes"] for g in res["groups"].values())
    tot_a = sum(g["atoms"] for g in res["groups"].values())
    res["bytes_per_atom_all"] = tot_b / tot_a
    vers = json.loads(sh([drv, "versions"]))
    try:
        isal = sh(["dpkg-query", "-W", "-f=${Version}", "libisal2"])
    except Exception:
        isal = None
    sha = sh(["git", "-C", ROOT, "rev-parse", "HEAD"]).strip()
    # uncommitted changes in the code this measures (other modules do not take part)
    dirty = bool(sh(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no", "--", "src/io", "src/cif",
                     "src/pdb", "src/model", "src/chem", "include/sitepack", "bench", "CMakeLists.txt"]).strip())
    cpu = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    res["provenance"] = {
        "date_utc": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"), "git_sha": sha, "git_dirty": dirty,
        "host": platform.node(), "cpu": cpu, "n_cpus": os.cpu_count(), "kernel": platform.release(),
        "gemmi": gemmi.__version__, "python": sys.version.split()[0], "zlib": vers.get("zlib"),
        "libdeflate": vers.get("libdeflate"), "isal": isal, "driver_cflags": cflags,
        "build": build, "cmake_build_type": _cache(build, "CMAKE_BUILD_TYPE"), "reps": a.reps,
        "inputs": data, "timing": "wall clock, whole group per repetition, sitepack and gemmi alternating, median of reps; files in page cache",
    }
    if a.before:
        res["provenance"]["before"] = os.path.abspath(a.before)
    res["provenance"]["loadavg_start"] = loadavg_start
    res["provenance"]["loadavg_end"] = list(os.getloadavg())
    day = datetime.datetime.utcnow().strftime("%Y-%m-%d")
    # never overwrite an earlier run of the same day: parse-DAY.json, parse-DAY-2.json, ...
    stem, k = "parse-%s" % day, 1
    while os.path.exists(os.path.join(a.out, stem + ".json")) or os.path.exists(os.path.join(a.out, stem + ".md")):
        k += 1
        stem = "parse-%s-%d" % (day, k)
    jpath = os.path.join(a.out, stem + ".json")
    with open(jpath, "w") as f:
        json.dump(res, f, indent=1)
    with open(os.path.join(a.out, stem + ".md"), "w") as f:
        f.write(markdown(res))
    print("wrote", jpath)


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
    p = r["provenance"]
    out = ["# Reader benchmark: sitepack vs gemmi (%s)" % p["date_utc"], "",
           "git %s%s, %s (%s, %d CPUs), gemmi %s, zlib %s, libdeflate %s, ISA-L %s; median of %d; "
           "`make bench-parse` (bench/parse_bench.py)." % (p["git_sha"][:12], " (dirty)" if p["git_dirty"] else "",
                                                          p["host"], p["cpu"], p["n_cpus"], p["gemmi"], p["zlib"],
                                                          p["libdeflate"], p["isal"], p["reps"]), "",
           "Build: %s (%s). Load averages (1, 5, 15 min) at the start %s, at the end %s." % (
               p["build"], p.get("cmake_build_type"),
               " / ".join("%.2f" % x for x in p.get("loadavg_start", [])) or "?",
               " / ".join("%.2f" % x for x in p.get("loadavg_end", [])) or "?"), "",
           "| group | files | MB (text) | atoms | sitepack MB/s | sitepack Matoms/s | no-hash MB/s | parse-only MB/s | "
           "gemmi MB/s | gemmi Matoms/s | ratio (file) | ratio (no hash) | ratio (parse) | load before/after |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for g, v in r["groups"].items():
        out.append("| %s | %d | %.1f | %d | %.0f | %.2f | %.0f | %.0f | %.1f | %.3f | %.1fx | %.1fx | %.1fx | %.2f / %.2f |" % (
            g, v["n_files"], v["text_bytes"] / 1e6, v["atoms"], v["sitepack_MBps"], v["sitepack_atoms_per_s"] / 1e6,
            v["sitepack_nohash_MBps"], v["sitepack_parse_MBps"], v["gemmi_MBps"], v["gemmi_atoms_per_s"] / 1e6,
            v["ratio_vs_gemmi"], v["ratio_nohash_vs_gemmi"], v["ratio_parse_vs_gemmi"], v["load_before"],
            v["load_after"]))
    out += ["", "sitepack (file) = sp_read_structure_file: read, SHA-256 of the stored bytes (provenance, "
            "written to the output), inflate, parse into the model; no hash = read, inflate, parse (the work "
            "gemmi does); parse = sp_read_structure_text on text in memory; gemmi = gemmi.read_structure(path). "
            "Ratios are gemmi time / sitepack time (medians of the times); median of the per-repetition "
            "ratios (sitepack and gemmi alternate): " + "; ".join(
                "%s %.1fx file, %.1fx no hash, %.1fx parse" % (g, v["ratio_per_rep_median"],
                                                               v["ratio_nohash_per_rep_median"],
                                                               v["ratio_parse_per_rep_median"])
                for g, v in r["groups"].items()) + ".", ""]
    if any("before" in v for v in r["groups"].values()):
        out += ["Before (%s, its library timed by the same driver, a third side of every rep): gemmi time / "
                "sitepack time, medians:" % p.get("before"), "",
                "| group | before: file s | no hash s | parse s | ratio file | no hash | parse | after: ratio file | "
                "no hash | parse |", "|---|---|---|---|---|---|---|---|---|---|"]
        for g, v in r["groups"].items():
            b = v.get("before")
            if b:
                out.append("| %s | %.3f | %.3f | %.3f | %.1fx | %.1fx | %.1fx | %.1fx | %.1fx | %.1fx |" % (
                    g, b["median_t_file"], b["median_t_nohash"], b["median_t_parse"], b["ratio_t_file"],
                    b["ratio_t_nohash"], b["ratio_t_parse"], v["ratio_vs_gemmi"], v["ratio_nohash_vs_gemmi"],
                    v["ratio_parse_vs_gemmi"]))
        out.append("")
    i = r["inflate"]
    out.append("Whole-file inflate of the %d gzip files (%.1f MB -> %.1f MB):" % (
        i["files"], i["stored_bytes"] / 1e6, i["text_bytes"] / 1e6))
    out.append("")
    out.append("| inflate | median s | MB/s (out) |")
    out.append("|---|---|---|")
    for k in ("zlib", "libdeflate", "isal", "sp_gunzip"):
        if k in i:
            out.append("| %s | %.3f | %.0f |" % (k, i[k]["median_s"], i[k]["MBps_out"]))
    out.append("")
    L = r["largest"]
    out.append("Memory: %.1f bytes per atom of the in-memory model over all files (sp_structure_bytes, arrays at "
               "capacity); largest entry %s (%.1f MB text, %d atoms): %.1f B/atom, peak RSS sitepack %.1f MiB, "
               "gemmi %.1f MiB (Python + gemmi baseline %.1f MiB)." % (
                   r["bytes_per_atom_all"], L["file"], L["text_bytes"] / 1e6, L["atoms"], L["bytes_per_atom"],
                   L["sitepack_peak_rss_kib"] / 1024, L["gemmi_peak_rss_kib"] / 1024,
                   L["gemmi_python_baseline_rss_kib"] / 1024))
    out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    main()
