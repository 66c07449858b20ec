# Whether the build holds the sm_90a (wgmma) kernels, decided from CMAKE_CUDA_ARCHITECTURES.
#
# The wgmma kernels (kernels/src_sm90a) need the architecture-specific target sm_90a, which no
# list value names by itself: nvcc's all and all-major build sm_90 but never sm_90a, and native
# resolves to 90 on a Hopper machine. So kernels/CMakeLists.txt builds them, for 90a alone, beside
# whatever the list says, whenever the list reaches compute capability 9.0:
#
#   value                           sm_90a kernels
#   a list holding 90 or 90a        built (suffixes -real and -virtual ignored)
#   all, all-major                  built (both include 90 with the CUDA 12 and 13 toolkits
#                                   gpuspec supports; CMake passes -arch=all / all-major to nvcc)
#   native                          built when CMake detected a GPU of compute capability 9.0
#                                   (CMAKE_CUDA_ARCHITECTURES_NATIVE); otherwise not, with a
#                                   warning: a Hopper GPU would then be measured with mma.sync
#   any other list                  not built (tensor.mma.* on Hopper say so in their results)
#
# Without the kernels, tensor.mma.* measure Hopper with mma.sync, which reaches about 63% of its
# dense Tensor Core peak: "without [wgmma] the GPU seems to top out around 63% of its peak
# utilization" (B. Spector, A. Singhal, S. Arora, C. Ré, "GPUs Go Brrr", Hazy Research, 12 May
# 2024, https://hazyresearch.stanford.edu/blog/2024-05-12-tk), a published measurement, not ours;
# docs/measurement.md says the same. tests/gpu/cuda_architectures_test.cmake tests this file.

# gpuspec_sm90a_plan(<archs> <native> <prefix>)
#   <archs>   the value of CMAKE_CUDA_ARCHITECTURES (a list, or all, all-major, native)
#   <native>  what CMake detected for native (CMAKE_CUDA_ARCHITECTURES_NATIVE, e.g. "90-real";
#             empty when it detected nothing or was not asked)
# Sets in the caller's scope:
#   <prefix>_SM90A    ON or OFF
#   <prefix>_REASON   why, in a few words (for the status line)
#   <prefix>_WARNING  a warning to print, or empty
function(gpuspec_sm90a_plan archs native prefix)
  set(_list ${archs})
  list(TRANSFORM _list REPLACE "-(real|virtual)$" "")
  set(_native ${native})
  list(TRANSFORM _native REPLACE "-(real|virtual)$" "")
  set(_warning "")
  if(_list STREQUAL "all" OR _list STREQUAL "all-major")
    set(_sm90a ON)
    set(_reason "${_list} includes 90")
  elseif(_list STREQUAL "native")
    if("90" IN_LIST _native OR "90a" IN_LIST _native)
      set(_sm90a ON)
      set(_reason "native found compute capability 9.0 (${native})")
    else()
      set(_sm90a OFF)
      if(_native)
        set(_found "found ${native}, no GPU of compute capability 9.0")
      else()
        set(_found "found no GPU")
      endif()
      set(_reason "native ${_found}")
      string(CONCAT _warning
        "CMAKE_CUDA_ARCHITECTURES=native ${_found} on this machine, so the sm_90a (wgmma) "
        "kernels are not built. A Hopper GPU (H100, H200) running this build would have "
        "tensor.mma.* measured with mma.sync, which reaches about 63% of Hopper's dense Tensor "
        "Core peak (Hazy Research, \"GPUs Go Brrr\", 2024; docs/measurement.md), and "
        "tensor.mma.fp8 skipped. To build them, list the architectures with 90 among them, "
        "e.g. -DCMAKE_CUDA_ARCHITECTURES=\"86;90\", or use all-major.")
    endif()
  elseif("90" IN_LIST _list OR "90a" IN_LIST _list)
    set(_sm90a ON)
    set(_reason "the list holds 90")
  else()
    set(_sm90a OFF)
    set(_reason "the list has no 90")
  endif()
  set(${prefix}_SM90A ${_sm90a} PARENT_SCOPE)
  set(${prefix}_REASON "${_reason}" PARENT_SCOPE)
  set(${prefix}_WARNING "${_warning}" PARENT_SCOPE)
