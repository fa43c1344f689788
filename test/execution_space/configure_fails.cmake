# ctest -P script: configures kps (SOURCE_DIR) in a fresh WORK_DIR with KPS_EXECUTION_SPACE=SPACE
# against the Kokkos of the build under test (Kokkos_DIR, KokkosKernels_DIR, CXX), and checks
# that configuring fails with an error matching the regular expression EXPECT. EXTRA: more -D
# options, '|'-separated (a preset's, such as -DKPS_REQUIRE_HIP=ON).
set(extra "")
if(DEFINED EXTRA AND NOT EXTRA STREQUAL "")
  string(REPLACE "|" ";" extra "${EXTRA}")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${WORK_DIR}" "-DKPS_EXECUTION_SPACE=${SPACE}"
                        "-DCMAKE_CXX_COMPILER=${CXX}" "-DKokkos_DIR=${Kokkos_DIR}" "-DKokkosKernels_DIR=${KokkosKernels_DIR}"
                        -DKPS_ENABLE_TESTS=OFF -DKPS_ENABLE_BENCHMARKS=OFF ${extra}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(REMOVE_RECURSE "${WORK_DIR}")
if(rc EQUAL 0)
  message(FATAL_ERROR "configuring kps with KPS_EXECUTION_SPACE=${SPACE} succeeded; expected an error\n${out}")
endif()
# CMake wraps long messages: compare with the line breaks and indentation taken out.
string(REGEX REPLACE "\n *" " " flat "${err}")
if(NOT flat MATCHES "${EXPECT}")
  message(FATAL_ERROR "configuring kps with KPS_EXECUTION_SPACE=${SPACE} failed, but without the expected error "
                      "'${EXPECT}':\n${err}")
endif()
message(STATUS "KPS_EXECUTION_SPACE=${SPACE} is refused as expected")
