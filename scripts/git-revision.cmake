# Run at every build (cmake -P, from CMakeLists.txt): writes OUTPUT, a header defining
# SC_GIT_REVISION as `git describe --always --dirty` says now, or as REVISION when one was
# given (a copy of the source without .git). The header is rewritten only when the
# revision changed, so that only what includes it is compiled again.
cmake_minimum_required(VERSION 3.24)
set(revision "unknown")
if(REVISION)
  set(revision "${REVISION}")
elseif(GIT_EXECUTABLE AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" describe --always --dirty WORKING_DIRECTORY "${SOURCE_DIR}"
                  OUTPUT_VARIABLE described OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE status)
  if(status EQUAL 0)
    set(revision "${described}")
  endif()
endif()
set(header "#pragma once\n#define SC_GIT_REVISION \"${revision}\"\n")
set(written "")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" written)
endif()
if(NOT written STREQUAL header)
  file(WRITE "${OUTPUT}" "${header}")
endif()
