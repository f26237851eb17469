#!/usr/bin/env python3
"""Writes the synthetic input files of the reader cases R01-R06 (tests/cases/Rxx_*/) from ideal
geometry: a CA trace of a straight-ish helix (3.8 A between CA atoms), a ZN ion, a small ligand.
Run from this folder: python3 make_cases.py. The files are committed; this script documents how
they were made and rewrites them byte for byte."""
import math, os

AA = ["ALA", "GLY", "SER", "LEU", "VAL", "THR", "LYS", "GLU", "ASP", "ILE"]


def atom(rec, serial, name4, res, chain, seq, xyz, occ="1.00", b="20.00", el="", chg=""):
    """One ATOM/HETATM line, PDB format v3.3 columns; name4 is columns 13-16 exactly."""
    x, y, z = xyz
    line = (f"{rec:<6}{serial:>5} {name4:<4} {res:>3} {chain:1}{seq:>4}    "
            f"{x:8.3f}{y:8.3f}{z:8.3f}{occ:>6}{b:>6}          {el:>2}{chg:<2}")
    return line.rstrip() + "\n"


def ca_xyz(i):
    t = i * 100.0 / 180.0 * math.pi
    return (2.3 * math.cos(t), 2.3 * math.sin(t), 1.5 * i)


def seqres(chain, names):
    out = []
    for k in range(0, len(names), 13):
        out.append(f"SEQRES {k // 13 + 1:>3} {chain:1} {len(names):>4}  " + " ".join(f"{n:>3}" for n in names[k:k + 13]) + "\n")
    return "".join(out)


def write(folder, name, text):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "w", newline="") as f:
        f.write(text)


def r01():
    d = "R01_unknown_first_record"
    body = "".join(atom("ATOM", i + 1, " CA ", AA[i], "A", i + 1, ca_xyz(i), el="C") for i in range(6))
    write(d, "titel_then_model.pdb", "TITEL     STRUCTURE WRITTEN BY A LOCALISED TOOL\nMODEL        1\n" + body + "ENDMDL\nEND\n")
    write(d, "free_text_then_atoms.pdb", "frame 0 of a simulation, t = 0 ps\n\n" + body + "TER\nEND\n")
    write(d, "text_without_records.pdb", "TITEL     NO COORDINATES HERE\nATOMIC MODEL PENDING\n  ATOM      1  CA  ALA A   1\n")


def r02():
    d = "R02_blank_chain_seqres_ca_only"
    names = [AA[i % 10] for i in range(12)]
    for chain, fn in ((" ", "blank_chain.pdb"), ("A", "chain_a.pdb")):
        t = seqres(chain, names)
        t += "".join(atom("ATOM", i + 1, " CA ", names[i], chain, i + 1, ca_xyz(i), el="C") for i in range(12))
        t += "TER\n" + atom("HETATM", 13, "ZN  ", "ZN", chain, 101, (6.0, 0.0, 8.0), el="ZN", chg="2+") + "END\n"
        write(d, fn, t)


def r05():
    d = "R05_unreadable_columns"
    rows = [  # name4, res, seq, occ, b, chg, element
        (" N  ", "ALA", 1, "1.00", "20.00", "", "N"),
        (" CA ", "ALA", 1, "1.00", "   nan", "", "C"),   # NaN written by a Python tool
        (" C  ", "ALA", 1, "1.00", "n/a", "", "C"),      # text in the B column
        (" O  ", "ALA", 1, "full", "21.00", "", "O"),    # text in the occupancy column
        (" N  ", "LYS", 2, "1.00", "22.00", "", "N"),
        (" NZ ", "LYS", 2, "1.00", "23.00", "x+", "N"),  # charge that is no charge
        (" CA ", "LYS", 2, "1.00", "pocket", "", "C"),   # a word in the B column
    ]
    t = "REMARK   1 B AND OCCUPANCY COLUMNS HOLD TEXT IN SOME ROWS\n"
    for i, (n4, res, seq, occ, b, chg, el) in enumerate(rows):
        xyz = (1.5 * i, 0.5 * (i % 2), 0.0)
        t += atom("ATOM", i + 1, n4, res, "A", seq, xyz, occ=occ, b=b, el=el, chg=chg)
    write(d, "unreadable_columns.pdb", t + "END\n")
    bad = t.replace("   1       0.000   0.000", "   1       zzzzz   0.000", 1)
    write(d, "unreadable_coordinate.pdb", bad + "END\n")
    cif = ("data_R05\nloop_\n_atom_site.group_PDB\n_atom_site.id\n_atom_site.type_symbol\n_atom_site.label_atom_id\n"
           "_atom_site.label_comp_id\n_atom_site.label_asym_id\n_atom_site.label_seq_id\n_atom_site.auth_seq_id\n"
           "_atom_site.auth_asym_id\n_atom_site.Cartn_x\n_atom_site.Cartn_y\n_atom_site.Cartn_z\n_atom_site.occupancy\n"
           "_atom_site.B_iso_or_equiv\n_atom_site.pdbx_formal_charge\n_atom_site.pdbx_PDB_model_num\n")
    for i, (n4, res, seq, occ, b, chg, el) in enumerate(rows):
        xyz = (1.5 * i, 0.5 * (i % 2), 0.0)
        q = "?" if not chg else chg
        cif += (f"ATOM {i + 1} {el} {n4.strip()} {res} A {seq} {seq} A {xyz[0]:.3f} {xyz[1]:.3f} {xyz[2]:.3f} "
                f"{occ} {b.strip()} {q} 1\n")
    write(d, "unreadable_columns.cif", cif)
    write(d, "unreadable_coordinate.cif", cif.replace("ATOM 1 N N ALA A 1 1 A 0.000", "ATOM 1 N N ALA A 1 1 A zzzzz"))


