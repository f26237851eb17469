# sitepack._fast, the Python package's optional compiled reader (python/sitepack/_fast.c; docs/python.md "The
# compiled reader"), built as build/python/sitepack/_fast<EXT_SUFFIX> for Debian's Python (/usr/bin/python3:
# Python.h from python3-dev, numpy's C headers from python3-numpy). The Python tests run with
# PYTHONPATH=build/python:python: the source tree's package, which joins build/python/sitepack to itself
# (pkgutil.extend_path in sitepack/__init__.py) and imports the extension from there. Not built, with a
# message, when a header is missing (the package then reads in pure Python, same results) or under
# SP_SANITIZE (an instrumented module does not load into an uninstrumented python). SP_PY_FAST tells the
# tests whether to expect it.
set(SP_PY_FAST OFF)
set(SP_PY_FAST_PYTHON /usr/bin/python3)
set(SP_PY_FAST_DIR ${CMAKE_BINARY_DIR}/python)
if(SP_SANITIZE)
  message(STATUS "sitepack._fast: not built under SP_SANITIZE (the Python tests use the pure-Python reader)")
else()
  execute_process(COMMAND ${SP_PY_FAST_PYTHON} -c
    "import sysconfig, numpy; print(sysconfig.get_paths()['include']); print(sysconfig.get_config_var('EXT_SUFFIX')); print(numpy.get_include())"
    OUTPUT_VARIABLE _sp_py OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _sp_py_rc ERROR_QUIET)
  if(_sp_py_rc EQUAL 0)
    string(REPLACE "\n" ";" _sp_py "${_sp_py}")
    list(GET _sp_py 0 _sp_py_inc)
    list(GET _sp_py 1 _sp_py_suffix)
    list(GET _sp_py 2 _sp_np_inc)
  endif()
  if(NOT _sp_py_rc EQUAL 0 OR NOT EXISTS "${_sp_py_inc}/Python.h" OR NOT EXISTS "${_sp_np_inc}/numpy/arrayobject.h")
    message(STATUS "sitepack._fast: not built (no ${SP_PY_FAST_PYTHON} with Python.h and numpy's headers: "
                   "apt-get install python3-dev python3-numpy); the Python package reads in pure Python")
  else()
    add_library(sitepack_py_fast MODULE python/sitepack/_fast.c)
    target_include_directories(sitepack_py_fast SYSTEM PRIVATE ${_sp_py_inc} ${_sp_np_inc})
    # radius_edges keeps a pair by the same double sum as the pure-Python path: no fused multiply-adds
    target_compile_options(sitepack_py_fast PRIVATE -ffp-contract=off)
    target_link_libraries(sitepack_py_fast PRIVATE m)
    set_target_properties(sitepack_py_fast PROPERTIES PREFIX "" OUTPUT_NAME _fast SUFFIX "${_sp_py_suffix}"
      C_VISIBILITY_PRESET hidden LIBRARY_OUTPUT_DIRECTORY ${SP_PY_FAST_DIR}/sitepack)
    set(SP_PY_FAST ON)
    message(STATUS "sitepack._fast: built into ${SP_PY_FAST_DIR}/sitepack (${_sp_py_suffix})")
  endif()
endif()
