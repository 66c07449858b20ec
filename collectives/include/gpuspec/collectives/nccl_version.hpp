#pragma once
/// The NCCL version gpuspec runs with, for host.nccl_version. CUDA-free.
///
/// With NCCL found at build time the library is linked and asked (ncclGetVersion); without
/// it, the text says so. CMake picks the source file (nccl_version.cpp or
/// nccl_version_absent.cpp); no #if.

#include <string>

namespace gpuspec::collectives {

/// "2.28.9", "not built with NCCL", or "ncclGetVersion failed: <NCCL's words>".
[[nodiscard]] std::string nccl_version();

/// ncclGetVersion's code as text. Codes from 2.9 on are major*10000 + minor*100 + patch
/// (22809 -> "2.28.9"); earlier ones were major*1000 + minor*100 + patch (2708 -> "2.7.8").
[[nodiscard]] std::string decode_nccl_version(int code);

} // namespace gpuspec::collectives
