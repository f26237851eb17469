#!/usr/bin/env python3
"""Write the short .md of a read-benchmark run from its JSON (results/read-DATE.json -> .md).
usage: read_md.py results/read-DATE.json"""
import json
import sys

path = sys.argv[1]
d = json.load(open(path))
p = d["provenance"]
out = [f"# Read benchmark {d['date']}", "",
       f"git {p['git_sha']}, host {p['host']} ({p['cores']} cores, {p['kernel']}), HDF5 {p['hdf5_version']}; "
       f"load average before {p['load_before']}, after {p['load_after']}. Command: `make bench-read` "
       f"(`sitepack bench read`); method: {d.get('method', '')}", "",
       "Reads (molecules/s, median of 3 after one warm-up; ratios measured in the same run):", "",
       "| data | backend | pattern | molecules/s | GB/s | vs hdf5_soa | vs memcpy | cold s |",
       "|---|---|---|---|---|---|---|---|"]
for r in d["reads"]:
    cold = r.get("cold_s")
    out.append(f"| {r['data']} | {r['backend']} | {r['pattern']} | {r['molecules_per_s']:,} | {r.get('GB_per_s', '')} | "
               f"{r.get('vs_hdf5_soa', '')} | {r.get('vs_memcpy', '')} | {'' if cold is None else cold} |")
out += ["", "Writes of the synthetic data:", "", "| layout | s | molecules/s | bytes | size vs plain SoA |", "|---|---|---|---|---|"]
for w in d["writes"]:
    out.append(f"| {w['layout']} | {w['seconds']} | {w['molecules_per_s']:,} | {w['file_bytes']:,} | {w['size_vs_plain_soa']} |")
out += ["", f"Real merged file sizes (bytes): {d.get('real_sizes')}", ""]
open(path[:-5] + ".md", "w").write("\n".join(out))
print("wrote", path[:-5] + ".md")
