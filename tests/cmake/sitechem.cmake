# Site chemistry (src/site/sitechem.c, sasa.c; engineer sitechem): SASA against biotite/MDTraj,
# pH-dependent protonation and salt bridges on real sites, PLIP agreement over every expectation row.
set(SP_SC_DATA ${SP_SHARED_DIR}/data)
sp_add_unit_test(test_sasa
  SOURCES ${SP_TEST_DIR}/unit/test_sasa.c
  ARGS ${SP_SC_DATA}/reference/biotite/sasa.json ${SP_SC_DATA}/structures
  LABELS unit site)
# the culled SASA kernel (every instruction-set variant) against the plain algorithm, bit for bit
sp_add_unit_test(test_sasa_kernel
  SOURCES ${SP_TEST_DIR}/unit/test_sasa_kernel.c
  ARGS ${SP_SC_DATA}/structures
  LABELS unit site)
sp_add_unit_test(test_site_chem
  SOURCES ${SP_TEST_DIR}/unit/test_site_chem.c
  ARGS ${SP_SC_DATA}/ccd/components_excerpt.cif ${SP_SC_DATA}/structures
  LABELS real site)
# MIN_PASS: the number of rows documented in docs/sites.md ("PLIP agreement").
sp_add_unit_test(test_plip
  SOURCES ${SP_TEST_DIR}/unit/test_plip.c
  ARGS ${SP_SC_DATA}/reference/plip/plip_test_expectations.tsv ${SP_SC_DATA} ${SP_SC_DATA}/ccd/components_excerpt.cif 74
  LABELS real site)
