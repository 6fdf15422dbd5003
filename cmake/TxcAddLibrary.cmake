# txc_add_library: a txc program compiled at build time into a static
# library (docs/cmake.md). Part of the txc CMake package (find_package(txc
# CONFIG)); needs the imported executable txc::txc.
#
#   txc_add_library(<target> PROGRAM <file.json>
#                   [OPT 0-3] [TARGET <triple>] [CPU <cpu>...]
#                   [FEATURES <+feature|-feature>...]
#                   [SPECIALIZE <bindings>...]
#                   [WEIGHTS embedded|external] [CACHE_DIR <dir>]
#                   [ENTRY_PREFIX <name>] [COMPILE_OPTIONS <option>...])
#
# makes the static library <target>, whose only member is the program's
# object, with the generated headers <target>.h (C) and <target>.hpp (the
# C++ API) in its interface's include directory and libm in its link
# interface. The manifest (and with WEIGHTS
# external the weights blob) is built next to the object; the target's
# properties TXC_OBJECT, TXC_HEADER, TXC_MANIFEST and TXC_WEIGHTS_FILE name
# them (and TXC_CXX_HEADER the C++ header).
#
# The compile reruns when the program, a weights file it reads (txc's
# --depfile), the txc binary or its command line (these arguments) change,
# and only then.
# TARGET defaults to CMAKE_C_COMPILER_TARGET (or CMAKE_CXX_COMPILER_TARGET)
# and, when cross-compiling, to CMAKE_SYSTEM_PROCESSOR's Linux triple;
# otherwise txc compiles for the build machine's triple with its portable
# default CPU.

# The policies of the CMake this was written for, whatever the calling
# project's (a function keeps the policies it was defined with): CMP0116
# NEW, depfiles of custom commands relative to where Ninja expects them.
cmake_policy(PUSH)
cmake_policy(VERSION 3.20...3.25)

# The triple a build for CMAKE_SYSTEM_PROCESSOR on Linux runs on, or "".
function(_txc_default_triple out)
  set(triple "")
  if(CMAKE_C_COMPILER_TARGET)
    set(triple "${CMAKE_C_COMPILER_TARGET}")
  elseif(CMAKE_CXX_COMPILER_TARGET)
    set(triple "${CMAKE_CXX_COMPILER_TARGET}")
  elseif(CMAKE_CROSSCOMPILING)
    string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR}" processor)
    if(processor MATCHES "^(aarch64|arm64)$")
      set(arch aarch64)
    elseif(processor MATCHES "^(x86_64|amd64)$")
      set(arch x86_64)
    else()
      message(FATAL_ERROR "txc_add_library: txc compiles for x86_64 and "
        "aarch64, not CMAKE_SYSTEM_PROCESSOR '${CMAKE_SYSTEM_PROCESSOR}'; "
        "give TARGET <triple>")
    endif()
    if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux")
      message(FATAL_ERROR "txc_add_library: no default triple for "
        "CMAKE_SYSTEM_NAME '${CMAKE_SYSTEM_NAME}'; give TARGET <triple>")
    endif()
    set(triple "${arch}-linux-gnu")
  endif()
  set(${out} "${triple}" PARENT_SCOPE)
endfunction()

