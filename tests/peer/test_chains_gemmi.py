#!/usr/bin/python3
"""Protein context of the merged file vs gemmi and the files' own records (issue 17; docs/format.md "/chains").

Usage: test_chains_gemmi.py MERGED.h5 STRUCTURES_DIR

For every structure of MERGED.h5 (a run over STRUCTURES_DIR, first model):
- chains: the polymer chains of gemmi's first model after setup_entities() (chains with a non-empty
  get_polymer()): author chain, label_asym_id (mmCIF: the subchain; PDB: the author chain), entity id
  (Entity.name), polymer type (Entity.polymer_type), modelled residues (len(get_polymer())), and the
  sequence: at each position of Entity.full_sequence (the first name of a point mutation) a standard
  residue gives its one-letter code; a non-standard one the letter the file's own records give
  (mmCIF: _entity_poly.pdbx_seq_one_letter_code_can, read with gemmi.cif; PDB: the MODRES parent's
  code, else X). For mmCIF the whole sequence also equals pdbx_seq_one_letter_code_can.
- references: the _struct_ref_seq rows of each author chain with their _struct_ref (gemmi.cif), or the
  DBREF / DBREF1 + DBREF2 records parsed here: segment count, database, accession, author and database
  ranges; the primary reference is the first UNP segment, else the first.
- /structures: r_work (_refine.ls_R_factor_R_work, else ls_R_factor_obs; REMARK 3 R VALUE (WORKING SET),
  else (WORKING + TEST SET)), r_free, deposition and release dates (_pdbx_database_status,
  _pdbx_audit_revision_history ordinal 1, _database_PDB_rev; HEADER, REVDAT modNum 1), method_file as
  written and method in the mmCIF enumeration.
- the entries present in both formats: the same chains (author ids), types, residues, sequences, primary
  accessions, R factors, dates and method.
Prints the agreement figures; exit 1 on any difference.
"""
import gzip
import math
import os
import sys

import gemmi
import h5py
import numpy as np

PTYPE = {
    gemmi.PolymerType.PeptideL: "polypeptide(L)",
    gemmi.PolymerType.PeptideD: "polypeptide(D)",
    gemmi.PolymerType.Dna: "polydeoxyribonucleotide",
    gemmi.PolymerType.Rna: "polyribonucleotide",
    gemmi.PolymerType.DnaRnaHybrid: "polydeoxyribonucleotide/polyribonucleotide hybrid",
}
ALIAS = {"NMR": "SOLUTION NMR", "X-RAY": "X-RAY DIFFRACTION", "CRYO-EM": "ELECTRON MICROSCOPY",
         "EM": "ELECTRON MICROSCOPY", "SOLID STATE NMR": "SOLID-STATE NMR",
         "ELECTRON DIFFRACTION": "ELECTRON CRYSTALLOGRAPHY", "FIBRE DIFFRACTION": "FIBER DIFFRACTION"}
MONTHS = "JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC".split()
STD_NA = {"DA": "A", "DC": "C", "DG": "G", "DT": "T", "DU": "U", "DI": "I", "DN": "N",
          "A": "A", "C": "C", "G": "G", "U": "U", "T": "T", "I": "I", "N": "N"}
STD_AA = dict(ALA="A", ARG="R", ASN="N", ASP="D", CYS="C", GLN="Q", GLU="E", GLY="G", HIS="H", ILE="I",
              LEU="L", LYS="K", MET="M", PHE="F", PRO="P", SER="S", THR="T", TRP="W", TYR="Y", VAL="V",
              SEC="U", PYL="O", ASX="B", GLX="Z", UNK="X")


# Known differences, each with the reason (printed with the figures; anything else fails):
KNOWN = {
    ("type", "7az6.pdb", "H"): "SEQRES ACE ARG GLN ALC SOQ LEU ZCL without MODRES: 3 of 7 standard names give 'other'; "
                               "gemmi counts residues with a CA atom",
    ("pairs: chains", "4OPJ", ""): "4opj.cif (NGL's copy) gives the protein's atoms no author ids: gemmi and sitepack "
                                   "see its two DNA chains only, the PDB file also chain A",
}


