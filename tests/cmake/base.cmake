# Tests of the base module (src/base/): growth of arrays, the frozen mixing functions.
sp_add_unit_test(test_base SOURCES ${SP_TEST_DIR}/unit/test_base.c LABELS "base;unit;parser")
