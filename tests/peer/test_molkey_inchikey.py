"""Peer check of the molecule key (include/sitepack/molkey.h) against standard InChIKeys.

Two CCD components share a molecule key exactly when their standard InChIKeys share the
first block (the 14-character hash of the InChI main layer: formula, connectivity, H
atoms; stereo, isotopes and protonation are outside it). InChIKeys are taken from each
block's _pdbx_chem_comp_descriptor (as printed by the C helper test_molkey_dump); blocks
without an InChIKey are skipped. The known exceptions (docs/ligands.md) are listed below
and asserted to be exactly the disagreements.

usage: test_molkey_inchikey.py HELPER CCD_FILE
"""
import itertools
import subprocess
import sys

# (comp a, comp b, kind): kind "key_only" = same molecule key, different InChIKey first
# block; "inchi_only" = same InChIKey first block, different molecule key.
EXCEPTIONS = {
    # haem b/c variants: same heavy-atom graph and H count, different bond orders and H
    # placement (WL ignores both: docs/ligands.md "limits")
    ("HEB", "HEC", "key_only"),
    # Mo(6+) ion vs neutral Mo atom: the key's H count is H minus charge (-6 vs 0); InChI's
    # first block has no charge
    ("6MO", "MO", "inchi_only"),
}


def main():
    helper, ccd = sys.argv[1], sys.argv[2]
    out = subprocess.run([helper, ccd], check=True, capture_output=True, text=True).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    assert len(rows) == 131, f"{len(rows)} blocks (the excerpt has 131)"
    key, first = {}, {}
    for cid, k, ik, _status in rows:
        if k != "-" and ik != "-":
            assert k.startswith("wl1-"), (cid, k)
            key[cid] = k
            first[cid] = ik.split("-")[0]
    assert len(key) >= 125, f"only {len(key)} blocks with key and InChIKey"
    found = set()
    agree_same = 0
    for a, b in itertools.combinations(sorted(key), 2):
        same_key, same_ik = key[a] == key[b], first[a] == first[b]
        if same_key and same_ik:
            agree_same += 1
        if same_key != same_ik:
            found.add((a, b, "key_only" if same_key else "inchi_only"))
    missing = EXCEPTIONS - found
    unexpected = found - EXCEPTIONS
    print(f"{len(key)} components, {agree_same} agreeing same-molecule pairs, "
          f"{len(found)} listed exceptions")
    assert not unexpected, f"unlisted disagreements: {sorted(unexpected)}"
    assert not missing, f"listed exceptions that no longer occur: {sorted(missing)}"
    # the key is also stable under a second run (deterministic)
    again = subprocess.run([helper, ccd], check=True, capture_output=True, text=True).stdout
    assert again == out


if __name__ == "__main__":
    main()
