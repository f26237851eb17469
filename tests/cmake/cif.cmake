# Tests of src/cif: CIF tokenizer, mmCIF structure reader, CCD reader.

# Lexical rules on inline texts.
sp_add_unit_test(test_cif_tokenizer SOURCES ${SP_TEST_DIR}/unit/test_cif_tokenizer.c LABELS "cif;parser")

# CCD texts with a UTF-8 BOM, CR LF line ends, both, plain / gzip / mapped; a block id twice, a bond twice
# (inline; with the corpus, the excerpt's 131 blocks in each form too).
set(_sp_ccd_variants_args "")
if(SP_HAVE_CORPUS)
  set(_sp_ccd_variants_args ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif)
endif()
sp_add_unit_test(test_ccd_text_variants SOURCES ${SP_TEST_DIR}/unit/test_ccd_text_variants.c
  ARGS ${_sp_ccd_variants_args} LABELS "cif;parser;ccd")

if(SP_HAVE_CORPUS) # needs the corpus (SITEPACK_CORPUS)
# The SWAR number path of the mmCIF reader against the scalar one, on generated strings and on
# every token of the plain mmCIF files of shared/data/structures.
# (an empty glob gives no argument, and the test fails on that)
file(GLOB SP_NUMBERS_CORPUS "${SP_SHARED_DIR}/data/structures/*.cif")
sp_add_unit_test(test_cif_numbers SOURCES ${SP_TEST_DIR}/unit/test_cif_numbers.c ARGS ${SP_NUMBERS_CORPUS}
  LABELS "cif;parser")

# Case-driven tests: each case folder's expected.json is read by the test itself.
# Every case with an mmCIF input (B11, gzip, is test_io's). B27's warnings come from CCD
# template matching (a later stage), so its reader test skips warnings_contain.
set(SP_CIF_CASES B01 B02 B03 B05 B06 B07 B08 B09 B12 B13 B14 B15 B16 B18 B20 B25 B27 B28 B31 B32 B34 B38)
add_executable(test_cif_cases ${SP_TEST_DIR}/unit/test_cif_cases.c)
target_include_directories(test_cif_cases PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests/unit)
target_link_libraries(test_cif_cases PRIVATE sitepack)
foreach(c ${SP_CIF_CASES})
  sp_case_dir(${c} _dir)
  if(_dir)
    set(_extra "")
    if(c STREQUAL "B27")
      set(_extra --no-warnings)
    endif()
    add_test(NAME test_cif_case_${c} COMMAND test_cif_cases ${_dir} ${_extra})
  else()
    sp_missing_case_test(test_cif_case_${c} ${c})
  endif()
  set_tests_properties(test_cif_case_${c} PROPERTIES LABELS "cif;parser")
endforeach()

# CCD: index and components of the real excerpt, cross-checked against gemmi.
sp_add_unit_test(test_ccd SOURCES ${SP_TEST_DIR}/unit/test_ccd.c
  ARGS ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif ${SP_DEBIAN_PYTHON} LABELS "cif;parser")

# Every mmCIF file of shared/data/structures against gemmi's atom counts.
sp_add_unit_test(test_mmcif_structures SOURCES ${SP_TEST_DIR}/unit/test_mmcif_structures.c
  ARGS ${SP_SHARED_DIR}/data/structures ${SP_DEBIAN_PYTHON} LABELS "cif;parser")
endif()
