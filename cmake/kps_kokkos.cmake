# How kps finds and compiles against Kokkos, with one clear configure-time error for each way the
# Kokkos found cannot serve (too old, no Kokkos Kernels for the benchmarks and tests, a C++
# standard it refuses, a `cuda` preset without CUDA, a CUDA Kokkos with a compiler that cannot
# build CUDA).
# - KPS_EXECUTION_SPACE (cache): the Kokkos execution space kps' executables run on, checked
#   against the Kokkos found; KPS_EXECUTION_SPACE_NAME is its Kokkos name (Default resolved) and
#   KPS_EXECUTION_SPACE_DEFINITION the compile definition bench/support/execution_space.hpp reads.
# - KPS_ENABLE_CUDA: Kokkos has the CUDA backend; the CUDA backend folders are built.
# - KPS_REQUIRE_CUDA / KPS_REQUIRE_HIP (cache, set by the `cuda` / `hip` presets): stop unless
#   Kokkos has CUDA / HIP.
# - Kokkos installed with CUDA as a CMake language (Kokkos_COMPILE_LANGUAGE == CUDA): every
#   source that includes Kokkos is compiled as CUDA. With nvcc_wrapper as the C++ compiler
#   (spack's kokkos +wrapper) nothing is needed.
# - kps_target(<target>): applies both, plus kps' warning flags, to one target.
set(_kps_kokkos_hint "point Kokkos_ROOT or CMAKE_PREFIX_PATH at an installed Kokkos (on Debian: scripts/setup.sh \
builds one, then `. ~/.cache/kps/env.sh`; scripts/kokkos.sh builds 4.6.01, 4.7.1 or 5.0.2; on a cluster: spack)")
find_package(Kokkos QUIET)
if(NOT Kokkos_FOUND)
  message(FATAL_ERROR "kps needs Kokkos 3.4.01 or later and found none: ${_kps_kokkos_hint}")
endif()
if(Kokkos_VERSION VERSION_LESS 3.4.1)
  message(FATAL_ERROR "kps needs Kokkos 3.4.01 or later; the Kokkos found (${Kokkos_DIR}) is ${Kokkos_VERSION}: ${_kps_kokkos_hint}")
endif()
if(KPS_ENABLE_BENCHMARKS OR KPS_ENABLE_TESTS)
  find_package(KokkosKernels QUIET)
  if(NOT KokkosKernels_FOUND)
    message(FATAL_ERROR "kps' benchmarks and tests need Kokkos Kernels (their peers KokkosBlas::dot and ::sum) built "
                        "with the Kokkos found (${Kokkos_DIR}, Kokkos ${Kokkos_VERSION}), and found none: install it "
                        "beside that Kokkos (KokkosKernels_ROOT or CMAKE_PREFIX_PATH), or configure the library alone "
                        "with -DKPS_ENABLE_BENCHMARKS=OFF -DKPS_ENABLE_TESTS=OFF")
  endif()
endif()
# The C++ standard: Kokkos compiles for its own (Kokkos 5 needs C++20); a lower one asked of kps
# would break inside Kokkos' headers.
if(DEFINED Kokkos_CXX_STANDARD AND DEFINED CMAKE_CXX_STANDARD AND CMAKE_CXX_STANDARD LESS Kokkos_CXX_STANDARD)
  message(FATAL_ERROR "CMAKE_CXX_STANDARD=${CMAKE_CXX_STANDARD}, but the Kokkos found (${Kokkos_VERSION}, ${Kokkos_DIR}) "
                      "was built for C++${Kokkos_CXX_STANDARD} and needs at least that: drop CMAKE_CXX_STANDARD or set it "
                      "to ${Kokkos_CXX_STANDARD} or later")
endif()
option(KPS_REQUIRE_CUDA "Stop unless the Kokkos found has the CUDA backend (the cuda preset)" OFF)
option(KPS_REQUIRE_HIP "Stop unless the Kokkos found has the HIP backend (the hip preset)" OFF)
set(_kps_require_CUDA "point Kokkos_ROOT at a CUDA Kokkos (scripts/kokkos.sh VERSION --cuda 90, or spack's kokkos +cuda cuda_arch=90 +wrapper)")
set(_kps_require_HIP "point CMAKE_PREFIX_PATH at a HIP Kokkos (scripts/kokkos.sh 4.7.1 --hip gfx90a --print-prefix, or spack's kokkos +rocm amdgpu_target=gfx90a)")
foreach(_gpu CUDA HIP)
  if(KPS_REQUIRE_${_gpu} AND NOT _gpu IN_LIST Kokkos_DEVICES)
    string(TOLOWER "${_gpu}" _preset)
    string(REPLACE ";" ", " _kps_devices "${Kokkos_DEVICES}")
    message(FATAL_ERROR "the ${_preset} preset needs a Kokkos built with ${_gpu}; the Kokkos found (${Kokkos_DIR}, Kokkos "
                        "${Kokkos_VERSION}) has ${_kps_devices}: ${_kps_require_${_gpu}}")
  endif()
