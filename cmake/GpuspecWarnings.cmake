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
# in every file was most of a file's compile time. A batch of files is compiled as one; a file
# whose names clash with another's in a batch would say so with SKIP_UNITY_BUILD_INCLUSION (none
# needs to: anonymous namespaces hold no name twice, and helpers several tests share are in
# tests/support). CUDA sources are left alone (CMake 3.25
# batches C and C++ only). GPUSPEC_UNITY=OFF compiles file by file (a quicker edit-compile loop
# on one file).
option(GPUSPEC_UNITY "Unity builds of the host C++ (batches of files compiled as one)" ON)
set(GPUSPEC_UNITY_BATCH 8 CACHE STRING "Files per unity batch")

# Every gpuspec target links these two; they carry no include paths or libraries.
function(gpuspec_host_settings target)
  target_link_libraries(${target} PRIVATE gpuspec_warnings gpuspec_sanitizers)
  if(GPUSPEC_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON
                                               UNITY_BUILD_BATCH_SIZE ${GPUSPEC_UNITY_BATCH})
    # In a batch every source is an included file, so GCC's warning about a class whose base or
    # member has internal linkage "in a header" fires on every test fixture in an anonymous
    # namespace: it is about headers, and a batch is not one.
    target_compile_options(${target} PRIVATE
      $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-subobject-linkage>)
  endif()
endfunction()
