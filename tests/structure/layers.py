#!/usr/bin/python3
"""Include rules of sitepack's modules, read from the module table of docs/architecture.md.

usage: layers.py REPO_ROOT              check the tree; exit 0 when every rule holds, 1 otherwise
       layers.py REPO_ROOT --self-test  plant one breach of each rule in a copy (in memory) of the
                                        tree and check that every one is found; exit 0 or 1

Prints its rules first, then one line per breach (file:line: rule: what), then a summary.
Only src/, include/ and CMakeLists.txt are checked: tests and benchmarks may include private
headers (white-box tests).
"""
import os
import re
import sys

RULES = """rules (the module table of docs/architecture.md; layer 0 lowest):
  R1 every include/sitepack/*.h is listed in exactly one module's row, and every listed header exists
  R2 a module's "may include" names only modules of lower layers (the order has no cycle)
  R3 a file of module M (src/M/..., or a public header M owns) includes public headers only of M
     and of the modules its row names under "may include"
  R4 a private header (src/M/*.h, *.inc) is included only from files of src/M
  R5 every quoted include resolves to a file of the tree (same directory, src/, include/, or a
     generated header that src/*.h.in makes)
  R6 <mpi.h> is reachable (directly or through our headers) only from sources and private
     headers of src/sched, src/store/merge* and src/app, and from the public headers of sched
     that the table marks "(MPI)"; every other public header (plan.h, pipeline.h: the worker's) is
     MPI-free
  R7 CMakeLists.txt lists the library's and the CLI's sources explicitly, per module
     (set(SP_<MODULE>_SOURCES src/<module>/...)), no glob over src/; every src/**/*.c is listed
     once, in its own module's list, and every listed file exists"""

MPI_DIRS = ("src/sched/", "src/app/")
MPI_PREFIXES = ("src/store/merge",)
MPI_HEADERS = set()  # public headers marked "(MPI)" in the table (parse_table fills it)

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def read_tree(root):
    files = {}
    for top in ("src", "include"):
        for d, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                if n.endswith((".c", ".cpp", ".h", ".inc", ".h.in")):
                    p = os.path.relpath(os.path.join(d, n), root)
                    with open(os.path.join(root, p), encoding="utf-8", errors="replace") as f:
                        files[p] = f.read()
    for n in ("CMakeLists.txt", "docs/architecture.md"):
        with open(os.path.join(root, n), encoding="utf-8") as f:
            files[n] = f.read()
    return files


