# ctest -P script: a program refuses bad input as kps promises: exit status RC (default 2) and,
# on stderr, a line that contains ERROR (its first line naming the program), nothing on stdout.
#   EXE    the program;  ARGS  its arguments, separated by '|';  ENV  VAR=value pairs, '|'-separated
string(REPLACE "|" ";" args "${ARGS}")
if(NOT DEFINED RC)
  set(RC 2)
endif()
set(envs "")
if(DEFINED ENV_VARS AND NOT ENV_VARS STREQUAL "")
  string(REPLACE "|" ";" envs "${ENV_VARS}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env ${envs} "${EXE}" ${args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
get_filename_component(name "${EXE}" NAME)
if(NOT rc EQUAL RC)
  message(FATAL_ERROR "${name} ${ARGS}: exit status ${rc}, expected ${RC}\nstdout: ${out}\nstderr: ${err}")
endif()
if(NOT out STREQUAL "")
  message(FATAL_ERROR "${name} ${ARGS}: expected nothing on stdout\nstdout: ${out}")
endif()
string(FIND "${err}" "${ERROR}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${name} ${ARGS}: the error does not say '${ERROR}'\nstderr: ${err}")
endif()
