# Structure of the code (docs/architecture.md "Modules"): every include runs with the layer order of
# the module table, private headers stay in their module, <mpi.h> only where MPI belongs, every
# source file listed in CMakeLists.txt. The self-test plants one breach of each rule (in memory)
# and checks that the checker finds it.
add_test(NAME structure_layers COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/structure/layers.py ${CMAKE_SOURCE_DIR})
add_test(NAME structure_layers_selftest
  COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/structure/layers.py ${CMAKE_SOURCE_DIR} --self-test)
set_tests_properties(structure_layers structure_layers_selftest PROPERTIES TIMEOUT 60 LABELS "structure")
