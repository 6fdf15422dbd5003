# What `cmake --install` puts under the prefix, and the .deb CPack makes of
# it (docs/cmake.md, "Installing"):
#
#   bin/            txc, and the tools users run on their programs:
#                   txc-difftest (the interpreter against the compiled
#                   object) and txc-callcheck (a calls file's calls on an
#                   object, docs/ci.md)
#   include/        txc_runtime.h, txc_runtime.hpp: the definitions every
#                   generated header shares (txc_tensor, txc_status, the
#                   dtype and status codes; the C++ API's views and results);
#                   txc_pthreads.h, the reference thread pool (docs/abi.md)
#   lib/cmake/txc/  the CMake package: txc::txc, txc::runtime,
#                   txc_add_library
#   share/doc/txc/  README.md, docs/, samples/
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TXC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/txc)

install(TARGETS txc EXPORT txcTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS txc-difftest txc-callcheck
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The runtime headers; a header-only target for code that handles
# txc_tensor without including a program's header.
add_library(TxcRuntime INTERFACE)
set_target_properties(TxcRuntime PROPERTIES EXPORT_NAME runtime)
target_include_directories(TxcRuntime INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/runtime>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
install(TARGETS TxcRuntime EXPORT txcTargets)
install(FILES runtime/txc_runtime.h runtime/txc_runtime.hpp
              runtime/txc_pthreads.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(EXPORT txcTargets NAMESPACE txc::
        DESTINATION ${TXC_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/txcConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/txcConfig.cmake
  INSTALL_DESTINATION ${TXC_INSTALL_CMAKEDIR})
# The package is a build tool: it compiles for any target, so a
# cross-compiling project (another CMAKE_SIZEOF_VOID_P) may use it too.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/txcConfigVersion.cmake
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES ${PROJECT_BINARY_DIR}/cmake/txcConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/txcConfigVersion.cmake
              cmake/TxcAddLibrary.cmake
        DESTINATION ${TXC_INSTALL_CMAKEDIR})

install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(DIRECTORY samples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/samples)

# The .deb: `cpack -G DEB` in the build directory (docs/cmake.md). Its
# dependencies are those of the installed binaries, as dpkg-shlibdeps finds
# them (libllvm19, libmlir-19, libonnx1, libprotobuf, libssl3, libc, ...);
# a C compiler and CMake are what txc_add_library builds with.
set(CPACK_PACKAGE_NAME txc)
set(CPACK_PACKAGE_VENDOR "txc")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "ahead-of-time export compiler for tensor programs")
set(CPACK_PACKAGE_DESCRIPTION
    "txc compiles a whole tensor program (JSON, or ONNX through txc import)\n\
into a native object, a C and C++ header and a constraint manifest.\n\
With the CMake package (txc_add_library) and the runtime headers.")
set(CPACK_PACKAGE_CONTACT "txc maintainers <txc@localhost>")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# dpkg-shlibdeps finds libLLVM.so.19.1 through the RUNPATH in
# /usr/lib/llvm-19/lib, a symbolic link that llvm-19-dev owns (no shlibs
# file), and so leaves libllvm19 out; it is named here (CPack adds the
# shlibdeps to it).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libllvm19")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "cmake (>= 3.20), gcc | c-compiler, libc6-dev")
include(CPack)