def r06():
    d = "R06_right_justified_names"
    rows = [  # name, residue, seq, HETATM, element (for the copy with element columns)
        ("N", "ALA", 1, False, "N"), ("CA", "ALA", 1, False, "C"), ("C", "ALA", 1, False, "C"),
        ("O", "ALA", 1, False, "O"), ("CB", "ALA", 1, False, "C"),
        ("N", "SER", 2, False, "N"), ("CA", "SER", 2, False, "C"), ("OG", "SER", 2, False, "O"),
        ("HG", "SER", 2, False, "H"),
        ("N", "MSE", 3, True, "N"), ("CA", "MSE", 3, True, "C"), ("SE", "MSE", 3, True, "SE"),
        ("CE", "MSE", 3, True, "C"),
        ("CA", "CA", 101, True, "CA"),
        ("FE", "HEM", 102, True, "FE"), ("NA", "HEM", 102, True, "N"), ("CHA", "HEM", 102, True, "C"),
        ("CL1", "LG6", 103, True, "CL"), ("BR1", "LG6", 103, True, "BR"), ("C1", "LG6", 103, True, "C"),
        ("PB", "ATP", 104, True, "P"), ("O1B", "ATP", 104, True, "O"),
    ]
    plain, with_el = "", ""
    for i, (name, res, seq, het, el) in enumerate(rows):
        rec = "HETATM" if het else "ATOM"
        xyz = (1.4 * i, 0.7 * (i % 3), 0.3 * (i % 2))
        plain += atom(rec, i + 1, f"{name:>4}", res, "A", seq, xyz)  # "%4s": right-justified, no element
        with_el += atom(rec, i + 1, f"{name:>4}", res, "A", seq, xyz, el=el)
    write(d, "right_justified_no_element.pdb", plain + "END\n")
    write(d, "right_justified_with_element.pdb", with_el + "END\n")


def frame(chain, names, shift, first_serial):
    """12 CA atoms and a ZN ion, moved by `shift` A along x (one MD frame)."""
    t = ""
    for i, n in enumerate(names):
        x, y, z = ca_xyz(i)
        t += atom("ATOM", first_serial + i, " CA ", n, chain, i + 1, (x + shift, y, z), el="C")
    return t + atom("HETATM", first_serial + len(names), "ZN  ", "ZN", chain, 101, (6.0 + shift, 0.0, 8.0), el="ZN")


def r03():
    d = "R03_atoms_after_endmdl"
    names = [AA[i % 10] for i in range(12)]
    head = seqres("A", names)
    t = head + "MODEL        1\n" + frame("A", names, 0.0, 1) + "ENDMDL\n" + frame("A", names, 0.5, 1) + "ENDMDL\nEND\n"
    write(d, "model_then_endmdl_only.pdb", t)
    t = head + frame("A", names, 0.0, 1) + "ENDMDL\n" + frame("A", names, 0.5, 1) + "ENDMDL\n" + frame("A", names, 1.0, 1)
    write(d, "endmdl_only.pdb", t + "END\n")


