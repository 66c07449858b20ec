// The run's starting inventory and its spec table (inventory.hpp).

#include "gpuspec/spine/inventory.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "gpuspec/host/device_probe.hpp"
#include "gpuspec/host/host_checks.hpp"
#include "gpuspec/host/host_probe.hpp"
#include "gpuspec/host/topology.hpp"

namespace gpuspec::spine {

std::string nvml_library_path() {
  const char* overridden = std::getenv("GPUSPEC_NVML_LIBRARY"); // NOLINT(concurrency-mt-unsafe)
  return overridden != nullptr && *overridden != '\0' ? overridden : "libnvidia-ml.so.1";
}

inventory take_inventory(const std::filesystem::path& root, const runtime_enrichment& enrich) {
  inventory inv;
  inv.host = host::probe_host(root);

  std::string why;
  inv.nvml = host::nvml_library::open(why, nvml_library_path());
  if (!inv.nvml) {
    inv.host.gpu_status = why;
  } else {
    host::probe_driver_versions(*inv.nvml, inv.host);
    inv.devices = host::probe_devices(*inv.nvml);
    host::identify_lost_devices(inv.devices, root);
    if (inv.devices.empty())
      inv.host.gpu_status = "the NVIDIA driver is loaded but reports no GPU";
    else
      inv.host.topology = host::probe_topology(*inv.nvml, inv.devices, root);
  }
  // The runtime also records its own and the libraries' versions when there is no GPU. NVML's
  // reason for a missing GPU part is the clearer one, so it is kept over the runtime's.
  const std::string nvml_status = inv.host.gpu_status;
  if (enrich)
    enrich(inv.host, inv.devices);
  if (nvml_status != "ok")
    inv.host.gpu_status = nvml_status;
  return inv;
}

bool nvml_lists_gpus(const inventory& inv) { return inv.nvml.has_value() && !inv.devices.empty(); }

reports::outcome<loaded_specs> load_specs(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::error_code ec;
  if (!in || std::filesystem::is_directory(file, ec)) {
    // The table's own loader says why (missing, a folder, unreadable), naming the file.
    auto table = reports::load_spec_table(file);
    if (!table)
      return table.error();
    return reports::input_error{file.string(), "", "cannot be read"};
  }
  std::stringstream text;
  text << in.rdbuf();
  auto table = reports::parse_spec_table_text(text.str(), file.string());
  if (!table)
    return table.error();
  loaded_specs out;
  out.file = file;
  out.table = std::move(table).value();
  // The same text as a document: the rows the workers are handed (the table keeps no JSON).
  out.document = nlohmann::ordered_json::parse(text.str());
  return out;
}

void match_spec_rows(const reports::spec_table& specs, std::vector<reports::device_info>& devices) {
  for (auto& d : devices)
    if (const auto* row = reports::match_device(specs, d))
      d.spec_id = row->id;
}

inventory compose_inventory(const std::filesystem::path& root, const runtime_enrichment& enrich,
                            const reports::spec_table* specs) {
  inventory inv = take_inventory(root, enrich);
  if (specs != nullptr)
    match_spec_rows(*specs, inv.devices);
  inv.host.checks = host::evaluate_host_checks(inv.host, inv.devices);
  return inv;
}

nlohmann::ordered_json spec_rows_document(const loaded_specs& specs,
                                          const std::vector<std::string>& ids) {
  if (ids.empty() || !specs.document.contains("rows"))
    return nullptr;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& row : specs.document["rows"])
    if (row.contains("id") && row["id"].is_string() &&
        std::find(ids.begin(), ids.end(), row["id"].get<std::string>()) != ids.end())
      rows.push_back(row);
  if (rows.empty())
    return nullptr;
  return nlohmann::ordered_json{{"schema", specs.document["schema"]}, {"rows", rows}};
}

} // namespace gpuspec::spine
