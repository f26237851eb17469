# Tests of src/io (file reading, gzip, sha256, scan), src/pdb (PDB reader) and
# src/model/read.c (format detection and dispatch). Owner: pdbio.

# io: gzip multi-member / truncated / corrupt, magic bytes both ways (case B11),
# sha256 against MANIFEST.tsv, scan of a temporary tree with a symlink loop.
if(SP_HAVE_CORPUS) # needs the corpus (SITEPACK_CORPUS)
sp_add_unit_test(test_io SOURCES ${SP_TEST_DIR}/unit/test_io.c ARGS ${SP_SHARED_DIR} LABELS "pdbio;parser")
sp_case_read(B11)

# Format detection by content and sp_read_structure_file dispatch (needs the mmCIF reader).
sp_add_unit_test(test_io_read SOURCES ${SP_TEST_DIR}/unit/test_io_read.c ARGS ${SP_SHARED_DIR} LABELS "pdbio;parser")
endif()

# PDB reader: rules, cases (expected.json read from the case folder), real files.
add_executable(test_pdb ${SP_TEST_DIR}/unit/test_pdb.c)
target_include_directories(test_pdb PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests/unit)
target_link_libraries(test_pdb PRIVATE sitepack)
add_test(NAME test_pdb_rules COMMAND test_pdb --rules)
set_tests_properties(test_pdb_rules PROPERTIES LABELS "pdbio;parser")
if(SP_HAVE_CORPUS) # needs the corpus (SITEPACK_CORPUS)
add_test(NAME test_pdb_real COMMAND test_pdb --real ${SP_SHARED_DIR})
set_tests_properties(test_pdb_real PROPERTIES LABELS "pdbio;parser")
set(SP_PDB_CASES B05 B12 B18 B19 B20 B21 B24 B25 B37 B38)
foreach(c ${SP_PDB_CASES})
  sp_case_dir(${c} _dir)
  if(_dir)
    add_test(NAME test_pdb_case_${c} COMMAND test_pdb --case ${_dir})
  else()
    sp_missing_case_test(test_pdb_case_${c} ${c})
  endif()
  set_tests_properties(test_pdb_case_${c} PROPERTIES LABELS "pdbio;parser")
endforeach()
endif()

# Peer cross-check: every file of shared/data/structures (mmCIF and PDB, plain and gz)
# atom by atom against gemmi (Debian python3-gemmi).
add_executable(sp_dump_atoms ${SP_TEST_DIR}/unit/sp_dump_atoms.c)
target_link_libraries(sp_dump_atoms PRIVATE sitepack)
if(SP_HAVE_CORPUS) # needs the corpus (SITEPACK_CORPUS)
add_test(NAME peer_gemmi_atoms
  COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/gemmi_atoms.py $<TARGET_FILE:sp_dump_atoms>
          ${SP_SHARED_DIR}/data/structures)
set_tests_properties(peer_gemmi_atoms PROPERTIES LABELS "pdbio;peer;parser" TIMEOUT 600)
# The same on the cases whose _atom_site lacks columns gemmi needs (gemmi reads no model there: the
# rows are counted and compared directly; issue 20).
add_test(NAME peer_gemmi_atoms_minimal_columns
  COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/gemmi_atoms.py $<TARGET_FILE:sp_dump_atoms>
          ${SP_SHARED_DIR}/cases/B13_minimal_atom_site_columns ${SP_SHARED_DIR}/cases/B14_label_only_and_auth_only)
set_tests_properties(peer_gemmi_atoms_minimal_columns PROPERTIES LABELS "pdbio;peer;parser")

# The 27 entries present both as mmCIF and as PDB: same atoms from both readers
# (modulo what PDB cannot hold; see the file comment).
sp_add_unit_test(test_pdb_pairs SOURCES ${SP_TEST_DIR}/unit/test_pdb_pairs.c
  ARGS ${SP_SHARED_DIR}/data/structures LABELS "pdbio;parser")

# Hostile input: empty, truncated gzip (every cut), binary garbage, 1 GiB line, missing loop
# value, other formats (SDF, PNG, JSON, ...), non-UTF-8 bytes, BOM, truncated texts.
sp_add_unit_test(test_io_hostile SOURCES ${SP_TEST_DIR}/unit/test_io_hostile.c
  ARGS ${SP_SHARED_DIR} LABELS "pdbio;parser")
endif()

