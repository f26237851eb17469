#!/usr/bin/python3
"""Peer cross-check of sitepack's structure readers against gemmi (Debian python3-gemmi).

usage: gemmi_atoms.py SP_DUMP_ATOMS [DIR ...]
  SP_DUMP_ATOMS  path of the sp_dump_atoms test program (tests/unit/sp_dump_atoms.c)
  DIR            folders of structure files (default: $SP_SHARED_DIR/data/structures)

For every structure file in DIR (.cif .mmcif .pdb .ent, optionally .gz; gzip detected by
magic bytes as sitepack does) both readers are run, and compared:
  - the number of models and, per model, the model number and the atom count;
  - per atom, in file order: auth chain, label chain (mmCIF only: PDB files have none),
    residue name, auth residue number, insertion code, atom name, element, altloc,
    x/y/z (to 1e-3 Å), occupancy and B (to 1e-3; both readers see the same decimals);
    sp_dump_atoms prints label_seq_id too, which is not compared (gemmi keeps it only for
    polymer residues of mmCIF files).
gemmi is used without merge_chain_parts / setup_entities, so its atoms stay in file order.

Policy differences, handled explicitly (never by loosening a comparison):
  - deuterium: gemmi keeps element D; sitepack stores D (and T) as hydrogen, atomic
    number 1 (elements.h). D is compared as H.
  - element of atoms whose PDB element columns 77-78 are blank: gemmi reads the element
    from columns 13-14 as written; sitepack applies the alignment rule of pdb.h
    (sp_pdb_element_from_name). Such atoms are counted and compared against that rule,
    re-implemented below from the raw line, not against gemmi.
  - mmCIF files whose _atom_site lacks a column that gemmi needs (id, type_symbol,
    label_alt_id, label_asym_id, occupancy, B_iso_or_equiv, auth_seq_id: gemmi then reads
    no model, e.g. shared/cases B13, B14): the _atom_site rows are counted directly (per
    pdbx_PDB_model_num, 1 when absent) from gemmi's CIF table, and per row the atom name
    (label_atom_id, else auth_atom_id) and x/y/z are compared, instead of skipping the file.
A file that sitepack rejects, or that gemmi rejects while sitepack reads it, is a mismatch.
Work is spread over a few processes (files in chunks). Exit status: 0 when there is no
mismatch, 1 on any mismatch, 2 on a usage or setup error.
"""
import gc
import gzip
import multiprocessing
import os
import subprocess
import sys
import time

import gemmi

EXTS = ('.cif', '.mmcif', '.pdb', '.ent')
MAX_REPORT = 30


def structure_files(root):
    out = []
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            name = f.lower()
            base = name[:-3] if name.endswith('.gz') else name
            if base.endswith(EXTS):
                out.append(os.path.join(dirpath, f))
    return sorted(out)


def read_text(path):
    with open(path, 'rb') as fh:
        raw = fh.read()
    if raw[:2] == b'\x1f\x8b':
        raw = gzip.decompress(raw)
    return raw.decode('latin-1')


def is_mmcif(text):
    pos = 0
    while pos < len(text):
        nl = text.find('\n', pos)
        end = len(text) if nl < 0 else nl
        s = text[pos:end].strip()
        pos = end + 1
        if not s or s.startswith('#'):
            continue
        return s[:5].lower() == 'data_'
    return False


STD = {"ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE", "LEU", "LYS", "MET", "PHE",
       "PRO", "SER", "THR", "TRP", "TYR", "VAL", "UNK", "A", "C", "G", "U", "I", "DA", "DC", "DG", "DT",
       "DI", "DU", "N", "DN", "HOH", "WAT", "DOD", "TIP", "TIP3"}


def element_from_name(name4, resname):
    """The rule of pdb.h sp_pdb_element_from_name, independently re-implemented."""
    def el(sym):
        e = gemmi.Element(sym)
        if e.atomic_number == 0 or (len(sym) == 1 and sym.upper() not in ('D', 'T') and e.name.upper() != sym.upper()):
            return ''
        return 'H' if e.name in ('D', 'T') else e.name
    c0, c1 = name4[0], name4[1]
    if c0 == ' ' or c0.isdigit():
        return el(c1) if c1.isalpha() else ''
    if not c0.isalpha():
        return ''
    if ' ' not in name4[1:4] and c0 in 'HhDd':
        return 'H'
    one = el(c0)
    if c1.isalpha():
        two = el(name4[:2])
        if two and len(two) == 2 and not (one and resname in STD):
            return two
    return one


