# Issue 26: the README's quick start on a clone of HEAD with nothing beside it (tests/integration/fresh_clone.sh):
# `make demo` and `make test` exit 0 without the corpus. Builds the project again (minutes): label slow, so it
# runs in make test-full and CI.
add_test(NAME fresh_clone COMMAND bash ${SP_TEST_DIR}/integration/fresh_clone.sh ${CMAKE_SOURCE_DIR}
  ${CMAKE_BINARY_DIR}/fresh_clone)
set_tests_properties(fresh_clone PROPERTIES LABELS "integration;slow" TIMEOUT 1800 RUN_SERIAL TRUE)
