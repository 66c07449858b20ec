#include "gpuspec/cli/build_info.hpp"

#include <fmt/format.h>

#include "gpuspec/cli/backend.hpp"
#include "gpuspec/cli/build_stamp.hpp"
#include "gpuspec/host/device_probe.hpp"
#include "gpuspec/host/nvml_library.hpp"
#include "gpuspec/spine/inventory.hpp"

namespace gpuspec::cli {

reports::build_info this_build() {
  const build_stamp stamp = this_build_stamp();
  reports::build_info b;
  b.version = stamp.version;
  b.commit = stamp.commit;
  b.build_date = stamp.build_date;
  b.built_against = backend_built_against();
  b.built_against.nvml = host::nvml_header_api_version();
  return b;
}

reports::host_info found_versions() {
  reports::host_info host;
  std::string why;
  if (const auto nvml = host::nvml_library::open(why, spine::nvml_library_path()))
    host::probe_driver_versions(*nvml, host);
  else
    host.gpu_status = why;
  backend_runtime_versions(host);
  return host;
}

namespace {

/// A version found at run time, or why it was not: NVML's reason for the driver's parts.
std::string found_text(const std::string& version, const std::string& nvml_problem) {
  if (!version.empty())
    return version;
  return fmt::format("not found ({})",
                     nvml_problem.empty() ? "the library did not say it" : nvml_problem);
}

} // namespace

std::string version_text(std::string_view program) {
  const reports::build_info b = this_build();
  const reports::host_info found = found_versions();
  const std::string nvml_problem = found.gpu_status == "ok" ? "" : found.gpu_status;
  std::string out = fmt::format("{} {}\n", program, b.version);
  auto line = [&out](std::string_view what, const std::string& value) {
    out += fmt::format("{}: {}\n", what, value);
  };
  line("commit", b.commit);
  line("build date", b.build_date);
  line("built against CUDA", b.built_against.cuda);
  line("built against cuBLAS", b.built_against.cublas);
  line("built against NCCL", b.built_against.nccl);
  line("built against NVML", b.built_against.nvml + " (nvml.h API version)");
  line("found NVIDIA driver (NVML)", found_text(found.driver_version, nvml_problem));
  // The same driver, asked through NVML (and cudaDriverGetVersion): its problem is said once.
  line("found CUDA driver",
       found_text(found.cuda_driver_version, nvml_problem.empty() ? "" : "as the line above"));
  line("found CUDA runtime", found_text(found.cuda_runtime_version, ""));
  line("found cuBLAS", found_text(found.cublas_version, ""));
  line("found NCCL", found_text(found.nccl_version, ""));
  out.pop_back(); // CLI11 ends the text with its own newline
  return out;
}

} // namespace gpuspec::cli