endforeach()

set(KPS_EXECUTION_SPACE Default CACHE STRING
    "Kokkos execution space of kps-bench, the tests and the package: Default (Kokkos::DefaultExecutionSpace), Serial, OpenMP, Threads, Cuda or HIP")
set_property(CACHE KPS_EXECUTION_SPACE PROPERTY STRINGS Default Serial OpenMP Threads Cuda HIP)
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
  foreach(_space Serial OpenMP Threads Cuda HIP)
    string(TOUPPER "${_space}" _uc)
    if(_uc STREQUAL _kps_space_uc)
      set(KPS_EXECUTION_SPACE_NAME ${_space})
    endif()
  endforeach()
  if(NOT KPS_EXECUTION_SPACE_NAME)
    message(FATAL_ERROR "KPS_EXECUTION_SPACE='${KPS_EXECUTION_SPACE}' is not one of Default, Serial, OpenMP, Threads, Cuda, HIP")
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
set(KPS_ENABLE_HIP OFF)
if("HIP" IN_LIST Kokkos_DEVICES)
  set(KPS_ENABLE_HIP ON)
endif()
set(KPS_KOKKOS_LANGUAGE CXX)
if(DEFINED Kokkos_COMPILE_LANGUAGE AND Kokkos_COMPILE_LANGUAGE STREQUAL "CUDA")
  set(KPS_KOKKOS_LANGUAGE CUDA)
  if(Kokkos_VERSION VERSION_GREATER_EQUAL 5 AND CMAKE_VERSION VERSION_LESS 3.25.2)
    message(FATAL_ERROR "the Kokkos found (${Kokkos_VERSION}) compiles CUDA as a CMake language with C++20, which "
                        "needs CMake 3.25.2 or later; this is CMake ${CMAKE_VERSION} (pip install 'cmake>=3.25.2')")
  endif()
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND DEFINED Kokkos_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES ${Kokkos_CUDA_ARCHITECTURES})
  endif()
  enable_language(CUDA)
elseif(KPS_ENABLE_CUDA AND NOT CMAKE_CXX_COMPILER_ID MATCHES "NVIDIA|Clang" AND NOT CMAKE_CXX_COMPILER MATCHES "nvcc_wrapper")
  message(FATAL_ERROR "the Kokkos found (${Kokkos_DIR}) has CUDA, compiled with ${Kokkos_CXX_COMPILER}, and kps is "
                      "configured with ${CMAKE_CXX_COMPILER}, which cannot compile CUDA: configure with "
                      "-DCMAKE_CXX_COMPILER=${Kokkos_CXX_COMPILER} (or CXX=... in the environment of a fresh build folder)")
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
  # Clang's -Wpedantic (hipcc) flags GoogleTest's TYPED_TEST_SUITE for its empty variadic argument.
  target_compile_options(kps_warnings INTERFACE -Wall -Wextra -Wpedantic
                         $<$<CXX_COMPILER_ID:Clang>:-Wno-gnu-zero-variadic-macro-arguments>
                         $<$<BOOL:${KPS_WARNINGS_AS_ERRORS}>:-Werror>)
endif()

function(kps_target target)
  get_target_property(_sources ${target} SOURCES)
  get_target_property(_dir ${target} SOURCE_DIR)
  # Only where Kokkos is compiled as another language (CUDA): an explicit CXX would make CMake
  # pass `-x c++`, which keeps hipcc from compiling the sources as HIP.
  foreach(_src IN LISTS _sources)
    if(NOT KPS_KOKKOS_LANGUAGE STREQUAL "CXX" AND _src MATCHES "\\.(cpp|cc|cxx)$")
      set_source_files_properties(${_src} DIRECTORY ${_dir} PROPERTIES LANGUAGE ${KPS_KOKKOS_LANGUAGE})
    endif()
  endforeach()
  target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:kps_warnings>)
endfunction()
