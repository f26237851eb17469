# The Python package (python/sitepack, docs/python.md) and the installed C library, on the merged output of
# shared/data/structures (made here under mpirun, -np 2). Debian's Python: numpy, h5py, torch, rdkit.
if(SP_HAVE_CORPUS) # needs the corpus (SITEPACK_CORPUS)
set(SP_PY_OUT ${CMAKE_BINARY_DIR}/py_test_out)
add_test(NAME py_corpus_merged
  COMMAND ${MPIEXEC_EXECUTABLE} --allow-run-as-root --oversubscribe --mca osc sm -np 2 $<TARGET_FILE:sitepack_cli>
          run --input ${SP_SHARED_DIR}/data/structures --ccd ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif.gz
          --out ${SP_PY_OUT}/corpus.h5 --force --quiet)
set_tests_properties(py_corpus_merged PROPERTIES FIXTURES_SETUP py_corpus LABELS "python;integration" TIMEOUT 300)
# ds[i], get_sites_flat, select, tables, errors, /bonds mechanics: against the C reader, h5py and numpy filters.
add_test(NAME test_py_dataset COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_py_dataset.py
  ${SP_PY_OUT}/corpus.h5 $<TARGET_FILE:test_reader_dump> $<TARGET_FILE:sitepack_cli> ${SP_PY_OUT}/dataset)
# sitepack.torch: DataLoader with 2 workers (fork and spawn), every site once per epoch, equal to the serial read.
add_test(NAME test_py_torch COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_py_torch.py ${SP_PY_OUT}/corpus.h5)
# /bonds through the package: site.bonds against h5py, to_rdkit() sanitizes every CCD-defined ligand and gives
# the InChIKey first block of the CCD (or of the CCD block without its absent leaving atoms), as peer_export_chem,
# and the exported SDF's isomeric SMILES (stereo from 3D).
add_test(NAME test_py_bonds COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_py_bonds.py ${SP_PY_OUT}/corpus.h5
  ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif $<TARGET_FILE:sitepack_cli> ${SP_PY_OUT}/bonds)
# Which SMILES of a CCD block /components/smiles holds (issue 33 item 9): the first OpenEye SMILES_CANONICAL row,
# read with gemmi from the same CCD file, for every component of the corpus the CCD has.
add_test(NAME peer_ccd_smiles COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_ccd_smiles.py ${SP_PY_OUT}/corpus.h5
  ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif)
set_tests_properties(peer_ccd_smiles PROPERTIES FIXTURES_REQUIRED py_corpus LABELS "peer;survey" TIMEOUT 120)
# Donor/acceptor bits of acids at the pH (issue 33 item 9): every charged O of an acid group, deprotonated at its
# site's pH by Henderson-Hasselbalch, is an acceptor and not a donor; protonated, a donor.
add_test(NAME peer_acid_bits COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_acid_bits.py ${SP_PY_OUT}/corpus.h5)
set_tests_properties(peer_acid_bits PROPERTIES FIXTURES_REQUIRED py_corpus LABELS "peer;site" TIMEOUT 120)
# /atoms/formal_charge (issue 33 item 2): equals RDKit's formal charges of the exported SDF record for every ligand atom
# of the corpus and of the synthetic cases (../shared/cases), /atoms/charge for site atoms; a version-4 copy (no
# column) reads in Python and to_rdkit's fallback rules give the column's values for every site.
add_test(NAME peer_formal_charge COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_formal_charge.py
  $<TARGET_FILE:sitepack_cli> ${SP_PY_OUT}/corpus.h5 ${SP_SHARED_DIR}/cases
  ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif.gz ${SP_PY_OUT}/formal_charge)
set_tests_properties(peer_formal_charge PROPERTIES FIXTURES_REQUIRED py_corpus LABELS "peer;store;python" TIMEOUT 300
  ENVIRONMENT "PYTHONPATH=${CMAKE_SOURCE_DIR}/python")
