# Writes the generated sitepack/version.h (SP_VERSION, SP_GIT_SHA) in CMake script mode, at every build
# (the custom target sp_version_header in CMakeLists.txt), so that the binary's git sha is the HEAD it was
# built from, not the one CMake was configured at. configure_file rewrites the header only when its text
# changes, so an unchanged HEAD recompiles nothing.
#   cmake -DSRC=<source dir> -DOUT=<header path> -DVERSION=<project version> -P version_header.cmake
execute_process(COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY ${SRC} OUTPUT_VARIABLE SP_GIT_SHA
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT SP_GIT_SHA)
  set(SP_GIT_SHA "unknown")
endif()
set(PROJECT_VERSION ${VERSION})
configure_file(${SRC}/src/version.h.in ${OUT} @ONLY)