def blank_element_lines(text):
    """(model index, atom index in model) -> (name cols 13-16, resname) for PDB atom
    records whose element columns 77-78 are blank."""
    out = {}
    model = 0
    idx = 0
    seen_atom = False
    for line in text.splitlines():
        rec = line[:6]
        if rec.startswith('MODEL '):
            if seen_atom:
                model += 1
            idx = 0
            seen_atom = False
        elif rec == 'ATOM  ' or rec.startswith('ATOM ') or rec == 'HETATM':
            line = line.rstrip('\r')
            el = line[76:78].strip() if len(line) > 76 else ''
            if not el or gemmi.Element(el).atomic_number == 0:
                padded = line.ljust(80)
                res = padded[17:21].strip() if padded[20] != ' ' else padded[17:20].strip()
                out[(model, idx)] = (padded[12:16], res)
            idx += 1
            seen_atom = True
        elif line.startswith('END') and line[3:6].strip() == '':
            break
    return out


def gemmi_models_pdb(st):
    """gemmi's atoms of a structure read from a PDB file, in bulk: gemmi writes its own
    model (Structure.make_minimal_pdb, C++) and the fixed columns are sliced here. Same
    tuples as the per-atom loop of gemmi_models(), about 4x faster. Lossless for PDB input:
    coordinates are written with 3 decimals, occupancy and B with 2, as in the input."""
    models = []
    atoms = None
    for line in st.make_minimal_pdb().split('\n'):
        rec = line[:6]
        if rec == 'ATOM  ' or rec == 'HETATM':
            if atoms is None:  # a single model is written without MODEL record
                atoms = []
                models.append((int(st[0].name), atoms))
            el = line[76:78].strip()
            alt = line[16]
            atoms.append(((line[20:22].strip(), '', line[17:20].strip(), str(int(line[22:26])), line[26].strip()),
                          line[12:16].strip(), el[:1] + el[1:].lower(), '\0' if alt == ' ' else alt,
                          float(line[30:38]), float(line[38:46]), float(line[46:54]),
                          float(line[54:60]), float(line[60:66])))
        elif rec == 'MODEL ':
            atoms = []
            models.append((int(line[10:14]), atoms))
    return models


def gemmi_models(text, mmcif):
    if mmcif:
        doc = gemmi.cif.read_string(text)
        st = gemmi.make_structure_from_block(doc[0])
    else:
        st = gemmi.read_pdb_string(text)
        if FAST_PDB and all(len(ch.name) <= 2 for m in st for ch in m) and \
                all(len(n) <= 3 for m in st for n in m.get_all_residue_names()):
            return gemmi_models_pdb(st)
    models = []
    for m in st:
        atoms = []
        add = atoms.append
        for ch in m:
            cname = ch.name
            for r in ch:
                seq = r.seqid
                head = (cname, r.subchain, r.name, str(seq.num), seq.icode.strip())
                for a in r:
                    x, y, z = a.pos.tolist()
                    add((head, a.name, a.element.name, a.altloc, x, y, z, a.occ, a.b_iso))
        models.append((int(m.name), atoms))
    return models


GEMMI_NEEDS = ('id', 'type_symbol', 'label_alt_id', 'label_asym_id', 'occupancy', 'B_iso_or_equiv', 'auth_seq_id')


def atom_site_rows(text):
    """The _atom_site rows of an mmCIF text whose _atom_site lacks a column that gemmi needs
    (gemmi then reads no model): [(model number, atom name, x, y, z)] in file order, or None
    when no such column is missing."""
    block = gemmi.cif.read_string(text)[0]
    tags = [t.lower() for t in block.get_mmcif_category_names()]
    if '_atom_site.' not in tags:
        return None
    cat = block.find_mmcif_category('_atom_site.')
    have = set(cat.tags)
    if all(f'_atom_site.{c}' in have for c in GEMMI_NEEDS):
        return None
    tab = block.find('_atom_site.', ['Cartn_x', 'Cartn_y', 'Cartn_z', '?pdbx_PDB_model_num', '?label_atom_id',
                                      '?auth_atom_id'])
    out = []
    for row in tab:
        num = int(row[3]) if row.has(3) and gemmi.cif.as_string(row[3]) not in ('', '?', '.') else 1
        name = gemmi.cif.as_string(row[4]) if row.has(4) else gemmi.cif.as_string(row[5])
        out.append((num, name, float(row[0]), float(row[1]), float(row[2])))
    return out


