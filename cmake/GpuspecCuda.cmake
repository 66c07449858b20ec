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