# The ligand descriptors (issue 36, include/sitepack/descriptors.h): /components against RDKit's values of the CCD
# definition read with gemmi, /ligands against RDKit's values of the exported SDF records (counts exactly,
# MW/logP/TPSA within 0.01, QED within 0.005); prints the agreement per descriptor.
add_test(NAME peer_descriptors_rdkit COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_descriptors_rdkit.py
  $<TARGET_FILE:sitepack_cli> ${SP_PY_OUT}/corpus.h5 ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif
  ${SP_PY_OUT}/descriptors)
set_tests_properties(peer_descriptors_rdkit PROPERTIES FIXTURES_REQUIRED py_corpus LABELS "peer;survey" TIMEOUT 300)
# The compiled reader (sitepack._fast) against the pure-Python path: every site and attribute, get_sites_flat of
# several index sets, the same exceptions; the compiled path is the default when the build made it.
add_test(NAME test_py_compiled COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_py_compiled.py ${SP_PY_OUT}/corpus.h5)
# PYTHONPATH: the source tree's package and the build's sitepack._fast (cmake/python_fast.cmake);
# SITEPACK_EXPECT_COMPILED: the tests fail when the extension was built but does not serve ds[i]
set_tests_properties(test_py_dataset test_py_torch test_py_bonds test_py_compiled PROPERTIES FIXTURES_REQUIRED py_corpus LABELS "python;peer"
  ENVIRONMENT "PYTHONPATH=${SP_PY_FAST_DIR}:${CMAKE_SOURCE_DIR}/python;SITEPACK_EXPECT_COMPILED=${SP_PY_FAST}"
  TIMEOUT 300)
# Graph samples (issue 34, issue 39 item 6): every corpus site's atom features and bond / interaction / radius
# edges against a per-site read from the Site API, heavy_only, random index sets (compiled = pure, torch_geometric's
# collate rule), edge cases and refusals, a DataLoader with 2 workers, hybridization vs RDKit, docs/python.md's
# names, its message-passing example and its PyTorch and torch_geometric snippets.
add_test(NAME test_py_graph COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_py_graph.py ${SP_PY_OUT}/corpus.h5
  ${CMAKE_SOURCE_DIR}/docs/python.md)
set_tests_properties(test_py_graph PROPERTIES FIXTURES_REQUIRED py_corpus LABELS "python;peer"
  ENVIRONMENT "PYTHONPATH=${SP_PY_FAST_DIR}:${CMAKE_SOURCE_DIR}/python;SITEPACK_EXPECT_COMPILED=${SP_PY_FAST}"
  TIMEOUT 300)
# cmake --install into a temporary prefix; docs/reading.md's C example via pkg-config (shared, static) and
# find_package(sitepack); pip install of python/ into a venv with --system-site-packages.
add_test(NAME test_install COMMAND bash ${CMAKE_SOURCE_DIR}/tests/integration/install.sh ${CMAKE_BINARY_DIR}
  ${CMAKE_SOURCE_DIR} ${SP_PY_OUT}/corpus.h5 ${SP_DEBIAN_PYTHON} ${SP_PY_OUT}/install)
set_tests_properties(test_install PROPERTIES FIXTURES_REQUIRED py_corpus LABELS "python;integration" TIMEOUT 300)
# Protein context (issue 17): /chains, /segments, /sequences and the /structures quality columns of the
# corpus against gemmi (setup_entities, full_sequence, polymer_type) and the files' own records.
add_test(NAME peer_chains_gemmi COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_chains_gemmi.py
  ${SP_PY_OUT}/corpus.h5 ${SP_SHARED_DIR}/data/structures)
set_tests_properties(peer_chains_gemmi PROPERTIES FIXTURES_REQUIRED py_corpus LABELS "peer;survey" TIMEOUT 300)
# The same ligand instance from an entry's .cif and .pdb: the same charge at pH; 4GXY IRI without salt bridges (PLIP).
add_test(NAME peer_format_agree COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_format_agree.py ${SP_PY_OUT}/corpus.h5)
set_tests_properties(peer_format_agree PROPERTIES FIXTURES_REQUIRED py_corpus LABELS "peer;site"
  ENVIRONMENT "PYTHONPATH=${SP_PY_FAST_DIR}:${CMAKE_SOURCE_DIR}/python" TIMEOUT 300)
