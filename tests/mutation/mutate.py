#!/usr/bin/env python3
"""Mutation run of the test suite (`make mutate`; not part of `make test`, not in CI).

Each row of tests/mutation/mutations.tsv is one plausible bug: a file of the library, an exact old
text that must occur exactly once in it, the new text, the kind of bug, and optionally the ctest
arguments of the tests that should see it first. For each row, in one scratch copy of the tree
(incremental builds: only the mutated file is recompiled and the tests relinked), this script

  1. puts the new text in place of the old one,
  2. builds (cmake --build, -j JOBS),
  3. runs the row's tests (ctest ARGS --stop-on-failure -j JOBS) and, when none failed, every other
     test of the suite (so that a survivor survived the whole suite, not only a subset),
  4. puts the old text back.

A mutation is `killed` when some test failed, timed out or was skipped (a skip is a failure in CI,
see tests/run_ctest.sh), `survived` when the whole suite passed, and an `error` when its old text is
not found (or found more than once) in its file, when its file does not exist, or when the mutated
tree does not build: an error is never counted as killed, and any error makes the run exit 1.

The scratch copy's tests see the corpus (SITEPACK_CORPUS from the environment, else SHARED/data), so the
corpus tests count; fresh_clone is not run there (SCRATCH_EXCLUDED: it clones the tree's HEAD, and the scratch
copy is no git repository; a clone of HEAD would hold none of the mutations anyway).

Before the mutations the unmutated tree is built and the whole suite run once (the baseline): a
failing baseline stops the run (every mutation would look killed).

Writes OUT/mutation-DATE.json and .md (a second run of a day: mutation-DATE-2, ...; earlier runs are
never overwritten): per mutation its status, the tests that killed it, build and test seconds; the
score killed / (killed + survived); the survivors with the row's note (why it is equivalent or why
no test can see it).

The TSV: one row per mutation, tab-separated, '#' lines and empty lines ignored:
  id  file  old  new  kind  [ctest args]  [note]
old and new use the escapes \\n (newline), \\t (tab) and \\\\ (backslash). ctest args are split on
spaces (e.g. `-L site` or `-R ^test_site$`); empty: the whole suite at once.

Usage: mutate.py [--repo DIR] [--shared DIR] [--scratch DIR] [--out DIR] [--jobs N]
                 [--only ID,ID..] [--check] [--no-baseline] [--list FILE]
  --check: only check that every row's old text is found exactly once (no build, a second).
"""
import argparse
import datetime
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def unescape(s):
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            out.append({"n": "\n", "t": "\t", "\\": "\\"}.get(n, "\\" + n))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def load_rows(path):
    rows, errors = [], []
    with open(path, encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) < 5:
                errors.append(f"{path}:{ln}: {len(cols)} columns, need at least 5 (id file old new kind)")
                continue
            cols += [""] * (7 - len(cols))
            rows.append({"id": cols[0].strip(), "file": cols[1].strip(), "old": unescape(cols[2]),
                         "new": unescape(cols[3]), "kind": cols[4].strip(), "tests": cols[5].split(),
                         "note": cols[6].strip(), "line": ln})
    ids = [r["id"] for r in rows]
    for i in sorted(set(x for x in ids if ids.count(x) > 1)):
        errors.append(f"{path}: id {i} is used more than once")
    return rows, errors


def resolve(tree, r):
    """(path relative to tree of the one file holding the old text, None) or (None, why not). The file
    column may be a glob (src/site/*.c): a module split into several files keeps its rows; the old text
    must then occur exactly once over all the files it matches."""
    pat = r["file"]
    files = sorted(os.path.relpath(p, tree) for p in glob.glob(os.path.join(tree, pat)) if os.path.isfile(p))
    if not files:
        return None, f"file not found: {pat}"
    if r["old"] == r["new"]:
        return None, "old and new text are the same"
    hits = []
    for rel in files:
        with open(os.path.join(tree, rel), encoding="utf-8") as f:
            n = f.read().count(r["old"])
        hits += [rel] * n
    if not hits:
        return None, f"old text not found in {pat}"
    if len(hits) > 1:
        return None, f"old text found {len(hits)} times in {pat} ({', '.join(sorted(set(hits)))}; must be unique)"
    return hits[0], None


def check_row(tree, r):
    """None when the row applies to tree, else the reason (an error, never a kill)."""
    return resolve(tree, r)[1]


