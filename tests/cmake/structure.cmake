# Structure of the code (docs/architecture.md "Modules"): every include runs with the layer order of
# the module table, private headers stay in their module, <mpi.h> only where MPI belongs, every
# source file listed in CMakeLists.txt. The self-test plants one breach of each rule (in memory)
# and checks that the checker finds it.
add_test(NAME structure_layers COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/structure/layers.py ${CMAKE_SOURCE_DIR})
add_test(NAME structure_layers_selftest
  COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/structure/layers.py ${CMAKE_SOURCE_DIR} --self-test)
set_tests_properties(structure_layers structure_layers_selftest PROPERTIES TIMEOUT 60 LABELS "structure")
# make format-check (tests/structure/format_check.sh) in a scratch git repository: a misformatted new or changed
# line fails it, a formatted one and an unchanged hand layout pass (docs/testing.md "Formatting").
add_test(NAME structure_format_check_selftest
  COMMAND ${SP_TEST_DIR}/structure/format_check_selftest.sh ${CMAKE_SOURCE_DIR}
          ${CMAKE_CURRENT_BINARY_DIR}/format_check_selftest)
set_tests_properties(structure_format_check_selftest PROPERTIES TIMEOUT 60 LABELS "structure")
sp_allow_skip(structure_format_check_selftest)
