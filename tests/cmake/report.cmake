# sitepack report (issue 38; docs/report.md): the page opened in headless Chromium (Debian's chromium, `make deps`):
# no page or console error, every plot and 3D canvas drawn (screenshot pixels), the tables equal `sitepack survey`'s
# and numpy's counts of the file's columns, absent sections said, a damaged file refused with check's error and
# nothing written (tests/peer/test_report_html.py).
# On the bundled sample: the file as run, then after cluster + split and with added /quality and /descriptors groups.
add_test(NAME report_html_sample COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_report_html.py
         $<TARGET_FILE:sitepack_cli> ${CMAKE_CURRENT_BINARY_DIR}/report_html_sample
         --run ${CMAKE_SOURCE_DIR}/tests/data/structures ${CMAKE_SOURCE_DIR}/tests/data/ccd/components_sample.cif)
set_tests_properties(report_html_sample PROPERTIES LABELS "report;peer" TIMEOUT 600)
if(SP_HAVE_CORPUS)
  # On the corpus (the py_corpus run): the same checks; writes report_html_corpus/report_measure.json (page size and
  # load time, the numbers of docs/report.md).
  add_test(NAME report_html_corpus COMMAND ${SP_DEBIAN_PYTHON} ${SP_TEST_DIR}/peer/test_report_html.py
           $<TARGET_FILE:sitepack_cli> ${CMAKE_CURRENT_BINARY_DIR}/report_html_corpus
           --h5 ${CMAKE_BINARY_DIR}/py_test_out/corpus.h5)
  set_tests_properties(report_html_corpus PROPERTIES FIXTURES_REQUIRED py_corpus LABELS "report;peer" TIMEOUT 600)
endif()