def tree_files(repo):
    out = subprocess.run(["git", "-C", repo, "ls-files", "-z", "-co", "--exclude-standard"],
                         check=True, capture_output=True).stdout
    return [p for p in out.decode().split("\0") if p and os.path.isfile(os.path.join(repo, p))]


def sync_tree(repo, scratch):
    """Copy the repository's tracked and untracked non-ignored files into scratch, only those whose
    bytes differ (unchanged files keep their time stamps: the build stays incremental); remove
    files of an earlier sync that are gone."""
    files = tree_files(repo)
    keep = set(files)
    copied = 0
    for rel in files:
        src, dst = os.path.join(repo, rel), os.path.join(scratch, rel)
        with open(src, "rb") as f:
            data = f.read()
        try:
            with open(dst, "rb") as f:
                same = f.read() == data
        except OSError:
            same = False
        if not same:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(dst, "wb") as f:
                f.write(data)
            shutil.copymode(src, dst)
            copied += 1
    listing = os.path.join(scratch, ".mutate-files")
    if os.path.exists(listing):
        with open(listing) as f:
            for rel in f.read().split("\0"):
                if rel and rel not in keep and os.path.isfile(os.path.join(scratch, rel)):
                    os.remove(os.path.join(scratch, rel))
    with open(listing, "w") as f:
        f.write("\0".join(files))
    return copied


TEST_LINE = re.compile(r"Test\s+#\d+:\s+(\S+)\s+\.*\s*(\*\*\*)?\s*(\S.*?)\s+([\d.]+)\s+sec\s*$", re.M)
TIMES = {}  # test name -> seconds in the baseline run


def fastest_first(build):
    """Make ctest start the fastest tests first (ctest starts the costliest first, from
    Testing/Temporary/CTestCostData.txt): with --stop-on-failure a kill by a quick test then ends the
    run early. Costs inverted from the baseline times; no 'failed last time' section."""
    if not TIMES:
        return
    path = os.path.join(build, "Testing", "Temporary", "CTestCostData.txt")
    with open(path, "w") as f:
        for name, t in TIMES.items():
            f.write(f"{name} 1 {1000.0 / (t + 0.05):.4f}\n")
        f.write("---\n")


def parse_ctest(text):
    """(failed test names with their result, number of tests run) from ctest's output."""
    bad, n = [], 0
    for m in TEST_LINE.finditer(text):
        n += 1
        res = m.group(3).strip()
        if res != "Passed":
            bad.append(f"{m.group(1)} ({res})")
    for m in re.finditer(r"^\s*\d+ - (\S+) \((Skipped|Disabled|Not Run)\)", text, re.M):
        name = f"{m.group(1)} ({m.group(2)})"
        if not any(b.startswith(m.group(1) + " ") for b in bad):
            bad.append(name)
    return bad, n


def run(cmd, cwd=None, timeout=None, env=None):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env,
                           errors="replace")
        return p.returncode, p.stdout + p.stderr, time.monotonic() - t0
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"") + (e.stderr or b"")
        if isinstance(out, bytes):
            out = out.decode(errors="replace")
        return 124, out, time.monotonic() - t0


# Tests never run in the scratch copy, with the reason. fresh_clone `git clone`s the tree's HEAD: the scratch
# copy is no git repository (the clone fails), and a clone of HEAD would hold none of the mutations anyway.
SCRATCH_EXCLUDED = {"fresh_clone": "clones the tree's HEAD: the scratch copy is no git repository, and HEAD "
                                   "holds none of the mutations"}


def with_exclusions(args):
    """ctest args with SCRATCH_EXCLUDED added to their -E (ctest keeps only the last -E: one regex)"""
    mine = "^(" + "|".join(re.escape(x) for x in SCRATCH_EXCLUDED) + ")$"
    if "-E" in args:
        i = args.index("-E")
        return args[:i] + ["-E", f"({args[i + 1]})|{mine}"] + args[i + 2:]
    return args + ["-E", mine]


def corpus_of(shared):
    """The corpus the scratch copy's tests see (tests/CMakeLists.txt SITEPACK_CORPUS): the environment's
    SITEPACK_CORPUS, else SHARED/data when it exists, else none (the corpus tests are then not registered)."""
    env = os.environ.get("SITEPACK_CORPUS", "")
    if env:
        return env
    return os.path.join(shared, "data") if os.path.isdir(os.path.join(shared, "data", "structures")) else "none"


