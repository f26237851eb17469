#!/usr/bin/env python3
"""`sitepack check` on a --symmetry-mates output and on damaged copies (docs/format.md, /residues/symop).

usage: test_check_symmetry.py SITEPACK SHARED_DIR WORKDIR

A real run over 1R6A and 5KC1 with --symmetry-mates must pass the check; each copy below breaks one
rule of docs/format.md and must fail it (exit 1) with a message naming what is wrong:
  - atom flag bit 9 cleared on an image atom / set on an atom as in the file,
  - a symop value that is not a tag,
  - an image residue moved before the site's own residues,
  - site flag bit 3 (symmetry_partial) without bit 2.
"""
import os, shutil, subprocess, sys
import h5py
import numpy as np

sp, shared, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
inp = os.path.join(work, "in")
shutil.rmtree(inp, ignore_errors=True)
os.makedirs(inp)
structs = os.path.join(shared, "data", "structures")
for f in sorted(os.listdir(structs)):
    if f.split(".")[0].lower() in ("1r6a", "5kc1"):
        shutil.copy(os.path.join(structs, f), inp)
assert len(os.listdir(inp)) == 2, os.listdir(inp)
out = os.path.join(work, "sym.h5")
subprocess.run([sp, "run", "--input", inp, "--ccd", os.path.join(shared, "data", "ccd", "components_excerpt.cif.gz"),
                "--out", out, "--force", "--quiet", "--symmetry-mates"], check=True)


def check(path):
    r = subprocess.run([sp, "check", path], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


rc, msg = check(out)
assert rc == 0, msg
with h5py.File(out, "r") as f:
    sym = f["residues/symop"][:]
    tagged = np.array([len(s) > 0 for s in sym])
    assert tagged.any(), "no symmetry-mate residue in 1R6A/5KC1"
    ridx = f["atoms/residue_idx"][:]
    aflags = f["atoms/flags"][:]
    res_site = f["residues/site_idx"][:]
    assert ((aflags & 512) != 0).tolist() == tagged[ridx].tolist(), "flag 512 and symop disagree in the real output"
img_atom = int(np.nonzero((aflags & 512) != 0)[0][0])
own_atom = int(np.nonzero((aflags & 512) == 0)[0][0])
first_tag = int(np.nonzero(tagged)[0][0])
site = int(res_site[first_tag])
rows = np.nonzero(res_site == site)[0]
first_row = int(rows[0])


def damaged(name, edit, expect):
    p = os.path.join(work, name + ".h5")
    shutil.copy(out, p)
    with h5py.File(p, "r+") as f:
        edit(f)
    rc, msg = check(p)
    assert rc == 1 and expect in msg, (name, rc, msg)
    print(f"{name}: rejected ({msg.strip().splitlines()[-1][:140]})")


def clear_flag(f):
    f["atoms/flags"][img_atom] = f["atoms/flags"][img_atom] & ~np.uint16(512)


def set_flag(f):
    f["atoms/flags"][own_atom] = f["atoms/flags"][own_atom] | np.uint16(512)


def bad_tag(f):
    f["residues/symop"][first_tag] = b"hello"


def swap_rows(f):  # the first image residue and the site's first row (its ligand) swap their tags
    s = f["residues/symop"]
    a, b = s[first_row], s[first_tag]
    s[first_row], s[first_tag] = b, a


def partial_only(f):
    fl = f["sites/flags"]
    i = int(np.nonzero((fl[:] & 4) == 0)[0][0])
    fl[i] = fl[i] | np.uint32(8)


damaged("flag_cleared", clear_flag, "bit 9")
damaged("flag_set", set_flag, "bit 9")
damaged("bad_tag", bad_tag, "not a tag")
damaged("image_first", swap_rows, "/residues")
damaged("partial_only", partial_only, "symmetry_partial")
print("check_symmetry: ok")
