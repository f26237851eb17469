"""The options of `sitepack run` do not drift (issue 33 item 6): docs/usage.md's option table is the spec,
and every option in it must be, at once,
  - in `sitepack help run` (with the same value name), and every option line of the help in the table; the
    help's "job file keys" list names the table's keys; the synopsis at the top of docs/usage.md names them
    all, the run line of `sitepack --help` documented ones only;
  - accepted as a flag and as its job-file key (one real run with every flag, one with every key);
  - range-checked with the documented limits, as a flag and as a key: a value past the range is refused
    with the one message format that names the range ("--cutoff must be a number in (0, 50], got '60'",
    "job file: site.cutoff must be a number in (0, 50], got 60"); a choice outside its values, an empty
    path and a key's non-boolean value likewise;
  - recorded: the job of the flag run, the job-file run and a run of the recorded job itself are the same
    /run@job_json, holding each recorded key at the value set (the keys docs/usage.md says are not
    recorded: split and steal in the report's schedule instead).
An option added in only one place (the help, the parser, the docs) fails one of these.

usage: run_options.py SITEPACK STRUCTURE_FILE CCD USAGE_MD WORKDIR
"""
import json
import os
import re
import shutil
import subprocess
import sys

import h5py

SP, STRUCT, CCD, USAGE, WORK = sys.argv[1:6]
fails = []


def check(cond, msg):
    if not cond:
        fails.append(msg)
        print("FAIL:", msg)


def run(args, cwd=None):
    p = subprocess.run([SP, "run"] + args, capture_output=True, text=True, cwd=cwd)
    return p.returncode, p.stdout, p.stderr.strip()


def number(t):
    """'10^9', '2^53', '0', '1024', '0.5' as a number."""
    if "^" in t:
        b, e = t.split("^")
        return int(b) ** int(e)
    return float(t) if "." in t else int(t)


# ---- the spec: docs/usage.md's option table -------------------------------------------------------------
def read_table():
    lines = open(USAGE).read().split("\n")
    start = lines.index("| option | job file | meaning |")
    opts = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        flags = re.findall(r"`(--?[a-z][a-z-]*)", cells[0])
        first = re.match(r"`(--[a-z-]+)(?: ([^`]+))?`", cells[0])
        arg = first.group(2).replace("\\|", "|") if first and first.group(2) else None
        key = re.match(r"`([a-z_.]+)(: false)?`", cells[1]) if cells[1] else None
        rng = re.search(r"an? (integer|number) in ([\[(])([\d.^]+), ([\d.^]+)\]", cells[2])
        o = {"flags": flags, "flag": first.group(1), "arg": arg, "key": key.group(1) if key else None,
             "flag_sets_false": bool(key and key.group(2)), "text": cells[2]}
        if rng:
            o["range"] = (rng.group(1), rng.group(2) == "(", number(rng.group(3)), number(rng.group(4)))
        opts.append(o)
    return opts


OPTS = read_table()
check(len(OPTS) >= 20, f"docs/usage.md: option table not found or short ({len(OPTS)} rows)")
KEYS = {o["key"] for o in OPTS if o["key"]}
NOT_RECORDED = {"output", "report", "steal"} | {k for k in KEYS if k.startswith("split.")}

# ---- the help -------------------------------------------------------------------------------------------
hp = subprocess.run([SP, "help", "run"], capture_output=True, text=True)
HELP = hp.stdout
check(hp.returncode == 0 and "usage:" in HELP, "sitepack help run failed")
for o in OPTS:
    for f in o["flags"]:
        check(re.search(r"(?<![\w-])" + re.escape(f) + r"(?![\w-])", HELP), f"{f} (docs/usage.md) not in --help")
    if o["arg"]:
        check(re.search(r"^  " + re.escape(o["flag"]) + " " + re.escape(o["arg"]) + r"(\s|$)", HELP, re.M),
              f"--help does not show {o['flag']} {o['arg']} (docs/usage.md)")
documented = {f for o in OPTS for f in o["flags"]}
for m in re.finditer(r"^  ((?:-[a-z], )?--[a-z-]+|-[a-z])", HELP, re.M):
    for f in re.findall(r"--?[a-z][a-z-]*", m.group(1)):
        check(f in documented, f"--help lists {f}, docs/usage.md's option table does not")
