# Builds a course submission apart from the project: cmake -P submission/build.cmake with
#   SUBMISSION_DIR   the course project's root (holding stream_compaction/)
#   BINARY_DIR       where it is built; the library lands in BINARY_DIR/libsc_submission.so
#   GENERATOR, CUDA_COMPILER, CUDA_HOST_COMPILER, CUDA_ARCHITECTURES (',' for ';'),
#   BUILD_TYPE, JOBS, CCCL_INCLUDE (empty: the toolkit's CCCL) the project's own settings, handed on
#   STRICT           exit 1 when the submission does not build (the tests); otherwise 0
#
# A submission that does not compile never fails the project's build (the script ends
# with status 0; `return()` ends it early): the compiler's
# first errors, with file and line, are printed and written to BINARY_DIR/errors.txt, and
# the library is removed, so that the program reports the errors instead of running a
# stale build. BINARY_DIR/submission.txt names the submission for the program's output.
# The build is incremental: configured once per submission and settings, then rebuilt by
# the generator's own dependency tracking.
cmake_minimum_required(VERSION 3.24)

set(library ${BINARY_DIR}/libsc_submission.so)
set(errors ${BINARY_DIR}/errors.txt)
set(tree ${BINARY_DIR}/build)
file(MAKE_DIRECTORY ${BINARY_DIR})
file(WRITE ${BINARY_DIR}/submission.txt "${SUBMISSION_DIR}")
string(REPLACE "," ";" CUDA_ARCHITECTURES "${CUDA_ARCHITECTURES}")
if(NOT JOBS)
  cmake_host_system_information(RESULT JOBS QUERY NUMBER_OF_LOGICAL_CORES)
endif()
if(NOT BUILD_TYPE)
  set(BUILD_TYPE Release)
endif()

# The first errors in a compiler's or linker's output: each error line (nvcc's
# "file(line): error: ...", GCC's "file:line:col: error: ...", the linker's undefined
# references) with the source and caret lines that follow it; the end of the output when
# none is found.
function(first_errors output result)
  string(REPLACE ";" "<sc-semicolon>" output "${output}")
  string(REPLACE "\n" ";" lines "${output}")
  set(kept "")
  set(found 0)
  set(context 0)
  foreach(line IN LISTS lines)
    if(line MATCHES "^FAILED: |^ninja: |^\\[[0-9]+/[0-9]+\\] | -o [^ ]+\\.o |^make(\\[[0-9]+\\])?: ")
      set(context 0)
      continue()
    endif()
    if(line MATCHES "(: (fatal )?error|error:|undefined reference|multiple definition|CMake Error)")
      if(found EQUAL 10)
        break()
      endif()
      math(EXPR found "${found} + 1")
      list(APPEND kept "${line}")
      set(context 3)
    elseif(context GREATER 0 AND line MATCHES "^[ \t]")
      list(APPEND kept "${line}")
      math(EXPR context "${context} - 1")
    else()
      set(context 0)
    endif()
  endforeach()
  if(found EQUAL 0)
    list(LENGTH lines count)
    math(EXPR start "${count} - 30")
    if(start LESS 0)
      set(start 0)
    endif()
    list(SUBLIST lines ${start} -1 kept)
  endif()
  string(REPLACE ";" "\n" kept "${kept}")
  string(REPLACE "<sc-semicolon>" ";" kept "${kept}")
  set(${result} "${kept}" PARENT_SCOPE)
endfunction()

# Records a failure and ends the script (exit status 1 only when STRICT).
function(fail why)
  file(WRITE ${errors} "${why}\n")
  file(REMOVE ${library})
  message(NOTICE "The course submission in ${SUBMISSION_DIR} does not build; its student-* back ends offer "
                 "nothing until it does. First errors:\n${why}")
  if(STRICT)
    message(FATAL_ERROR "the submission did not build")
  endif()
endfunction()

macro(run_step)
  execute_process(${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
endmacro()

if(NOT IS_DIRECTORY "${SUBMISSION_DIR}/stream_compaction")
  fail("${SUBMISSION_DIR} has no stream_compaction/ folder: give the root of a course project")
  return()
endif()

# Configure when the tree is new or the submission or the settings changed.
set(settings "${SUBMISSION_DIR}|${GENERATOR}|${CUDA_COMPILER}|${CUDA_HOST_COMPILER}|${CUDA_ARCHITECTURES}|${BUILD_TYPE}|${CCCL_INCLUDE}")
set(stamp ${BINARY_DIR}/settings.txt)
set(configured "")
if(EXISTS ${stamp} AND EXISTS ${tree}/CMakeCache.txt)
  file(READ ${stamp} configured)
endif()
if(NOT configured STREQUAL settings)
  file(REMOVE_RECURSE ${tree})
  file(REMOVE ${stamp})
  set(host_compiler "")
  if(CUDA_HOST_COMPILER)
    set(host_compiler -DCMAKE_CUDA_HOST_COMPILER=${CUDA_HOST_COMPILER})
  endif()
  run_step(COMMAND ${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR} -B ${tree} -G ${GENERATOR}
           -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER} ${host_compiler}
           "-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}" -DSC_SUBMISSION_DIR=${SUBMISSION_DIR}
           -DSC_SUBMISSION_OUTPUT=${BINARY_DIR} -DSC_CCCL_INCLUDE=${CCCL_INCLUDE})
  if(NOT status EQUAL 0)
    first_errors("${output}" why)
    fail("${why}")
    return()
  endif()
  file(WRITE ${stamp} "${settings}")
endif()

run_step(COMMAND ${CMAKE_COMMAND} --build ${tree} -j ${JOBS})
if(NOT status EQUAL 0)
  first_errors("${output}" why)
  fail("${why}")
  return()
endif()
file(REMOVE ${errors})
