# The CCCL (CUB, Thrust, libcu++) that the whole project compiles against, chosen with
# -DSC_CCCL=...:
#   toolkit  the CUDA toolkit's own (the default; nothing is added)
#   newest   the newest nvidia-cuda-cccl wheel from PyPI, unpacked by
#            `scripts/setup --cccl newest BUILD/cccl-newest` into BUILD/cccl-newest/include
#            (run here when that folder is missing; run it again to refresh it)
#   DIR      a folder holding cub/, thrust/ and cuda/ (absolute, or relative to the source)
# Any but `toolkit` goes first on the include path of every C++ and CUDA compile of this
# directory and below (library, driver, tests), ahead of the toolkit's, and is handed to a
# course submission's build (SC_CCCL_INCLUDE). A CCCL that nvcc cannot compile stops the
# configuration with one line naming its version, nvcc's and the first error (each error
# text starts with a space, which keeps CMake from wrapping it).
set(SC_CCCL toolkit CACHE STRING
    "The CCCL to compile against: toolkit (the CUDA toolkit's), newest (the newest nvidia-cuda-cccl wheel, fetched by scripts/setup --cccl newest) or a folder holding cub/, thrust/ and cuda/")
set(SC_CCCL_INCLUDE "")
if(SC_CCCL STREQUAL "toolkit" OR SC_CCCL STREQUAL "")
  message(STATUS "CCCL: the CUDA toolkit's (SC_CCCL=toolkit)")
  return()
endif()

if(SC_CCCL STREQUAL "newest")
  set(sc_cccl_cache ${CMAKE_BINARY_DIR}/cccl-newest)
  set(SC_CCCL_INCLUDE ${sc_cccl_cache}/include)
  if(NOT EXISTS ${SC_CCCL_INCLUDE}/cub/cub.cuh)
    message(STATUS "CCCL: fetching the newest nvidia-cuda-cccl wheel into ${sc_cccl_cache}")
    execute_process(COMMAND ${PROJECT_SOURCE_DIR}/scripts/setup --cccl newest ${sc_cccl_cache}
                    RESULT_VARIABLE sc_status OUTPUT_QUIET)
    if(NOT sc_status EQUAL 0)
      message(FATAL_ERROR " SC_CCCL=newest: scripts/setup --cccl newest ${sc_cccl_cache} failed (it needs pip and "
                          "PyPI); give -DSC_CCCL=toolkit, or a folder holding cub/, thrust/ and cuda/")
    endif()
  endif()
else()
  get_filename_component(SC_CCCL_INCLUDE "${SC_CCCL}" ABSOLUTE BASE_DIR ${PROJECT_SOURCE_DIR})
endif()

foreach(sc_header cub/cub.cuh thrust/version.h cuda/std/__cccl/version.h)
  if(NOT EXISTS ${SC_CCCL_INCLUDE}/${sc_header})
    message(FATAL_ERROR " SC_CCCL=${SC_CCCL}: ${SC_CCCL_INCLUDE} has no ${sc_header}; accepted: toolkit, newest, "
                        "or a folder holding cub/, thrust/ and cuda/ (a CCCL install's include/)")
  endif()
endforeach()

# CCCL_VERSION is MMMmmmppp.
file(STRINGS ${SC_CCCL_INCLUDE}/cuda/std/__cccl/version.h sc_version_line REGEX "^#define CCCL_VERSION [0-9]+")
string(REGEX REPLACE ".* ([0-9]+).*" "\\1" sc_version "${sc_version_line}")
math(EXPR sc_major "${sc_version} / 1000000")
math(EXPR sc_minor "${sc_version} / 1000 % 1000")
math(EXPR sc_patch "${sc_version} % 1000")
set(sc_cccl_version "${sc_major}.${sc_minor}.${sc_patch}")
string(REGEX MATCH "^[0-9]+\\.[0-9]+" sc_nvcc_version "${CMAKE_CUDA_COMPILER_VERSION}")

# Whether nvcc compiles the CCCL's headers: checked once per folder, version and nvcc.
set(sc_check_key "${SC_CCCL_INCLUDE}|${sc_cccl_version}|${CMAKE_CUDA_COMPILER}|${CMAKE_CUDA_COMPILER_VERSION}")
if(NOT SC_CCCL_CHECKED STREQUAL sc_check_key)
  set(sc_check_source ${CMAKE_BINARY_DIR}/cccl-check/check.cu)
  file(WRITE ${sc_check_source} "#include <cub/cub.cuh>\n#include <thrust/version.h>\n"
                                "int main() { return CUB_VERSION == THRUST_VERSION ? 0 : 1; }\n")
  # One architecture is enough for the headers: the build's first.
  list(GET CMAKE_CUDA_ARCHITECTURES 0 sc_check_architecture)
  try_compile(sc_cccl_compiles ${CMAKE_BINARY_DIR}/cccl-check/build SOURCES ${sc_check_source}
              CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${SC_CCCL_INCLUDE}"
                          "-DCMAKE_CUDA_ARCHITECTURES=${sc_check_architecture}"
              CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON
              OUTPUT_VARIABLE sc_check_output)
  if(NOT sc_cccl_compiles)
    string(REGEX MATCH "[^\n]*: (fatal )?error[^\n]*" sc_first_error "${sc_check_output}")
    if(NOT sc_first_error)
      string(REGEX MATCH "[^\n]*[Ee]rror[^\n]*" sc_first_error "${sc_check_output}")
    endif()
    string(STRIP "${sc_first_error}" sc_first_error)
    unset(sc_cccl_compiles CACHE)
    message(FATAL_ERROR " SC_CCCL=${SC_CCCL}: CCCL ${sc_cccl_version} does not compile with nvcc ${sc_nvcc_version}: "
                        "${sc_first_error}")
  endif()
  unset(sc_cccl_compiles CACHE)
  set(SC_CCCL_CHECKED "${sc_check_key}" CACHE INTERNAL "The CCCL folder, version and nvcc that compiled together")
endif()

message(STATUS "CCCL: ${sc_cccl_version} from ${SC_CCCL_INCLUDE} (SC_CCCL=${SC_CCCL})")
include_directories(BEFORE ${SC_CCCL_INCLUDE})
