#!/usr/bin/python3
"""`sitepack report` (issue 38; docs/report.md) opened in headless Chromium (Debian's `chromium`).

usage: test_report_html.py SITEPACK OUTDIR --h5 FILE.h5            (an existing merged file: the corpus)
       test_report_html.py SITEPACK OUTDIR --run STRUCTURES CCD    (run it here: the bundled sample; then also
                                                                    cluster + split)

For each report written (the file as it is, and for --run also after `cluster` and `split`, with the descriptor
flags of every 4th ligand cleared), with --site on two sites (the one with most interactions and one with a water bridge):
  - Chromium loads the page from file:// (no network) and the page reports no error: #sp-status data-errors = 0
    (uncaught errors and console.error, caught from before the libraries run), and Chromium's own log has no
    console message at level error from the page;
  - every plot canvas and each 3D canvas is drawn: in a screenshot of the whole page, the rectangle the page gives
    (#sp-layout) is not blank (at least 1 % of its pixels differ from white and it has 4 or more colours);
  - the numbers in the tables equal `sitepack survey`'s (its summary lines, parsed; its --per-comp table for the
    comp ids shown), and the other tables equal numpy/h5py's counts from the file's columns (method, resolution
    bins, release years, pocket sizes, sites and interactions per type per ligand class, cluster sizes, split
    sides, the split scores' histograms (one bin when all values are equal; the NaN rows "not scored", no bar), the
    /ligands descriptor histograms and Ro5/Ro3/drug-like counts over the ligands with a site and computed
    descriptors, and the quality counts per criterion equal to `sitepack survey`'s quality line); cluster facts
    agree with their histograms; each 3D view's legend counts equal the site's
    /interactions rows by type, and its identifiers the site's /ligands and /structures row;
  - the sections a file lacks (clusters, splits; descriptors and quality in a file before version 5) say they are
    absent; --site with an empty item exits 2 and writes nothing, a repeated site gets one view; with --run also the
    page of tests/data/format_v2/small_v2.h5 (no /chains: the protein context absent too);
  - a damaged file: `report` exits as `check` does, with check's error (class and message), and writes nothing;
    an existing output is refused without --force (exit 2, file untouched).
Writes OUTDIR/report_measure.json: page size (bytes) and load time (ms: the page's own performance.now() when
drawn, median of 3 loads) of the first report, with and without its site views (the numbers of docs/report.md).
"""
import html.parser
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys

import h5py
import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_checks import check, fails, run  # noqa: E402

SP, OUT = sys.argv[1], sys.argv[2]
CHROME = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--use-gl=swiftshader", "--enable-unsafe-swiftshader",
         "--hide-scrollbars", "--no-first-run", "--disable-extensions", "--enable-logging=stderr", "--v=0"]
WIDTH = 1400
CLASSES = ["small_molecule", "ion", "artifact", "glycan", "cofactor", "peptide", "unknown", "lipid", "detergent"]
DESC = ["mw", "formal_charge", "hbd", "hba", "hbd_lipinski", "hba_lipinski", "rotatable_bonds", "tpsa", "logp", "mr",
        "n_rings", "n_aromatic_rings", "fsp3", "qed"]
IX = [None, "hydrophobic", "hbond", "salt_bridge", "pi_stack_parallel", "pi_stack_t", "pi_cation", "halogen",
      "water_bridge", "metal"]


# ------------------------------------------------------------------ the page in Chromium

