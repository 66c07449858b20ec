# FindNCCL: NCCL's header and library (the CUDA toolkit image, a Debian/Ubuntu libnccl-dev, or
# the nvidia-nccl PyPI wheel). Hints: NCCL_ROOT, NCCL_INCLUDE_DIR, NCCL_LIBRARY.
#
# gpuspec opens libnccl at run time (collectives/src/nccl_library.cpp) and needs only the header
# to build, so NCCL_FOUND means "nccl.h found". Defines NCCL_FOUND, NCCL_VERSION (the header's),
# NCCL_LIBRARY (the library when there is one: the loader's last fallback), the target
# NCCL::headers (include directory only), and NCCL::nccl when the library was found too.

set(_nccl_hints ${NCCL_ROOT} $ENV{NCCL_ROOT} /usr/local/cuda /usr)
if(CUDAToolkit_LIBRARY_ROOT)
  list(APPEND _nccl_hints ${CUDAToolkit_LIBRARY_ROOT})
endif()

find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_hints} ${CUDAToolkit_INCLUDE_DIRS} PATH_SUFFIXES include)
find_library(NCCL_LIBRARY NAMES nccl HINTS ${_nccl_hints} ${CUDAToolkit_LIBRARY_DIR}
             PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu lib/aarch64-linux-gnu)

if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
  foreach(_part MAJOR MINOR PATCH)
    string(REGEX MATCH "NCCL_${_part} ([0-9]+)" _m "${_nccl_lines}")
    set(_nccl_${_part} "${CMAKE_MATCH_1}")
  endforeach()
  set(NCCL_VERSION "${_nccl_MAJOR}.${_nccl_MINOR}.${_nccl_PATCH}")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL REQUIRED_VARS NCCL_INCLUDE_DIR VERSION_VAR NCCL_VERSION)

if(NCCL_FOUND AND NOT TARGET NCCL::headers)
  add_library(NCCL::headers INTERFACE IMPORTED GLOBAL) # tests/fakes builds a fake libnccl
  set_target_properties(NCCL::headers PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
endif()
if(NCCL_FOUND AND NCCL_LIBRARY AND NOT TARGET NCCL::nccl)
  add_library(NCCL::nccl UNKNOWN IMPORTED)
  set_target_properties(NCCL::nccl PROPERTIES IMPORTED_LOCATION "${NCCL_LIBRARY}"
                                              INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
endif()
