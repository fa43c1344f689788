# How kps compiles against the Kokkos it found.
# - KPS_ENABLE_CUDA: Kokkos has the CUDA backend; the CUDA backend folder (src/kps/cuda) is built.
# - Kokkos installed with CUDA as a CMake language (Kokkos_COMPILE_LANGUAGE == CUDA): every
#   source that includes Kokkos is compiled as CUDA. With nvcc_wrapper as the C++ compiler
#   (spack's default) nothing is needed.
# - kps_target(<target>): applies both, plus kps' warning flags, to one target.
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
