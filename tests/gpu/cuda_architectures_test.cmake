# Host test of cmake/GpuspecCudaArchitectures.cmake, run as a CMake script (ctest:
# cmake.sm90a_plan): which CMAKE_CUDA_ARCHITECTURES values build the sm_90a (wgmma) kernels, and
# which warn; which build the Blackwell family kernels (sm_100f, sm_120f); the default list.
# Usage: cmake -DGPUSPEC_SOURCE_DIR=<checkout> -P cuda_architectures_test.cmake

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

# Blackwell's family-specific kernels (gpuspec_family_plan): sm_100f for 10.x, sm_120f for 12.x.
# expect_family(<archs> <native> <cuda> <family> <ON|OFF>)
function(expect_family archs native cuda family built)
  gpuspec_family_plan("${archs}" "${native}" "${cuda}" ${family} _f)
  if(NOT _f_BUILT STREQUAL built OR NOT _f_REASON)
    message(SEND_ERROR "archs '${archs}', native '${native}', CUDA ${cuda}, family ${family}: got "
                       "${_f_BUILT} ('${_f_REASON}'); expected ${built} with a reason")
  endif()
endfunction()

# The default list of CUDA 13 builds both; the old default, neither.
expect_family("75;80;86;89;90;100;120" "" 13.0 100 ON)
expect_family("75;80;86;89;90;100;120" "" 13.0 120 ON)
expect_family("75;80;86;89;90" "" 13.0 100 OFF)
expect_family("75;80;86;89;90" "" 13.0 120 OFF)
# Any member of the family, with or without suffixes, builds the family's one cubin.
expect_family("103" "" 13.0 100 ON)
expect_family("103-real" "" 13.0 100 ON)
expect_family("100a" "" 13.0 100 ON)
expect_family("100f-real" "" 13.0 100 ON)
expect_family("121" "" 13.0 120 ON)
expect_family("120a-virtual" "" 13.0 120 ON)
expect_family("100" "" 13.0 120 OFF)
expect_family("120" "" 13.0 100 OFF)
expect_family("110" "" 13.0 100 OFF) # Thor (11.0) is not of the 10.x family
expect_family("1000" "" 13.0 100 OFF)
# all, all-major; native by what it found.
expect_family("all" "" 13.0 100 ON)
expect_family("all-major" "" 13.0 120 ON)
expect_family("native" "100-real" 13.0 100 ON)
expect_family("native" "100-real" 13.0 120 OFF)
expect_family("native" "90-real;120-real" 13.0 120 ON)
expect_family("native" "" 13.0 100 OFF)
# Toolkits before 12.9 have no family-specific targets.
expect_family("100;120" "" 12.8 100 OFF)
expect_family("100;120" "" 12.8 120 OFF)
expect_family("100;120" "" 12.9 100 ON)

# The default architecture list follows the toolkit: Blackwell from CUDA 12.8.
foreach(_case "13.0|75;80;86;89;90;100;120" "12.8|75;80;86;89;90;100;120"
              "12.6|75;80;86;89;90" "12.0|75;80;86;89;90")
  string(REPLACE "|" ";" _pair "${_case}")
  list(GET _pair 0 _cuda)
  list(SUBLIST _pair 1 -1 _want)
  gpuspec_default_cuda_architectures(${_cuda} _got)
  if(NOT "${_got}" STREQUAL "${_want}")
    message(SEND_ERROR "default architectures for CUDA ${_cuda}: got '${_got}', want '${_want}'")
  endif()
endforeach()
