# Host test of cmake/GpuspecCudaArchitectures.cmake, run as a CMake script (ctest:
# cmake.sm90a_plan): which CMAKE_CUDA_ARCHITECTURES values build the sm_90a (wgmma) kernels, and
# which warn. Usage: cmake -DGPUSPEC_SOURCE_DIR=<checkout> -P cuda_architectures_test.cmake

cmake_minimum_required(VERSION 3.25) # the project's policies (IN_LIST, quoted arguments)
list(APPEND CMAKE_MODULE_PATH "${GPUSPEC_SOURCE_DIR}/cmake")
include(GpuspecCudaArchitectures)

# expect(<archs> <native> <ON|OFF> <WARN|NOWARN>)
function(expect archs native sm90a warn)
  gpuspec_sm90a_plan("${archs}" "${native}" _t)
  if(warn STREQUAL "WARN")
    set(_want_warning TRUE)
  else()
    set(_want_warning FALSE)
  endif()
  if(_t_WARNING)
    set(_got_warning TRUE)
  else()
    set(_got_warning FALSE)
  endif()
  if(NOT _t_SM90A STREQUAL sm90a OR NOT _got_warning STREQUAL _want_warning)
    message(SEND_ERROR "archs '${archs}', native '${native}': got sm_90a ${_t_SM90A}, warning "
                       "'${_t_WARNING}'; expected ${sm90a}, ${warn}")
  endif()
  if(_want_warning)
    # The warning says what it costs and where the figure comes from.
    foreach(_needle "mma.sync" "63%" "GPUs Go Brrr" "90")
      string(FIND "${_t_WARNING}" "${_needle}" _at)
      if(_at EQUAL -1)
        message(SEND_ERROR "archs '${archs}': the warning lacks '${_needle}': ${_t_WARNING}")
      endif()
    endforeach()
  endif()
endfunction()

# The default list and explicit lists.
expect("75;80;86;89;90" "" ON NOWARN)
expect("90" "" ON NOWARN)
expect("90-real" "" ON NOWARN)
expect("80;90-virtual" "" ON NOWARN)
expect("90a" "" ON NOWARN)
expect("90a-real" "" ON NOWARN)
expect("75;80;86;89" "" OFF NOWARN)
expect("100;120" "" OFF NOWARN)
expect("900" "" OFF NOWARN)
# all and all-major include 90 (CUDA 12 and 13).
expect("all" "" ON NOWARN)
expect("all-major" "" ON NOWARN)
# native: built where CMake found a 9.0 GPU, else not, with the warning.
expect("native" "90-real" ON NOWARN)
expect("native" "80-real;90-real" ON NOWARN)
expect("native" "86-real" OFF WARN)
expect("native" "100-real;120-real" OFF WARN)
expect("native" "" OFF WARN)
