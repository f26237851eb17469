# Leakage-aware splits (issue 27; docs/usage.md "Splits"): sitepack cluster (MMseqs2, Morgan + Butina) and
# sitepack split.
# On the bundled sample (no corpus): -np 1 and -np 2 give the same /clusters and /splits; the sides equal the
# documented rule recomputed in Python (tests/peer/split_rule.py); no val/test site shares an entry or cluster
# with train; attributes; check accepts the file; reruns byte-identical; bad inputs exit 2 and write nothing;
# a later entry moves no site whose component key is unchanged; ds.split and SiteDataset(split=).
add_test(NAME split_sample COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_split_sample.py
         $<TARGET_FILE:sitepack_cli> ${MPIEXEC_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/data/structures
         ${CMAKE_SOURCE_DIR}/tests/data/ccd/components_sample.cif ${CMAKE_CURRENT_BINARY_DIR}/split_sample)
set_tests_properties(split_sample PROPERTIES LABELS "split;unit;slow" TIMEOUT 600)
if(SP_HAVE_CORPUS)
  # On the corpus (a copy of the py_corpus run): cluster, split --by protein, ligand, both, time; the rule
  # recomputed; no val/test chain >= 30 % identical over 80 % of both sequences to a train chain by Biopython's
  # alignments (independent of MMseqs2; every contacted chain); the ligand bound by RDKit's Morgan(2, 2048)
  # recomputed from the ligand graphs; the leakage scores against an MMseqs2 search run by the test; the C
  # fingerprints against RDKit's (Tanimoto correlation, threshold and Butina agreement). Writes
  # split_corpus/split_corpus.json (the table of docs/usage.md "Splits").
  add_test(NAME split_corpus COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_split_corpus.py
           $<TARGET_FILE:sitepack_cli> ${CMAKE_BINARY_DIR}/py_test_out/corpus.h5 ${CMAKE_CURRENT_BINARY_DIR}/split_corpus)
  set_tests_properties(split_corpus PROPERTIES FIXTURES_REQUIRED py_corpus LABELS "split;peer;slow" TIMEOUT 400)
  # The ligand fingerprints' charges (docs/usage.md "Splits"): /atoms/formal_charge in a version-6 file,
  # ccd_charge in a version-5 copy; the exported SDF's charges and RDKit's Morgan of it against the stored bits.
  add_test(NAME cluster_charges COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_cluster_charges.py
           $<TARGET_FILE:sitepack_cli> ${CMAKE_BINARY_DIR}/py_test_out/corpus.h5 ${CMAKE_CURRENT_BINARY_DIR}/cluster_charges)
  set_tests_properties(cluster_charges PROPERTIES FIXTURES_REQUIRED py_corpus LABELS "split;peer" TIMEOUT 300)
endif()
# Fast (default set, no corpus): --by both on the bundled sample plus copies of 4HHB, 1STP, 1C4Q under new entry
# ids: no entry, coarse protein cluster or (ions and artifacts apart) ligand cluster shared by train and a kept
# val/test site, nothing dropped that the rule keeps, recomputed from the file's cluster columns (about 5 s).
add_test(NAME split_both_fast COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_split_both_fast.py
         $<TARGET_FILE:sitepack_cli> ${CMAKE_SOURCE_DIR}/tests/data/structures
         ${CMAKE_SOURCE_DIR}/tests/data/ccd/components_sample.cif ${CMAKE_CURRENT_BINARY_DIR}/split_both_fast)
set_tests_properties(split_both_fast PROPERTIES LABELS "split;peer" TIMEOUT 120)
# The fingerprint and Butina in C: invariance to atom order and explicit H, aromatic bonds, a similarity series,
# the centroid rule and tie order (no file, no MMseqs2).
sp_add_unit_test(test_split SOURCES ${SP_TEST_DIR}/unit/test_split.c LABELS "split;unit")
# A large synthetic file with many components (issue 35; no corpus, no MMseqs2: --no-scores): 2,000 entries, 200
# copies, 1,700 coarse protein clusters, 3,000 molecules in near-identical pairs; --by protein, ligand, both,
# time: the rule recomputed site by site, nothing shared with train, the ligand bound on the stored bits, sizes
# within 2 points (protein, ligand, both), dates on their side of the cut, reruns byte-identical (about 30 s).
add_test(NAME split_synthetic COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_split_synthetic.py
         $<TARGET_FILE:sitepack_cli> ${CMAKE_CURRENT_BINARY_DIR}/split_synthetic)
set_tests_properties(split_synthetic PROPERTIES LABELS "split;peer;slow" TIMEOUT 300)