# Ligand systems (PLINDER, 4 A) and the ligand fit columns against a brute force over the file's site blocks.
add_test(NAME peer_systems COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_systems.py ${SP_PY_OUT}/corpus.h5)
set_tests_properties(peer_systems PROPERTIES FIXTURES_REQUIRED py_corpus LABELS "peer;survey" TIMEOUT 300)
# Issue 26 on the corpus output: every dataset's units and names from the file alone, the names covering every
# value the corpus holds (statuses, classes, interaction types, flag bits), against docs/format.md.
add_test(NAME format_self_describing_corpus COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_format_attrs.py
  ${SP_PY_OUT}/corpus.h5 ${CMAKE_SOURCE_DIR}/docs/format.md)
set_tests_properties(format_self_describing_corpus PROPERTIES FIXTURES_REQUIRED py_corpus LABELS "peer;store" TIMEOUT 120)
# site.assembly first (issue 17): the corpus again with --assembly first; its sites against a brute force over
# gemmi's first assembly and against the run without it.
add_test(NAME py_corpus_assembly
  COMMAND ${MPIEXEC_EXECUTABLE} --allow-run-as-root --oversubscribe --mca osc sm -np 2 $<TARGET_FILE:sitepack_cli>
          run --input ${SP_SHARED_DIR}/data/structures --ccd ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif.gz
          --out ${SP_PY_OUT}/corpus_assembly.h5 --assembly first --force --quiet)
set_tests_properties(py_corpus_assembly PROPERTIES FIXTURES_SETUP py_corpus_assembly LABELS "integration" TIMEOUT 300)
add_test(NAME peer_site_assembly COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_site_assembly.py
  ${SP_PY_OUT}/corpus_assembly.h5 ${SP_PY_OUT}/corpus.h5 ${SP_SHARED_DIR}/data/structures)
set_tests_properties(peer_site_assembly PROPERTIES FIXTURES_REQUIRED "py_corpus;py_corpus_assembly"
  LABELS "peer;site" TIMEOUT 600)
# `sitepack check` accepts the run's own output with symmetry mates and assembly copies together: a site's residues
# as in the file, then its symmetry images, then its assembly copies (docs/sites.md); check had known only images
# and refused the corpus's site 36 (an assembly copy after images).
add_test(NAME py_corpus_sym_assembly
  COMMAND ${MPIEXEC_EXECUTABLE} --allow-run-as-root --oversubscribe --mca osc sm -np 2 $<TARGET_FILE:sitepack_cli>
          run --input ${SP_SHARED_DIR}/data/structures --ccd ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif.gz
          --out ${SP_PY_OUT}/corpus_sym_assembly.h5 --symmetry-mates --assembly first --force --quiet)
set_tests_properties(py_corpus_sym_assembly PROPERTIES FIXTURES_SETUP py_corpus_sym_assembly LABELS "integration"
  TIMEOUT 300)
add_test(NAME check_sym_assembly COMMAND $<TARGET_FILE:sitepack_cli> check ${SP_PY_OUT}/corpus_sym_assembly.h5)
set_tests_properties(check_sym_assembly PROPERTIES FIXTURES_REQUIRED py_corpus_sym_assembly LABELS "store;integration"
  TIMEOUT 120)
# One copy per atom position (docs/sites.md "Symmetry mates and assembly copies together"): a small axis case
# run four ways, and the corpus with both options against the --assembly first run and gemmi's crystal images.
add_test(NAME peer_site_copies COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_site_copies.py
  $<TARGET_FILE:sitepack_cli> ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif.gz ${SP_PY_OUT}/site_copies
  ${SP_PY_OUT}/corpus_sym_assembly.h5 ${SP_PY_OUT}/corpus_assembly.h5 ${SP_SHARED_DIR}/data/structures)
