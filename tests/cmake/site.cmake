# Site module tests (src/site): brute-force cross-checks, edge cases, real files, cases.
if(SP_HAVE_CORPUS) # needs the corpus (SITEPACK_CORPUS)
set(SP_SITE_DATA ${SP_SHARED_DIR}/data)
set(SP_SITE_STRUCT ${SP_SITE_DATA}/structures)
sp_add_unit_test(test_site
  SOURCES ${SP_TEST_DIR}/unit/test_site.c ${SP_TEST_DIR}/unit/test_site_util.c
  ARGS ${SP_SITE_STRUCT}/4kya.pdb ${SP_SITE_STRUCT}/1k6p.pdb ${SP_SITE_STRUCT}/1gya.pdb ${SP_SITE_STRUCT}/3bwm.pdb
  LABELS unit site)

# Real pipeline (reader + survey + site) on every case with site expectations: one ctest per case.
file(GLOB SP_SITE_CASE_JSON ${SP_SHARED_DIR}/cases/*/expected.json ${SP_TEST_DIR}/cases/R[0-9][0-9]_*/expected.json)
set(SP_SITE_CASE_DIRS "")
foreach(j ${SP_SITE_CASE_JSON})
  file(READ ${j} SP_SITE_J)
  if(SP_SITE_J MATCHES "\"site_residues\"")
    get_filename_component(d ${j} DIRECTORY)
    list(APPEND SP_SITE_CASE_DIRS ${d})
  endif()
endforeach()
if(SP_SITE_CASE_DIRS)
  add_executable(test_site_cases ${SP_TEST_DIR}/unit/test_site_cases.c ${SP_TEST_DIR}/unit/test_site_util.c)
  target_include_directories(test_site_cases PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests/unit)
  target_link_libraries(test_site_cases PRIVATE sitepack)
  foreach(d ${SP_SITE_CASE_DIRS})
    get_filename_component(n ${d} NAME)
    string(REGEX MATCH "^[BR][0-9]+" id ${n})
    add_test(NAME site_case_${id} COMMAND test_site_cases ${SP_SITE_DATA}/ccd/components_excerpt.cif ${d})
    if(id MATCHES "^B") # the reader cases of tests/cases are no shared case
      sp_case_read(${id})
    endif()
    set_tests_properties(site_case_${id} PROPERTIES LABELS "case;site")
  endforeach()
endif()

# wwPDB site records of real entries (entries whose records need no symmetry mate).
sp_add_unit_test(test_site_wwpdb
  SOURCES ${SP_TEST_DIR}/unit/test_site_wwpdb.c ${SP_TEST_DIR}/unit/test_site_util.c
  ARGS ${SP_SITE_DATA}/reference/wwpdb_sites/struct_site.tsv ${SP_SITE_DATA} ${SP_SITE_DATA}/ccd/components_excerpt.cif
       structures/3wip.cif structures/4kya.pdb structures/19hc.pdb.gz structures/5ddr.pdb structures/1tf6.pdb structures/1sfo.cif.gz
       structures/pdb_00004jvn_xyz-enrich.cif.gz structures/3bwm.pdb structures/1onx.cif
  LABELS real site)

# PLINDER's 6 A neighbouring residues (exact polymer residue sets) for 1NGX.
sp_add_unit_test(test_site_plinder
  SOURCES ${SP_TEST_DIR}/unit/test_site_plinder.c ${SP_TEST_DIR}/unit/test_site_util.c
  ARGS ${SP_SITE_DATA}/reference/plinder/plinder_ligand_pockets.tsv ${SP_SITE_DATA}/ccd/components_excerpt.cif
       1NGX ${SP_SITE_STRUCT}/pdb_00001ngx_xyz-enrich.cif.gz
  LABELS real site)
# wwPDB site records over the whole of shared/data (every record of struct_site.tsv): sitepack run on
# structures/ (one process), then every miss classified with gemmi on the same file (symmetry mates
# verified with the cell and space group). docs/sites.md "wwPDB site records" gives the figures.
# The same run with --symmetry-mates: >= 98 % of the members inside, every verified symmetry mate included.
add_test(NAME site_wwpdb_all COMMAND bash -c
  "set -e; o=\"$0/site_wwpdb_all.h5\"; m=\"$0/site_wwpdb_all_mates.h5\"; \"$1\" run --input \"$2/structures\" --ccd \"$2/ccd/components_excerpt.cif.gz\" --out \"$o\" --force >/dev/null; \"$1\" run --input \"$2/structures\" --ccd \"$2/ccd/components_excerpt.cif.gz\" --out \"$m\" --force --symmetry-mates >/dev/null; \"$1\" check \"$m\" >/dev/null; \"$3\" \"$4\" \"$o\" \"$2/reference/wwpdb_sites/struct_site.tsv\" \"$2\" --min-pct 94.5 --min-pct-sym 99 --mates \"$m\" --min-pct-mates 98"
  ${CMAKE_CURRENT_BINARY_DIR} $<TARGET_FILE:sitepack_cli> ${SP_SITE_DATA} ${SP_DEBIAN_PYTHON}
  ${SP_TEST_DIR}/peer/test_site_wwpdb_h5.py)
