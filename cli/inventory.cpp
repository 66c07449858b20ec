#include "inventory.hpp"

#include <fmt/format.h>

#include "backend.hpp"
#include "gpuspec/host/host_checks.hpp"
#include "gpuspec/reports/spec_table.hpp"
#include "specs_location.hpp"

namespace gpuspec::cli {

inventory take_inventory(const std::string& root) {
  inventory inv = spine::take_inventory(root, backend_enrich);
  if (!inv.devices.empty()) {
    const auto specs = spine::load_specs(reports::default_spec_table_path(specs_dir().string()));
    if (specs)
      spine::match_spec_rows(specs.value().table, inv.devices);
    else
      fmt::print(stderr, "gpuspec: warning: no spec table, GPUs are not matched to a row: {}\n",
                 specs.error().to_string());
  }
  inv.host.checks = benches::evaluate_host_checks(inv.host, inv.devices);
  return inv;
}

bool has_gpus(const inventory& inv) {
  return spine::nvml_lists_gpus(inv) && inv.host.gpu_status == "ok";
}

} // namespace gpuspec::cli