set_tests_properties(peer_site_copies PROPERTIES FIXTURES_REQUIRED "py_corpus_sym_assembly;py_corpus_assembly"
  LABELS "peer;site" TIMEOUT 300)
# The site quality bits (issue 36, docs/format.md "Site quality") recomputed from the file's columns, gemmi and the
# CCD, on the corpus run and on the run with symmetry mates and assembly copies (crystal_contact).
add_test(NAME peer_site_quality COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_site_quality.py
  ${SP_PY_OUT}/corpus.h5 ${SP_SHARED_DIR}/data/structures ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif)
set_tests_properties(peer_site_quality PROPERTIES FIXTURES_REQUIRED py_corpus LABELS "peer;site" TIMEOUT 300)
# ds.select's filters of issue 36 (descriptors, rules, R-free, dates, interactions, pocket size, quality) against
# h5py + numpy on the corpus.
add_test(NAME py_select_curate COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_select_curate.py ${SP_PY_OUT}/corpus.h5)
set_tests_properties(py_select_curate PROPERTIES FIXTURES_REQUIRED py_corpus LABELS "python;peer" TIMEOUT 120
  ENVIRONMENT "PYTHONPATH=${SP_PY_FAST_DIR}:${CMAKE_SOURCE_DIR}/python")
# `sitepack dump OUT.h5 index` (issue 36 item 4): TSV and CSV equal to the tables it comes from (h5py), clusters and
# splits columns on a copy; the symmetry/assembly run for the tagged pocket residues.
add_test(NAME peer_dump_index COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_dump_index.py
  $<TARGET_FILE:sitepack_cli> ${SP_PY_OUT}/corpus.h5 ${SP_PY_OUT}/dump_index)
set_tests_properties(peer_dump_index PROPERTIES FIXTURES_REQUIRED py_corpus LABELS "peer;store" TIMEOUT 120)
add_test(NAME peer_dump_index_sym COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_dump_index.py
  $<TARGET_FILE:sitepack_cli> ${SP_PY_OUT}/corpus_sym_assembly.h5 ${SP_PY_OUT}/dump_index_sym)
set_tests_properties(peer_dump_index_sym PROPERTIES FIXTURES_REQUIRED py_corpus_sym_assembly LABELS "peer;store"
  TIMEOUT 120)
add_test(NAME peer_site_quality_sym COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_site_quality.py
  ${SP_PY_OUT}/corpus_sym_assembly.h5 ${SP_SHARED_DIR}/data/structures ${SP_SHARED_DIR}/data/ccd/components_excerpt.cif)
set_tests_properties(peer_site_quality_sym PROPERTIES FIXTURES_REQUIRED py_corpus_sym_assembly LABELS "peer;site"
  TIMEOUT 300)
endif()

# The graph samples on the bundled sample (no corpus): its merged output (one rank), then test_py_graph on it.
add_test(NAME py_sample_merged COMMAND $<TARGET_FILE:sitepack_cli> run --input ${CMAKE_SOURCE_DIR}/tests/data/structures
  --ccd ${CMAKE_SOURCE_DIR}/tests/data/ccd/components_sample.cif --out ${CMAKE_BINARY_DIR}/py_sample_out/sample.h5
  --force --quiet)
set_tests_properties(py_sample_merged PROPERTIES FIXTURES_SETUP py_sample LABELS "python;integration" TIMEOUT 120)
add_test(NAME test_py_graph_sample COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_py_graph.py
  ${CMAKE_BINARY_DIR}/py_sample_out/sample.h5 ${CMAKE_SOURCE_DIR}/docs/python.md)
set_tests_properties(test_py_graph_sample PROPERTIES FIXTURES_REQUIRED py_sample LABELS "python;peer"
  ENVIRONMENT "PYTHONPATH=${CMAKE_BINARY_DIR}/python:${CMAKE_SOURCE_DIR}/python" TIMEOUT 300)