def r04():
    d = "R04_repeated_model_numbers"
    names = [AA[i % 10] for i in range(12)]
    t = seqres("A", names)
    for k in range(5):
        t += "MODEL        1\n" + frame("A", names, 0.5 * k, 1) + "ENDMDL\n"
    write(d, "every_frame_model_1.pdb", t + "END\n")
    t = seqres("A", names)
    for k, num in enumerate((1, 2, 2, 3)):
        t += f"MODEL     {num:>4}\n" + frame("A", names, 0.5 * k, 1) + "ENDMDL\n"
    write(d, "one_number_twice.pdb", t + "END\n")


# ---- mmCIF writer for the cases R07-R11 (PDBx/mmCIF item names; one row per atom)
CIF_COLS = ["group_PDB", "id", "type_symbol", "label_atom_id", "label_alt_id", "label_comp_id", "label_asym_id",
            "label_entity_id", "label_seq_id", "pdbx_PDB_ins_code", "Cartn_x", "Cartn_y", "Cartn_z", "occupancy",
            "B_iso_or_equiv", "auth_seq_id", "auth_asym_id", "pdbx_PDB_model_num"]
SO4 = [("S", "S", (0.0, 0.0, 0.0)), ("O1", "O", (1.45, 0.0, 0.0)), ("O2", "O", (-0.48, 1.37, 0.0)),
       ("O3", "O", (-0.48, -0.68, 1.19)), ("O4", "O", (-0.48, -0.68, -1.19))]


def cif_row(i, rec, el, name, alt, comp, lasym, ent, lseq, icode, xyz, occ, aseq, aasym, model=1):
    x, y, z = xyz
    return (f"{rec} {i} {el} {name} {alt or '.'} {comp} {lasym} {ent} {lseq} {icode or '?'} "
            f"{x:.3f} {y:.3f} {z:.3f} {occ:.2f} 20.00 {aseq} {aasym} {model}\n")


def cif_block(name, rows, entities=(("1", "polymer"), ("2", "non-polymer"), ("3", "water"))):
    t = f"data_{name}\n#\n_entry.id {name}\n#\nloop_\n_entity.id\n_entity.type\n"
    t += "".join(f"{i} {ty}\n" for i, ty in entities) + "#\n"
    if rows:
        t += "loop_\n" + "".join(f"_atom_site.{c}\n" for c in CIF_COLS) + "".join(rows) + "#\n"
    return t


def ca_rows(chain="A", n=12, first=1, ent="1"):
    """n CA atoms of chain `chain` (entity `ent`), the helix of ca_xyz."""
    return [cif_row(first + i, "ATOM", "C", "CA", "", AA[i % 10], chain, ent, i + 1, "", ca_xyz(i), 1.0, i + 1, chain)
            for i in range(n)]


def so4_rows(first, lasym, ent, seq, aasym, shift=(6.0, 0.0, 8.0), alt="", occ=1.0, icode="", lseq="."):
    return [cif_row(first + k, "HETATM", el, nm, alt, "SO4", lasym, ent, lseq, icode,
                    tuple(a + b for a, b in zip(xyz, shift)), occ, seq, aasym) for k, (nm, el, xyz) in enumerate(SO4)]


def r07():
    d = "R07_cr_line_ends"
    names = [AA[i % 10] for i in range(12)]
    header = f"{'HEADER    LINE ENDS':<50}02-DEC-26   7CRL\n"
    pdb = header + seqres("A", names) + frame("A", names, 0.0, 1) + "END\n"
    write(d, "cr_only.pdb", pdb.replace("\n", "\r"))
    write(d, "cr_then_final_lf.pdb", pdb.replace("\n", "\r")[:-1] + "\n")
    write(d, "crlf.pdb", pdb.replace("\n", "\r\n"))
    rows = ca_rows() + [cif_row(13, "HETATM", "ZN", "ZN", "", "ZN", "B", "2", ".", "", (6.0, 0.0, 8.0), 1.0, 101, "A")]
    write(d, "cr_only.cif", cif_block("R07", rows).replace("\n", "\r"))


def r08():
    d = "R08_cif_reserved_word_first"
    body = cif_block("R08", ca_rows())
    write(d, "global_first.cif", "global_\n_x.y 1\n" + body)
    write(d, "tag_first.cif", "_x.y 1\n" + body)
    write(d, "loop_first.cif", "# a comment\n\nloop_\n_x.y\n1\n" + body)
    write(d, "upper_case_data.cif", body.replace("data_R08", "DATA_R08"))


