# Fast (default set, no corpus): the SDF `M  CHG` block of the bundled sample's haems (metal-bond rule: Fe +2,
# two pyrrole N -1) and tris (valence rule: N+) equals the rules recomputed in Python from each record's graph,
# its metal_bonds field and the file's charges; RDKit reads the same charges; valence_charges lists them; the run's
# /atoms/formal_charge holds the same values.
add_test(NAME export_charges_fast COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_export_charges_fast.py
         $<TARGET_FILE:sitepack_cli> ${CMAKE_SOURCE_DIR}/tests/data/structures
         ${CMAKE_SOURCE_DIR}/tests/data/ccd/components_sample.cif ${CMAKE_CURRENT_BINARY_DIR}/export_charges_fast)
set_tests_properties(export_charges_fast PROPERTIES LABELS "peer;store" TIMEOUT 120)
# Fast (no corpus), issue 39 items 3 and 4 on made-up entries: a ligand in two pieces gets the SD field fragments
# (RDKit finds the same two), a deposited H of a glycosidically linked O is left out (link_hydrogens; the record
# sanitizes, with the H put back it does not; to_rdkit agrees), and kept when the O is linked to nothing.
add_test(NAME export_molecules_fast COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_export_molecules_fast.py
         $<TARGET_FILE:sitepack_cli> ${CMAKE_SOURCE_DIR}/tests/data/ccd/components_sample.cif
         ${CMAKE_SOURCE_DIR}/python ${CMAKE_CURRENT_BINARY_DIR}/export_molecules_fast)
set_tests_properties(export_molecules_fast PROPERTIES LABELS "peer;store" TIMEOUT 120)
if(SP_HAVE_CORPUS) # needs the corpus (SITEPACK_CORPUS)
# The ligand's own chemistry (docs/format.md "/bonds", "Export files"; issue 14): over the merged output of
# shared/data/structures, every exported ligand of CCD components sanitizes in RDKit (100 %), heavy atoms ==
# /ligands/n_heavy_atoms, the InChIKey first block from the SDF (Open Babel's InChI: Debian's RDKit has none)
# equals the CCD's for >= 99 % of the complete single-component ligands, gemmi reads every pocket with the
# site's atoms, and /bonds equals the CCD's bond list restricted to the observed atoms.
add_test(NAME peer_export_chem COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_export_chem.py
         $<TARGET_FILE:sitepack_cli> ${SP_SHARED_DIR}/data ${CMAKE_CURRENT_BINARY_DIR}/export_test_out)
set_tests_properties(peer_export_chem PROPERTIES LABELS "peer;store" TIMEOUT 300)
# docs/usage.md's worked example (export one site, open it in RDKit, draw its pocket residues) runs as written,
# on the corpus run of the Python tests (fixture py_corpus).
add_test(NAME doc_usage_export_example COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_usage_example.py
         ${CMAKE_SOURCE_DIR}/docs/usage.md $<TARGET_FILE:sitepack_cli> ${CMAKE_BINARY_DIR}/py_test_out/corpus.h5
         ${CMAKE_CURRENT_BINARY_DIR}/usage_example)
set_tests_properties(doc_usage_export_example PROPERTIES FIXTURES_REQUIRED py_corpus LABELS "peer;store;docs")
# The export's rules for ligands without CCD chemistry and its file names (docs/usage.md "Export"): every SDF
# record of the corpus sanitizes in RDKit or carries the SD field warning naming the atom RDKit rejects;
# bond_orders equals what /bonds says (CONECT without repeated serials and distance bonds: `unknown: ...`) and
# is a value docs/usage.md lists; the valence rule gives the known molecules (acetylcholine, choline, the amine
# N-oxides, tris, the azide of C4W); names do not depend on the selection (two per-site exports into one
# directory both survive, names equal to --all's).
add_test(NAME peer_export_rules COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_export_rules.py
         $<TARGET_FILE:sitepack_cli> ${CMAKE_BINARY_DIR}/py_test_out/corpus.h5 ${SP_TEST_DIR}/unit/conect_orders.pdb
         ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif.gz ${CMAKE_SOURCE_DIR}/docs/usage.md
         ${CMAKE_CURRENT_BINARY_DIR}/export_rules)
set_tests_properties(peer_export_rules PROPERTIES FIXTURES_REQUIRED py_corpus LABELS "peer;store" TIMEOUT 300)
# Issue 39 items 3 and 4: the corpus export sanitizes in RDKit, every record (the CCD-defined ones: 100 %); a
# deposited H on a linked atom that it would put above its valence is left out and named (link_hydrogens), and
# RDKit rejects the record with it put back; a record of more than one fragment says so (fragments), as RDKit
# counts them; the summary counts both.
add_test(NAME peer_export_molecules COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_export_molecules.py
         $<TARGET_FILE:sitepack_cli> ${CMAKE_BINARY_DIR}/py_test_out/corpus.h5 ${CMAKE_CURRENT_BINARY_DIR}/export_molecules)
set_tests_properties(peer_export_molecules PROPERTIES FIXTURES_REQUIRED py_corpus LABELS "peer;store" TIMEOUT 300)
endif()
# Fast (default set): the one valence table (valence.h) equals RDKit's valence lists for every non-metal, its
# largest valences at charge -1/0/+1 and its implicit-H rule equal RDKit's (UpdatePropertyCache) on single atoms.
add_executable(sp_dump_valence ${SP_TEST_DIR}/unit/sp_dump_valence.c)
target_link_libraries(sp_dump_valence PRIVATE sitepack)
add_test(NAME peer_valence_table COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_valence_table.py
         $<TARGET_FILE:sp_dump_valence>)
set_tests_properties(peer_valence_table PROPERTIES LABELS "peer;chem")
