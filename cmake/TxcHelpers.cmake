# Helpers shared by every txc target.
#
# Debian's LLVM is built without exceptions, but CLI11 and nlohmann_json need
# them, so txc targets are plain CMake targets (not add_llvm_*/add_mlir_*),
# compiled with exceptions and RTTI on. Only the JSON reader and the CLI driver
# catch exceptions; everything else reports errors LLVM-style.

set(TXC_LLVM_INCLUDE_DIRS ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})

function(txc_set_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wno-unused-parameter -Wno-comment
    $<$<COMPILE_LANGUAGE:CXX>:-Wno-deprecated-declarations>)
endfunction()

# txc_add_component_library(name SOURCES... [MLIR] [DEPS ...]): one of the
# compiler's own libraries (lib/). (txc_add_library is the public function of
# the installed CMake package, cmake/TxcAddLibrary.cmake.)
#   MLIR: the library uses MLIR (links the shared libMLIR); otherwise only
#   LLVM Support, through the shared libLLVM.
function(txc_add_component_library name)
  cmake_parse_arguments(ARG "MLIR" "" "DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  target_include_directories(${name} PUBLIC
    ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include)
  target_include_directories(${name} SYSTEM PUBLIC ${TXC_LLVM_INCLUDE_DIRS})
  target_compile_definitions(${name} PUBLIC ${LLVM_DEFINITIONS})
  txc_set_warnings(${name})
  if(ARG_MLIR)
    target_link_libraries(${name} PUBLIC MLIR LLVM)
  else()
    target_link_libraries(${name} PUBLIC LLVM)
  endif()
  if(ARG_DEPS)
    target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  endif()
endfunction()

# The sanitizers of TXC_SANITIZE and of the fuzz build (TXC_FUZZ), for every
# target defined below the calling directory. Both stop at the first report
# (-fno-sanitize-recover), so that a test fails instead of printing a warning
# nobody reads. -O1 keeps the instrumented code's compile time close to the
# Release build's; -g1 gives line numbers in the reports.
function(txc_enable_sanitizers)
  set(flags -fsanitize=address,undefined -fno-sanitize-recover=all
            -fno-omit-frame-pointer -O1 -g1)
  if(TXC_FUZZ)
    # Coverage instrumentation for libFuzzer in every library; the harnesses
    # link libFuzzer's main (test/fuzz/CMakeLists.txt).
    list(APPEND flags -fsanitize=fuzzer-no-link)
  endif()
  add_compile_options(${flags})
  add_link_options(-fsanitize=address,undefined)
endfunction()
