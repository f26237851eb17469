# Leakage-aware splits (issue 27; docs/usage.md "Splits"): sitepack cluster (MMseqs2, Morgan + Butina) and
# sitepack split.
# On the bundled sample (no corpus): -np 1 and -np 2 give the same /clusters and /splits; the sides equal the
# documented rule recomputed in Python (tests/peer/split_rule.py); no val/test site shares an entry or cluster
# with train; attributes; check accepts the file; reruns byte-identical; bad inputs exit 2 and write nothing;
# a later entry moves no site whose component key is unchanged; ds.split and SiteDataset(split=).
add_test(NAME split_sample COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_split_sample.py
         $<TARGET_FILE:sitepack_cli> ${MPIEXEC_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/data/structures
         ${CMAKE_SOURCE_DIR}/tests/data/ccd/components_sample.cif ${CMAKE_CURRENT_BINARY_DIR}/split_sample)
set_tests_properties(split_sample PROPERTIES LABELS "split;unit;slow" TIMEOUT 400)
