# Warning and sanitizer settings, applied per target through gpuspec_host_settings().

add_library(gpuspec_warnings INTERFACE)
target_compile_options(gpuspec_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                            -Woverloaded-virtual -Wcast-align -Wformat=2 -Wimplicit-fallthrough>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${GPUSPEC_WERROR}>>:-Werror>
  # GCC 12 at -O3 warns that std::string's copies write out of bounds or overlap where its
  # inliner follows the short-string paths (-Warray-bounds in host/src/pcie_link.cpp, -Wrestrict
  # in tests/unit/diff/compare_test.cpp, seen once unity batches changed what it inlines; each
  # file compiles clean on its own): false positives of that compiler's inliner. Off for GCC 12
  # only; the sanitizer build checks bounds at run time.
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-array-bounds -Wno-restrict>
  # nvcc: host-compiler warnings through -Xcompiler, and the device side's own warnings.
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --Wreorder --Wext-lambda-captures-this>
  $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${GPUSPEC_WERROR}>>:--Werror=all-warnings>)

# No contraction of a*b+c into one fused multiply-add in host code where the target could do it
# (aarch64: GCC fuses by default, while x86-64's baseline has no FMA instruction to fuse into), so
# that statistics and ceilings come out bit for bit the same on a Grace node as on an x86-64 one,
# and the golden fixtures hold on both (found by the host-aarch64 build: DiffFixtures.MatchTheCode
# differed in the last bit). Not on x86-64, where the flag changes nothing.
if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64|i.86)$")
  target_compile_options(gpuspec_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off>)
endif()

add_library(gpuspec_sanitizers INTERFACE)
if(GPUSPEC_SANITIZE)
  target_compile_options(gpuspec_sanitizers INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined>)
  target_link_options(gpuspec_sanitizers INTERFACE -fsanitize=address,undefined)
endif()

# Unity builds of the host C++ of every target: most files include the report model, whose
# headers bring nlohmann/json and fmt, and parsing them and instantiating the same templates again
# in every file was most of a file's compile time. Batches of GPUSPEC_UNITY_BATCH files are
# compiled as one. The batches are written here rather than by CMake's UNITY_BUILD, whose files
# include each source by its absolute path: ours name it from the checkout's root
# (`#include "host/src/telemetry.cpp"`, found through -iquote), so a batch's text is the same in
# every clone and ccache serves one clone's objects to another (CI's clean clone among them).
# Names in a file's anonymous namespace must be unique within its library or test program
# (helpers several tests share live in tests/support). A file with its own compile definitions
# or options, one marked SKIP_UNITY_BUILD_INCLUSION, a generated file and CUDA sources are
# compiled on their own. GPUSPEC_UNITY=OFF
# compiles file by file (a quicker loop while editing one file).
option(GPUSPEC_UNITY "Unity builds of the host C++ (batches of files compiled as one)" ON)
set(GPUSPEC_UNITY_BATCH 8 CACHE STRING "Files per unity batch")

# gpuspec_unity_batches(<target>): called once the target's folder has been read (deferred), so
# that every source and every source property of the folder is known.
function(gpuspec_unity_batches target)
  get_target_property(_sources ${target} SOURCES)
  get_target_property(_dir ${target} SOURCE_DIR)
  get_target_property(_bin ${target} BINARY_DIR)
  set(_batch "")
  set(_count 0)
  set(_index 0)
  set(_batched "")
  set(_written "")
  foreach(_s IN LISTS _sources ITEMS _gpuspec_flush)
    if(NOT _s STREQUAL "_gpuspec_flush")
      if(NOT _s MATCHES "\\.cpp$" OR _s MATCHES "^\\$<")
        continue()
      endif()
      cmake_path(ABSOLUTE_PATH _s BASE_DIRECTORY "${_dir}" NORMALIZE OUTPUT_VARIABLE _abs)
      cmake_path(IS_PREFIX PROJECT_SOURCE_DIR "${_abs}" NORMALIZE _in_tree)
      get_source_file_property(_defs "${_abs}" COMPILE_DEFINITIONS)
      get_source_file_property(_opts "${_abs}" COMPILE_OPTIONS)
      get_source_file_property(_generated "${_abs}" GENERATED)
      get_source_file_property(_alone "${_abs}" SKIP_UNITY_BUILD_INCLUSION)
      if(NOT _in_tree OR _defs OR _opts OR _generated OR _alone)
        continue()
      endif()
      file(RELATIVE_PATH _rel "${PROJECT_SOURCE_DIR}" "${_abs}")
      string(APPEND _batch "#include \"${_rel}\"\n")
      list(APPEND _batched "${_abs}")
      math(EXPR _count "${_count} + 1")
    endif()
    if(_count GREATER_EQUAL GPUSPEC_UNITY_BATCH OR (_s STREQUAL "_gpuspec_flush" AND _count GREATER 0))
      set(_file "${_bin}/gpuspec_unity/${target}_${_index}.cpp")
      file(CONFIGURE OUTPUT "${_file}" CONTENT "// A unity batch (cmake/GpuspecWarnings.cmake).\n${_batch}" @ONLY)
      list(APPEND _written "${_file}")
      math(EXPR _index "${_index} + 1")
      set(_batch "")
      set(_count 0)
    endif()
  endforeach()
  if(NOT _written)
    return()
  endif()
  set_source_files_properties(${_batched} PROPERTIES HEADER_FILE_ONLY ON)
  target_sources(${target} PRIVATE ${_written})
  target_compile_options(${target} PRIVATE
    "$<$<COMPILE_LANGUAGE:CXX>:-iquote${PROJECT_SOURCE_DIR}>"
    # In a batch every source is an included file, so GCC's warning about a class whose base or
    # member has internal linkage "in a header" fires on every test fixture in an anonymous
    # namespace: it is about headers, and a batch is not one.
    "$<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-subobject-linkage>")
endfunction()

# Every gpuspec target links these two; they carry no include paths or libraries.
function(gpuspec_host_settings target)
  target_link_libraries(${target} PRIVATE gpuspec_warnings gpuspec_sanitizers)
  get_target_property(_type ${target} TYPE)
  if(GPUSPEC_UNITY AND NOT _type STREQUAL "INTERFACE_LIBRARY" AND NOT _type STREQUAL "OBJECT_LIBRARY")
    get_target_property(_dir ${target} SOURCE_DIR)
    cmake_language(EVAL CODE "cmake_language(DEFER DIRECTORY [[${_dir}]] CALL gpuspec_unity_batches [[${target}]])")
  endif()
endfunction()
