# Bond-order and charge perception (include/sitepack/perceive.h, src/chem/perceive.c; issue 37 item 2).
# sp_perceive_tool: sp_perceive on molecules read from stdin, many per run (tests/unit/sp_perceive_tool.c).
add_executable(sp_perceive_tool ${SP_TEST_DIR}/unit/sp_perceive_tool.c)
target_link_libraries(sp_perceive_tool PRIVATE sitepack)
if(SP_HAVE_CORPUS) # needs the corpus (SITEPACK_CORPUS): the CCD excerpt and the structures
# The perception against the CCD excerpt (tests/peer/perceive_ccd.py, the protocol of bench/perceive_openbabel.py):
# every metal-free block with ideal coordinates perceived from its ideal coordinates and sitepack's distance bonds,
# compared by RDKit canonical SMILES. Asserted: with the block's hydrogens (SP_PERCEIVE_EXPLICIT_H) >= 95 % of the
# components have every order and charge right, and the sanity molecules (benzene, pyridinium, nitrobenzene,
# sulfate, acetate, guanidinium, imidazolium, a nitrile) are right; heavy atoms only and the corpus's deposited
# coordinates are reported (results in the build tree: perceive_ccd/perception-sitepack-DATE.json and .md).
add_test(NAME peer_perceive_ccd
  COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/perceive_ccd.py --tool $<TARGET_FILE:sp_perceive_tool>
          --ccd ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif.gz --structures ${SP_SHARED_DIR}/data/structures
          --results ${CMAKE_CURRENT_BINARY_DIR}/perceive_ccd --check)
set_tests_properties(peer_perceive_ccd PROPERTIES LABELS "peer;chem" TIMEOUT 300)
# The pipeline's perception end to end (tests/peer/perceive_pipeline.py): `sitepack run` on the corpus with the CCD
# excerpt and with no CCD; every ligand instance whose bonds are the CCD's in the first run and perceived in the
# second compared through RDKit canonical SMILES (asserted: >= 300 complete instances, >= 90 % with every bond
# order right, charges aside; >= 98 % of the perceived molecules without a metal sanitize; `sitepack check`
# passes the no-CCD file, recomputing every formal charge).
add_test(NAME peer_perceive_pipeline
  COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/perceive_pipeline.py $<TARGET_FILE:sitepack_cli>
          ${SP_SHARED_DIR}/data/structures ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif.gz
          ${CMAKE_CURRENT_BINARY_DIR}/perceive_pipeline)
set_tests_properties(peer_perceive_pipeline PROPERTIES LABELS "peer;chem;site" TIMEOUT 300)
endif()
# Fast, no corpus: the same script on the sanity molecules alone (sulfate from the bundled CCD sample's SO4) and
# sp_perceive_tool's input contract (bad lines exit 2; what sp_perceive refuses is its rc, exit 0).
add_test(NAME peer_perceive_sanity
  COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/perceive_ccd.py --tool $<TARGET_FILE:sp_perceive_tool>
          --ccd ${SP_TEST_DIR}/data/ccd/components_sample.cif --sanity-only
          --results ${CMAKE_CURRENT_BINARY_DIR}/perceive_sanity --check)
set_tests_properties(peer_perceive_sanity PROPERTIES LABELS "peer;chem" TIMEOUT 60)
# A dense cluster of 1,000 atoms in one ligand residue runs to the end (tests/peer/perceive_dense.py: the ring walks
# only visit atoms with at most 3 heavy neighbours); the TIMEOUT is the bound (it took hours before).
add_test(NAME perceive_dense_blob
  COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/perceive_dense.py $<TARGET_FILE:sitepack_cli>
          ${CMAKE_CURRENT_BINARY_DIR}/perceive_dense)
set_tests_properties(perceive_dense_blob PROPERTIES LABELS "chem;site" TIMEOUT 60)
