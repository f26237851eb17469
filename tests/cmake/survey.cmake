# Tests of the molecule key (src/chem/molkey.c) and the ligand survey (src/survey/).
sp_add_unit_test(test_molkey SOURCES ${SP_TEST_DIR}/unit/test_molkey.c LABELS unit)
# the ligand descriptors through RDKit (descriptors.h): graph and molfile paths against RDKit's Python values
sp_add_unit_test(test_descriptors SOURCES ${SP_TEST_DIR}/unit/test_descriptors.c LABELS unit)
if(SP_HAVE_CORPUS) # needs the corpus (SITEPACK_CORPUS)
sp_add_unit_test(test_survey_cases SOURCES ${SP_TEST_DIR}/unit/test_survey_cases.c
  ARGS ${SP_SHARED_DIR}/cases ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif LABELS "survey;unit")
set_tests_properties(test_survey_cases PROPERTIES TIMEOUT 60)
file(GLOB SP_SURVEY_CASE_JSON ${SP_SHARED_DIR}/cases/*/expected.json)
foreach(j ${SP_SURVEY_CASE_JSON})
  file(READ ${j} _t)
  if(_t MATCHES "\"(ligands|not_ligands|same_molecule|not_same_molecule|models|per_file)\"")
    get_filename_component(d ${j} DIRECTORY)
    get_filename_component(n ${d} NAME)
    string(REGEX MATCH "^B[0-9]+" id ${n})
    sp_case_read(${id})
  endif()
endforeach()
sp_add_unit_test(test_survey_real SOURCES ${SP_TEST_DIR}/unit/test_survey_real.c
  ARGS ${SP_SHARED_DIR}/data LABELS "survey;unit")
endif()
if(SP_HAVE_CORPUS) # needs the corpus (SITEPACK_CORPUS)
set_tests_properties(test_survey_real PROPERTIES TIMEOUT 60)
endif()
sp_add_unit_test(test_survey_unit SOURCES ${SP_TEST_DIR}/unit/test_survey_unit.c LABELS "survey;unit")
if(SP_HAVE_CORPUS) # needs the corpus (SITEPACK_CORPUS)
# Peer check: molecule keys vs the CCD's standard InChIKeys (first block), Debian's python3.
add_executable(test_molkey_dump ${SP_TEST_DIR}/unit/test_molkey_dump.c)
target_link_libraries(test_molkey_dump PRIVATE sitepack)
add_test(NAME peer_molkey_inchikey
  COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_molkey_inchikey.py $<TARGET_FILE:test_molkey_dump>
          ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif)
set_tests_properties(peer_molkey_inchikey PROPERTIES TIMEOUT 60 LABELS "survey;peer")
# Exact confirmation of key matches (graph isomorphism) on every component of the real excerpt.
sp_add_unit_test(test_molkey_iso SOURCES ${SP_TEST_DIR}/unit/test_molkey_iso.c
  ARGS ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif LABELS "survey;unit")
# Node-shared CCD under mpirun (mapped plain, shared window for gzip, private copies; errors).
# ccd_shared.c is app's (MPI, private header src/app/ccd_shared.h): compiled in with the test.
add_executable(test_ccd_shared ${SP_TEST_DIR}/unit/test_ccd_shared.c ${PROJECT_SOURCE_DIR}/src/app/ccd_shared.c)
target_include_directories(test_ccd_shared PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(test_ccd_shared PRIVATE sitepack)
foreach(np 1 3)
  add_test(NAME test_ccd_shared_np${np}
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${MPIEXEC_PREFLAGS}
            --allow-run-as-root --oversubscribe --mca osc sm $<TARGET_FILE:test_ccd_shared> ${MPIEXEC_POSTFLAGS}
            ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif.gz
            ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(test_ccd_shared_np${np} PROPERTIES TIMEOUT 60 LABELS "survey;mpi")
endforeach()
# `sitepack survey` on 19HC + 1C4Q (18 haems = one molecule; key group confirmed; totals vs h5py).
add_test(NAME test_survey_cmd
  COMMAND bash ${SP_TEST_DIR}/unit/test_survey_cmd.sh $<TARGET_FILE:sitepack_cli> ${MPIEXEC_EXECUTABLE}
          ${SP_SHARED_DIR}/data ${CMAKE_CURRENT_BINARY_DIR}/survey_cmd)
set_tests_properties(test_survey_cmd PROPERTIES TIMEOUT 60 LABELS "survey;integration")
# CCD variety: every excerpt block flag by flag vs gemmi; inline 5-character id, UNL, bond spellings.
sp_add_unit_test(test_ccd_variety SOURCES ${SP_TEST_DIR}/unit/test_ccd_variety.c
  ARGS ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif ${SP_DEBIAN_PYTHON} LABELS "survey;unit")
endif()
# the site quality criteria (issue 36; pipeline.h sp_site_quality): each criterion failed alone
sp_add_unit_test(test_site_quality SOURCES ${SP_TEST_DIR}/unit/test_site_quality.c LABELS unit)
# Two ions or buffers joined by a LINK stay two ligands, with a warning (issue 36 item 2; docs/ligands.md).
add_test(NAME survey_link_ions COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_link_ions.py
  $<TARGET_FILE:sitepack_cli> ${SP_TEST_DIR}/unit/link_two_sulfates.pdb ${CMAKE_CURRENT_BINARY_DIR}/link_ions)
set_tests_properties(survey_link_ions PROPERTIES LABELS "survey;integration" TIMEOUT 60)
# The list classes (issue 36 item 2; docs/ligands.md "Classes"): the ids of src/survey/lists.c equal the curated
# table tests/data/ligand_classes/classes.tsv, whose sources are the stored PLINDER and BioLiP lists
# (third_party/ligand_lists, checked against their SHA-256 and PLIP's copy of BioLiP's list) ...
add_test(NAME ligand_class_lists COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_ligand_classes.py lists
  ${CMAKE_SOURCE_DIR})
set_tests_properties(ligand_class_lists PROPERTIES LABELS "survey;peer" TIMEOUT 60)
# ... and one ligand per rule of a synthetic file gets its class (lipid, covalent lipid, detergent, buffer, metal
# ammine, a linked list lipid, a list id left out); with the corpus, 1GZM's and 1TCC's lipids and detergents.
add_test(NAME survey_list_classes COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_ligand_classes.py case
  $<TARGET_FILE:sitepack_cli> ${SP_TEST_DIR}/data/ligand_classes/list_classes.pdb ${CMAKE_CURRENT_BINARY_DIR}/list_classes)
set_tests_properties(survey_list_classes PROPERTIES LABELS "survey;integration" TIMEOUT 60)
if(SP_HAVE_CORPUS) # needs the corpus (SITEPACK_CORPUS)
add_test(NAME survey_list_classes_corpus COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_ligand_classes.py case
  $<TARGET_FILE:sitepack_cli> ${SP_TEST_DIR}/data/ligand_classes/list_classes.pdb
  ${CMAKE_CURRENT_BINARY_DIR}/list_classes_corpus ${SP_SHARED_DIR}/data/structures)
set_tests_properties(survey_list_classes_corpus PROPERTIES LABELS "survey;integration" TIMEOUT 60)
endif()
