# Tests of the molecule key (src/chem/molkey.c) and the ligand survey (src/survey/).
sp_add_unit_test(test_molkey SOURCES ${SP_TEST_DIR}/unit/test_molkey.c LABELS unit)
