# What `cmake --install` adds for programs that link libperfdiff: a
# pkg-config file and a CMake package, both naming the private
# dependencies a static link needs (the shared library carries them
# itself).
#
#   pkg-config --cflags --libs libperfdiff          (shared)
#   pkg-config --static --cflags --libs libperfdiff (static)
#   find_package(perfdiff CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE perfdiff::perfdiff)   # or perfdiff::perfdiff_static

set(PD_PC_REQUIRES_PRIVATE "libzstd libarchive libdw libelf libdeflate jansson")
if(PERFDIFF_BPF)
  string(APPEND PD_PC_REQUIRES_PRIVATE " libbpf")
endif()
if(PERFDIFF_PPROF)
  string(APPEND PD_PC_REQUIRES_PRIVATE " libprotobuf-c zlib")
endif()
if(PD_HAVE_LIBUNWIND)
  string(APPEND PD_PC_REQUIRES_PRIVATE " libunwind-generic")
endif()
# relocatable: the prefix is found from where the .pc file lies
file(RELATIVE_PATH PD_PC_TO_PREFIX /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
configure_file(${PROJECT_SOURCE_DIR}/cmake/libperfdiff.pc.in
               ${PROJECT_BINARY_DIR}/libperfdiff.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/libperfdiff.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

include(CMakePackageConfigHelpers)
set(PD_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/perfdiff)
install(EXPORT perfdiffTargets NAMESPACE perfdiff:: DESTINATION ${PD_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/perfdiffConfig.cmake.in
  ${PROJECT_BINARY_DIR}/perfdiffConfig.cmake INSTALL_DESTINATION ${PD_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/perfdiffConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/perfdiffConfig.cmake
              ${PROJECT_BINARY_DIR}/perfdiffConfigVersion.cmake
        DESTINATION ${PD_CMAKE_DIR})
