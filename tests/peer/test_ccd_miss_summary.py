#!/usr/bin/python3
"""The run's summary names the ligand comp ids without a CCD block (issue 36 item 5): `sitepack run` on the
bundled sample with the CCD excerpt, then the summary line "ligand comp ids without a CCD block: N of M ..." and
the report's comp_ids / comp_ids_without_ccd equal the /components rows with in_ccd 0 (h5py), the ids listed
being the first of them in /components order. Without a CCD every comp id is counted.
usage: test_ccd_miss_summary.py SITEPACK INPUT_DIR CCD WORK_DIR
"""
import json
import os
import re
import subprocess
import sys

import h5py

FAILS = []


def check(cond, msg):
    if not cond:
        FAILS.append(msg)
        print("FAIL:", msg)


def run_one(exe, inp, ccd, out):
    args = [exe, "run", "--input", inp, "--out", out, "--force"] + (["--ccd", ccd] if ccd else [])
    r = subprocess.run(args, capture_output=True, text=True)
    check(r.returncode == 0, f"run {args}: exit {r.returncode} {r.stderr[-300:]}")
    with h5py.File(out, "r") as f:
        ids = [x.decode() for x in f["components/comp_id"][:]]
        miss = [i for i, v in zip(ids, f["components/in_ccd"][:]) if v == 0]
    m = re.search(r"ligand comp ids without a CCD block: (\d+) of (\d+)(?: \(.*\): (.*))?\n", r.stdout)
    check(m is not None, f"no CCD-miss line in the summary:\n{r.stdout}")
    if m:
        check(int(m.group(1)) == len(miss) and int(m.group(2)) == len(ids), f"summary {m.group(0)!r}: {len(miss)} of {len(ids)}")
        shown = (m.group(3) or "").replace(" ...", "").split()
        check(shown == miss[:len(shown)] and (len(shown) == len(miss) or "..." in (m.group(3) or "")),
              f"ids {shown} vs {miss[:len(shown)]}")
    rep = json.load(open(os.path.splitext(out)[0] + ".report.json"))
    check(rep.get("comp_ids") == len(ids) and rep.get("comp_ids_without_ccd") == len(miss), "report counts")
    return len(miss), len(ids)


def main():
    exe, inp, ccd, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    n_miss, n = run_one(exe, inp, ccd, os.path.join(work, "with_ccd.h5"))
    check(0 < n_miss < n, f"the sample with the excerpt: {n_miss} of {n} without a block (expected some, not all)")
    n_miss0, n0 = run_one(exe, inp, None, os.path.join(work, "no_ccd.h5"))
    check(n_miss0 == n0 == n, f"without a CCD: {n_miss0} of {n0}")
    print(f"{len(FAILS)} failures ({n_miss} of {n} comp ids without a CCD block)")
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
