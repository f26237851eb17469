# Site module tests (src/site): brute-force cross-checks, edge cases, real files, cases.
set(SP_SITE_DATA ${SP_SHARED_DIR}/data)
set(SP_SITE_STRUCT ${SP_SITE_DATA}/structures)
sp_add_unit_test(test_site
  SOURCES ${SP_TEST_DIR}/unit/test_site.c ${SP_TEST_DIR}/unit/test_site_util.c
  ARGS ${SP_SITE_STRUCT}/4kya.pdb ${SP_SITE_STRUCT}/1k6p.pdb ${SP_SITE_STRUCT}/1gya.pdb ${SP_SITE_STRUCT}/3bwm.pdb
  LABELS unit site)
