#pragma once
/// The NCCL gpuspec runs with: its version for host.nccl_version, and why it cannot be used.
/// CUDA-free.
///
/// Built with NCCL's header, NCCL is opened at run time (nccl_library.hpp) and asked
/// (ncclGetVersion); without the header at build time, the text says so. CMake picks the
/// source file (nccl_version.cpp or nccl_version_absent.cpp); no #if.

#include <string>

namespace gpuspec::collectives {

/// "2.28.9"; "not found (<dlerror's words>)" or "<file> does not export <entry point> (...)"
/// when no usable NCCL opened; "ncclGetVersion failed: <NCCL's words>"; or "not built with
/// NCCL".
[[nodiscard]] std::string nccl_version();

/// "" when this process has a usable NCCL. Otherwise the reason its collectives cannot run,
/// one sentence that starts with "NCCL": "NCCL: not found (...)", "NCCL: <file> does not
/// export ...", or "gpuspec was built without NCCL".
[[nodiscard]] std::string nccl_unusable_reason();

/// The version of the nccl.h this build was compiled against (NCCL_VERSION_CODE, decoded):
/// "2.28.9", or "not built with NCCL".
[[nodiscard]] std::string nccl_header_version();

/// ncclGetVersion's code as text. Codes from 2.9 on are major*10000 + minor*100 + patch
/// (22809 -> "2.28.9"); earlier ones were major*1000 + minor*100 + patch (2708 -> "2.7.8").
[[nodiscard]] std::string decode_nccl_version(int code);

} // namespace gpuspec::collectives
