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