set_tests_properties(site_wwpdb_all PROPERTIES LABELS "peer;site" TIMEOUT 240)
# Issue 37 item 3: old-style mmCIF files (tests/peer/make_oldstyle_sugars.py, written with gemmi from PDB files of
# the corpus) whose oligosaccharides are `polymer` entities with no _entity_poly.type or 'polysaccharide(D)': the
# same glycan instances, sites and wwPDB site members inside as the PDB-format file.
add_test(NAME site_polymer_sugars
  COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_polymer_sugars.py $<TARGET_FILE:sitepack_cli> ${SP_SITE_DATA}
          ${SP_SITE_DATA}/ccd/components_excerpt.cif.gz ${CMAKE_CURRENT_BINARY_DIR}/site_polymer_sugars
          1igy.pdb 4a5t.pdb 4byh.pdb 5ajc.pdb 5ajm.pdb 6elc.pdb 6mzk.pdb)
set_tests_properties(site_polymer_sugars PROPERTIES LABELS "peer;site" TIMEOUT 120)
# PLINDER for 19HC (PDB format, no label ids): label ids mapped to author ids through PLINDER's entry JSON.
sp_add_unit_test(test_site_plinder_19hc
  SOURCES ${SP_TEST_DIR}/unit/test_site_plinder.c ${SP_TEST_DIR}/unit/test_site_util.c
  ARGS ${SP_SITE_DATA}/reference/plinder/plinder_ligand_pockets.tsv ${SP_SITE_DATA}/ccd/components_excerpt.cif
       19HC ${SP_SITE_STRUCT}/19hc.pdb.gz ${SP_SITE_DATA}/reference/plinder/19hc.json
  LABELS real site)

# Crystal symmetry and symmetry mates (docs/sites.md "Symmetry mates"): operator strings, cells, space groups
# (CCP4), readers on hostile CRYST1 / mmCIF, and sites with symmetry mates against a brute force over every
# operator and lattice translation in [-3, 3]^3 on entries with symmetry contacts.
sp_add_unit_test(test_symmetry
  SOURCES ${SP_TEST_DIR}/unit/test_symmetry.c ${SP_TEST_DIR}/unit/test_site_util.c
  ARGS ${SP_SITE_STRUCT}/5kc1.cif ${SP_SITE_STRUCT}/2zoz.pdb ${SP_SITE_STRUCT}/1r6a.pdb ${SP_SITE_STRUCT}/4hhb.pdb.gz
  LABELS unit site parser)
# Cell, space group and operator set of every file of shared/data/structures against gemmi.
add_executable(sp_dump_symmetry ${SP_TEST_DIR}/unit/sp_dump_symmetry.c)
target_link_libraries(sp_dump_symmetry PRIVATE sitepack)
add_test(NAME peer_symmetry_gemmi
  COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_symmetry_gemmi.py $<TARGET_FILE:sp_dump_symmetry> ${SP_SITE_STRUCT})
set_tests_properties(peer_symmetry_gemmi PROPERTIES LABELS "peer;site" TIMEOUT 300)
# Symmetry mates of real sites vs gemmi: image atoms at their tagged operator's positions, and every gemmi
# NeighborSearch symmetry contact within 6 Å of a ligand heavy atom present (5KC1, 2ZOZ, 1R6A, 4HHB's own frame).
add_test(NAME peer_site_symmetry_gemmi
  COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_site_symmetry_gemmi.py $<TARGET_FILE:sitepack_cli>
          $<TARGET_FILE:sp_dump_symmetry> ${SP_SITE_DATA}/ccd/components_excerpt.cif.gz ${CMAKE_CURRENT_BINARY_DIR}
          ${SP_SITE_STRUCT}/5kc1.cif ${SP_SITE_STRUCT}/2zoz.pdb ${SP_SITE_STRUCT}/1r6a.pdb ${SP_SITE_STRUCT}/4hhb.cif.gz)
set_tests_properties(peer_site_symmetry_gemmi PROPERTIES LABELS "peer;site" TIMEOUT 120)
endif()
