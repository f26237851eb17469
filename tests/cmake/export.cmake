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
