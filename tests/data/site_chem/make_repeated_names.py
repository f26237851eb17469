#!/usr/bin/env python3
"""Writes tests/data/site_chem/repeated_names.{pdb,cif} (issue 13: repeated atom names in a residue): GOL
from the CCD ideal coordinates next to a GLY8 chain, GOL B 1 with every H named "H", GOL B 2 with C3 named
"C1". Run once in tests/data/site_chem; the files are committed."""

gol = [("C1","C",-1.249,-0.665,0.295),("O1","O",-2.413,-0.087,-0.300),("C2","C",0.000,0.034,-0.245),
       ("O2","O",0.000,1.400,0.174),("C3","C",1.249,-0.665,0.295),("O3","O",2.413,-0.087,-0.300),
       ("H11","H",-1.295,-0.543,1.377),("H12","H",-1.206,-1.727,0.051),("HO1","H",-3.244,-0.483,-0.003),
       ("H2","H",-0.000,-0.012,-1.334),("HO2","H",0.000,1.517,1.134),("H31","H",1.295,-0.543,1.377),
       ("H32","H",1.206,-1.727,0.051),("HO3","H",3.244,-0.483,-0.003)]
atoms = []  # (het, name, comp, chain, seq, x, y, z, el)
for i in range(8):
    for j, (n, e, dx, dy) in enumerate((("N","N",-1.2,0.3),("CA","C",0,0),("C","C",1.2,-0.3),("O","O",1.3,-1.5))):
        atoms.append((False, n, "GLY", "A", i + 1, 3.8 * i + dx, dy, 0.0, e))
# GOL B 1: every H named "H"; GOL B 2: C3 named "C1" (a second C1)
for seq, cx, rename in ((1, 7.6, lambda n, e: "H" if e == "H" else n), (2, 20.0, lambda n, e: "C1" if n == "C3" else n)):
    for n, e, x, y, z in gol:
        atoms.append((True, rename(n, e), "GOL", "B", seq, cx + x, 3.5 + y, 4.0 + z, e))
with open("repeated_names.pdb", "w") as f:
    f.write("REMARK   1 SYNTHETIC (ISSUE 13): GOL B 1 WITH EVERY H NAMED H, GOL B 2 WITH C3 NAMED C1 (TWO C1)\n")
    f.write("REMARK   1 GOL FROM THE CCD IDEAL COORDINATES, NEXT TO A GLY8 CHAIN\n")
    for k, (het, n, comp, ch, seq, x, y, z, e) in enumerate(atoms, 1):
        nm = n if len(n) == 4 else " " + n
        f.write("%-6s%5d %-4s %3s %1s%4d    %8.3f%8.3f%8.3f%6.2f%6.2f          %2s\n"
                % ("HETATM" if het else "ATOM", k, nm, comp, ch, seq, x, y, z, 1.0, 20.0, e))
    f.write("END\n")
with open("repeated_names.cif", "w") as f:
    f.write("data_REPN\n#\n_entry.id REPN\n#\n")
    f.write("# synthetic (issue 13): GOL B 1 with every H named H, GOL B 2 with C3 named C1 (two C1);\n")
    f.write("# GOL from the CCD ideal coordinates, next to a GLY8 chain\n")
    f.write("loop_\n_entity.id\n_entity.type\n1 polymer\n2 non-polymer\n#\n")
    f.write("loop_\n_atom_site.group_PDB\n_atom_site.id\n_atom_site.type_symbol\n_atom_site.label_atom_id\n"
            "_atom_site.label_alt_id\n_atom_site.label_comp_id\n_atom_site.label_asym_id\n_atom_site.label_entity_id\n"
            "_atom_site.label_seq_id\n_atom_site.Cartn_x\n_atom_site.Cartn_y\n_atom_site.Cartn_z\n_atom_site.occupancy\n"
            "_atom_site.B_iso_or_equiv\n_atom_site.auth_seq_id\n_atom_site.auth_asym_id\n_atom_site.pdbx_PDB_model_num\n")
    for k, (het, n, comp, ch, seq, x, y, z, e) in enumerate(atoms, 1):
        f.write("%s %d %s %s . %s %s %d %s %.3f %.3f %.3f 1.00 20.00 %d %s 1\n"
                % ("HETATM" if het else "ATOM", k, e, n, comp, ch, 2 if het else 1, "." if het else str(seq), x, y, z,
                   seq, ch))
    f.write("#\n")
