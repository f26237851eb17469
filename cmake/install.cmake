# Installation (`cmake --install build --prefix P`): bin/sitepack; libsitepack.a and libsitepack.so (the same
# objects: the static library is built position-independent and the shared one links its objects); the
# public headers (include/sitepack/*.h and the generated version.h); a pkg-config file (sitepack.pc) and a
# CMake package (find_package(sitepack): targets sitepack::sitepack, static, and sitepack::sitepack_shared).
# tests/integration/install.sh installs into a temporary prefix and builds docs/reading.md's C example.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(sitepack PROPERTIES POSITION_INDEPENDENT_CODE ON)
add_library(sitepack_shared SHARED $<TARGET_OBJECTS:sitepack>)
get_target_property(SP_LIB_DEPS sitepack LINK_LIBRARIES)
target_link_libraries(sitepack_shared PUBLIC ${SP_LIB_DEPS})
target_include_directories(sitepack_shared PUBLIC $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${CMAKE_BINARY_DIR}/generated> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_include_directories(sitepack_shared SYSTEM PUBLIC ${HDF5_INCLUDE_DIRS} ${CJSON_INCLUDE_DIR})
set_target_properties(sitepack_shared PROPERTIES OUTPUT_NAME sitepack VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR} LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)

install(TARGETS sitepack_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS sitepack sitepack_shared EXPORT sitepackTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/sitepack DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${CMAKE_BINARY_DIR}/generated/sitepack/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sitepack)

set(SP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/sitepack)
install(EXPORT sitepackTargets NAMESPACE sitepack:: DESTINATION ${SP_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/sitepackConfig.cmake.in
  ${CMAKE_BINARY_DIR}/sitepackConfig.cmake INSTALL_DESTINATION ${SP_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/sitepackConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/sitepackConfig.cmake ${CMAKE_BINARY_DIR}/sitepackConfigVersion.cmake
  DESTINATION ${SP_CMAKE_DIR})

# pkg-config: prefix relative to the .pc file (${pcfiledir}), so that any --prefix given at install time works.
# Cflags carry the HDF5 and MPI include directories (sched.h includes mpi.h); Libs.private the
# libraries a static link needs (pkg-config --static).
file(RELATIVE_PATH SP_PC_TO_PREFIX /sp_prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /sp_prefix)
set(SP_PC_CFLAGS "")
foreach(d ${HDF5_INCLUDE_DIRS} ${MPI_C_INCLUDE_DIRS} ${CJSON_INCLUDE_DIR})
  string(APPEND SP_PC_CFLAGS " -I${d}")
endforeach()
set(SP_PC_LIBS_PRIVATE "")
foreach(l ${HDF5_C_LIBRARIES} ${MPI_C_LIBRARIES} ${ZLIB_LIBRARIES} ${OPENSSL_CRYPTO_LIBRARY} ${CJSON_LIBRARY}
          ${LIBDEFLATE_LIBRARY} ${CCP4C_LIBRARY} ${MATH_LIBRARY} ${SP_RDKIT_LIBS})
  if(l)
    string(APPEND SP_PC_LIBS_PRIVATE " ${l}")
  endif()
endforeach()
string(APPEND SP_PC_LIBS_PRIVATE " -lstdc++") # src/chem/descriptors.cpp (RDKit): a C program's static link
configure_file(${CMAKE_SOURCE_DIR}/cmake/sitepack.pc.in ${CMAKE_BINARY_DIR}/sitepack.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/sitepack.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
