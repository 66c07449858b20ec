// The report's field lists (report_fields.hpp): the order of the fields in report.hpp, with
// two renamed keys: result::ceiling_value is "ceiling" and result::check is "verification";
// result::axes and result::observations are written together as "parameters" (and the axes
// again as "axes", so that a reader of version 1 keeps finding every parameter).

#include "gpuspec/reports/model/report_fields.hpp"

#include "gpuspec/reports/model/report.hpp"

#include <array>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuspec::reports::inline model {
namespace {

using f = report_field;

/// v1, v1.1 and v1.2 (report.hpp readable_report_versions).
constexpr int minor_versions = static_cast<int>(readable_report_versions.size());

constexpr std::array report_keys{f{"schema"},
                                 f{"run"},
                                 f{"host"},
                                 f{"devices"},
                                 f{"results"},
                                 f{"complete"},
                                 f{"incomplete_reason"},
                                 f{"nodes", 1, true}};
// Another node of a multi-node run (report.hpp node_inventory), inside the report's "nodes".
constexpr std::array node_inventory_keys{f{"host", 1}, f{"devices", 1}, f{"run_devices", 1}};
// An InfiniBand or RoCE port (report.hpp network_port), inside host_info's "network_ports".
constexpr std::array network_port_keys{f{"device", 1}, f{"port", 1},      f{"state", 1},
                                       f{"rate", 1},   f{"rate_gbps", 1}, f{"link_layer", 1}};
constexpr std::array run_keys{f{"tool_version"},   f{"started_utc"},    f{"finished_utc"},
                              f{"suite"},          f{"filter"},         f{"command_line"},
                              f{"backend", 1},     f{"devices", 1},     f{"concurrency", 1},
                              f{"build", 1, true}, f{"source", 1, true}};
// The foreign log of an imported report (report.hpp run_source), inside run_info's "source".
constexpr std::array run_source_keys{f{"tool", 1},   f{"version", 1}, f{"file", 1},
                                     f{"sha256", 1}, f{"notes", 1},   f{"truncated", 1}};
// The build that wrote the report (report.hpp build_info), inside run_info's "build".
constexpr std::array build_info_keys{f{"version", 1}, f{"commit", 1}, f{"build_date", 1},
                                     f{"built_against", 1}};
constexpr std::array built_against_keys{f{"cuda", 1}, f{"cublas", 1}, f{"nccl", 1}, f{"nvml", 1}};
constexpr std::array check_keys{f{"id"}, f{"status"}, f{"message"}, f{"device"}};
constexpr std::array host_keys{f{"hostname"},
                               f{"os"},
                               f{"kernel"},
                               f{"cpu_model"},
                               f{"cpu_logical_cores"},
                               f{"cpu_sockets"},
                               f{"memory_bytes"},
                               f{"numa_nodes"},
                               f{"nouveau_loaded"},
                               f{"driver_version"},
                               f{"cuda_driver_version"},
                               f{"cuda_runtime_version"},
                               f{"cublas_version"},
                               f{"nccl_version"},
                               f{"gpu_status"},
                               f{"checks"},
                               f{"topology", 1, true},
                               f{"network_ports", 1, true}};
constexpr std::array topology_keys{f{"gpus"}, f{"pairs"}, f{"problems"}};
constexpr std::array gpu_topology_keys{
    f{"device"},          f{"numa_node"},          f{"cpu_list"}, f{"nvlink_version"},
    f{"nvlink_link_gbs"}, f{"nvlink_link_source"}, f{"nvlinks"}};
constexpr std::array nvlink_port_keys{f{"link"}, f{"active"}, f{"remote_type"},
                                      f{"remote_pci_bus_id"}};
constexpr std::array gpu_pair_keys{f{"src"},       f{"dst"},      f{"pcie_path"}, f{"nvlink_links"},
                                   f{"transport"}, f{"p2p_read"}, f{"p2p_write"}, f{"p2p_nvlink"}};
constexpr std::array pcie_keys{f{"gen_current"}, f{"gen_max"}, f{"width_current"}, f{"width_max"},
                               f{"gen_max_system", 1, true}};
constexpr std::array device_keys{f{"index"},
                                 f{"cuda_index"},
                                 f{"name"},
                                 f{"uuid"},
                                 f{"serial"},
                                 f{"vbios"},
                                 f{"pci_bus_id"},
                                 f{"pci_device_id"},
                                 f{"pci_subsystem_id"},
                                 f{"cc_major"},
                                 f{"cc_minor"},
                                 f{"sm_count"},
                                 f{"memory_bytes"},
                                 f{"l2_bytes"},
                                 f{"sm_clock_mhz"},
                                 f{"sm_clock_max_mhz"},
                                 f{"mem_clock_mhz"},
                                 f{"mem_clock_max_mhz"},
                                 f{"memory_bus_width_bits"},
                                 f{"pcie"},
                                 f{"power_limit_w"},
                                 f{"power_limit_default_w"},
                                 f{"power_limit_max_w"},
                                 f{"temperature_c"},
                                 f{"temperature_slowdown_c", 1},
                                 f{"ecc_mode"},
                                 f{"ecc_mode_pending"},
                                 f{"mig_mode"},
                                 f{"persistence_mode"},
                                 f{"spec_id"},
                                 f{"counters_before"},
                                 f{"counters_after"},
                                 f{"counters_delta"},
                                 f{"problems"},
                                 f{"activity", 1, true},
                                 f{"c2c", 1, true},
                                 f{"fabric", 1, true},
                                 f{"mig_mode_pending", 2, true},
                                 f{"mig_memory_slices", 2, true},
                                 f{"mig_instances", 2, true}};
// A MIG device of a partitioned GPU (mig.hpp mig_instance), inside a device's "mig_instances".
constexpr std::array mig_instance_keys{f{"mig_index", 2},
                                       f{"uuid", 2},
                                       f{"profile", 2},
                                       f{"gpu_instance_id", 2},
                                       f{"compute_instance_id", 2},
                                       f{"sm_count", 2},
                                       f{"memory_bytes", 2},
                                       f{"copy_engines", 2},
                                       f{"gpu_slices", 2},
                                       f{"compute_slices", 2},
                                       f{"memory_slices", 2},
                                       f{"problems", 2}};
// The MIG device a result measured (mig.hpp mig_ref), a result's "mig".
constexpr std::array mig_ref_keys{f{"uuid", 2}, f{"profile", 2}, f{"gpu_instance_id", 2},
                                  f{"compute_instance_id", 2}};
// A device's `c2c` (report.hpp c2c_link): its NVLink-C2C link to the CPU.
constexpr std::array c2c_keys{f{"mode", 1}, f{"addressing_mode", 1}};
// A device's `activity` (report.hpp gpu_activity) and its processes.
constexpr std::array activity_keys{f{"utilization_pct"}, f{"processes"}, f{"status"}};
// A device's `fabric` (report.hpp gpu_fabric).
constexpr std::array fabric_keys{f{"state"},     f{"status"},      f{"cluster_uuid"},
                                 f{"clique_id"}, f{"health_mask"}, f{"health_summary"}};
constexpr std::array process_keys{f{"pid"}, f{"name"}, f{"used_memory_bytes"}, f{"kind"}};
constexpr std::array stats_keys{f{"n"},      f{"median"}, f{"mean"}, f{"min"}, f{"max"},
                                f{"stddev"}, f{"cv"},     f{"q1"},   f{"q3"}};
constexpr std::array ceiling_keys{
    f{"datasheet"},    f{"datasheet_source"}, f{"clock_adjusted"},    f{"clock_adjusted_source"},
    f{"reference", 1}, f{"spec_figure", 1},   f{"roofline_bytes", 1}, f{"mig_fraction", 2, true}};
constexpr std::array verification_keys{f{"status"}, f{"max_rel_error"}, f{"tolerance"},
                                       f{"detail"}};
constexpr std::array telemetry_keys{f{"samples"},
                                    f{"period_ms"},
                                    f{"sm_clock_mhz_min"},
                                    f{"sm_clock_mhz_median"},
                                    f{"sm_clock_mhz_max"},
                                    f{"mem_clock_mhz_min"},
                                    f{"mem_clock_mhz_median"},
                                    f{"temperature_c_max"},
                                    f{"power_w_mean"},
                                    f{"power_w_max"},
                                    f{"low_clock_fraction"},
                                    f{"throttle_reasons"},
                                    f{"throttled"},
                                    f{"status"},
                                    f{"window_start_s", 1},
                                    f{"window_end_s", 1},
                                    f{"pcie_gen_min", 1},
                                    f{"pcie_width_min", 1}};
constexpr std::array result_keys{f{"bench_id"},
                                 f{"devices"},
                                 f{"parameters"},
                                 f{"axes", 1},
                                 f{"metric"},
                                 f{"unit"},
                                 f{"higher_is_better"},
                                 f{"cache_state"},
                                 f{"bytes_per_iteration"},
                                 f{"flops_per_iteration"},
                                 f{"samples"},
                                 f{"sample_seconds"},
                                 f{"stats"},
                                 f{"host_seconds_median"},
                                 f{"stop_reason"},
                                 f{"ceiling"},
                                 f{"efficiency"},
                                 f{"efficiency_clock_adjusted", 1, true},
                                 f{"verification"},
                                 f{"telemetry"},
                                 f{"status"},
                                 f{"reason"},
                                 f{"failure", 1},
                                 f{"gpus_busy", 1},
                                 f{"burnin", 1, true},
                                 f{"events", 1, true},
                                 f{"mig", 2, true}};
// An event during a result (gpu_event.hpp), inside a result's optional "events".
constexpr std::array gpu_event_keys{f{"time_s", 1}, f{"device", 1}, f{"type", 1},
                                    f{"xid", 1},    f{"source", 1}, f{"detail", 1}};
// The burn-in record (burnin_record.hpp), inside a result's optional "burnin".
constexpr std::array burnin_keys{f{"duration_s", 1}, f{"elapsed_s", 1},    f{"busy_s", 1},
                                 f{"interval_s", 1}, f{"idle_power_w", 1}, f{"gemm", 1},
                                 f{"memtest", 1},    f{"intervals", 1},    f{"event_samples", 1}};
constexpr std::array burnin_gemm_keys{f{"dtype", 1},
                                      f{"m", 1},
                                      f{"n", 1},
                                      f{"k", 1},
                                      f{"seed", 1},
                                      f{"algorithm", 1},
                                      f{"reduction", 1},
                                      f{"deterministic", 1},
                                      f{"determinism_note", 1},
                                      f{"iterations", 1},
                                      f{"reference_checksum", 1},
                                      f{"checksum_mismatches", 1},
                                      f{"mismatches", 1}};
constexpr std::array burnin_memtest_keys{f{"bytes", 1},         f{"passes", 1},    f{"patterns", 1},
                                         f{"words_checked", 1}, f{"bad_words", 1}, f{"bad", 1}};
constexpr std::array burnin_interval_keys{f{"start_s", 1},
                                          f{"end_s", 1},
                                          f{"gemm_iterations", 1},
                                          f{"throughput", 1},
                                          f{"telemetry_samples", 1},
                                          f{"sm_clock_mhz_median", 1},
                                          f{"mem_clock_mhz_median", 1},
                                          f{"temperature_c_max", 1},
                                          f{"power_w_mean", 1},
                                          f{"power_w_max", 1},
                                          f{"throttle_reasons", 1},
                                          f{"checksum_mismatches", 1},
                                          f{"memtest_words", 1},
                                          f{"memtest_bad_words", 1}};
constexpr std::array burnin_mismatch_keys{f{"iteration", 1}, f{"time_s", 1}, f{"expected", 1},
                                          f{"actual", 1}};
constexpr std::array burnin_bad_word_keys{f{"address", 1},      f{"pattern", 1},
                                          f{"expected", 1},     f{"actual", 1},
                                          f{"reread", 1, true}, f{"stuck", 1, true}};
constexpr std::array burnin_sample_keys{f{"time_s", 1},        f{"sm_clock_mhz", 1},
                                        f{"mem_clock_mhz", 1}, f{"temperature_c", 1},
                                        f{"power_w", 1},       f{"throttle_reasons", 1}};

constexpr std::array objects{
    report_object{"report", report_keys},
    report_object{"run_info", run_keys},
    report_object{"build_info", build_info_keys},
    report_object{"run_source", run_source_keys},
    report_object{"built_against", built_against_keys},
    report_object{"host_info", host_keys},
    report_object{"host_check", check_keys},
    report_object{"network_port", network_port_keys},
    report_object{"node_inventory", node_inventory_keys},
    report_object{"topology_info", topology_keys},
    report_object{"gpu_topology", gpu_topology_keys},
    report_object{"gpu_activity", activity_keys},
    report_object{"gpu_process", process_keys},
    report_object{"c2c_link", c2c_keys},
    report_object{"gpu_fabric", fabric_keys},
    report_object{"nvlink_port", nvlink_port_keys},
    report_object{"gpu_pair", gpu_pair_keys},
    report_object{"device_info", device_keys},
    report_object{"mig_instance", mig_instance_keys},
    report_object{"mig_ref", mig_ref_keys},
    report_object{"pcie_link", pcie_keys},
    report_object{"result", result_keys},
    report_object{"sample_stats", stats_keys},
    report_object{"ceiling", ceiling_keys},
    report_object{"verification", verification_keys},
    report_object{"telemetry_summary", telemetry_keys},
    report_object{"burnin_record", burnin_keys},
    report_object{"burnin_gemm", burnin_gemm_keys},
    report_object{"burnin_memtest", burnin_memtest_keys},
    report_object{"burnin_interval", burnin_interval_keys},
    report_object{"burnin_mismatch", burnin_mismatch_keys},
    report_object{"burnin_bad_word", burnin_bad_word_keys},
    report_object{"burnin_sample", burnin_sample_keys},
    report_object{"gpu_event", gpu_event_keys},
};

/// The keys of each object at each minor version, built once from the lists above.
struct key_tables {
  std::array<std::array<std::vector<std::string_view>, minor_versions>, objects.size()> keys;
  key_tables() {
    for (std::size_t o = 0; o < objects.size(); ++o)
      for (int minor = 0; minor < minor_versions; ++minor)
        for (const auto& field : objects[o].fields)
          if (field.since_minor <= minor)
            keys[o][static_cast<std::size_t>(minor)].push_back(field.key);
  }
};

std::size_t object_index(std::string_view name) {
  for (std::size_t i = 0; i < objects.size(); ++i)
    if (objects[i].name == name)
      return i;
  throw std::out_of_range("no report object " + std::string(name));
}

} // namespace

std::span<const report_object> report_objects() { return objects; }

std::span<const report_field> report_fields_of(std::string_view object) {
  return objects[object_index(object)].fields;
}

std::span<const std::string_view> report_keys_of(std::string_view object, int minor) {
  static const key_tables tables;
  if (minor < 0 || minor >= minor_versions)
    throw std::out_of_range("no report minor version " + std::to_string(minor));
  return tables.keys[object_index(object)][static_cast<std::size_t>(minor)];
}

} // namespace gpuspec::reports::model
