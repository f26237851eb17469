# Issue 9 (reliability): resume after a kill, hostile inputs, a full disk; issue 16: the items named in each test. Owner: reliability.
foreach(t resume hostile disk_full ccd names guard scan shards removed entries)
  add_test(NAME reliability_${t}
    COMMAND bash ${CMAKE_SOURCE_DIR}/tests/integration/reliability_${t}.sh $<TARGET_FILE:sitepack_cli>
            ${MPIEXEC_EXECUTABLE} ${CMAKE_BINARY_DIR}/it_reliability_${t} ${CMAKE_SOURCE_DIR})
  set_tests_properties(reliability_${t} PROPERTIES TIMEOUT 120 LABELS integration)
  sp_allow_skip(reliability_${t})
endforeach()

# Merged files and shards as inputs (damaged copies, array attributes, FIFOs): no crash, a clear error. One
# process per command (no mpirun), so that `make sanitize` runs it under ASan + UBSan too (label parser).
add_test(NAME reliability_merged_inputs
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/integration/reliability_merged_inputs.sh $<TARGET_FILE:sitepack_cli>
          ${MPIEXEC_EXECUTABLE} ${CMAKE_BINARY_DIR}/it_reliability_merged_inputs ${CMAKE_SOURCE_DIR})
set_tests_properties(reliability_merged_inputs PROPERTIES TIMEOUT 300 LABELS "integration;parser")

# Issue 39 item 2: a truncated or damaged merged file: one class, message and exit status from every command that
# opens one and from sitepack.open (sp_h5_open_merged). One process per command, so the ASan build runs it too.
add_test(NAME reliability_damaged
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/integration/reliability_damaged.sh $<TARGET_FILE:sitepack_cli>
          ${MPIEXEC_EXECUTABLE} ${CMAKE_BINARY_DIR}/it_reliability_damaged ${CMAKE_SOURCE_DIR})
set_tests_properties(reliability_damaged PROPERTIES TIMEOUT 120 LABELS "integration;parser")

# The whole pipeline under ASan + UBSan (make sanitize runs the label `sanitize`): run, check, dump, survey,
# export, cluster, split on the bundled sample and tests/data/sanitize; leak detection on for every command but
# run (tests/sanitize/pipeline.sh says why). Registered only in a sanitizer build.
if(SP_SANITIZE)
  add_test(NAME sanitize_pipeline
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/sanitize/pipeline.sh $<TARGET_FILE:sitepack_cli> ${CMAKE_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/sanitize_pipeline_out)
  set_tests_properties(sanitize_pipeline PROPERTIES LABELS "sanitize" TIMEOUT 600)
endif()
