# How kps compiles against the Kokkos it found.
# - KPS_EXECUTION_SPACE (cache): the Kokkos execution space kps' executables run on, checked
#   against the Kokkos found; KPS_EXECUTION_SPACE_NAME is its Kokkos name (Default resolved) and
#   KPS_EXECUTION_SPACE_DEFINITION the compile definition src/kps/execution_space.hpp reads.
# - KPS_ENABLE_CUDA: Kokkos has the CUDA backend; the CUDA backend folder (src/kps/cuda) is built.
# - Kokkos installed with CUDA as a CMake language (Kokkos_COMPILE_LANGUAGE == CUDA): every
#   source that includes Kokkos is compiled as CUDA. With nvcc_wrapper as the C++ compiler
#   (spack's default) nothing is needed.
# - kps_target(<target>): applies both, plus kps' warning flags, to one target.
set(KPS_EXECUTION_SPACE Default CACHE STRING
    "Kokkos execution space of kps-bench, the tests and the package: Default (Kokkos::DefaultExecutionSpace), Serial, OpenMP or Cuda")
set_property(CACHE KPS_EXECUTION_SPACE PROPERTY STRINGS Default Serial OpenMP Cuda)
# Kokkos' own names of its backends (Kokkos_DEVICES spells them in upper case), in the order in
# which Kokkos picks its default execution space.
set(_kps_kokkos_spaces Cuda HIP SYCL OpenMPTarget OpenMP Threads HPX Serial)
string(TOUPPER "${KPS_EXECUTION_SPACE}" _kps_space_uc)
if(_kps_space_uc STREQUAL "DEFAULT")
  set(KPS_EXECUTION_SPACE_DEFINITION "")
  set(KPS_EXECUTION_SPACE_NAME "")
  foreach(_space IN LISTS _kps_kokkos_spaces)
    string(TOUPPER "${_space}" _uc)
    if(NOT KPS_EXECUTION_SPACE_NAME AND _uc IN_LIST Kokkos_DEVICES)
      set(KPS_EXECUTION_SPACE_NAME ${_space})
    endif()
  endforeach()
else()
  # The spaces kps has a device description for (src/kps/host, src/kps/cuda).
  set(KPS_EXECUTION_SPACE_NAME "")
  foreach(_space Serial OpenMP Cuda)
    string(TOUPPER "${_space}" _uc)
    if(_uc STREQUAL _kps_space_uc)
      set(KPS_EXECUTION_SPACE_NAME ${_space})
    endif()
  endforeach()
  if(NOT KPS_EXECUTION_SPACE_NAME)
    message(FATAL_ERROR "KPS_EXECUTION_SPACE='${KPS_EXECUTION_SPACE}' is not one of Default, Serial, OpenMP, Cuda")
  endif()
  # Kokkos' own check where its package has one (3.x and 4.x do), else its list of devices.
  if(COMMAND kokkos_check)
    kokkos_check(DEVICES ${KPS_EXECUTION_SPACE_NAME} RETURN_VALUE _kps_space_enabled)
  else()
    string(TOUPPER "${KPS_EXECUTION_SPACE_NAME}" _uc)
    set(_kps_space_enabled OFF)
    if(_uc IN_LIST Kokkos_DEVICES)
      set(_kps_space_enabled ON)
    endif()
  endif()
  if(NOT _kps_space_enabled)
    string(REPLACE ";" ", " _kps_devices "${Kokkos_DEVICES}")
    message(FATAL_ERROR "KPS_EXECUTION_SPACE=${KPS_EXECUTION_SPACE_NAME}: the Kokkos found (${Kokkos_DIR}, "
                        "Kokkos ${Kokkos_VERSION}) has no ${KPS_EXECUTION_SPACE_NAME} backend; its backends are "
                        "${_kps_devices}. Choose one of those (or Default), or point Kokkos_ROOT / "
                        "CMAKE_PREFIX_PATH at a Kokkos built with ${KPS_EXECUTION_SPACE_NAME}.")
  endif()
  string(TOUPPER "KPS_EXECUTION_SPACE_${KPS_EXECUTION_SPACE_NAME}" KPS_EXECUTION_SPACE_DEFINITION)
endif()
message(STATUS "kps: execution space ${KPS_EXECUTION_SPACE_NAME} (KPS_EXECUTION_SPACE=${KPS_EXECUTION_SPACE})")

set(KPS_ENABLE_CUDA OFF)
if("CUDA" IN_LIST Kokkos_DEVICES)
  set(KPS_ENABLE_CUDA ON)
endif()
set(KPS_KOKKOS_LANGUAGE CXX)
if(DEFINED Kokkos_COMPILE_LANGUAGE AND Kokkos_COMPILE_LANGUAGE STREQUAL "CUDA")
  set(KPS_KOKKOS_LANGUAGE CUDA)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND DEFINED Kokkos_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES ${Kokkos_CUDA_ARCHITECTURES})
  endif()
  enable_language(CUDA)
endif()
message(STATUS "kps: Kokkos ${Kokkos_VERSION}, devices ${Kokkos_DEVICES}, compiled as ${KPS_KOKKOS_LANGUAGE}")

# Warnings: on for kps' own code; Kokkos' headers come in as system headers.
add_library(kps_warnings INTERFACE)
if(CMAKE_CXX_COMPILER_ID STREQUAL "NVIDIA" OR KPS_KOKKOS_LANGUAGE STREQUAL "CUDA")
  set(_kps_host_warnings -Wall -Wextra)
  if(KPS_WARNINGS_AS_ERRORS)
    list(APPEND _kps_host_warnings -Werror)
  endif()
  string(REPLACE ";" "," _kps_host_warnings "${_kps_host_warnings}")
  set(_kps_nvcc_warnings -Xcompiler=${_kps_host_warnings})
  if(KPS_WARNINGS_AS_ERRORS)
    list(APPEND _kps_nvcc_warnings -Werror=all-warnings)
  endif()
  target_compile_options(kps_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CUDA>:${_kps_nvcc_warnings}>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:NVIDIA>>:${_kps_nvcc_warnings}>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<NOT:$<CXX_COMPILER_ID:NVIDIA>>>:-Wall;-Wextra;$<$<BOOL:${KPS_WARNINGS_AS_ERRORS}>:-Werror>>)
else()
  target_compile_options(kps_warnings INTERFACE -Wall -Wextra -Wpedantic
                         $<$<BOOL:${KPS_WARNINGS_AS_ERRORS}>:-Werror>)
endif()

function(kps_target target)
  get_target_property(_sources ${target} SOURCES)
  get_target_property(_dir ${target} SOURCE_DIR)
  foreach(_src IN LISTS _sources)
    if(_src MATCHES "\\.(cpp|cc|cxx)$")
      set_source_files_properties(${_src} DIRECTORY ${_dir} PROPERTIES LANGUAGE ${KPS_KOKKOS_LANGUAGE})
    endif()
  endforeach()
  target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:kps_warnings>)
endfunction()