def ctest(build, args, jobs, timeout, stop=True):
    fastest_first(build)
    cmd = ["ctest", "--test-dir", build, "-j", str(jobs)] + (["--stop-on-failure"] if stop else []) + \
        with_exclusions(args)
    env = dict(os.environ, CI="true")
    rc, out, dt = run(cmd, timeout=timeout, env=env)
    bad, n = parse_ctest(out)
    if rc == 124:
        bad.append("ctest (whole run timed out)")
    elif rc != 0 and not bad:
        bad.append(f"ctest (exit {rc})")
    return bad, n, dt, out


def names_of(bad):
    return [b.split(" ")[0] for b in bad if not b.startswith("ctest ")]


def confirm(build, bad, jobs, timeout):
    """Run a failed test once more, the fastest first: one that passes now failed by chance (load,
    timing), not because of the mutation; the first that fails again confirms the kill (the others are
    kept as seen). Returns (failing, flaky)."""
    names = sorted(names_of(bad), key=lambda n: TIMES.get(n, 1e9))
    if not names:
        return bad, []
    flaky = []
    for n in names:
        again, _, _, _ = ctest(build, ["-R", "^" + re.escape(n) + "$"], jobs, timeout, stop=False)
        if names_of(again):
            return [b for b in bad if b.split(" ")[0] not in flaky], flaky
        flaky.append(n)
    return [b for b in bad if b.startswith("ctest ")], flaky


def test_names(build, args):
    rc, out, _ = run(["ctest", "--test-dir", build, "-N"] + with_exclusions(args))
    return re.findall(r"Test\s+#\d+:\s+(\S+)", out)


def shared_library(scratch):
    """In the scratch copy only, build libsitepack as a shared library and do not relink the ~60 test
    and tool executables when it changes (CMAKE_LINK_DEPENDS_NO_SHARED): a mutation then costs one
    compile and one link instead of a relink of everything (the code run is the same). False when the
    top CMakeLists.txt has no `add_library(sitepack STATIC`."""
    p = os.path.join(scratch, "CMakeLists.txt")
    with open(p) as f:
        t = f.read()
    if "add_library(sitepack STATIC" not in t:
        return "add_library(sitepack SHARED" in t
    with open(p, "w") as f:
        f.write(t.replace("add_library(sitepack STATIC", "add_library(sitepack SHARED", 1))
    return True


def out_stem(outdir, day):
    stem, k = f"mutation-{day}", 1
    while any(os.path.exists(os.path.join(outdir, stem + e)) for e in (".json", ".md")):
        k += 1
        stem = f"mutation-{day}-{k}"
    return os.path.join(outdir, stem)