def s(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def norm_method(text):
    parts = [p.strip().upper() for p in text.replace(";", ",").split(",")]
    return ", ".join(ALIAS.get(p, p) for p in parts if p)


def std_code(name):
    return STD_AA.get(name) or STD_NA.get(name)


def pdb_date(t):
    t = t.strip()
    if len(t) != 9 or t[2] != "-" or t[6] != "-" or t[3:6] not in MONTHS:
        return ""
    yy = int(t[7:9])
    return "%04d-%02d-%s" % (1900 + yy if yy >= 50 else 2000 + yy, MONTHS.index(t[3:6]) + 1, t[0:2])


def fnum(v):
    try:
        x = float(v)
        return x if math.isfinite(x) else math.nan
    except (TypeError, ValueError):
        return math.nan


def read_lines(path):
    op = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with op(path, "rt", errors="replace") as f:
        return f.read().splitlines()


def pdb_records(path):
    """The file's own DBREF, MODRES, REMARK 3, HEADER, REVDAT, EXPDTA values (PDB format v3.3 columns)."""
    meta = {"refs": {}, "mod": {}, "r_work": math.nan, "r_free": math.nan, "dep": "", "rel": "", "method": ""}
    rwork_kind, rfree_kind, rel_mod, pending, methods = 0, 0, None, None, []
    for l in read_lines(path):
        l = l.ljust(80)
        rec = l[:6]
        if rec == "DBREF ":
            seg = dict(chain=l[12].strip(), db=l[26:32].strip(), acc=l[33:41].strip(), begin=l[14:18].strip(),
                       end=l[20:24].strip(), db_begin=l[55:60].strip(), db_end=l[62:67].strip())
            meta["refs"].setdefault(seg["chain"], []).append(seg)
        elif rec == "DBREF1":
            pending = dict(chain=l[12].strip(), db=l[26:32].strip(), acc="", begin=l[14:18].strip(),
                           end=l[20:24].strip(), db_begin="", db_end="")
            meta["refs"].setdefault(pending["chain"], []).append(pending)
        elif rec == "DBREF2" and pending:
            pending.update(acc=l[18:40].strip(), db_begin=l[45:55].strip(), db_end=l[57:67].strip())
            pending = None
        elif rec == "MODRES":
            meta["mod"].setdefault(l[12:15].strip(), l[24:27].strip())
        elif rec == "HEADER":
            meta["dep"] = pdb_date(l[50:59])
        elif rec == "REVDAT":
            num = int(l[7:10]) if l[7:10].strip().isdigit() else None
            if num is not None and (rel_mod is None or num <= rel_mod) and pdb_date(l[13:22]):
                rel_mod, meta["rel"] = num, pdb_date(l[13:22])
        elif rec == "EXPDTA":
            methods.append(l[10:79].strip())
        elif l.startswith("REMARK   3 ") and ":" in l:
            label, value = l[10:].split(":", 1)
            label = " ".join(label.split())
            x = fnum(value.strip())
            if math.isnan(x):
                continue
            free = {"FREE R VALUE": 2, "FREE R VALUE (NO CUTOFF)": 1}.get(label, 0)
            work = {"R VALUE (WORKING SET)": 3, "R VALUE (WORKING + TEST SET)": 2,
                    "R VALUE (WORKING SET, NO CUTOFF)": 1}.get(label, 0)
            if free > rfree_kind:
                meta["r_free"], rfree_kind = x, free
            if work > rwork_kind:
                meta["r_work"], rwork_kind = x, work
    meta["method"] = " ".join(methods)
    return meta


def cif_records(block):
    def val(tag):  # row 0 of a loop or a pair
        v = block.find_values(tag)
        return gemmi.cif.as_string(v[0]) if len(v) and v[0] not in ("?", ".") else None

    meta = {"refs": {}, "can": {}, "r_work": fnum(val("_refine.ls_R_factor_R_work")),
            "r_free": fnum(val("_refine.ls_R_factor_R_free")), "dep": "", "rel": ""}
    if math.isnan(meta["r_work"]):
        meta["r_work"] = fnum(val("_refine.ls_R_factor_obs"))
    meta["dep"] = (val("_pdbx_database_status.recvd_initial_deposition_date") or
                   val("_database_PDB_rev.date_original") or "")[:10]
    hist = block.find("_pdbx_audit_revision_history.", ["ordinal", "revision_date"])
    if len(hist):
        rows = [r for r in hist if r[0] == "1"] or [hist[0]]
        meta["rel"] = gemmi.cif.as_string(rows[0][1])[:10]
    if not meta["rel"]:
        for r in block.find("_database_PDB_rev.", ["num", "date"]):
            if r[0] == "1":
                meta["rel"] = gemmi.cif.as_string(r[1])[:10]
                break
    meta["method"] = ", ".join(gemmi.cif.as_string(v) for v in block.find_values("_exptl.method")
                               if gemmi.cif.as_string(v))
    for r in block.find("_entity_poly.", ["entity_id", "pdbx_seq_one_letter_code_can"]):
        meta["can"][r[0]] = "".join(gemmi.cif.as_string(r[1]).split())
    refs = {r[0]: r for r in block.find("_struct_ref.", ["id", "db_name", "?pdbx_db_accession", "?entity_id"])}
    cols = ["ref_id", "pdbx_strand_id", "?pdbx_db_accession", "?pdbx_auth_seq_align_beg",
            "?pdbx_auth_seq_align_end", "?db_align_beg", "?db_align_end"]
    for r in block.find("_struct_ref_seq.", cols):
        ref = refs.get(r[0])
        if ref is None:
            continue
        acc = r[2] if r.has(2) and r[2] not in "?." else (ref[2] if ref.has(2) else "")
        seg = dict(chain=gemmi.cif.as_string(r[1]), db=gemmi.cif.as_string(ref[1]), acc=gemmi.cif.as_string(acc),
                   begin=r[3] if r.has(3) else "", end=r[4] if r.has(4) else "",
                   db_begin=r[5] if r.has(5) else "", db_end=r[6] if r.has(6) else "")
        meta["refs"].setdefault(seg["chain"], []).append(seg)
    return meta


def num_or_none(v):
    v = str(v).strip()
    try:
        return int(v)
    except ValueError:
        return None


class Figures:
    def __init__(self):
        self.n = {}
        self.bad = []

    def check(self, what, ok, msg, key=None):
        a, b = self.n.get(what, (0, 0))
        self.n[what] = (a + bool(ok), b + 1)
        if not ok and key and (what,) + key in KNOWN:
            print(f"known: {what} {' '.join(key)}: {KNOWN[(what,) + key]}")
        elif not ok:
            self.bad.append(f"{what}: {msg}")


def gemmi_chains(path, meta, is_pdb):
    st = gemmi.read_structure(path)
    st.setup_entities()
    out = []
    for ch in st[0]:
        pol = ch.get_polymer()
        if len(pol) == 0:
            continue
        ent = st.get_entity_of(pol)
        seq = []
        for name in (ent.full_sequence if ent else []):
            name = name.split(",")[0]
            code = std_code(name)
            seq.append(code if code else ("?" if not is_pdb else STD_AA.get(meta["mod"].get(name, ""), None)
                                          or STD_NA.get(meta["mod"].get(name, ""), "X")))
        out.append(dict(chain=ch.name, label=ch.name if is_pdb else pol.subchain_id(), entity=ent.name if ent else "",
                        type=PTYPE.get(ent.polymer_type, "other") if ent else "", n=len(pol), seq="".join(seq)))
    return out


def ours(f, i):
    c = f["chains"]
    rows = np.nonzero(c["structure_idx"][:] == i)[0]
    seqs = f["sequences/code"][:]
    seg = f["segments"]
    seg_chain = seg["chain_idx"][:]
    out = []
    for r in rows:
        a, n = int(c["seq_ptr"][r]), int(c["seq_len"][r])
        segs = [dict(db=s(seg["db_name"][k]), acc=s(seg["db_accession"][k]), begin=int(seg["auth_begin"][k]),
                     end=int(seg["auth_end"][k]), db_begin=int(seg["db_begin"][k]), db_end=int(seg["db_end"][k]))
                for k in np.nonzero(seg_chain == r)[0]]
        out.append(dict(chain=s(c["auth_asym_id"][r]), label=s(c["label_asym_id"][r]), entity=s(c["entity_id"][r]),
                        type=s(c["type"][r]), n=int(c["n_residues"][r]), seq=seqs[a:a + n].tobytes().decode(),
                        db=s(c["db_name"][r]), acc=s(c["db_accession"][r]), segs=segs))
    return out


def compare_chain(F, tag, g, o, meta, is_pdb):
    for k in ("label", "entity", "type", "n"):
        F.check(k, g[k] == o[k], f"{tag} chain {g['chain']}: {k} gemmi {g[k]!r} sitepack {o[k]!r}", (tag, g["chain"]))
    gs = g["seq"]
    if not is_pdb:  # non-standard positions: the file's canonical letter
        can = meta["can"].get(o["entity"], "")
        F.check("sequence = pdbx_seq_one_letter_code_can", o["seq"] == can, f"{tag} chain {g['chain']}")
        if len(can) == len(gs):
            gs = "".join(c if c != "?" else can[k] for k, c in enumerate(gs))
    F.check("sequence", gs == o["seq"], f"{tag} chain {g['chain']}: gemmi {gs[:60]} sitepack {o['seq'][:60]}")
    refs = meta["refs"].get(g["chain"], [])
    F.check("segments", len(refs) == len(o["segs"]), f"{tag} chain {g['chain']}: {len(refs)} vs {len(o['segs'])}")
    for r, q in zip(refs, o["segs"]):
        want = (r["db"], r["acc"], num_or_none(r["begin"]), num_or_none(r["end"]), num_or_none(r["db_begin"]),
                num_or_none(r["db_end"]))
        NONE = -2147483648
        got = (q["db"], q["acc"], None if q["begin"] == NONE else q["begin"], None if q["end"] == NONE else q["end"],
               None if q["db_begin"] == NONE else q["db_begin"], None if q["db_end"] == NONE else q["db_end"])
        F.check("segment values", want == got, f"{tag} chain {g['chain']}: {want} vs {got}")
    prim = next((r for r in refs if r["db"] == "UNP"), refs[0] if refs else None)
    want = (prim["db"], prim["acc"]) if prim else ("", "")
    F.check("primary accession", want == (o["db"], o["acc"]), f"{tag} chain {g['chain']}: {want} vs {(o['db'], o['acc'])}")


def compare_entry(F, tag, row, meta):
    def feq(a, b):
        return (math.isnan(a) and math.isnan(b)) or abs(a - b) < 1e-4
    F.check("r_work", feq(meta["r_work"], float(row["r_work"])), f"{tag}: {meta['r_work']} vs {row['r_work']}")
    F.check("r_free", feq(meta["r_free"], float(row["r_free"])), f"{tag}: {meta['r_free']} vs {row['r_free']}")
    F.check("deposition_date", meta["dep"] == row["dep"], f"{tag}: {meta['dep']!r} vs {row['dep']!r}")
    F.check("release_date", meta["rel"] == row["rel"], f"{tag}: {meta['rel']!r} vs {row['rel']!r}")
    F.check("method_file", meta["method"] == row["method_file"], f"{tag}: {meta['method']!r} vs {row['method_file']!r}")
    F.check("method", norm_method(meta["method"]) == row["method"], f"{tag}: {row['method']!r}")


def main():
    h5, d = sys.argv[1:3]
    f = h5py.File(h5, "r")
    st = f["structures"]
    F = Figures()
    per_entry = {}
    n_chains = n_unp = 0
    for i, path in enumerate(st["path"][:]):
        path = s(path)
        if s(st["status"][i]) != "ok":
            continue
        full = os.path.join(d, path)
        is_pdb = s(st["format"][i]) == "pdb"
        meta = pdb_records(full) if is_pdb else cif_records(gemmi.cif.read(full).sole_block())
        g = gemmi_chains(full, meta, is_pdb)
        o = ours(f, i)
        F.check("chains", [x["chain"] for x in g] == [x["chain"] for x in o],
                f"{path}: gemmi {[x['chain'] for x in g]} sitepack {[x['chain'] for x in o]}")
        for gc, oc in zip(g, o):
            compare_chain(F, path, gc, oc, meta, is_pdb)
        n_chains += len(o)
        n_unp += sum(x["db"] == "UNP" for x in o)
        row = dict(r_work=st["r_work"][i], r_free=st["r_free"][i], dep=s(st["deposition_date"][i]),
                   rel=s(st["release_date"][i]), method=s(st["method"][i]), method_file=s(st["method_file"][i]))
        compare_entry(F, path, row, meta)
        entry = s(st["entry_id"][i]).upper()
        per_entry.setdefault(entry, []).append((is_pdb, o, row))
    # the entries in both formats
    n_pairs = 0
    for entry, items in sorted(per_entry.items()):
        if len(items) != 2 or items[0][0] == items[1][0]:
            continue
        n_pairs += 1
        (_, oa, ra), (_, ob, rb) = items
        key = lambda o: [(x["chain"], x["type"], x["n"], x["seq"], x["db"], x["acc"]) for x in o]
        F.check("pairs: chains", key(oa) == key(ob), f"{entry}: {key(oa)[:2]} vs {key(ob)[:2]}", (entry, ""))
        for k in ("r_work", "r_free"):  # REMARK 3 rounds to 3 decimals (0.0005), mmCIF has 4 or 5
            a, b = float(ra[k]), float(rb[k])
            F.check("pairs: " + k, (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 0.0015, f"{entry}: {a} vs {b}")
        for k in ("dep", "rel", "method"):
            F.check("pairs: " + k, ra[k] == rb[k], f"{entry}: {ra[k]!r} vs {rb[k]!r}")
    for what, (ok, n) in F.n.items():
        print(f"{what}: {ok} of {n} agree")
    print(f"{n_chains} chains, {n_unp} with a UniProt primary reference ({100.0 * n_unp / max(n_chains, 1):.1f} %); "
          f"{n_pairs} entries in both formats")
    for b in F.bad[:60]:
        print("FAIL", b)
    if len(F.bad) > 60:
        print(f"... {len(F.bad) - 60} more")
    return 1 if F.bad or n_pairs < 27 else 0


if __name__ == "__main__":
    sys.exit(main())
