#pragma once
/// The inventory a run starts from (host, GPUs, error counters before, host checks) and the spec
/// table matched into it, loaded once. `gpuspec info` and `gpuspec run` both take it here.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuspec/host/nvml_library.hpp"
#include "gpuspec/reports/model/outcome.hpp"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::spine {

/// What only the device runtime knows (CUDA ordinal, SM count, L2 size, runtime and library
/// versions); the CLI passes its backend's, tests their own. Empty: nothing is added.
using runtime_enrichment =
    std::function<void(reports::host_info& host, std::vector<reports::device_info>& devices)>;

struct inventory {
  reports::host_info host;
  std::vector<reports::device_info> devices;
  std::optional<host::nvml_library> nvml; ///< empty when there is no driver
};

/// The NVML library to open: $GPUSPEC_NVML_LIBRARY if set (tests, unusual installs), else
/// the driver's libnvidia-ml.so.1.
[[nodiscard]] std::string nvml_library_path();

/// Probes the host (under `root`), opens NVML, lists the GPUs with their counters, and asks the
/// runtime for what only it knows. Never throws for a missing driver or GPU: host.gpu_status
/// says why there is no GPU part. Host checks are not evaluated here (they need the spec rows).
[[nodiscard]] inventory take_inventory(const std::filesystem::path& root,
                                       const runtime_enrichment& enrich);

/// True when NVML lists at least one GPU and NVML said nothing against them.
[[nodiscard]] bool nvml_lists_gpus(const inventory& inv);

/// The spec table, loaded once for the run.
struct loaded_specs {
  std::filesystem::path file;
  reports::spec_table table;
  nlohmann::ordered_json document; ///< the file as parsed, for the workers' spec rows
};

/// Loads the spec table at `file`; errors name the file and the field.
[[nodiscard]] reports::outcome<loaded_specs> load_specs(const std::filesystem::path& file);

/// Sets each device's spec_id from `specs` (by PCI device id, then name).
void match_spec_rows(const reports::spec_table& specs, std::vector<reports::device_info>& devices);

/// The inventory `gpuspec run` and `gpuspec info` start from, composed in this one place: the
/// probe (take_inventory), each GPU matched to its row of `specs` (null: no table, no match),
/// and the host checks evaluated.
[[nodiscard]] inventory compose_inventory(const std::filesystem::path& root,
                                          const runtime_enrichment& enrich,
                                          const reports::spec_table* specs);

/// A spec document holding the rows `ids` of `specs` only (what a worker is given); null when
/// `ids` is empty.
[[nodiscard]] nlohmann::ordered_json spec_rows_document(const loaded_specs& specs,
                                                        const std::vector<std::string>& ids);

} // namespace gpuspec::spine