def write_md(path, rep):
    s = rep["summary"]
    quick = " (--quick: only each row's own tests; a survivor is not proven)" if rep.get("quick") else ""
    L = [f"# Mutation run {rep['date']}{quick}", "",
         f"Source: `{rep['git']}`, {len(rep['mutations'])} mutations of `{rep['list']}`; "
         f"`make mutate` ({rep['command']}).", "",
         f"**Score: {s['killed']} killed of {s['killed'] + s['survived']} "
         f"({s['score_pct']:.1f} %)**; survived {s['survived']}, errors {s['errors']}. "
         f"Wall time {s['wall_s'] / 60:.1f} min (baseline suite {s['baseline_s']:.0f} s), "
         f"load average at start {rep['load_start']}, at end {rep['load_end']}; {rep.get('jobs', 2)} jobs, "
         f"libsitepack {rep.get('library', 'static')}. Corpus: `{rep.get('corpus', 'none')}`; not run in the "
         f"scratch copy: " + ("; ".join(f"{k} ({v})" for k, v in rep.get("not_run", {}).items()) or "none") + ".", "",
         "| id | file | kind | status | killed by | build s | test s |", "|---|---|---|---|---|---|---|"]
    for m in rep["mutations"]:
        by = ", ".join(m["killed_by"][:3]) + (" ..." if len(m["killed_by"]) > 3 else "")
        if m["status"] == "error":
            by = m["error"]
        L.append(f"| {m['id']} | `{m['file']}` | {m['kind']} | {m['status']} | {by} | "
                 f"{m['build_s']:.0f} | {m['test_s']:.0f} |")
    surv = [m for m in rep["mutations"] if m["status"] == "survived"]
    L += ["", "## Survivors", ""]
    if not surv:
        L.append("None.")
    for m in surv:
        L.append(f"- **{m['id']}** (`{m['file']}`, {m['kind']}): "
                 + (m["note"] or "no note in the list: a test is missing."))
    errs = [m for m in rep["mutations"] if m["status"] == "error"]
    if errs:
        L += ["", "## Errors (not counted)", ""]
        for m in errs:
            L.append(f"- **{m['id']}** (`{m['file']}`): {m['error']}")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", default=os.path.dirname(os.path.dirname(HERE)))
    ap.add_argument("--list", default=None)
    ap.add_argument("--shared", default=None)
    ap.add_argument("--scratch", default="/tmp/sitepack-mutate")
    ap.add_argument("--out", default=None)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default="")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds for one mutation's tests")
    ap.add_argument("--static", action="store_true",
                    help="build libsitepack static as the tree does (default: shared in the scratch copy)")
    ap.add_argument("--render", default=None, metavar="RUN.json",
                    help="write RUN.md again from RUN.json with the notes now in the list (no run)")
    ap.add_argument("--quick", action="store_true",
                    help="only the row's own tests (exploration: a survivor is then not proven)")
    a = ap.parse_args()
    repo = os.path.abspath(a.repo)
    lst = a.list or os.path.join(repo, "tests", "mutation", "mutations.tsv")
    shared = os.path.abspath(a.shared or os.path.join(repo, "..", "shared"))
    outdir = os.path.abspath(a.out or os.path.join(repo, "results"))

    rows, errors = load_rows(lst)
    if a.render:
        with open(a.render) as f:
            rep = json.load(f)
        notes = {r["id"]: r["note"] for r in rows}
        for m in rep["mutations"]:
            m["note"] = notes.get(m["id"], m.get("note", ""))
        with open(a.render, "w") as f:
            json.dump(rep, f, indent=1)
        write_md(a.render[:-5] + ".md", rep)
        return 0
    for r in rows:
        r["error"] = check_row(repo, r)
    if a.only:
        want = set(a.only.split(","))
        rows = [r for r in rows if r["id"] in want]
    bad = [r for r in rows if r["error"]]
    for e in errors:
        print("error:", e, file=sys.stderr)
    for r in bad:
        print(f"error: {r['id']} ({lst}:{r['line']}): {r['error']}", file=sys.stderr)
    if a.check:
        print(f"{len(rows) - len(bad)} of {len(rows)} mutations apply to {repo}")
        return 1 if bad or errors else 0
    if errors:
        return 1

    t_start = time.monotonic()
    load_start = " ".join(open("/proc/loadavg").read().split()[:3])
    scratch = os.path.abspath(a.scratch)
    os.makedirs(scratch, exist_ok=True)
    n = sync_tree(repo, scratch)
    print(f"scratch tree {scratch}: {n} files copied", flush=True)
    build = os.path.join(scratch, "build")
    shared_lib = not a.static and shared_library(scratch)
    corpus = corpus_of(shared)
    print(f"scratch corpus (SITEPACK_CORPUS): {corpus}; not run there: " +
          "; ".join(f"{k} ({v})" for k, v in SCRATCH_EXCLUDED.items()), flush=True)
    rc, out, _ = run(["cmake", "-S", scratch, "-B", build, "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                      f"-DSITEPACK_CORPUS={corpus}", "-DSP_WERROR=OFF",
                      f"-DCMAKE_POSITION_INDEPENDENT_CODE={'ON' if shared_lib else 'OFF'}",
                      f"-DCMAKE_LINK_DEPENDS_NO_SHARED={'ON' if shared_lib else 'OFF'}"])
    if rc:
        print(out[-4000:], file=sys.stderr)
        print("error: configure failed", file=sys.stderr)
        return 1
    rc, out, dt = run(["cmake", "--build", build, "-j", str(a.jobs)])
    if rc:
        print(out[-4000:], file=sys.stderr)
        print("error: the unmutated tree does not build", file=sys.stderr)
        return 1
    print(f"baseline build {dt:.0f} s", flush=True)
    baseline_s = 0.0
    times_file = os.path.join(scratch, ".mutate-times.json")  # baseline times (ctest rewrites its own cost file)
    if a.no_baseline and os.path.exists(times_file):
        with open(times_file) as f:
            TIMES.update(json.load(f))
    if not a.no_baseline:
        badt, nt, baseline_s, out = ctest(build, [], a.jobs, a.timeout * 2, stop=False)
        TIMES.update({m.group(1): float(m.group(4)) for m in TEST_LINE.finditer(out)})
        with open(times_file, "w") as f:
            json.dump(TIMES, f)
        print(f"baseline suite: {nt} tests, {len(badt)} not passed, {baseline_s:.0f} s", flush=True)
        if badt:
            badt, flaky = confirm(build, badt, a.jobs, a.timeout)
            if flaky:
                print("baseline: failed once, passed when run again (timing): " + ", ".join(flaky), flush=True)
        if badt or nt == 0:
            print(out[-6000:], file=sys.stderr)
            print("error: the unmutated suite does not pass: " + ", ".join(badt), file=sys.stderr)
            return 1

    results = []
    for i, r in enumerate(rows, 1):
        res = {k: r[k] for k in ("id", "file", "kind", "note")}
        res.update(tests=" ".join(r["tests"]), killed_by=[], build_s=0.0, test_s=0.0, tests_run=0, error=None)
        rel, err = resolve(scratch, r)
        err = r["error"] or err
        if err:
            res.update(status="error", error=err)
            results.append(res)
            print(f"[{i}/{len(rows)}] {r['id']}: ERROR {err}", flush=True)
            continue
        res["file"] = rel
        path = os.path.join(scratch, rel)
        with open(path, encoding="utf-8") as f:
            orig = f.read()
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(orig.replace(r["old"], r["new"], 1))
            rc, out, res["build_s"] = run(["cmake", "--build", build, "-j", str(a.jobs)], timeout=1800)
            if rc:
                tail = [ln for ln in out.splitlines() if "error" in ln][:3]
                res.update(status="error", error="the mutated tree does not build: " + " | ".join(tail))
            else:
                t0 = time.monotonic()
                badt, nt, _, _ = ctest(build, r["tests"], a.jobs, a.timeout)
                res["tests_run"] = nt
                flaky = []
                if badt:
                    badt, flaky = confirm(build, badt, a.jobs, a.timeout)
                if not badt and not a.quick:
                    # not seen by the row's tests (or only by chance): every other test of the suite
                    seen = test_names(build, r["tests"]) if r["tests"] else []
                    seen = [x for x in seen if x not in flaky]
                    rest = ["-E", "^(" + "|".join(re.escape(x) for x in seen) + ")$"] if seen else []
                    if r["tests"] or flaky:
                        badt, nt2, _, _ = ctest(build, rest, a.jobs, a.timeout)
                        res["tests_run"] += nt2
                        if badt:
                            badt, more = confirm(build, badt, a.jobs, a.timeout)
                            flaky += more
                res["test_s"] = time.monotonic() - t0
                res["flaky"] = flaky
                res["killed_by"] = badt
                res["status"] = "killed" if badt else "survived"
        finally:
            with open(path, "w", encoding="utf-8") as f:
                f.write(orig)
        results.append(res)
        print(f"[{i}/{len(rows)}] {r['id']}: {res['status']} "
              f"{', '.join(res['killed_by'][:3]) if res['status'] == 'killed' else (res['error'] or '')} "
              f"(build {res['build_s']:.0f} s, tests {res['test_s']:.0f} s, {res['tests_run']} run)", flush=True)

    killed = sum(m["status"] == "killed" for m in results)
    survived = sum(m["status"] == "survived" for m in results)
    nerr = sum(m["status"] == "error" for m in results)
    git = subprocess.run(["git", "-C", repo, "describe", "--always", "--dirty"], capture_output=True,
                         text=True).stdout.strip()
    rep = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "library": "shared (scratch copy)" if shared_lib else "static", "quick": a.quick,
           "git": git, "list": os.path.relpath(lst, repo), "command": " ".join(sys.argv[1:]) or "defaults",
           "jobs": a.jobs, "load_start": load_start, "corpus": corpus, "not_run": SCRATCH_EXCLUDED,
           "load_end": " ".join(open("/proc/loadavg").read().split()[:3]),
           "summary": {"killed": killed, "survived": survived, "errors": nerr,
                       "score_pct": 100.0 * killed / (killed + survived) if killed + survived else 0.0,
                       "wall_s": time.monotonic() - t_start, "baseline_s": baseline_s},
           "mutations": results}
    os.makedirs(outdir, exist_ok=True)
    stem = out_stem(outdir, datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"))
    with open(stem + ".json", "w") as f:
        json.dump(rep, f, indent=1)
    write_md(stem + ".md", rep)
    s = rep["summary"]
    print(f"score {s['killed']}/{s['killed'] + s['survived']} = {s['score_pct']:.1f} %, "
          f"{s['errors']} errors, {s['wall_s'] / 60:.1f} min -> {stem}.json, .md")
    return 1 if nerr else 0


if __name__ == "__main__":
    sys.exit(main())