km = re.search(r"^job file keys: (.*?)\n\n", HELP, re.M | re.S)
check(km is not None, "--help has no 'job file keys:' paragraph")
if km:
    text = " ".join(km.group(1).split())
    help_keys = set()
    for sec, inner in re.findall(r"([a-z_]+): \{([^}]*)\}", text):
        help_keys |= {sec + "." + k.strip() for k in inner.split(",")}
    help_keys |= set(re.findall(r"(?:^|, )([a-z_]+)(?= \(|,|$)", re.sub(r"[a-z_]+: \{[^}]*\}", "", text)))
    check(help_keys == KEYS, f"--help's job file keys {sorted(help_keys ^ KEYS)} differ from docs/usage.md")

# the run line of `sitepack --help` and the synopsis at the top of docs/usage.md name documented flags only, and
# the synopsis every one (but --help and the alias --output)
mh = subprocess.run([SP, "--help"], capture_output=True, text=True).stdout
run_line = re.search(r"^  mpirun -np P sitepack run .*?(?=^  sitepack )", mh, re.M | re.S)
check(run_line is not None, "sitepack --help has no run line")
for f in re.findall(r"\[(--[a-z][a-z-]*)", run_line.group(0) if run_line else ""):
    check(f in documented, f"sitepack --help's run line has {f}, docs/usage.md's option table does not")
syn = re.search(r"^## The run\n\n```\n(.*?)```", open(USAGE).read(), re.M | re.S)
syn_flags = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", syn.group(1))) - {"--mca"} if syn else set()
check(syn_flags - documented == set(), f"docs/usage.md's synopsis has {sorted(syn_flags - documented)}, its table not")
missing = {f for f in documented if f.startswith("--")} - {"--help", "--output"} - syn_flags
check(not missing, f"docs/usage.md's synopsis lacks {sorted(missing)}")

# ---- refusals: a value past the documented range, a bad choice, an empty path, a non-boolean key ------------
os.makedirs(WORK, exist_ok=True)
OUTDIR = os.path.join(WORK, "a_directory")  # parsing passed when the run stops at "output ... is a directory"
os.makedirs(OUTDIR, exist_ok=True)


def set_key(job, key, value):
    d = job
    parts = key.split(".")
    for p in parts[:-1]:
        d = d.setdefault(p, {})
    d[parts[-1]] = value


def refused_flag(o, value, want):
    rc, _, err = run(["--input", STRUCT, "--out", OUTDIR, o["flag"], value])
    check(rc == 2 and err == "sitepack run: " + want, f"{o['flag']} {value!r}: exit {rc}, {err!r}, want {want!r}")


def refused_key(o, value, want):
    job = {"input": STRUCT}
    set_key(job, o["key"], value)
    path = os.path.join(WORK, "bad.json")
    json.dump(job, open(path, "w"))
    rc, _, err = run([path, "--out", OUTDIR])
    check(rc == 2 and err == "sitepack run: job file: " + want,
          f"{o['key']} = {value!r}: exit {rc}, {err!r}, want {want!r}")


def fmt(kind, v):
    return str(int(v)) if kind == "integer" else "%g" % v


def cjson_number(d):
    """A number as cJSON_PrintUnformatted writes it (the job file's value in its error message)."""
    if d == int(d) and -2 ** 31 <= d < 2 ** 31:
        return str(int(d))
    t = "%1.15g" % d
    return t if float(t) == d else "%1.17g" % d


for o in OPTS:
    if "range" in o:
        kind, lo_open, lo, hi = o["range"]
        span = f"{'(' if lo_open else '['}{fmt(kind, lo)}, {fmt(kind, hi)}]"
        past = str(int(hi) + 1) if kind == "integer" else "%g" % (hi * 2)
        refused_flag(o, past, f"{o['flag']} must be {'an integer' if kind == 'integer' else 'a number'} in {span}, "
                              f"got '{past}'")
        if o["key"]:  # past the range as a JSON number (2^53 + 1 is no double: 2^54)
            v = (int(hi) + 1 if hi < 2 ** 53 else int(hi) * 2) if kind == "integer" else float(hi) * 2
            refused_key(o, v, f"{o['key']} must be {'an integer' if kind == 'integer' else 'a number'} in {span}, "
                              f"got {cjson_number(float(v))}")
        elif o["arg"]:
            check(False, f"{o['flag']}: a numeric option without a job-file key")
    elif o["arg"] and "|" in o["arg"] and "/" not in o["arg"]:
        a, b = o["arg"].split("|")
        refused_flag(o, "bogus", f"{o['flag']} must be {a} or {b}: bogus")
        refused_key(o, "bogus", f'{o["key"]} must be "{a}" or "{b}"')
    elif o["arg"] and re.search(r"DIR|FILE", o["arg"]):
        refused_flag(o, "", f"{o['flag']} must name a file, got an empty string")
        refused_key(o, "", f"{o['key']} must name a file, got an empty string")
    elif not o["arg"] and o["key"]:  # a boolean key (the flag sets it)
        want = (f"{o['key']} must be true or false" if "." not in o["key"]
                else f"{o['key']} must be true or false, got 1")
        refused_key(o, 1, want)