def parse_table(doc):
    """[(layer, module, [public headers], [may include])] from the table under '## Modules'."""
    sec = doc.split("## Modules", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in sec.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or not cells[0].isdigit():
            continue
        layer, module, headers, _owns, may = cells
        m = re.fullmatch(r"`src/(\w+)`", module)
        if not m:
            continue
        pub = [] if headers.startswith("(private") else re.findall(r"`([\w.]+\.h)`( \(MPI\))?", headers)
        for h, mpi in pub:
            if mpi:
                MPI_HEADERS.add(h)
        rows.append((int(layer), m.group(1), [h for h, _ in pub], re.findall(r"`(\w+)`", may)))
    return rows


def module_of(path, owner):
    """Module of a file of the tree: src/M/... -> M; include/sitepack/X.h -> its owner."""
    parts = path.split("/")
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    if parts[0] == "include":
        return owner.get(parts[-1])
    return None


def resolve(path, name, files):
    """The tree path that #include "name" in path refers to, or None."""
    cands = [os.path.normpath(os.path.join(os.path.dirname(path), name)), "src/" + name, "include/" + name]
    for c in cands:
        if c in files:
            return c
    if name.startswith("sitepack/") and "src/" + name[len("sitepack/"):] + ".in" in files:
        return "src/" + name[len("sitepack/"):] + ".in"  # generated (version.h)
    return None


def mpi_allowed(path, owner):
    if path.startswith("include/"):
        return path.split("/")[-1] in MPI_HEADERS and owner.get(path.split("/")[-1]) in ("sched", "app")
    return path.startswith(MPI_DIRS) or path.startswith(MPI_PREFIXES)


def check(files):
    """List of breaches: (file, line, rule, message)."""
    out = []
    rows = parse_table(files["docs/architecture.md"])
    if not rows:
        return [("docs/architecture.md", 0, "R1", "no module table (| layer | module | ... |) under '## Modules'")]
    layer = {m: l for l, m, _, _ in rows}
    may = {m: set(mi) for _, m, _, mi in rows}
    owner = {}
    for _, m, pub, _ in rows:
        for h in pub:
            if h in owner:
                out.append(("docs/architecture.md", 0, "R1", f"{h} listed for both {owner[h]} and {m}"))
            owner[h] = m
    for h, m in sorted(owner.items()):
        if "include/sitepack/" + h not in files and "src/" + h + ".in" not in files:
            out.append(("docs/architecture.md", 0, "R1", f"{h} (module {m}) does not exist"))
    for p in sorted(files):
        if p.startswith("include/sitepack/") and p.endswith(".h") and p.split("/")[-1] not in owner:
            out.append((p, 0, "R1", "public header missing from the module table"))
    for m, mi in sorted(may.items()):
        for t in sorted(mi):
            if t not in layer:
                out.append(("docs/architecture.md", 0, "R2", f"{m} may include unknown module {t}"))
            elif layer[t] >= layer[m]:
                out.append(("docs/architecture.md", 0, "R2",
                            f"{m} (layer {layer[m]}) may include {t} (layer {layer[t]}): not a lower layer"))

    # includes of every file; graph of quoted includes for R6
    edges, direct_mpi = {}, set()
    for p in sorted(files):
        if not p.startswith(("src/", "include/")):
            continue
        src_mod = module_of(p, owner)
        edges[p] = []
        for ln, line in enumerate(files[p].splitlines(), 1):
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            kind, name = m.groups()
            if kind == "<":
                if name == "mpi.h":
                    direct_mpi.add(p)
                continue
            t = resolve(p, name, files)
            if t is None:
                out.append((p, ln, "R5", f'#include "{name}" resolves to no file of the tree'))
                continue
            edges[p].append(t)
            if src_mod is None:
                continue
            if t.startswith("src/") and not t.endswith(".h.in"):
                t_mod = t.split("/")[1]
                if t_mod != src_mod:
                    out.append((p, ln, "R4", f'#include "{name}": private header of {t_mod}, included from {src_mod}'))
                continue
            t_mod = module_of(t, owner) if t.startswith("include/") else owner.get(t.split("/")[-1][:-3])
            if t_mod is None:
                continue  # R1 reports the unlisted header
            if t_mod != src_mod and t_mod not in may.get(src_mod, set()):
                out.append((p, ln, "R3", f'#include "{name}": {src_mod} (layer {layer.get(src_mod)}) may not include '
                                         f'{t_mod} (layer {layer.get(t_mod)})'))
    reach = {}

    def reaches(f, seen=()):
        if f in reach:
            return reach[f]
        if f in seen:
            return False
        r = f in direct_mpi or any(reaches(t, seen + (f,)) for t in edges.get(f, []))
        reach[f] = r
        return r

    for p in sorted(edges):
        if reaches(p) and not mpi_allowed(p, owner):
            out.append((p, 0, "R6", "<mpi.h> is reachable from it" + ("" if p in direct_mpi else " (through its includes)")))
    out += check_cmake(files)
    return out


def check_cmake(files):
    out = []
    cm = files["CMakeLists.txt"]
    if re.search(r"file\s*\(\s*GLOB[^)]*src/", cm):
        out.append(("CMakeLists.txt", 0, "R7", "a glob over src/ (list the files instead)"))
    listed = {}
    for m in re.finditer(r"set\s*\(\s*SP_(\w+)_SOURCES\s+([^)]*)\)", cm):
        mod = m.group(1).lower()
        for f in re.findall(r"src/[\w/]+\.c(?:pp)?\b", m.group(2)):
            if f in listed:
                out.append(("CMakeLists.txt", 0, "R7", f"{f} listed twice"))
            listed[f] = mod
            if f not in files:
                out.append(("CMakeLists.txt", 0, "R7", f"{f} is listed but does not exist"))
            elif f.split("/")[1] != mod:
                out.append(("CMakeLists.txt", 0, "R7", f"{f} is listed in SP_{mod.upper()}_SOURCES, not its module's"))
    for p in sorted(files):
        if p.startswith("src/") and p.endswith((".c", ".cpp")) and p not in listed:
            out.append((p, 0, "R7", "not listed in CMakeLists.txt (SP_<MODULE>_SOURCES)"))
    return out


def plant(files, path, after, text):
    """A copy of files with text inserted after the first line of path that contains after."""
    f = dict(files)
    lines = f[path].split("\n")
    i = next(k for k, l in enumerate(lines) if after in l)
    f[path] = "\n".join(lines[: i + 1] + [text] + lines[i + 1 :])
    return f


def self_test(files):
    """Each planted breach must be found under its rule; the unplanted tree is the baseline."""
    base = {(p, r, m) for p, _, r, m in check(files)}
    cm = files["CMakeLists.txt"]
    first_c = re.search(r"src/model/[\w]+\.c", cm).group(0)
    cases = [
        ("R3 upward include", plant(files, "src/model/structure.c", "#include", '#include "sitepack/store.h"'), "R3"),
        ("R3 same-layer include", plant(files, "src/io/scan.c", "#include", '#include "sitepack/model.h"'), "R3"),
        ("R4 private header across modules", plant(files, "src/site/site.c", "#include", '#include "store/store_internal.h"'), "R4"),
        ("R5 unknown header", plant(files, "src/chem/molkey.c", "#include", '#include "sitepack/nonesuch.h"'), "R5"),
        ("R6 <mpi.h> through a header", plant(files, "include/sitepack/pipeline.h", "#include", '#include "sitepack/sched.h"'), "R6"),
        ("R6 <mpi.h> in the pipeline", plant(files, "src/pipeline/stages.c", "#include", "#include <mpi.h>"), "R6"),
        ("R3 scheduler includes the pipeline", plant(files, "src/sched/plan.c", "#include", '#include "sitepack/pipeline.h"'), "R3"),
        ("R3 scheduler includes a domain module", plant(files, "src/sched/cost.c", "#include", '#include "sitepack/site.h"'), "R3"),
        ("R4 pipeline's private header outside it", plant(files, "src/app/run_task.c", "#include", '#include "pipeline/pipeline_internal.h"'), "R4"),
        ("R6 <mpi.h> directly", plant(files, "src/survey/survey.c", "#include", "#include <mpi.h>"), "R6"),
        ("R7 file missing from CMake", dict(files, **{"CMakeLists.txt": cm.replace(first_c, "", 1)}), "R7"),
        ("R7 new file not listed", dict(files, **{"src/site/new_step.c": "/* planted */\n"}), "R7"),
        ("R1 header not in the table", dict(files, **{"include/sitepack/planted.h": "/* planted */\n"}), "R1"),
        # the derived products (src/derive, issue 33) sit above store, beside the pipeline (neither includes the other); fingerprints are chem's
        ("R3 store includes derive", plant(files, "src/store/reader.c", "#include", '#include "sitepack/split.h"'), "R3"),
        ("R3 chem includes store", plant(files, "src/chem/fingerprint.c", "#include", '#include "sitepack/store.h"'), "R3"),
        ("R3 derive includes the pipeline", plant(files, "src/derive/split.c", "#include", '#include "sitepack/pipeline.h"'), "R3"),
        ("R4 derive includes store's private header",
         plant(files, "src/derive/cluster.c", "#include", '#include "store/store_internal.h"'), "R4"),
    ]
    allowed = [  # includes the table must keep allowed: no new breach
        ("derive includes store", plant(files, "src/derive/export.c", "#include", '#include "sitepack/reader.h"')),
        ("derive includes chem", plant(files, "src/derive/split_io.c", "#include", '#include "sitepack/fingerprint.h"')),
        ("app includes derive", plant(files, "src/app/main.c", "#include", '#include "sitepack/export.h"')),
    ]
    failed = 0
    for name, tree, rule in cases:
        found = [b for b in check(tree) if (b[0], b[2], b[3]) not in base and b[2] == rule]
        print(f"  planted {name}: {'found: ' + found[0][0] + ': ' + found[0][3] if found else 'NOT FOUND'}")
        failed += not found
    for name, tree in allowed:
        new = [b for b in check(tree) if (b[0], b[2], b[3]) not in base]
        print(f"  planted {name} (allowed): {'no breach' if not new else 'BREACH: ' + new[0][0] + ': ' + new[0][3]}")
        failed += bool(new)
    return failed


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    root = sys.argv[1]
    files = read_tree(root)
    print(RULES)
    rows = parse_table(files["docs/architecture.md"])
    print("layers (docs/architecture.md):")
    for l in sorted({r[0] for r in rows}):
        print(f"  {l}: " + ", ".join(m for ll, m, _, _ in rows if ll == l))
    if "--self-test" in sys.argv[2:]:
        print("self-test: breaches planted one at a time in an in-memory copy of the tree")
        failed = self_test(files)
        print("self-test: " + ("every planted breach found" if not failed else f"{failed} planted breaches not found"))
        return 1 if failed else 0
    breaches = check(files)
    for p, ln, rule, msg in breaches:
        print(f"{p}:{ln}: {rule}: {msg}" if ln else f"{p}: {rule}: {msg}")
    n_inc = sum(1 for p, t in files.items() if p.startswith(("src/", "include/"))
                for l in t.splitlines() if INCLUDE_RE.match(l))
    n_files = sum(1 for p in files if p.startswith(("src/", "include/")))
    print(f"{n_files} files, {n_inc} includes: " + ("every rule holds" if not breaches else f"{len(breaches)} breaches"))
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
