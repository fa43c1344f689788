# Writes OUT (a header defining KPS_GIT_REVISION) from `git describe --always --dirty` of SRC,
# run at every build (not only at configure time) so that a binary names the tree it was built
# from, edits included; the file is rewritten only when the revision changes.
set(revision "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --abbrev=12 WORKING_DIRECTORY ${SRC}
                  OUTPUT_VARIABLE described OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(rc EQUAL 0 AND described)
    set(revision "${described}")
  endif()
endif()
set(text "#define KPS_GIT_REVISION \"${revision}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE "${OUT}" "${text}")
endif()