# Fuzz harnesses (CIF tokenizer + mmCIF reader, PDB reader, gzip): corpus replay always,
# libFuzzer runs with -DSP_FUZZ=ON. See tests/fuzz/fuzz.cmake and docs/fuzzing.md.
include(${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz.cmake)

# Reader cases of issue 20 (tests/cases/Rxx_*/, synthetic files for kinds of real files that
# were misread; each folder's README names the kind): every input through format detection and
# the reader (test_reader_cases), and the survey of those with ligands (test_survey_cases).
add_executable(test_reader_cases ${SP_TEST_DIR}/unit/test_reader_cases.c)
target_include_directories(test_reader_cases PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests/unit)
target_link_libraries(test_reader_cases PRIVATE sitepack)
file(GLOB SP_READER_CASES LIST_DIRECTORIES true "${SP_TEST_DIR}/cases/R[0-9][0-9]_*")
foreach(_dir ${SP_READER_CASES})
  get_filename_component(_name ${_dir} NAME)
  string(SUBSTRING ${_name} 0 3 _id)
  add_test(NAME test_reader_case_${_id} COMMAND test_reader_cases ${_dir})
  set_tests_properties(test_reader_case_${_id} PROPERTIES LABELS "pdbio;parser")
endforeach()
if(SP_HAVE_CORPUS) # needs the corpus (SITEPACK_CORPUS)
add_test(NAME test_reader_survey_cases
  COMMAND test_survey_cases ${SP_TEST_DIR}/cases ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif R)
set_tests_properties(test_reader_survey_cases PROPERTIES LABELS "pdbio;survey;parser")
# The per-file output bound on the R04 trajectory (limits.max_file_site_atoms; needs mpirun).
add_test(NAME integration_reader_guard
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/integration/reader_guard.sh $<TARGET_FILE:sitepack_cli> ${MPIEXEC_EXECUTABLE}
          ${SP_TEST_DIR}/cases ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif ${CMAKE_BINARY_DIR}/it_reader_guard)
set_tests_properties(integration_reader_guard PROPERTIES LABELS "pdbio;integration")
endif()

# PDB CONECT (sp_conect, /bonds source conect): the synthetic tests/unit/conect_orders.pdb (orders from
# repeated serials, altlocs, two models, an absent serial), inline texts, and sp_ligand_bonds on it.
if(SP_HAVE_CORPUS) # needs the corpus (SITEPACK_CORPUS)
sp_add_unit_test(test_conect SOURCES ${SP_TEST_DIR}/unit/test_conect.c
  ARGS ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif ${SP_TEST_DIR}/unit/conect_orders.pdb LABELS "pdbio;parser")
# Every CONECT bond of the PDB files of shared/data/structures (and of the synthetic file) against the
# records parsed in the test and RDKit's PDB reader (bonds from CONECT only, with its bond orders).
add_test(NAME peer_conect
  COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_conect_peer.py $<TARGET_FILE:sp_dump_atoms>
          ${SP_SHARED_DIR}/data/structures ${SP_TEST_DIR}/unit/conect_orders.pdb)
set_tests_properties(peer_conect PROPERTIES LABELS "pdbio;peer;parser")
endif()
# Repeated atom names inside one residue (issue 13): the synthetic tests/data/site_chem/repeated_names.{pdb,cif}
# keep each GOL one residue with its repeated-name atoms flagged and one warning per residue; two whole copies
# with identical ids stay two (B16).
sp_add_unit_test(test_repeated_names SOURCES ${SP_TEST_DIR}/unit/test_repeated_names.c
  ARGS ${SP_TEST_DIR}/data/site_chem/repeated_names.pdb ${SP_TEST_DIR}/data/site_chem/repeated_names.cif
  LABELS "pdbio;parser")

# The first biological assembly (issue 17): operators and atom count against gemmi's make_assembly.
add_executable(sp_dump_assembly ${SP_TEST_DIR}/unit/sp_dump_assembly.c)
target_link_libraries(sp_dump_assembly PRIVATE sitepack)
if(SP_HAVE_CORPUS) # needs the corpus (SITEPACK_CORPUS)
add_test(NAME peer_assembly_gemmi
  COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_assembly_gemmi.py $<TARGET_FILE:sp_dump_assembly>
          ${SP_SHARED_DIR}/data/structures)
set_tests_properties(peer_assembly_gemmi PROPERTIES LABELS "pdbio;peer;parser" TIMEOUT 600)
endif()
