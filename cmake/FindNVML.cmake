# FindNVML: the NVML header, nothing else.
#
# gpuspec opens libnvidia-ml.so.1 at run time (dlopen), so a binary starts on a machine with no
# driver and reports that plainly. Only nvml.h is needed at build time. It is searched in:
#   NVML_INCLUDE_DIR (cache), .deps/python of the checkout (where scripts/install-deps.sh puts
#   the `nvidia-nvml-dev` PyPI package), the CUDA toolkit's include folder, and that package in
#   Python's site-packages (nvidia/cu13|cu12/include).
# Defines NVML_FOUND, NVML_INCLUDE_DIR and the interface target NVML::headers.

set(_nvml_hints "")
if(CUDAToolkit_INCLUDE_DIRS)
  list(APPEND _nvml_hints ${CUDAToolkit_INCLUDE_DIRS})
endif()
# scripts/install-deps.sh puts the nvidia-nvml-dev wheel here.
list(APPEND _nvml_hints "${PROJECT_SOURCE_DIR}/.deps/python/nvidia/cu13/include"
                        "${PROJECT_SOURCE_DIR}/.deps/python/nvidia/cu12/include"
                        /usr/local/cuda/include /usr/include)

find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  execute_process(
    COMMAND "${Python3_EXECUTABLE}" -c
            "import site,sysconfig;print(';'.join([sysconfig.get_paths()['purelib']]+site.getsitepackages()+[site.getusersitepackages()]))"
    OUTPUT_VARIABLE _nvml_site OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  foreach(_dir IN LISTS _nvml_site)
    list(APPEND _nvml_hints "${_dir}/nvidia/cu13/include" "${_dir}/nvidia/cu12/include"
                            "${_dir}/nvidia/nvml/include" "${_dir}/nvidia/include")
  endforeach()
endif()

find_path(NVML_INCLUDE_DIR nvml.h HINTS ${_nvml_hints}
          DOC "Folder holding nvml.h (CUDA toolkit or the nvidia-nvml-dev PyPI package)")

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NVML
  REQUIRED_VARS NVML_INCLUDE_DIR
  REASON_FAILURE_MESSAGE
    "nvml.h not found. Run scripts/install-deps.sh (it installs the nvidia-nvml-dev PyPI package) or pass -DNVML_INCLUDE_DIR=/path/to/include.")

if(NVML_FOUND AND NOT TARGET NVML::headers)
  add_library(NVML::headers INTERFACE IMPORTED)
  # SYSTEM: nvml.h is not ours to keep warning-free.
  set_target_properties(NVML::headers PROPERTIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${NVML_INCLUDE_DIR}"
                                                 INTERFACE_INCLUDE_DIRECTORIES "${NVML_INCLUDE_DIR}")
  target_link_libraries(NVML::headers INTERFACE ${CMAKE_DL_LIBS})
endif()
