# Tests that pin what a plausible change could break unseen (issue 18; tests/mutation/ checks that they
# do): boundaries at exactly the documented limits, defaults against their documented sources.
if(SP_HAVE_CORPUS) # needs the corpus (SITEPACK_CORPUS)
sp_add_unit_test(test_pinned SOURCES ${SP_TEST_DIR}/unit/test_pinned.c
  ARGS ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif /usr/lib/python3/dist-packages/plip/basic/config.py
  LABELS "unit;site;survey")
endif()
# --resume sees an input edited in place at the same size (the SHA-256, not the size, decides)
add_test(NAME resume_same_size_edit
  COMMAND ${SP_DEBIAN_PYTHON} ${CMAKE_SOURCE_DIR}/tests/integration/resume_same_size.py $<TARGET_FILE:sitepack_cli>
          ${MPIEXEC_EXECUTABLE} ${CMAKE_BINARY_DIR}/it_resume_same_size ${CMAKE_SOURCE_DIR})
set_tests_properties(resume_same_size_edit PROPERTIES TIMEOUT 180 LABELS integration)
# --resume of a file that was a duplicate before and is not now (issue 33 item 9): processed, not kept as duplicate
add_test(NAME resume_duplicate_gone
  COMMAND ${SP_DEBIAN_PYTHON} ${CMAKE_SOURCE_DIR}/tests/integration/resume_duplicate.py $<TARGET_FILE:sitepack_cli>
          ${MPIEXEC_EXECUTABLE} ${CMAKE_BINARY_DIR}/it_resume_duplicate ${CMAKE_SOURCE_DIR})
set_tests_properties(resume_duplicate_gone PROPERTIES TIMEOUT 120 LABELS integration)
# An oracle for sites and altlocs with its own rules (gemmi reading, highest mean occupancy, float32
# d^2 <= 36): two-sided set equality of every site's residues, minimum distances, the ligands' altlocs and
# each site residue's atoms, on a synthetic file (best conformer not first, ties, mean vs sum, 6.000 Å)
# and real entries with altloc ligands whose best conformer is not the first (3AL1, 6NTJ) and others.
if(SP_HAVE_CORPUS) # needs the corpus (SITEPACK_CORPUS)
set(SP_ORACLE_FILES 3al1.pdb pdb_00006ntj_xyz-enrich.cif.gz 1b5f.cif.gz 1cbn.pdb 8pge.cif.gz 6rku.cif.gz 2efj.pdb
    4opj.cif 4kya.pdb 1onx.cif 3wip.cif 19hc.pdb.gz)
list(TRANSFORM SP_ORACLE_FILES PREPEND ${SP_SHARED_DIR}/data/structures/)
add_test(NAME peer_site_oracle
  COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_site_oracle.py $<TARGET_FILE:sitepack_cli>
          ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif.gz ${CMAKE_CURRENT_BINARY_DIR}/site_oracle ${SP_ORACLE_FILES})
set_tests_properties(peer_site_oracle PROPERTIES TIMEOUT 240 LABELS "peer;site;survey")
endif()
