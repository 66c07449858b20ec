# Warning and sanitizer settings, applied per target through gpuspec_host_settings().

add_library(gpuspec_warnings INTERFACE)
target_compile_options(gpuspec_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                            -Woverloaded-virtual -Wcast-align -Wformat=2 -Wimplicit-fallthrough>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${GPUSPEC_WERROR}>>:-Werror>
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

# Every gpuspec target links these two; they carry no include paths or libraries.
function(gpuspec_host_settings target)
  target_link_libraries(${target} PRIVATE gpuspec_warnings gpuspec_sanitizers)
endfunction()
