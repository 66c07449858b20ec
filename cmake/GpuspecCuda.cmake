# Enables CUDA with an architecture list that fits the toolkit.
#
# Default: 75;80;86;89;90 (Turing to Hopper) and, with CUDA 12.8 or newer, 100;120 (Blackwell:
# B200/B300, RTX 50 and RTX PRO). CUDA 13 removed sm_70 (Volta), so a V100 needs a CUDA 12
# toolkit and -DCMAKE_CUDA_ARCHITECTURES="70;75;80;86;89;90". The list is overridable with the
# usual CMAKE_CUDA_ARCHITECTURES cache variable, including CMake's all, all-major and native;
# whether a value also builds the sm_90a (wgmma), sm_100f (tcgen05) and sm_120f (mma.sync
# kind::f8f6f4) kernels is decided in GpuspecCudaArchitectures.cmake (all and all-major do;
# native does for the GPUs it finds, and warns on a machine without a Hopper GPU).

# nvcc is often installed in /usr/local/cuda without being on PATH.
if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc CACHE FILEPATH "CUDA compiler")
endif()

include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  message(FATAL_ERROR
    "GPUSPEC_CUDA is ON but no CUDA compiler was found. Install the CUDA toolkit "
    "(scripts/install-deps.sh says how), point CMAKE_CUDA_COMPILER at nvcc, or configure "
    "with -DGPUSPEC_CUDA=OFF (the host-only preset) to build the report tools and host checks.")
endif()

# -DGPUSPEC_CUDA_ARCHITECTURES_OF_THIS_MACHINE=ON: build only for the GPUs this machine has (a
# server building for itself: one architecture instead of seven, the device code's compile time
# divided accordingly), as nvidia-smi reports their compute capabilities; 9.0 gives 90, which
# also builds the sm_90a kernels. With no GPU or no nvidia-smi it falls back to the default list
# below, saying so. Unlike CMake's native, it never fails on a machine without a GPU.
option(GPUSPEC_CUDA_ARCHITECTURES_OF_THIS_MACHINE
       "Build the device code for this machine's GPUs only (nvidia-smi), else the default list" OFF)
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND GPUSPEC_CUDA_ARCHITECTURES_OF_THIS_MACHINE)
  find_program(GPUSPEC_NVIDIA_SMI nvidia-smi)
  set(_gpuspec_local_archs "")
  if(GPUSPEC_NVIDIA_SMI)
    execute_process(COMMAND "${GPUSPEC_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE _gpuspec_caps ERROR_QUIET RESULT_VARIABLE _gpuspec_smi_rc)
    if(_gpuspec_smi_rc EQUAL 0)
      string(REGEX MATCHALL "[0-9]+\\.[0-9]+" _gpuspec_caps "${_gpuspec_caps}")
      foreach(_cap IN LISTS _gpuspec_caps)
        string(REPLACE "." "" _cap "${_cap}")
        list(APPEND _gpuspec_local_archs ${_cap})
      endforeach()
      list(REMOVE_DUPLICATES _gpuspec_local_archs)
    endif()
  endif()
  if(_gpuspec_local_archs)
    message(STATUS "gpuspec: building for this machine's GPUs: ${_gpuspec_local_archs}")
    set(CMAKE_CUDA_ARCHITECTURES ${_gpuspec_local_archs} CACHE STRING
        "CUDA architectures to build for")
  else()
    message(STATUS "gpuspec: GPUSPEC_CUDA_ARCHITECTURES_OF_THIS_MACHINE found no GPU "
                   "(nvidia-smi): building the default list")
  endif()
endif()

if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  # The default depends on the toolkit (gpuspec_default_cuda_architectures), which CMake only
  # reports after enable_language: ask nvcc itself.
  execute_process(COMMAND "${CMAKE_CUDA_COMPILER}" --version OUTPUT_VARIABLE _gpuspec_nvcc_version
                  ERROR_QUIET)
  string(REGEX MATCH "release ([0-9]+\\.[0-9]+)" _gpuspec_match "${_gpuspec_nvcc_version}")
  include(GpuspecCudaArchitectures)
  gpuspec_default_cuda_architectures("${CMAKE_MATCH_1}" _gpuspec_default_archs)
  set(CMAKE_CUDA_ARCHITECTURES ${_gpuspec_default_archs} CACHE STRING
      "CUDA architectures to build for")
endif()

enable_language(CUDA)
# CMake 3.25 knows no flag for CUDA_STANDARD 20 with nvcc (3.26 does) and then refuses to
# generate; nvcc 12 and 13 take -std=c++20.
if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()
set(CMAKE_CUDA_STANDARD 20)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
set(CMAKE_CUDA_EXTENSIONS OFF)

if(CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 13.0 AND "70" IN_LIST CMAKE_CUDA_ARCHITECTURES)
  message(FATAL_ERROR
    "CUDA ${CMAKE_CUDA_COMPILER_VERSION} cannot build sm_70 (Volta): CUDA 13 dropped it. "
    "Remove 70 from CMAKE_CUDA_ARCHITECTURES, or build with a CUDA 12 toolkit for a V100.")
endif()

find_package(CUDAToolkit REQUIRED)
message(STATUS "gpuspec: CUDA ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES}")
