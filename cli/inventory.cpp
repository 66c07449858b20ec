#include "inventory.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "backend.hpp"
#include "gpuspec/benches/device_probe.hpp"
#include "gpuspec/benches/host_checks.hpp"
#include "gpuspec/benches/host_probe.hpp"
#include "gpuspec/reports/spec_table.hpp"
#include "specs_location.hpp"

namespace gpuspec::cli {

std::string nvml_library_path() {
  const char* overridden = std::getenv("GPUSPEC_NVML_LIBRARY"); // NOLINT(concurrency-mt-unsafe)
  return overridden != nullptr && *overridden != '\0' ? overridden : "libnvidia-ml.so.1";
}

std::map<std::string, reports::gpu_spec>
match_spec_rows(std::vector<reports::device_info>& devices) {
  std::map<std::string, reports::gpu_spec> matched;
  if (devices.empty())
    return matched;
  const auto path = reports::default_spec_table_path(specs_dir().string());
  const auto table = reports::load_spec_table(path);
  if (!table) {
    fmt::print(stderr, "gpuspec: warning: no spec table, GPUs are not matched to a row: {}\n",
               table.error().to_string());
    return matched;
  }
  for (auto& d : devices)
    if (const auto* row = reports::match_device(table.value(), d)) {
      d.spec_id = row->id;
      matched.emplace(row->id, *row);
    }
  return matched;
}

inventory take_inventory(const std::string& root) {
  inventory inv;
  inv.host = benches::probe_host(root);

  std::string why;
  inv.nvml = benches::nvml_library::open(why, nvml_library_path());
  if (!inv.nvml) {
    inv.host.gpu_status = why;
  } else {
    benches::probe_driver_versions(*inv.nvml, inv.host);
    inv.devices = benches::probe_devices(*inv.nvml);
    if (inv.devices.empty())
      inv.host.gpu_status = "the NVIDIA driver is loaded but reports no GPU";
  }
  // The CUDA side also records runtime, cuBLAS and NCCL versions when there is no GPU. NVML's
  // reason for a missing GPU part is the clearer one, so it is kept over CUDA's.
  const std::string nvml_status = inv.host.gpu_status;
  backend_enrich(inv.host, inv.devices);
  if (nvml_status != "ok")
    inv.host.gpu_status = nvml_status;

  inv.spec_rows = match_spec_rows(inv.devices);
  inv.host.checks = benches::evaluate_host_checks(inv.host, inv.devices);
  return inv;
}

bool has_gpus(const inventory& inv) {
  return inv.nvml.has_value() && !inv.devices.empty() && inv.host.gpu_status == "ok";
}

} // namespace gpuspec::cli