endfunction()

# Blackwell's architecture-specific kernels, built beside the list as the sm_90a ones are:
#
#   kernels              target   built when the list reaches                  runs on
#   src_sm100f (tcgen05) sm_100f  10.x: holds 100 or 103 (or 100a, 100f, ...)  10.0, 10.3
#   src_sm120f (mma.sync sm_120f  12.x: holds 120 or 121 (or 120a, 120f, ...)  12.0, 12.1
#     kind::f8f6f4)
#
# The family-specific targets (the f suffix, CUDA 12.9 and newer) give one cubin per family:
# B200 (10.0) and B300 (10.3) run the same sm_100f code, RTX 5090 / RTX PRO 6000 (12.0) and
# GB10 (12.1) the same sm_120f code; tcgen05.mma kind::f16, tf32 and f8f6f4 and mma.sync
# kind::f8f6f4 exist on those targets (PTX ISA 8.8). So one extra compile per family, whichever
# of its members the list names, and only of the one file that needs it. all and all-major build
# both (CUDA 12.9 and 13 include 100 and 120 in each); native builds the family of the GPUs it
# found. A toolkit older than 12.9 has no f targets: the kernels are not built, and the plan says
# so (tensor.mma.* on those GPUs then say why in their results).

# gpuspec_family_plan(<archs> <native> <cuda_version> <family> <prefix>)
#   <family>  100 (the 10.x family, sm_100f) or 120 (the 12.x family, sm_120f)
# Sets in the caller's scope <prefix>_BUILT (ON or OFF) and <prefix>_REASON.
function(gpuspec_family_plan archs native cuda_version family prefix)
  if(family STREQUAL "100")
    set(_members 100 103)
  else()
    set(_members 120 121)
  endif()
  set(_list ${archs})
  list(TRANSFORM _list REPLACE "-(real|virtual)$" "")
  list(TRANSFORM _list REPLACE "[af]$" "")
  set(_native ${native})
  list(TRANSFORM _native REPLACE "-(real|virtual)$" "")
  list(TRANSFORM _native REPLACE "[af]$" "")
  set(_hit "")
  if(_list STREQUAL "all" OR _list STREQUAL "all-major")
    set(_hit "${_list} includes ${family}")
  elseif(_list STREQUAL "native")
    foreach(_m IN LISTS _members)
      if(_m IN_LIST _native)
        set(_hit "native found compute capability ${_m}")
      endif()
    endforeach()
  else()
    foreach(_m IN LISTS _members)
      if(_m IN_LIST _list)
        set(_hit "the list holds ${_m}")
      endif()
    endforeach()
  endif()
  if(NOT _hit)
    set(_built OFF)
    string(REPLACE ";" " or " _names "${_members}")
    set(_reason "the list reaches no ${_names}")
  elseif(cuda_version VERSION_LESS 12.9)
    set(_built OFF)
    set(_reason "${_hit}, but CUDA ${cuda_version} has no family-specific targets (12.9 does)")
  else()
    set(_built ON)
    set(_reason "${_hit}")
  endif()
  set(${prefix}_BUILT ${_built} PARENT_SCOPE)
  set(${prefix}_REASON "${_reason}" PARENT_SCOPE)
endfunction()

# gpuspec_default_cuda_architectures(<cuda_version> <out>)
#   The default list for a toolkit: 75;80;86;89;90, and 100;120 (B200/B300 and RTX 50 / RTX PRO
#   Blackwell) from CUDA 12.8, the first toolkit that has them. 103 is left out: sm_100 code runs
#   on 10.3 (same major version), and the tcgen05 kernels' sm_100f cubin covers it, so a separate
#   sm_103 compile of every kernel would buy nothing measurable (docs/measurement.md).
function(gpuspec_default_cuda_architectures cuda_version out)
  set(_archs 75 80 86 89 90)
  if(cuda_version VERSION_GREATER_EQUAL 12.8)
    list(APPEND _archs 100 120)
  endif()
  set(${out} ${_archs} PARENT_SCOPE)
endfunction()
