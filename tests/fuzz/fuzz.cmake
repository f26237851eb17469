# Fuzz harnesses of the readers and of the bond-order perception, which reads the files' coordinates (included
# from tests/cmake/pdbio.cmake). See docs/fuzzing.md.
#
# Always: each harness is also linked with replay_main.c into a plain executable that runs its
# seed corpus (ctests fuzz_corpus_*, labels parser;fuzz), so the corpus - with every crash
# reproducer ever found - is replayed by `make test` and, under ASan/UBSan, by `make sanitize`.
#
# -DSP_FUZZ=ON (clang only): real libFuzzer binaries fuzz_cif, fuzz_pdb, fuzz_gzip built from
# the reader sources with -fsanitize=fuzzer,address,undefined, and ctests fuzz_run_* (label
# fuzz, SP_FUZZ_SECONDS each, default 60) that fuzz from a copy of the corpus.
set(SP_FUZZ_DIR ${CMAKE_SOURCE_DIR}/tests/fuzz)
# The model, PDB and CIF modules whole, from their lists in CMakeLists.txt, so that a new file there (CONECT,
# repeated names, regroup.c, mmcif_ids.c) is in the harnesses too (mmcif_ids.c, missing here, once broke the
# link of make fuzz); the CIF module without the CCD reader.
list(TRANSFORM SP_MODEL_SOURCES PREPEND ${CMAKE_SOURCE_DIR}/ OUTPUT_VARIABLE SP_FUZZ_MODEL_SOURCES)
list(TRANSFORM SP_PDB_SOURCES PREPEND ${CMAKE_SOURCE_DIR}/ OUTPUT_VARIABLE SP_FUZZ_PDB_SOURCES)
set(SP_FUZZ_CIF_SOURCES ${SP_CIF_SOURCES})
list(REMOVE_ITEM SP_FUZZ_CIF_SOURCES src/cif/ccd.c)
list(TRANSFORM SP_FUZZ_CIF_SOURCES PREPEND ${CMAKE_SOURCE_DIR}/)
set(SP_FUZZ_READER_SOURCES
  ${SP_FUZZ_CIF_SOURCES}
  ${SP_FUZZ_PDB_SOURCES} ${SP_FUZZ_MODEL_SOURCES} ${CMAKE_SOURCE_DIR}/src/base/error.c ${CMAKE_SOURCE_DIR}/src/base/grow.c
  ${CMAKE_SOURCE_DIR}/src/read/read.c ${CMAKE_SOURCE_DIR}/src/chem/elements.c
  # crystal symmetry (cell, SCALE, operators); spacegroup.c without CCP4 here: names are not looked up
  ${CMAKE_SOURCE_DIR}/src/site/spacegroup.c)
# the bond-order perception (issue 37 item 2): the chem sources it needs
set(SP_FUZZ_PERCEIVE_SOURCES ${CMAKE_SOURCE_DIR}/src/chem/perceive.c ${CMAKE_SOURCE_DIR}/src/chem/perceive_arom.c
  ${CMAKE_SOURCE_DIR}/src/chem/perceive_geom.c ${CMAKE_SOURCE_DIR}/src/chem/perceive_rings.c
  ${CMAKE_SOURCE_DIR}/src/chem/perceive_search.c
  ${CMAKE_SOURCE_DIR}/src/chem/valence.c ${CMAKE_SOURCE_DIR}/src/chem/elements.c ${CMAKE_SOURCE_DIR}/src/base/error.c)
set(SP_FUZZ_HARNESSES cif pdb gzip perceive)

foreach(h ${SP_FUZZ_HARNESSES})
  add_executable(fuzz_replay_${h} ${SP_FUZZ_DIR}/fuzz_${h}.c ${SP_FUZZ_DIR}/replay_main.c)
  target_link_libraries(fuzz_replay_${h} PRIVATE sitepack)
  add_test(NAME fuzz_corpus_${h} COMMAND fuzz_replay_${h} ${SP_FUZZ_DIR}/corpus_${h})
  set_tests_properties(fuzz_corpus_${h} PROPERTIES LABELS "parser;fuzz")
endforeach()

if(SP_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "SP_FUZZ=ON needs clang (libFuzzer): -DCMAKE_C_COMPILER=clang")
  endif()
  set(SP_FUZZ_SECONDS 60 CACHE STRING "seconds of each fuzz_run_* ctest")
  foreach(h ${SP_FUZZ_HARNESSES})
    if(h STREQUAL "perceive")
      add_executable(fuzz_${h} ${SP_FUZZ_DIR}/fuzz_${h}.c ${SP_FUZZ_PERCEIVE_SOURCES})
    else()
      add_executable(fuzz_${h} ${SP_FUZZ_DIR}/fuzz_${h}.c ${SP_FUZZ_READER_SOURCES} ${CMAKE_SOURCE_DIR}/src/io/file.c)
    endif()
    target_include_directories(fuzz_${h} PRIVATE ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/src)
    target_compile_definitions(fuzz_${h} PRIVATE _POSIX_C_SOURCE=200809L _DEFAULT_SOURCE)
    target_compile_options(fuzz_${h} PRIVATE -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
                           -fno-sanitize-recover=undefined)
    target_link_options(fuzz_${h} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(fuzz_${h} PRIVATE ZLIB::ZLIB OpenSSL::Crypto ${MATH_LIBRARY})
    if(LIBDEFLATE_INCLUDE_DIR AND LIBDEFLATE_LIBRARY) # the same inflate paths as libsitepack
      target_compile_definitions(fuzz_${h} PRIVATE SP_HAVE_LIBDEFLATE=1)
      target_link_libraries(fuzz_${h} PRIVATE ${LIBDEFLATE_LIBRARY})
    endif()
    # fuzz from a scratch copy: new inputs go there, the checked-in corpus stays as it is
    add_test(NAME fuzz_run_${h}
      COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1
              sh -c "rm -rf fuzz_work_${h} && mkdir -p fuzz_work_${h} && cp ${SP_FUZZ_DIR}/corpus_${h}/* fuzz_work_${h}/ && $<TARGET_FILE:fuzz_${h}> -max_total_time=${SP_FUZZ_SECONDS} -rss_limit_mb=2048 -max_len=131072 -print_final_stats=1 -artifact_prefix=fuzz_crash_${h}- fuzz_work_${h}")
    set_tests_properties(fuzz_run_${h} PROPERTIES LABELS fuzz TIMEOUT 900)
  endforeach()
endif()
