# LoomAddLibrary.cmake — build a loom program into a static CUDA library at build time.
#
#   include(<loom>/cmake/LoomAddLibrary.cmake)
#   loom_add_library(<target> <file.loom>
#                    [LOOM <loom binary or CMake target>]   # default: ${LOOM_EXECUTABLE}, the target
#                                                          # `loom` if the project has one, or `loom`
#                                                          # on the PATH
#                    [OUTPUT_DIR <dir>]                     # default: ${CMAKE_CURRENT_BINARY_DIR}/loom/<target>
#                    [ENTRY <name>]                         # default: the .loom file's stem
#                    [CUDA_ARCHITECTURES <archs>]           # default: 90a (wgmma, setmaxnreg need the a)
#                    [OPTIONS <extra loom compile options>...])
#
# At build time runs `loom compile <file.loom> -o <dir> [OPTIONS]`, which writes <dir>/<entry>.cu and
# <dir>/<entry>.h, and compiles the .cu into STATIC library <target>. Linking <target> gives a
# consumer the include directories <dir> (for `#include "<entry>.h"`) and loom's runtime/ (for
# loom/abi.h and the device atoms), the CUDA runtime (CUDA::cudart_static, or CUDA::cudart where
# CMAKE_CUDA_RUNTIME_LIBRARY is Shared or None) and CUDA::cuda_driver (the launcher may encode TMA
# descriptors through the driver API). The .loom file and the loom binary are dependencies: editing
# either regenerates and recompiles the kernel.
#
# The calling project must enable CUDA, e.g. `project(app LANGUAGES CXX CUDA)`: enable_language()
# cannot be called from inside a function. The consumer itself can be plain C or C++.
# docs/artifact.md is the user guide; examples/consumer_cmake is the example that exercises this file.

include_guard(GLOBAL)

function(loom_add_library target source)
  # The loom repository root: this file lives in <root>/cmake.
  get_filename_component(loom_root "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/.." ABSOLUTE)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "LOOM;OUTPUT_DIR;ENTRY" "CUDA_ARCHITECTURES;OPTIONS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "loom_add_library(${target}): unexpected arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()

  get_property(_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "CUDA" IN_LIST _languages)
    message(FATAL_ERROR "loom_add_library(${target}): the CUDA language is not enabled; "
                        "add CUDA to project(... LANGUAGES ...) or call enable_language(CUDA) first")
  endif()
  if(NOT TARGET CUDA::cudart)
    find_package(CUDAToolkit REQUIRED)
  endif()

  get_filename_component(source "${source}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${source}")
    message(FATAL_ERROR "loom_add_library(${target}): no such file: ${source}")
  endif()

  set(entry "${arg_ENTRY}")
  if(NOT entry)
    get_filename_component(entry "${source}" NAME_WLE)
  endif()

  set(out_dir "${arg_OUTPUT_DIR}")
  if(NOT out_dir)
    set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/loom/${target}")
  endif()
  get_filename_component(out_dir "${out_dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")

  # The compiler: a CMake target (built first), or a file (a dependency by path).
  set(loom "${arg_LOOM}")
  if(NOT loom AND LOOM_EXECUTABLE)
    set(loom "${LOOM_EXECUTABLE}")
  endif()
  if(NOT loom AND TARGET loom)
    set(loom loom)
  endif()
  if(NOT loom)
    find_program(LOOM_EXECUTABLE loom)
    if(NOT LOOM_EXECUTABLE)
      message(FATAL_ERROR "loom_add_library(${target}): no loom compiler; pass LOOM <path> or set "
                          "LOOM_EXECUTABLE")
    endif()
    set(loom "${LOOM_EXECUTABLE}")
  endif()
  if(TARGET "${loom}")
    set(loom_command "$<TARGET_FILE:${loom}>")
    set(loom_depends "${loom}")
  else()
    get_filename_component(loom "${loom}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    set(loom_command "${loom}")
    set(loom_depends "${loom}")
  endif()

  set(generated_cu "${out_dir}/${entry}.cu")
  set(generated_h "${out_dir}/${entry}.h")
  add_custom_command(
    OUTPUT "${generated_cu}" "${generated_h}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${out_dir}"
    COMMAND "${loom_command}" compile "${source}" -o "${out_dir}" ${arg_OPTIONS}
    DEPENDS "${source}" ${loom_depends}
    COMMENT "loom: compiling ${source} -> ${entry}.cu, ${entry}.h"
    VERBATIM)

  add_library(${target} STATIC "${generated_cu}" "${generated_h}")
  set(archs "${arg_CUDA_ARCHITECTURES}")
  if(NOT archs)
    set(archs 90a)
  endif()
  # CMake 3.25 turns 90a into --generate-code=arch=compute_90a,code=[compute_90a,sm_90a].
  set_target_properties(${target} PROPERTIES
    CUDA_ARCHITECTURES "${archs}"
    POSITION_INDEPENDENT_CODE ON)
  target_compile_features(${target} PRIVATE cuda_std_17)
  target_include_directories(${target} PUBLIC "${out_dir}" "${loom_root}/runtime")
  # One CUDA runtime per program: the one CMake links into CUDA targets of this project anyway
  # (CMAKE_CUDA_RUNTIME_LIBRARY, Static by default), else the shared one.
  string(TOUPPER "${CMAKE_CUDA_RUNTIME_LIBRARY}" runtime_kind)
  if(runtime_kind STREQUAL "" OR runtime_kind STREQUAL "STATIC")
    set(cudart CUDA::cudart_static)
  else()
    set(cudart CUDA::cudart)
  endif()
  target_link_libraries(${target} PUBLIC ${cudart} CUDA::cuda_driver)
endfunction()