def compare_rows(path, rows, my_models):
    """Atom rows counted directly (atom_site_rows) against sitepack's models: counts per model,
    then per row the atom name and x/y/z. Returns mismatch messages."""
    msgs = []
    want = {}
    for r in rows:
        want.setdefault(r[0], []).append(r)
    if [(k, len(v)) for k, v in want.items()] != [(int(n), len(a)) for n, a in my_models]:
        return [f'{path}: models/atoms {[(int(n), len(a)) for n, a in my_models]}, _atom_site rows '
                f'{[(k, len(v)) for k, v in want.items()]}']
    for (_n, atoms), rs in zip(my_models, want.values()):
        for ai, (m, r) in enumerate(zip(atoms, rs)):
            if m[9] != r[1] or any(abs(float(m[12 + k]) - r[2 + k]) > TOL for k in range(3)):
                msgs.append(f'{path}: row {ai}: atom {m[9]!r} {m[12]},{m[13]},{m[14]} vs _atom_site {r[1:]}')
    return msgs


TOL = 1.0005e-3
FAST_PDB = os.environ.get('SP_PEER_SLOW') is None


def compare_atom(path, mmcif, mnum, ai, g, m, blank_el):
    """Detailed comparison of one atom; returns (list of differences, policy counters)."""
    (head, gname, gel, galt, gx, gy, gz, gocc, gb) = g
    gch, gsub, grn, gnum_r, gic = head
    galt = '' if galt == '\0' else galt
    diffs = []
    n_policy = n_d = 0
    if m[4] != gch:
        diffs.append(f'auth chain {m[4]!r} vs {gch!r}')
    if mmcif and m[3] != gsub:
        diffs.append(f'label chain {m[3]!r} vs {gsub!r}')
    if m[5] != grn:
        diffs.append(f'comp {m[5]!r} vs {grn!r}')
    if m[7] != gnum_r:
        diffs.append(f'auth_seq_id {m[7]} vs {gnum_r}')
    if m[8] != gic:
        diffs.append(f'ins code {m[8]!r} vs {gic!r}')
    if m[9] != gname:
        diffs.append(f'atom {m[9]!r} vs {gname!r}')
    if m[10] != galt:
        diffs.append(f'altloc {m[10]!r} vs {galt!r}')
    # element: policy differences (see module docstring)
    want_el = gel
    if gel in ('D', 'T'):
        want_el = 'H'
        n_d += 1
    if not mmcif and m[11] != want_el:
        key = (mnum, ai)
        if key in blank_el():
            name4, resn = blank_el()[key]
            want_el = element_from_name(name4, resn)
            n_policy += 1
    if want_el == 'X':
        want_el = ''
    if m[11] != want_el:
        diffs.append(f'element {m[11]!r} vs {want_el!r} (gemmi {gel!r})')
    if abs(float(m[12]) - gx) > TOL or abs(float(m[13]) - gy) > TOL or abs(float(m[14]) - gz) > TOL:
        diffs.append(f'xyz {m[12]},{m[13]},{m[14]} vs {gx:.3f},{gy:.3f},{gz:.3f}')
    if abs(float(m[15]) - gocc) > TOL:
        diffs.append(f'occupancy {m[15]} vs {gocc:.3f}')
    if abs(float(m[16]) - gb) > TOL:
        diffs.append(f'B {m[16]} vs {gb:.3f}')
    return diffs, n_policy, n_d


