#pragma once
/// The spec table (docs/design.md, "Spec table contract"): datasheet figures of each GPU model,
/// loaded from specs/gpus.json. Dense rates only, never sparsity. Every group of figures
/// carries the document it came from.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuspec/reports/model/outcome.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::inline model {

/// Peak-rate keys of `gpu_spec::peaks` (dense): "fp64", "fp64_tc", "fp32", "fp16", "bf16",
/// "tf32_tc", "fp16_tc", "bf16_tc", "int8_tc", "fp8_tc", and on Blackwell "fp6_tc", "fp4_tc".
/// Unit: TFLOP/s (TOPS for int8_tc). A key absent from a row: the GPU does not have that unit
/// (e.g. bf16_tc on a T4), or no vendor document gives the figure.
inline constexpr std::string_view peak_keys[] = {"fp64",    "fp64_tc", "fp32",    "fp16",
                                                 "bf16",    "tf32_tc", "fp16_tc", "bf16_tc",
                                                 "int8_tc", "fp8_tc",  "fp6_tc",  "fp4_tc"};

struct gpu_spec {
  std::string id;                            ///< stable, e.g. "h100-sxm5-80gb"
  std::string name;                          ///< marketing name, "NVIDIA H100 SXM5 80GB"
  std::vector<std::string> match_names;      ///< names as NVML reports them
  std::vector<std::uint32_t> pci_device_ids; ///< PCI device ids (e.g. 0x2330)
  std::string architecture;                  ///< "turing", "ampere", "ada", "hopper", ...
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  double base_clock_mhz = 0, boost_clock_mhz = 0;
  /// Memory, TDP and PCIe figures are 0 (and `peaks` empty) where no vendor document gives them
  /// (rows such as H20's hold the identity only).
  double memory_gib = 0;   ///< as marketed, in GB (e.g. 80)
  std::string memory_type; ///< "HBM3", "GDDR6", ...
  int memory_bus_width_bits = 0;
  double memory_bandwidth_gbs = 0;     ///< GB/s (1e9 bytes/s), datasheet
  std::map<std::string, double> peaks; ///< dense peak rates by peak_keys
  double tdp_w = 0;
  int pcie_gen = 0, pcie_width = 0;
  std::optional<double> nvlink_gbs; ///< total bidirectional, datasheet
  /// NVLink generation (5 on Blackwell), links per GPU and the bidirectional rate of one link in
  /// GB/s, where a vendor document gives them; links x link rate is nvlink_gbs (the loader
  /// checks it).
  std::optional<int> nvlink_version, nvlink_links;
  std::optional<double> nvlink_link_gbs;
  std::map<std::string, std::string> sources; ///< figure group -> document (title, URL)
  std::string notes;                          ///< known exceptions (e.g. TC clock differs)
  /// The clock at which the datasheet states the non-FP64 Tensor Core figures, where it is not
  /// the boost clock (Hopper). nullopt: the boost clock.
  std::optional<double> tensor_clock_mhz;
  /// Memory clock as NVML reports it and transfers per clock (HBM/GDDR6: 2), where a vendor
  /// document gives the data rate; `specs --check` recomputes the bandwidth from them.
  std::optional<double> memory_clock_mhz;
  std::optional<double> memory_transfers_per_clock;
  /// False where the architecture's per-SM rates (arch_rates.hpp) do not hold for this model
  /// (H20: its Tensor Cores and FP64 run far below Hopper's rate), so no ceiling is derived
  /// from them, neither by `specs --check` nor at the sampled clock. Row key "arch_rates_apply".
  bool arch_rates_apply = true;
  /// Field ("peaks.fp16_tc", "memory.bandwidth_gbs") -> why `specs --check` may disagree.
  std::map<std::string, std::string> check_notes;
  /// NVLink-C2C between the GPU and its CPU, total bidirectional GB/s, datasheet (Grace-based
  /// GPUs: GH200, GB200, GB300; sources["c2c"] names the document). What a C2C-attached GPU's
  /// host transfers are judged against (reference.hpp c2c_link_ceiling); nullopt: no C2C link.
  std::optional<double> c2c_gbs;
  /// How the GPU reaches its host CPU where it is not PCIe: host_interconnect_c2c for a GPU
  /// that is attached to a Grace CPU by NVLink-C2C by design (sources["host_interconnect"]
  /// names the document). "" (the default): PCIe. The check uses it only where NVML gave no
  /// C2C answer (host_rules.hpp is_c2c_attached). Row key "host_interconnect".
  std::string host_interconnect;
};

/// The one value a row's host_interconnect states.
inline constexpr std::string_view host_interconnect_c2c = "nvlink-c2c";

/// Spec file format version written in its "schema" key.
inline constexpr std::string_view spec_table_schema = "gpuspec.specs.v1";

struct spec_table {
  std::vector<gpu_spec> rows;
  [[nodiscard]] const gpu_spec* find(std::string_view id) const;
};

/// Parses text (a whole spec file): invalid JSON, a duplicate key, then parse_spec_table.
[[nodiscard]] outcome<spec_table> parse_spec_table_text(std::string_view text,
                                                        std::string_view file);

/// The spec file to use when none is named: $GPUSPEC_SPECS when set, else the source tree's
/// specs/gpus.json (compile definition GPUSPEC_SPECS_DIR of the caller).
[[nodiscard]] std::filesystem::path default_spec_table_path(std::string_view compiled_specs_dir);

/// Parses and validates (duplicate id, negative or non-finite rate, missing field, unknown
/// peak key, ...), naming the file and the field path ("rows[3].peaks.fp32").
[[nodiscard]] outcome<spec_table> parse_spec_table(const nlohmann::ordered_json& j,
                                                   std::string_view file);
[[nodiscard]] outcome<spec_table> load_spec_table(const std::filesystem::path& file);

/// The row of a device: by PCI device id first, then by exact NVML name (case-insensitive).
/// nullptr: no spec row (the check says so and judges clock-adjusted efficiency only).
[[nodiscard]] const gpu_spec* match_device(const spec_table& table, const device_info& device);

/// The row of a device as `check`, `compare` and the host rules all find it: its `spec_id`
/// where the table has that row and the device's PCI id or NVML name fits it (or matches no
/// row), else match_device: a carried id of a sibling's row never wins over the identity.
[[nodiscard]] const gpu_spec* spec_of(const spec_table& table, const device_info& device);

} // namespace gpuspec::reports::model