class Dom(html.parser.HTMLParser):
    """The tables (facts by key, numbers by plot id), absent sections, 3D legends and ids, status and layout."""

    def __init__(self):
        super().__init__()
        self.facts, self.plots, self.absent, self.legend, self.ids = {}, {}, set(), {}, {}
        self.labels, self.titles, self._box = {}, {}, None  # fact labels by key, plot titles by plot id
        self.status, self.layout, self.errors = None, None, []
        self._table = self._row = self._cell = None
        self._fact_key = self._site = self._pre = self._dt = None
        self._text = ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and "data-plot" in a:
            self._table = ("plot", a["data-plot"])
            self.plots[a["data-plot"]] = []
        elif tag == "table" and "data-facts" in a:
            self._table = ("facts", a["data-facts"])
        elif tag == "tr" and self._table:
            self._row, self._fact_key = [], a.get("data-key")
        elif tag in ("td", "th") and self._row is not None:
            self._cell, self._text = True, ""
        elif tag == "div" and a.get("class") == "plot-box":
            self._box = a["id"][len("plot-"):]
        elif tag == "h3" and self._box is not None:
            self._h3, self._text = True, ""
        elif tag == "p" and "data-absent" in a:
            self.absent.add(a["data-absent"])
        elif tag == "div" and a.get("id") == "sp-status":
            self.status = a
        elif tag == "pre" and a.get("id") == "sp-layout":
            self._pre, self._text = "layout", ""
        elif tag == "pre" and a.get("class") == "error":
            self._pre, self._text = "error", ""
        elif tag == "dl" and "data-site" in a:
            self._site = a["data-site"]
            self.ids[self._site] = {}
        elif tag == "ul" and a.get("class") == "legend":
            self.legend[self._site] = {}
        elif tag == "li" and "data-type" in a:
            self._li, self._text = a["data-type"], ""
        elif tag in ("dt", "dd") and self._site is not None:
            self._dt_tag, self._text = tag, ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell:
            self._row.append(self._text.strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            kind, name = self._table
            if kind == "plot":
                self.plots[name].append(self._row)
            else:
                self.facts[self._fact_key] = self._row[1]
                self.labels[self._fact_key] = self._row[0]
            self._row = None
        elif tag == "table":
            self._table = None
        elif tag == "h3" and getattr(self, "_h3", None):
            self.titles[self._box] = self._text.strip()
            self._h3, self._box = None, None
        elif tag == "pre" and self._pre:
            if self._pre == "layout":
                self.layout = json.loads(self._text)
            else:
                self.errors.append(self._text)
            self._pre = None
        elif tag == "li" and getattr(self, "_li", None):
            name, n = self._text.rsplit(" ", 1)
            self.legend[self._site][name] = int(n)
            self._li = None
        elif tag == "dt" and self._site is not None:
            self._dt = self._text.strip()
        elif tag == "dd" and self._site is not None and self._dt:
            self.ids[self._site][self._dt] = self._text.strip()
            self._dt = None

    def handle_data(self, data):
        self._text += data


def chromium(args, timeout=180):
    p = subprocess.run([CHROME] + FLAGS + args, capture_output=True, text=True, timeout=timeout)
    return p


def console_errors(stderr):
    """Console messages of the page that Chromium logs at level error (or uncaught exceptions)."""
    out = []
    for line in stderr.splitlines():
        if "CONSOLE" in line and ("ERROR" in line.split("]")[0] or "Uncaught" in line):
            out.append(line.strip()[:300])
    return out


def load(page):
    url = "file://" + os.path.abspath(page)
    p = chromium(["--window-size=%d,1000" % WIDTH, "--dump-dom", url])
    check(p.returncode == 0, f"{page}: chromium --dump-dom exit {p.returncode}: {p.stderr[-400:]}")
    d = Dom()
    d.feed(p.stdout)
    check(d.status is not None, f"{page}: no #sp-status: the page's script did not finish")
    check(d.status is not None and d.status.get("data-errors") == "0", f"{page}: page errors: {d.errors}")
    ce = console_errors(p.stderr)
    check(not ce, f"{page}: console errors: {ce}")
    return d


def load_ms(page):
    """The page's performance.now() when drawn, median of 3 loads."""
    ms = []
    for _ in range(3):
        p = chromium(["--window-size=%d,1000" % WIDTH, "--dump-dom", "file://" + os.path.abspath(page)])
        m = re.search(r'id="sp-status"[^>]*data-load-ms="([0-9.]+)"', p.stdout)
        if m:
            ms.append(float(m.group(1)))
    check(len(ms) == 3, f"{page}: load time not reported")
    return statistics.median(ms) if ms else float("nan")


def drawn(page, d):
    """Each plot and 3D canvas of the layout is not blank in a screenshot of the whole page."""
    h = int(math.ceil(d.layout["height"])) + 20
    png = page + ".png"
    p = chromium(["--window-size=%d,%d" % (WIDTH, h), "--run-all-compositor-stages-before-draw",
                  "--virtual-time-budget=10000", "--screenshot=" + png, "file://" + os.path.abspath(page)])
    check(p.returncode == 0 and os.path.exists(png), f"{page}: no screenshot: {p.stderr[-300:]}")
    if not os.path.exists(png):
        return
    im = np.asarray(Image.open(png).convert("RGB")).astype(np.int16)
    kinds = {"plot": 0, "site": 0}
    for it in d.layout["items"]:
        x0, y0 = int(it["x"]) + 2, int(it["y"]) + 2
        x1, y1 = int(it["x"] + it["w"]) - 2, int(it["y"] + it["h"]) - 2
        crop = im[y0:y1, x0:x1].reshape(-1, 3)
        ink = (np.abs(crop - 255).sum(1) > 30).mean() if crop.size else 0
        colours = len(np.unique(crop[::7], axis=0)) if crop.size else 0
        check(ink > 0.01 and colours >= 4, f"{page}: {it['kind']} {it['id']} looks blank (ink {ink:.4f}, "
              f"{colours} colours) at {x0},{y0}-{x1},{y1}")
        kinds[it["kind"]] += 1
    return kinds


# ------------------------------------------------------------------ expected numbers

def survey_numbers(h5):
    """`sitepack survey` parsed: the facts (key -> number), classes, chain types, per comp id rows."""
    q = run([SP, "survey", h5, "--quiet"]).stdout
    f = {}
    m = re.search(r"^structures: (\d+) \(ok (\d+), failed (\d+)", q, re.M)
    f["structures"], f["ok"], f["failed"] = m.groups()
    m = re.search(r"duplicates (\d+)", q)
    f["duplicates"] = m.group(1) if m else "0"
    m = re.search(r"repeated_entry (\d+)", q)
    f["repeated_entry"] = m.group(1) if m else "0"
    m = re.search(r"^ligand instances: (\d+); distinct molecules \(molecule keys\): (\d+); instances without a key: (\d+)",
                  q, re.M)
    f["ligands"], f["molecules"], f["no_key"] = m.groups()
    m = re.search(r"^comp ids .*: (\d+); not in the CCD: (\d+)", q, re.M)
    f["comp_ids"], f["not_in_ccd"] = m.groups()
    m = re.search(r"^key groups .*: (\d+); confirmed (\d+), WL collisions (\d+), unconfirmed or undecided (\d+)", q, re.M)
    f["key_groups"], f["key_confirmed"], f["key_collisions"], f["key_unconfirmed"] = m.groups()
    m = re.search(r"^polymer chains: (\d+); with a UniProt reference: (\d+) .*accessions: (\d+)", q, re.M)
    f["chains"], f["uniprot_chains"], f["uniprot_accessions"] = m.groups()
    m = re.search(r"^systems .*: (\d+); of 2 or more ligands: (\d+), holding (\d+) ligands; largest: (\d+)", q, re.M)
    f["systems"], f["systems_multi"], f["systems_multi_ligands"], f["system_largest"] = m.groups()
    classes = dict((k, v) for k, v in re.findall(r"(\w+) (\d+)", re.search(r"^instances by class:(.*)$", q, re.M).group(1)))
    types = [t.strip().rsplit(" ", 1) for t in re.search(r"^chains by type:(.*)$", q, re.M).group(1).split(",")]
    per = run([SP, "survey", h5, "--per-comp"]).stdout
    block = per.split("comp_id\tinstances\tmolecules\tclasses\n", 1)[1].split("\n\n", 1)[0]
    rows = [ln.split("\t") for ln in block.splitlines() if ln.count("\t") == 3]
    rows = sorted(rows, key=lambda r: -int(r[1]))[:30]  # stable: comp id order among equal counts
    return f, classes, dict((a, b) for a, b in types), [[r[0], r[1], r[2]] for r in rows]


def col(f, name):
    v = f[name][:]
    return np.array([x.decode() for x in v]) if v.dtype.kind == "S" else v


def file_numbers(h5):
    """Method, resolution bins, years, pocket sizes, sites and interactions per class, from the columns."""
    e = {}
    with h5py.File(h5, "r") as f:
        ok = col(f, "structures/status") == "ok"
        meth = col(f, "structures/method")[ok]
        meth = np.where(meth == "", "(none)", meth)
        e["methods"] = dict(zip(*np.unique(meth, return_counts=True)))
        res = f["structures/resolution"][:][ok]
        edges = [1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0]
        labels = ["< 1.0", "1.0-1.5", "1.5-2.0", "2.0-2.5", "2.5-3.0", "3.0-3.5", "3.5-4.0", "4.0-5.0", ">= 5.0"]
        fin = res[np.isfinite(res)]
        b = np.searchsorted(edges, fin, side="right")
        e["resolution"] = {labels[i]: int((b == i).sum()) for i in range(9)}
        e["resolution"]["none"] = int((~np.isfinite(res)).sum())
        yr = [d[:4] if len(d) >= 4 else "none" for d in col(f, "structures/release_date")[ok]]
        e["years"] = dict(zip(*np.unique(yr, return_counts=True)))
        rp = f["sites/residue_ptr"][:]
        kind, contact = f["residues/kind"][:], f["residues/contact"][:]
        site_of = np.repeat(np.arange(len(rp) - 1), np.diff(rp))
        n_sites = len(rp) - 1
        npoly = np.bincount(site_of[kind == 1], minlength=n_sites)
        ncont = np.bincount(site_of[(kind == 1) & (contact == 1)], minlength=n_sites)
        bins = lambda n: np.bincount(np.minimum(n // 5, 12), minlength=13)
        e["pocket"] = (bins(npoly), bins(ncont))
        cls = col(f, "ligands/class")[f["sites/ligand_idx"][:]]
        e["sites_by_class"] = {c: int((cls == c).sum()) for c in CLASSES}
        ip = f["sites/interaction_ptr"][:]
        t = f["interactions/type"][:]
        ix_site = np.repeat(np.arange(n_sites), np.diff(ip))
        e["interactions"] = {c: [int(((cls[ix_site] == c) & (t == k)).sum()) for k in range(1, 10)] for c in CLASSES}
        e["n_interactions"] = len(t)
        e["clusters"] = {}
        if "clusters" in f:
            for name in f["clusters"]:
                if name.startswith("protein_") or name == "ligand":
                    v = f["clusters/" + name][:]
                    sizes = np.bincount(v[v >= 0])
                    sizes = sizes[sizes > 0]
                    # (size bins, clusters with a site, cluster ids 0..max, sites without a cluster)
                    e["clusters"][name] = (np.searchsorted([1, 2, 3, 6, 11, 21, 51], sizes, side="right") - 1,
                                           len(sizes), len(np.bincount(v[v >= 0])), int((v < 0).sum()))
        e["splits"] = {}
        if "splits" in f:
            for name in f["splits"]:
                v = f["splits/" + name][:]
                # train, val, test, then the codes of sites on no side (-1 dropped, -2 copy, -3 undated,
                # -4 redundant: /splits/NAME@codes), then any other value
                e["splits"][name] = [int((v == k).sum()) for k in (0, 1, 2, -1, -2, -3, -4)] + \
                    [int(((v < -4) | (v > 2)).sum())]
        e["scores"] = {}
        e["strata"] = {}  # /split_scores/NAME/stratum: not_scored (-1), not_novel .. novel_both (0..3)
        if "split_scores" in f:
            for name in f["split_scores"]:
                v = f["split_scores/" + name + "/stratum"][:]
                e["strata"][name] = [int((v == k).sum()) for k in (-1, 0, 1, 2, 3)]
                e["scores"][name] = {k: f["split_scores/%s/%s" % (name, k)][:].astype(float)
                                     for k in ("max_identity", "max_tanimoto")}
        e["descriptors"] = None  # /ligands descriptor columns over the ligands with a site and computed ones
        if "desc_flags" in f["ligands"]:
            fl = f["ligands/desc_flags"][:].astype(np.uint32)
            keep = np.zeros(len(fl), bool)
            keep[f["sites/ligand_idx"][:]] = True
            n_site = int(keep.sum())
            keep &= (fl & 1) != 0
            e["descriptors"] = {"n_site": n_site, "n": int(keep.sum()),
                                "rates": {k: int(((fl & b) != 0)[keep].sum()) for k, b in
                                          (("ro5", 2), ("ro3", 4), ("drug_like", 8))},
                                "cols": {c: f["ligands/" + c][:].astype(float)[keep] for c in DESC}}
        e["quality"] = "quality" in f["sites"] and "pass_quality" in f["sites"]
    return e


def num(s):
    return float(s)


def table(d, plot):
    """Rows of plot @p plot's table without its header: {label: [values...]}."""
    rows = d.plots.get(plot)
    check(rows is not None, f"no table for plot {plot}")
    return {r[0]: [num(x) for x in r[1:]] for r in (rows or [[]])[1:]}


def compare(d, h5, name):
    f, classes, types, per = survey_numbers(h5)
    for k, v in f.items():
        check(d.facts.get(k) == v, f"{name}: fact {k}: page {d.facts.get(k)}, survey {v}")
    t = table(d, "classes")
    check({k: int(v[0]) for k, v in t.items()} == {k: int(v) for k, v in classes.items()},
          f"{name}: classes {t} vs survey {classes}")
    t = table(d, "chain_types")
    check({k: int(v[0]) for k, v in t.items()} == {k: int(v) for k, v in types.items()},
          f"{name}: chain types {t} vs survey {types}")
    rows = d.plots.get("comp_ids", [[]])[1:]
    check([[r[0], r[1], r[2]] for r in rows] == per, f"{name}: comp id table {rows[:5]}... vs survey {per[:5]}...")
    e = file_numbers(h5)
    for plot in ("methods", "years"):
        t = table(d, plot)
        check({k: int(v[0]) for k, v in t.items()} == {k: int(v) for k, v in e[plot].items()},
              f"{name}: {plot} {t} vs file {e[plot]}")
    t = table(d, "resolution")
    check({k: int(v[0]) for k, v in t.items()} == e["resolution"], f"{name}: resolution {t} vs {e['resolution']}")
    t = table(d, "pocket")
    got = np.array([v for v in t.values()]).T if t else np.zeros((2, 13))
    check(np.array_equal(got[0], e["pocket"][0]) and np.array_equal(got[1], e["pocket"][1]),
          f"{name}: pocket {got} vs {e['pocket']}")
    t = table(d, "sites_by_class")
    check({k: int(v[0]) for k, v in t.items()} == e["sites_by_class"], f"{name}: sites by class {t}")
    t = table(d, "interactions")
    hdr = d.plots["interactions"][0][1:]
    got = {c: [int(t[ix][hdr.index(c)]) for ix in IX[1:]] for c in hdr}
    check(got == e["interactions"], f"{name}: interactions per type per class {got} vs {e['interactions']}")
    check(d.facts.get("interactions") == str(e["n_interactions"]), f"{name}: interaction count")
    for cname, (bins, n, ids, none) in e["clusters"].items():
        t = table(d, "/clusters/" + cname)
        want = np.bincount(bins, minlength=7)
        check([int(v[0]) for v in t.values()] == list(want), f"{name}: cluster sizes {cname} {t} vs {want}")
        # the clusters fact is the histogram's total; the ids 0..max (some without a site) a fact of its own
        check(d.facts.get("clusters_" + cname) == str(n) == str(int(want.sum())) and
              d.facts.get("cluster_ids_" + cname) == str(ids) and d.facts.get("no_cluster_" + cname) == str(none),
              f"{name}: cluster facts {cname}: clusters {d.facts.get('clusters_' + cname)}, histogram {want.sum()}, "
              f"ids {d.facts.get('cluster_ids_' + cname)} vs {ids}")
    for sname, sides in e["splits"].items():
        t = table(d, "/splits/" + sname)
        check([int(v[0]) for v in t.values()] == sides, f"{name}: split {sname} {t} vs {sides}")
    for sname, strata in e["strata"].items():
        t = table(d, f"/split_scores/{sname}/stratum")
        check([int(v[0]) for v in t.values()] == strata, f"{name}: strata of {sname} {t} vs {strata}")
    for sname, scores in e["scores"].items():
        for k, v in scores.items():
            pid = f"/split_scores/{sname}/{k}"
            check(d.titles.get(pid) == f"Split {sname}: {k} of val/test sites", f"{name}: title {d.titles.get(pid)}")
            check_hist(d, pid, v, name)
            nan = int((~np.isfinite(v)).sum())
            check(d.facts.get("not_scored_" + pid) == str(nan) and f"{nan} not scored" in d.labels.get("not_scored_" + pid, ""),
                  f"{name}: {pid}: not scored {d.facts.get('not_scored_' + pid)} vs {nan}")
    compare_descriptors(d, e["descriptors"], name)
    compare_quality(d, h5, e["quality"], name)
    for sec in ("clusters", "splits"):
        has = bool(e[sec])
        check((sec in d.absent) != has, f"{name}: section {sec}: absent {sec in d.absent}, in the file {has}")


def check_hist(d, pid, v, name):
    """The page's histogram of @p v: 20 bins between the finite min and max (one when they are equal), no bar of
    NaN, labels the bins' lower edges."""
    t = table(d, pid)
    check("NaN" not in t, f"{name}: {pid} has a NaN bar")
    fin = v[np.isfinite(v)]
    if not len(fin):
        check(not t, f"{name}: {pid}: bins without a value {t}")
        return
    lo, hi = fin.min(), fin.max()
    if lo == hi:
        want, labels = [len(fin)], [lo]
    else:
        w = (hi - lo) / 20
        want = list(np.bincount(np.minimum(19, np.floor((fin - lo) / w).astype(int)), minlength=20))
        labels = [lo + w * b for b in range(20)]
    check([int(x[0]) for x in t.values()] == want, f"{name}: histogram {pid} {t} vs {want}")
    check(len(t) == len(labels) and all(abs(float(k) - x) <= 1e-3 * max(1, abs(x)) for k, x in zip(t, labels)),
          f"{name}: histogram {pid} labels {list(t)} vs {labels}")


def compare_descriptors(d, e, name):
    check(("descriptors" in d.absent) == (e is None), f"{name}: descriptors absent {'descriptors' in d.absent}")
    if e is None:
        return
    check(d.facts.get("desc_ligands_with_site") == str(e["n_site"]) and d.facts.get("desc_computed") == str(e["n"]),
          f"{name}: descriptor rows {d.facts.get('desc_computed')} vs {e['n']}")
    t = table(d, "/ligands/desc_flags")
    for k, c in e["rates"].items():
        check(d.facts.get("pass_" + k) == str(c) and abs(t[k][0] - c / max(e["n"], 1)) < 1e-3,
              f"{name}: {k}: page {d.facts.get('pass_' + k)} {t.get(k)} vs {c} of {e['n']}")
    check(e["n"] > 0, f"{name}: no ligand with a site has computed descriptors")
    for c, v in e["cols"].items():
        check_hist(d, "/ligands/" + c, v, name)


def compare_quality(d, h5, has, name):
    check(("quality" in d.absent) != has, f"{name}: quality absent {'quality' in d.absent}, columns {has}")
    if not has:
        return
    q = run([SP, "survey", h5, "--quiet"]).stdout
    m = re.search(r"^site quality .*: (\d+) of (\d+) sites pass every criterion; meeting each:(.*)$", q, re.M)
    check(m is not None, f"{name}: no quality line in survey: {q}")
    if not m:
        return
    meet = dict((k, int(v)) for k, v in re.findall(r"(\w+) (\d+)", m.group(3)))
    n = int(m.group(2))
    check(len(meet) == 11, f"{name}: survey quality {meet}")
    t = table(d, "/sites/quality")
    check(d.facts.get("pass_quality") == m.group(1) and d.facts.get("quality_sites") == m.group(2) and
          abs(t["pass_quality"][0] - int(m.group(1)) / n) < 1e-3, f"{name}: pass_quality vs survey {m.group(1)}")
    for k, c in meet.items():
        check(d.facts.get("meet_" + k) == str(c) and abs(t[k][0] - c / n) < 1e-3,
              f"{name}: quality {k}: page {d.facts.get('meet_' + k)} {t.get(k)} vs survey {c} of {n}")


def pick_sites(h5):
    with h5py.File(h5, "r") as f:
        ip = f["sites/interaction_ptr"][:]
        t = f["interactions/type"][:]
        most = int(np.argmax(np.diff(ip)))
        wb = np.repeat(np.arange(len(ip) - 1), np.diff(ip))[t == 8]
        other = int(wb[0]) if len(wb) and int(wb[0]) != most else (most + 1) % (len(ip) - 1)
    return [most, other]


def compare_sites(d, h5, sites, name):
    with h5py.File(h5, "r") as f:
        ip = f["sites/interaction_ptr"][:]
        for i in sites:
            t = f["interactions/type"][ip[i]:ip[i + 1]]
            want = {IX[k]: int((t == k).sum()) for k in range(1, 10) if (t == k).sum()}
            got = d.legend.get(str(i), {})
            check(got == want, f"{name}: site {i} legend {got} vs /interactions {want}")
            lig = f["sites/ligand_idx"][i]
            st = f["sites/structure_idx"][i]
            ids = d.ids.get(str(i), {})
            want_lig = "%s %s/%d" % (f["ligands/comp_id"][lig].decode(), f["ligands/auth_asym_id"][lig].decode(),
                                     f["ligands/auth_seq_id"][lig])
            check(ids.get("ligand", "").startswith(want_lig), f"{name}: site {i} ligand {ids.get('ligand')} vs {want_lig}")
            check(ids.get("file") == f["structures/path"][st].decode(), f"{name}: site {i} file {ids.get('file')}")


# ------------------------------------------------------------------ one report, its failure modes

def report(h5, page, sites):
    run([SP, "report", h5, "--out", page, "--site", ",".join(map(str, sites)), "--force", "--quiet"])
    d = load(page)
    kinds = drawn(page, d) or {}
    n_plots = sum(1 for it in d.layout["items"] if it["kind"] == "plot") if d.layout else 0
    check(n_plots == len(d.plots) and n_plots >= 10, f"{page}: {n_plots} plot canvases for {len(d.plots)} tables")
    check(kinds.get("site") == len(sites), f"{page}: {kinds.get('site')} 3D canvases for {len(sites)} sites")
    compare(d, h5, page)
    compare_sites(d, h5, sites, page)
    return d


def failure_modes(h5):
    page = f"{OUT}/exists.html"
    with open(page, "w") as fh:
        fh.write("keep")
    p = subprocess.run([SP, "report", h5, "--out", page], capture_output=True, text=True)
    check(p.returncode == 2 and "exists" in p.stderr and open(page).read() == "keep",
          f"existing output without --force: exit {p.returncode}, {p.stderr.strip()}")
    damaged = f"{OUT}/damaged.h5"
    shutil.copy(h5, damaged)
    with h5py.File(damaged, "r+") as f:  # a CSR pointer off by one: check's consistency error
        ap = f["sites/atom_ptr"]
        ap[1] = ap[1] + 1
    trunc = f"{OUT}/truncated.h5"
    with open(h5, "rb") as fi, open(trunc, "wb") as fo:
        fo.write(fi.read(os.path.getsize(h5) // 2))
    for bad in (damaged, trunc):
        c = subprocess.run([SP, "check", bad], capture_output=True, text=True)
        r = subprocess.run([SP, "report", bad, "--out", f"{OUT}/bad.html"], capture_output=True, text=True)
        cm = re.sub(r"^sitepack check: (INVALID: )?", "", c.stderr.strip())
        rm = re.sub(r"^sitepack report: ", "", r.stderr.strip())
        check(c.returncode != 0 and r.returncode == c.returncode and cm == rm and cm,
              f"{bad}: check exit {c.returncode} '{cm}', report exit {r.returncode} '{rm}'")
        check(not os.path.exists(f"{OUT}/bad.html") and not os.path.exists(f"{OUT}/bad.html.tmp"),
              f"{bad}: report wrote a page")
    p = subprocess.run([SP, "report", h5, "--out", f"{OUT}/bad.html", "--site", "999999999"], capture_output=True, text=True)
    check(p.returncode == 2 and not os.path.exists(f"{OUT}/bad.html"), f"site out of range: exit {p.returncode} {p.stderr}")
    for arg in ("0,,1", "0,", ",0", ""):  # an empty item is a bad command line, nothing written
        p = subprocess.run([SP, "report", h5, "--out", f"{OUT}/bad.html", "--site", arg], capture_output=True, text=True)
        check(p.returncode == 2 and "empty item" in p.stderr and not os.path.exists(f"{OUT}/bad.html"),
              f"--site '{arg}': exit {p.returncode} {p.stderr}")
    page = f"{OUT}/dup.html"  # a site named more than once: one view of it
    run([SP, "report", h5, "--out", page, "--site", "0,0,0", "--site", "1,0", "--force", "--quiet"])
    d = load(page)
    n3d = sum(1 for it in d.layout["items"] if it["kind"] == "site") if d.layout else 0
    check(sorted(d.ids) == ["0", "1"] and n3d == 2, f"--site 0,0,0 --site 1,0: views {sorted(d.ids)}, {n3d} 3D canvases")


def main():
    check(CHROME is not None, "chromium not found (apt-get install chromium)")
    if fails:
        return 1
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    pages = []
    if sys.argv[3] == "--h5":
        h5 = sys.argv[4]
        pages.append((h5, f"{OUT}/report.html"))
    else:
        h5 = f"{OUT}/sample.h5"
        run([SP, "run", "--input", sys.argv[4], "--ccd", sys.argv[5], "--out", h5, "--quiet"])
        pages.append((h5, f"{OUT}/report.html"))
        full = f"{OUT}/sample_full.h5"
        shutil.copy(h5, full)
        run([SP, "cluster", full, "--threads", "2", "--sensitivity", "1", "--quiet"])
        run([SP, "split", full, "--by", "both", "--test", "0.25", "--val", "0.25", "--seed", "3", "--quiet"])
        with h5py.File(full, "r+") as f:  # every 4th ligand as if RDKit had not computed its descriptors (bit 0
            fl = f["ligands/desc_flags"]  # clear, values left): the page must leave them out of the plots
            v = fl[:]
            v[::4] = 0
            fl[...] = v
        run([SP, "check", full])
        pages.append((full, f"{OUT}/report_full.html"))
    sites = pick_sites(h5)
    measure = {}
    for k, (src, page) in enumerate(pages):
        report(src, page, sites)
        nosite = page.replace(".html", "_nosite.html")
        run([SP, "report", src, "--out", nosite, "--force", "--quiet"])
        load(nosite)
        m = {"h5": src, "sites": sites, "bytes": os.path.getsize(page), "bytes_without_sites": os.path.getsize(nosite)}
        if k == 0:  # load times of the file as run (the sample's second page differs by its extra sections only)
            m.update({"load_ms_median3": load_ms(page), "load_ms_without_sites_median3": load_ms(nosite)})
        measure[os.path.basename(page)] = m
    failure_modes(h5)
    if sys.argv[3] == "--run":  # a format-version-2 file (no /chains): still a page, the protein context absent
        v2 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "format_v2", "small_v2.h5")
        run([SP, "report", v2, "--out", f"{OUT}/v2.html", "--site", "0", "--quiet"])
        d = load(f"{OUT}/v2.html")
        check({"protein", "clusters", "splits", "descriptors", "quality"} <= d.absent, f"v2 page: absent {d.absent}")
        check("classes" in d.plots and "pocket" in d.plots and "0" in d.legend, f"v2 page: plots {sorted(d.plots)}")
    with open(f"{OUT}/report_measure.json", "w") as fh:
        json.dump(measure, fh, indent=1)
    print(json.dumps(measure, indent=1))
    print("FAILED: %d" % len(fails) if fails else "report_html: all checks passed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