def check_chunk(args):
    """Run sp_dump_atoms on a chunk of files and compare each with gemmi.
    Returns (files compared, atoms compared, mismatch messages, policy element count, D count,
    files whose atom rows were counted directly)."""
    dump, chunk = args
    gc.disable()  # millions of small tuples/lists, no cycles: the cyclic GC only costs time here
    n_files = n_atoms = n_policy = n_d = n_counted = 0
    msgs = []
    proc = subprocess.run([dump] + chunk, stdout=subprocess.PIPE, check=False)
    if proc.returncode != 0:
        return 0, 0, [f'sp_dump_atoms failed with status {proc.returncode} on {chunk}'], 0, 0, 0
    ours = {}
    cur = None
    for line in proc.stdout.decode('latin-1').split('\n'):
        if not line:
            continue
        f = line.split('\t')
        if f[1] == 'ERROR':
            ours[f[0]] = ('ERROR', f[2], f[3])
        elif f[1] == 'FORMAT':
            cur = ours[f[0]] = (f[2], [])
        else:
            cur[1].append(f)
    for path in chunk:
        text = read_text(path)
        mmcif = is_mmcif(text)
        mine = ours.get(path)
        if mine is None:
            msgs.append(f'{path}: no output from sp_dump_atoms')
            continue
        if mine[0] == 'ERROR':
            msgs.append(f'{path}: sitepack failed: {mine[1]}: {mine[2]}')
            continue
        if mine[0] != ('mmcif' if mmcif else 'pdb'):
            msgs.append(f'{path}: format {mine[0]}, expected {"mmcif" if mmcif else "pdb"}')
            continue
        try:
            gm = gemmi_models(text, mmcif)
        except Exception as e:  # gemmi failing on a file we read is a finding too
            msgs.append(f'{path}: gemmi failed: {e}')
            continue
        cache = []

        def blank_el():
            if not cache:
                cache.append(blank_element_lines(text))
            return cache[0]
        my_models = []
        for f in mine[1]:
            if not my_models or my_models[-1][0] != f[1]:
                my_models.append((f[1], []))
            my_models[-1][1].append(f)
        gm = [m for m in gm if m[1]]  # gemmi keeps a model without atoms; sitepack has none
        n_files += 1
        rows = atom_site_rows(text) if mmcif and not gm else None
        if rows is not None:  # gemmi reads no model: a column it needs is missing
            n_counted += 1
            n_atoms += len(rows)
            msgs.extend(compare_rows(path, rows, my_models))
            continue
        if len(gm) != len(my_models):
            msgs.append(f'{path}: {len(my_models)} models, gemmi {len(gm)}')
            continue
        for mi, ((gnum, gatoms), (mnum_s, matoms)) in enumerate(zip(gm, my_models)):
            mnum = int(mnum_s)
            if gnum != mnum:
                msgs.append(f'{path}: model {mi}: number {mnum}, gemmi {gnum}')
            if len(gatoms) != len(matoms):
                msgs.append(f'{path}: model {mnum}: {len(matoms)} atoms, gemmi {len(gatoms)}')
                continue
            for ai, (g, m) in enumerate(zip(gatoms, matoms)):
                n_atoms += 1
                head = g[0]
                # fast path: everything equal without any policy case
                if (m[4] == head[0] and (not mmcif or m[3] == head[1]) and m[5] == head[2] and
                        m[7] == head[3] and m[8] == head[4] and m[9] == g[1] and m[11] == g[2] and
                        m[10] == ('' if g[3] == '\0' else g[3]) and
                        abs(float(m[12]) - g[4]) <= TOL and abs(float(m[13]) - g[5]) <= TOL and
                        abs(float(m[14]) - g[6]) <= TOL and abs(float(m[15]) - g[7]) <= TOL and
                        abs(float(m[16]) - g[8]) <= TOL):
                    continue
                diffs, np_, nd = compare_atom(path, mmcif, mi, ai, g, m, blank_el)
                n_policy += np_
                n_d += nd
                if diffs:
                    msgs.append(f'{path}: model {mnum} atom {ai} (serial {m[2]}): ' + '; '.join(diffs))
    gc.enable()
    return n_files, n_atoms, msgs, n_policy, n_d, n_counted


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    dump = sys.argv[1]
    roots = sys.argv[2:] or [os.path.join(os.environ.get('SP_SHARED_DIR', '../shared'), 'data', 'structures')]
    files = [f for root in roots for f in structure_files(root)]
    if not files:
        print('no structure files under', ' '.join(roots))
        return 2
    t0 = time.time()
    # chunks of about equal bytes, largest first, so that the workers end together
    files.sort(key=lambda f: -os.path.getsize(f))
    chunks, cur, cur_bytes = [], [], 0
    for f in files:
        cur.append(f)
        cur_bytes += os.path.getsize(f)
        if cur_bytes > 3_000_000 or len(cur) >= 12:
            chunks.append((dump, cur))
            cur, cur_bytes = [], 0
    if cur:
        chunks.append((dump, cur))
    n_files = n_atoms = n_policy = n_d = n_counted = 0
    msgs = []
    with multiprocessing.Pool(max(1, min(4, os.cpu_count() or 1))) as pool:
        for nf, na, ms, npol, nd, nc in pool.imap_unordered(check_chunk, chunks):
            n_counted += nc
            n_files += nf
            n_atoms += na
            msgs.extend(ms)
            n_policy += npol
            n_d += nd
    for m in sorted(msgs)[:MAX_REPORT]:
        print('MISMATCH', m)
    if len(msgs) > MAX_REPORT:
        print(f'... and {len(msgs) - MAX_REPORT} more')
    print(f'gemmi {gemmi.__version__}: files compared {n_files} of {len(files)}, atoms compared {n_atoms}, '
          f'mismatches {len(msgs)}; elements by the pdb.h blank-column rule {n_policy}, D/T as H {n_d}; '
          f'files without a column gemmi needs, atom rows counted directly {n_counted}; {time.time() - t0:.1f} s')
    return 1 if msgs else 0


if __name__ == '__main__':
    sys.exit(main())
