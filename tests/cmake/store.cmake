# Store tests (include/sitepack/store.h): per-rank writer -> merge -> read back / dump.
# test_store leaves merged files in its output folder; test_store_h5 checks them with h5py.
set(SP_STORE_TEST_OUT ${CMAKE_CURRENT_BINARY_DIR}/store_test_out)
sp_add_unit_test(test_store SOURCES ${SP_TEST_DIR}/unit/test_store.c ARGS ${SP_STORE_TEST_OUT} LABELS "unit;store")
set_tests_properties(test_store PROPERTIES FIXTURES_SETUP store_h5_files)
add_test(NAME test_store_h5 COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_store_h5.py ${SP_STORE_TEST_OUT}
  ${CMAKE_SOURCE_DIR}/docs/format.md)
set_tests_properties(test_store_h5 PROPERTIES FIXTURES_REQUIRED store_h5_files LABELS "peer;store")
# Reader (reader.h) and `sitepack check` (sp_check) on test_store's merged files and corrupted copies.
sp_add_unit_test(test_reader SOURCES ${SP_TEST_DIR}/unit/test_reader.c ARGS ${SP_STORE_TEST_OUT} LABELS "unit;store")
set_tests_properties(test_reader PROPERTIES FIXTURES_REQUIRED store_h5_files)
# docs/reading.md's Python blocks (h5py, numpy.memmap) against the C reader, and `sitepack check` on damaged copies.
add_executable(test_reader_dump ${SP_TEST_DIR}/unit/test_reader_dump.c)
target_link_libraries(test_reader_dump PRIVATE sitepack)
add_test(NAME test_reader_h5 COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_reader_h5.py ${SP_STORE_TEST_OUT}
  ${CMAKE_SOURCE_DIR}/docs/reading.md $<TARGET_FILE:test_reader_dump> $<TARGET_FILE:sitepack_cli>)
set_tests_properties(test_reader_h5 PROPERTIES FIXTURES_REQUIRED store_h5_files LABELS "peer;store")
# `sitepack check` on a --symmetry-mates output (1R6A, 5KC1) and on copies that break one symop rule each.
if(SP_HAVE_CORPUS) # needs the corpus (SITEPACK_CORPUS)
add_test(NAME test_check_symmetry COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_check_symmetry.py
  $<TARGET_FILE:sitepack_cli> ${SP_SHARED_DIR} ${CMAKE_CURRENT_BINARY_DIR}/check_symmetry_out)
set_tests_properties(test_check_symmetry PROPERTIES LABELS "peer;store" TIMEOUT 120)
endif()
# Format versions 2, 3 and 4 (docs/format.md "Versions"): check, dump, export and the C reader on a version-2 file
# of the last version-2 build (tests/data/format_v2) and on h5py version-2 and version-3 copies of the corpus output; the
# value checks of `sitepack check` (bad_value) on damaged copies of it.
if(SP_HAVE_CORPUS) # needs the corpus (SITEPACK_CORPUS)
add_test(NAME test_check_versions COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_check_versions.py
  $<TARGET_FILE:sitepack_cli> $<TARGET_FILE:test_reader_dump> ${CMAKE_BINARY_DIR}/py_test_out/corpus.h5
  ${CMAKE_SOURCE_DIR}/tests/data/format_v2/small_v2.h5 ${CMAKE_CURRENT_BINARY_DIR}/check_versions_out)
set_tests_properties(test_check_versions PROPERTIES FIXTURES_REQUIRED py_corpus LABELS "peer;store" TIMEOUT 300)
endif()
# Issue 26: every numeric dataset's units, every coded column's names and the root attributes, read with h5py
# alone from a run on the bundled sample, against docs/format.md "Units and codes"; check refuses copies without.
add_test(NAME format_self_describing COMMAND bash ${SP_TEST_DIR}/integration/self_describing.sh
  $<TARGET_FILE:sitepack_cli> ${SP_DEBIAN_PYTHON} ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/self_describing)
set_tests_properties(format_self_describing PROPERTIES LABELS "peer;store;integration" TIMEOUT 120)
# Format version 4: sp_warnings_fit (result.h), the /structures/warnings text: order, escapes, the "... N more" tail.
sp_add_unit_test(test_warnings_fit SOURCES ${SP_TEST_DIR}/unit/test_warnings_fit.c LABELS "unit;store")
# Format version 4: /structures/warnings of a real run at -np 1 and 3 (reader cases R03 and R05 with their
# expected warnings, a file of 120 warnings cut to '... N more', escaped file text), check, dump (h5py).
add_test(NAME warnings_text COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_warnings_text.py
  $<TARGET_FILE:sitepack_cli> ${MPIEXEC_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/data/ccd/components_sample.cif
  ${CMAKE_CURRENT_BINARY_DIR}/warnings_text ${SP_TEST_DIR}/cases/R03_atoms_after_endmdl
  ${SP_TEST_DIR}/cases/R05_unreadable_columns)
set_tests_properties(warnings_text PROPERTIES LABELS "peer;store;integration" TIMEOUT 120)
# The same with the shared cases whose readers warn (B07 empty loops, B19 serial restart) and the corpus's CCD.
if(SP_HAVE_CORPUS) # needs the corpus (SITEPACK_CORPUS)
add_test(NAME warnings_text_shared COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_warnings_text.py
  $<TARGET_FILE:sitepack_cli> ${MPIEXEC_EXECUTABLE} ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif
  ${CMAKE_CURRENT_BINARY_DIR}/warnings_text_shared ${SP_SHARED_DIR}/cases/B07_empty_loop
  ${SP_SHARED_DIR}/cases/B19_hybrid36_serials)
set_tests_properties(warnings_text_shared PROPERTIES LABELS "peer;store;integration" TIMEOUT 120)
endif()
