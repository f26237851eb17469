# End-to-end tests of the CLI under mpirun (owner: lead).
set(SP_CLI $<TARGET_FILE:sitepack_cli>)
add_test(NAME integration_demo_np1_np3
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/integration/run_np.sh ${SP_CLI} ${MPIEXEC_EXECUTABLE}
          ${CMAKE_BINARY_DIR}/it_np ${CMAKE_SOURCE_DIR})
add_test(NAME integration_cli
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/integration/cli.sh ${SP_CLI} ${MPIEXEC_EXECUTABLE}
          ${CMAKE_BINARY_DIR}/it_cli ${CMAKE_SOURCE_DIR})
# gemmi cross-check of the demo output (needs the merged file of integration_demo_np1_np3)
add_test(NAME peer_gemmi_sample
  COMMAND ${SP_DEBIAN_PYTHON} ${CMAKE_SOURCE_DIR}/tests/peer/gemmi_sample.py
          ${CMAKE_BINARY_DIR}/it_np/np1.h5 ${CMAKE_SOURCE_DIR}/tests/data/structures)
set_tests_properties(integration_demo_np1_np3 PROPERTIES FIXTURES_SETUP demo_output)
set_tests_properties(peer_gemmi_sample PROPERTIES FIXTURES_REQUIRED demo_output)
# the -np 1 = -np N checks (compare_h5.py) see a change in every dataset but the timing fields, every column of
# format version 6 among them (one file of the sample with symmetry mates and assembly copies)
add_test(NAME integration_compare_covers
  COMMAND ${SP_DEBIAN_PYTHON} ${CMAKE_SOURCE_DIR}/tests/integration/compare_covers.py ${SP_CLI}
          ${CMAKE_SOURCE_DIR}/tests/data/ccd/components_sample.cif ${CMAKE_SOURCE_DIR}/tests/data/structures/1pfe.cif.gz
          ${CMAKE_BINARY_DIR}/it_compare_covers)
set_tests_properties(integration_compare_covers PROPERTIES LABELS "integration" TIMEOUT 300)
set_tests_properties(integration_demo_np1_np3 integration_cli peer_gemmi_sample PROPERTIES TIMEOUT 300 LABELS integration)
# issue 21: the parallel merge equals the serial one at -np 1..4, with split files, after a failed merge
# and --resume, and for shards merged under mpirun
add_test(NAME integration_merge_np
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/integration/merge_np.sh ${SP_CLI} ${CMAKE_BINARY_DIR}/it_merge_np
          ${CMAKE_SOURCE_DIR})
set_tests_properties(integration_merge_np PROPERTIES TIMEOUT 400 LABELS "integration;store")
# issue 21: make bench-merge-io's trace of the merge's row writes (SITEPACK_MERGE_TRACE) and its replay by
# every write backend (bench/merge_io_bench.c) on the sample
add_test(NAME bench_merge_io_smoke
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/integration/merge_io_bench.sh ${SP_CLI} $<TARGET_FILE:sitepack_bench_merge_io>
          ${CMAKE_BINARY_DIR}/it_merge_io ${CMAKE_SOURCE_DIR})
set_tests_properties(bench_merge_io_smoke PROPERTIES TIMEOUT 120 LABELS "integration;store")
# issue 33 item 6: the options of `sitepack run` do not drift: docs/usage.md's option table against --help, the
# flags, the job-file keys, their ranges and error texts, and the job recorded in /run@job_json
add_test(NAME run_options_drift
  COMMAND ${SP_DEBIAN_PYTHON} ${CMAKE_SOURCE_DIR}/tests/integration/run_options.py ${SP_CLI}
          ${CMAKE_SOURCE_DIR}/tests/data/structures/1kqe.cif.gz ${CMAKE_SOURCE_DIR}/tests/data/ccd/components_sample.cif
          ${CMAKE_SOURCE_DIR}/docs/usage.md ${CMAKE_BINARY_DIR}/it_run_options)
set_tests_properties(run_options_drift PROPERTIES TIMEOUT 180 LABELS "integration;app")

# The run's summary and report count the ligand comp ids without a CCD block (issue 36 item 5), equal to the
# /components rows with in_ccd 0, with and without a CCD, on the bundled sample.
add_test(NAME run_ccd_miss_summary COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_ccd_miss_summary.py
  $<TARGET_FILE:sitepack_cli> ${CMAKE_SOURCE_DIR}/tests/data/structures ${CMAKE_SOURCE_DIR}/tests/data/ccd/components_sample.cif
  ${CMAKE_CURRENT_BINARY_DIR}/ccd_miss)
set_tests_properties(run_ccd_miss_summary PROPERTIES LABELS "integration;app" TIMEOUT 120)
