# Tests of the molecule key (src/chem/molkey.c) and the ligand survey (src/survey/).
sp_add_unit_test(test_molkey SOURCES ${SP_TEST_DIR}/unit/test_molkey.c LABELS unit)
sp_add_unit_test(test_survey_cases SOURCES ${SP_TEST_DIR}/unit/test_survey_cases.c
  ARGS ${SP_SHARED_DIR}/cases ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif LABELS "survey;unit")
set_tests_properties(test_survey_cases PROPERTIES TIMEOUT 60)
sp_add_unit_test(test_survey_real SOURCES ${SP_TEST_DIR}/unit/test_survey_real.c
  ARGS ${SP_SHARED_DIR}/data LABELS "survey;unit")
set_tests_properties(test_survey_real PROPERTIES TIMEOUT 60)
sp_add_unit_test(test_survey_unit SOURCES ${SP_TEST_DIR}/unit/test_survey_unit.c LABELS "survey;unit")