rc, _, err = run(["--input", STRUCT, "--out", OUTDIR, "--frob"])
check(rc == 2 and "unknown option: --frob" in err, f"an unknown flag is not refused: {err!r}")

# ---- acceptance and the recorded job ----------------------------------------------------------------------
def value_for(o):
    """A valid value that is not the default, for the flag (text) and for the key (JSON)."""
    if "range" in o:
        kind, lo_open, lo, hi = o["range"]
        v = {"site.cutoff": 4.5, "ph": 6.5, "site.max_atoms": 5000, "limits.max_seconds": 100.0,
             "limits.max_atoms": 1000000, "limits.max_file_site_atoms": 123456, "split.min_bytes": 1000,
             "split.min_ligands": 3, "split.max_parts": 4}.get(o["key"])
        check(v is not None and lo <= v <= hi, f"{o['flag']}: no test value in its range")
        return str(v), v
    if o["arg"] and "|" in o["arg"] and "/" not in o["arg"]:
        b = o["arg"].split("|")[1]  # the second value: the default is the first
        return b, b
    return None, None


def real_run(args, name):
    out = os.path.join(WORK, name + ".h5")
    rep = os.path.join(WORK, name + ".report.json")
    rc, _, err = run(args + ["--out", out, "--report", rep, "--force", "--quiet"])
    check(rc == 0, f"{name}: exit {rc}: {err[:400]}")
    if rc:
        return None, None
    with h5py.File(out, "r") as f:
        job = f["run"].attrs["job_json"]
    return json.loads(job.decode() if isinstance(job, bytes) else job), json.load(open(rep))["schedule"]


flag_args, job = ["--input", STRUCT, "--ccd", CCD], {"input": STRUCT, "ccd": CCD}
want = {}
for o in OPTS:
    text, v = value_for(o)
    if text is not None:
        flag_args += [o["flag"], text]
        set_key(job, o["key"], v)
        want[o["key"]] = v
    elif not o["arg"] and o["key"]:
        flag_args.append(o["flag"])  # the flag sets the key away from its default
        set_key(job, o["key"], not o["flag_sets_false"])
        want[o["key"]] = not o["flag_sets_false"]
flag_args.append("--keep-parts")  # a flag without a key (--force, --quiet: real_run)
rec_flags, sched_flags = real_run(flag_args, "flags")
path = os.path.join(WORK, "job.json")
json.dump(job, open(path, "w"))
rec_keys, sched_keys = real_run([path], "keys")
check(rec_flags is not None and rec_flags == rec_keys, f"recorded job: flags {rec_flags} != job file {rec_keys}")
if rec_flags:
    json.dump(rec_flags, open(path, "w"))
    rec_again, _ = real_run([path], "again")
    check(rec_again == rec_flags, f"the recorded job run again records {rec_again}, not {rec_flags}")
    flat = {}
    for k, v in rec_flags.items():
        for k2, v2 in (v.items() if isinstance(v, dict) else [(None, v)]):
            flat[k + "." + k2 if k2 else k] = v2
    for k, v in want.items():
        if k in NOT_RECORDED:
            check(k not in flat, f"{k} is recorded in /run@job_json (docs/usage.md: not recorded)")
        else:
            check(k in flat and flat[k] == v, f"{k} = {v!r} set, /run@job_json holds {flat.get(k)!r}")
    check(set(flat) <= KEYS, f"/run@job_json records undocumented keys {sorted(set(flat) - KEYS)}")
    check(flat.get("input") == STRUCT.rsplit("/", 1)[0] or flat.get("input") == STRUCT,
          f"input recorded as {flat.get('input')!r}")
if sched_flags:
    for k, v in want.items():
        if k.startswith("split."):
            check(sched_flags["split"][k[6:]] == v and sched_keys["split"][k[6:]] == v,
                  f"report schedule.split.{k[6:]} is {sched_flags['split'][k[6:]]}/{sched_keys['split'][k[6:]]}, "
                  f"set {v!r}")
    check(sched_flags["policy"] == sched_keys["policy"] == ("lpt+steal" if want.get("steal", True) else "lpt"),
          f"report schedule.policy {sched_flags['policy']}/{sched_keys['policy']}")
shutil.rmtree(os.path.join(WORK, "flags.h5.parts"), ignore_errors=True)
print(f"{len(OPTS)} documented options; {len(fails)} failures")
sys.exit(1 if fails else 0)
