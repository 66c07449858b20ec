#pragma once
/// What `gpuspec --version` says and every report carries (run.build): this build's version,
/// commit, date and what it was compiled against; and the versions this process finds at run
/// time (the host's *_version fields).

#include <string>
#include <string_view>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::cli {

/// The build stamp (build_stamp.hpp), the backend's CUDA, cuBLAS and NCCL headers and nvml.h's
/// API version.
[[nodiscard]] reports::build_info this_build();

/// The versions found at run time, as the inventory records them: the NVIDIA and CUDA drivers
/// from NVML (opened as the inventory opens it: $GPUSPEC_NVML_LIBRARY, else the driver's), the
/// runtime, cuBLAS and NCCL from the backend. Without a driver, gpu_status says why; never
/// throws for a missing driver or GPU, and touches no GPU.
[[nodiscard]] reports::host_info found_versions();

/// `<program> --version`: "<program> <version>" first (scripts parse that line), then one
/// "<what>: <value>" line each for the commit, the build date, what the build was compiled
/// against and what this process found ("not found (<why>)" for what it did not).
[[nodiscard]] std::string version_text(std::string_view program);

} // namespace gpuspec::cli