def r09():
    d = "R09_multiple_data_blocks"
    atoms = ca_rows() + so4_rows(13, "B", "2", 101, "A")
    write(d, "two_blocks_with_atoms.cif", cif_block("FIRST", atoms) + cif_block("SECOND", atoms))
    write(d, "first_block_empty.cif", cif_block("FIRST", []) + cif_block("SECOND", atoms))
    empty_loop = "loop_\n" + "".join(f"_atom_site.{c}\n" for c in CIF_COLS) + "#\n"
    write(d, "first_block_empty_loop.cif", cif_block("FIRST", []) + empty_loop + cif_block("SECOND", atoms))
    dictionary = ("data_SO4_dictionary\n_chem_comp.id SO4\n_chem_comp.type NON-POLYMER\nloop_\n"
                  "_chem_comp_atom.comp_id\n_chem_comp_atom.atom_id\n_chem_comp_atom.type_symbol\n"
                  + "".join(f"SO4 {nm} {el}\n" for nm, el, _ in SO4) + "#\n")
    write(d, "dictionary_block_after.cif", cif_block("STRUCTURE", atoms) + dictionary)
    write(d, "no_block_with_atoms.cif", cif_block("FIRST", []) + dictionary)


def r10():
    d = "R10_ligand_entity_per_row"
    ents = (("1", "polymer"), ("2", "non-polymer"), ("3", "water"), ("4", "non-polymer"))
    hoh = lambda i, lasym, seq, xyz, alt="", occ=1.0: cif_row(i, "HETATM", "O", "O", alt, "HOH", lasym, "3", ".", "", xyz,
                                                           occ, seq, "A")
    # the SO4 shares label_asym_id A with the polymer (entity 1)
    write(d, "shares_polymer_chain.cif", cif_block("R10A", ca_rows() + so4_rows(13, "A", "2", 101, "A"), ents))
    # the SO4 shares label_asym_id W with the waters (entity 3), after them
    rows = ca_rows() + [hoh(13, "W", 201, (12.0, 0.0, 0.0)), hoh(14, "W", 202, (12.0, 3.0, 0.0))]
    write(d, "shares_water_chain.cif", cif_block("R10B", rows + so4_rows(15, "W", "2", 101, "A"), ents))
    # label_asym_id '.' on every row; label_entity_id on each row says what it is
    rows = [r.replace(" A 1 ", " . 1 ", 1) for r in ca_rows()] + so4_rows(13, ".", "2", 101, "A")
    rows += [hoh(18, ".", 201, (12.0, 0.0, 0.0))]
    write(d, "label_asym_dot.cif", cif_block("R10C", rows, ents))
    # a water (altloc A, 0.7) and an MG ion (altloc B, 0.3, entity 4) at one position, label_asym_id W
    rows = ca_rows() + [hoh(13, "W", 301, (7.8, 0.0, 10.5), "A", 0.7),
                        cif_row(14, "HETATM", "MG", "MG", "B", "MG", "W", "4", ".", "", (8.2, 0.0, 10.5), 0.3, 301, "A")]
    write(d, "water_ion_microhet.cif", cif_block("R10D", rows, ents))


def r11():
    d = "R11_multichar_altloc_icode"
    # an SO4 in two conformers whose alt ids have two characters (A1 0.4, A2 0.6)
    rows = ca_rows() + so4_rows(13, "B", "2", 101, "A", alt="A1", occ=0.4)
    rows += so4_rows(18, "B", "2", 101, "A", shift=(6.5, 0.3, 8.0), alt="A2", occ=0.6)
    write(d, "altloc_two_chars.cif", cif_block("R11A", rows))
    # the same, and a polymer residue with the one-character alt ids A and B: A1, A2 take C and D
    ca = ca_rows()
    ca[0] = ca[0].replace("ATOM 1 C CA . ", "ATOM 1 C CA A ").replace(" 1.00 20.00", " 0.50 20.00")
    ca.insert(1, ca[0].replace("ATOM 1 C CA A ", "ATOM 23 C CA B "))
    write(d, "altloc_first_char_taken.cif", cif_block("R11B", ca + rows[12:]))
    # two SO4 at residue 101 with the insertion codes AA and AB
    rows = ca_rows() + so4_rows(13, "B", "2", 101, "A", icode="AA")
    rows += so4_rows(18, "C", "2", 101, "A", shift=(-6.0, 0.0, 8.0), icode="AB")
    write(d, "icode_two_chars.cif", cif_block("R11C", rows))


if __name__ == "__main__":
    r01()
    r02()
    r03()
    r04()
    r05()
    r06()
    r07()
    r08()
    r09()
    r10()
    r11()