# The options of txc compile for txc_add_library's arguments (the ARG_
# variables of the caller), and the weights blob's path ("" if embedded).
function(_txc_compile_flags flags_out weights_out)
  set(flags "")
  if(DEFINED ARG_OPT)
    if(NOT ARG_OPT MATCHES "^[0-3]$")
      message(FATAL_ERROR "txc_add_library(${target}): OPT must be 0 to 3, "
        "not '${ARG_OPT}'")
    endif()
    list(APPEND flags "-O${ARG_OPT}")
  endif()
  set(triple "${ARG_TARGET}")
  if(NOT triple)
    _txc_default_triple(triple)
  endif()
  if(triple)
    list(APPEND flags --target "${triple}")
  endif()
  if(ARG_CPU)
    # Several CPUs (CPU x86-64-v2 x86-64-v3) are one --cpu list.
    list(JOIN ARG_CPU "," cpus)
    list(APPEND flags --cpu "${cpus}")
  endif()
  if(ARG_FEATURES)
    list(JOIN ARG_FEATURES "," features)
    list(APPEND flags "--features=${features}")
  endif()
  if(ARG_ENTRY_PREFIX)
    list(APPEND flags --entry-prefix "${ARG_ENTRY_PREFIX}")
  endif()
  # One variant (or set of variants) per item: B=1, "B=1,S=128",
  # "S in {128,256}".
  foreach(variant IN LISTS ARG_SPECIALIZE)
    list(APPEND flags --specialize "${variant}")
  endforeach()
  set(weights "")
  if(ARG_WEIGHTS STREQUAL "external")
    set(weights "${dir}/${target}.weights")
    list(APPEND flags --weights external --weights-file "${weights}")
  elseif(ARG_WEIGHTS AND NOT ARG_WEIGHTS STREQUAL "embedded")
    message(FATAL_ERROR "txc_add_library(${target}): WEIGHTS must be "
      "embedded or external, not '${ARG_WEIGHTS}'")
  endif()
  if(ARG_CACHE_DIR)
    list(APPEND flags --cache-dir "${ARG_CACHE_DIR}")
  endif()
  list(APPEND flags ${ARG_COMPILE_OPTIONS})
  set(${flags_out} "${flags}" PARENT_SCOPE)
  set(${weights_out} "${weights}" PARENT_SCOPE)
endfunction()

function(txc_add_library target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG ""
    "PROGRAM;OPT;TARGET;WEIGHTS;CACHE_DIR;ENTRY_PREFIX"
    "CPU;FEATURES;SPECIALIZE;COMPILE_OPTIONS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "txc_add_library(${target}): unknown arguments "
      "'${ARG_UNPARSED_ARGUMENTS}'")
  endif()
  if(NOT ARG_PROGRAM)
    message(FATAL_ERROR "txc_add_library(${target}): PROGRAM <file.json> "
      "is required")
  endif()
  if(NOT TARGET txc::txc)
    message(FATAL_ERROR "txc_add_library(${target}): txc::txc is not "
      "defined; find_package(txc CONFIG REQUIRED) first")
  endif()
  get_filename_component(program "${ARG_PROGRAM}" ABSOLUTE
    BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/txc/${target}")
  set(object "${dir}/${target}.o")
  set(header "${dir}/include/${target}.h")
  set(cxx_header "${dir}/include/${target}.hpp")
  set(manifest "${dir}/${target}.manifest.json")
  set(depfile "${dir}/${target}.d")
  set(outputs "${object}" "${header}" "${cxx_header}" "${manifest}")

  _txc_compile_flags(flags weights)
  if(weights)
    list(APPEND outputs "${weights}")
  endif()

  file(MAKE_DIRECTORY "${dir}/include")
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND txc::txc compile "${program}" -o "${object}" --header "${header}"
            --header-cxx "${cxx_header}" --manifest "${manifest}"
            --depfile "${depfile}" --quiet ${flags}
    DEPENDS "${program}" "$<TARGET_FILE:txc::txc>"
    DEPFILE "${depfile}"
    COMMENT "txc: compiling ${ARG_PROGRAM} for ${target}"
    VERBATIM)
  set_source_files_properties("${object}" PROPERTIES
    EXTERNAL_OBJECT TRUE GENERATED TRUE)
  add_library(${target} STATIC "${object}" "${header}" "${cxx_header}"
              "${manifest}")
  set_target_properties(${target} PROPERTIES
    LINKER_LANGUAGE C
    TXC_OBJECT "${object}"
    TXC_HEADER "${header}"
    TXC_CXX_HEADER "${cxx_header}"
    TXC_MANIFEST "${manifest}"
    TXC_WEIGHTS_FILE "${weights}")
  target_include_directories(${target} INTERFACE "${dir}/include")
  # The objects import C library and libm functions (docs/abi.md, "Imports").
  target_link_libraries(${target} INTERFACE m)
endfunction()

cmake_policy(POP)
