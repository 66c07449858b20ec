#include "gpuspec/cli/inventory.hpp"

#include <fmt/format.h>

#include "gpuspec/cli/backend.hpp"
#include "gpuspec/cli/specs_location.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::cli {

inventory take_inventory(const std::string& root) {
  const auto specs = spine::load_specs(reports::default_spec_table_path(specs_dir().string()));
  inventory inv =
      spine::compose_inventory(root, backend_enrich, specs ? &specs.value().table : nullptr);
  if (!specs && !inv.devices.empty())
    fmt::print(stderr, "gpuspec: warning: no spec table, GPUs are not matched to a row: {}\n",
               specs.error().to_string());
  return inv;
}

bool has_gpus(const inventory& inv) {
  return spine::nvml_lists_gpus(inv) && inv.host.gpu_status == "ok";
}

} // namespace gpuspec::cli
