#pragma once
/// Healthy stock-card reports (issue 17): a node of each model the shipped rules must pass,
/// built the way the harness writes its results (axes, observations, telemetry, the ceilings
/// host attaches, the reference chosen as bench_state does), for the quick and the
/// standard suite, with every measured figure set at a public healthy figure (docs/check.md,
/// "Thresholds and their sources") or, where none was found, at the closest sourced one. Each
/// figure names its source. No GPU ran: the medians are those public figures' fractions of the
/// reference, not measurements of ours.
///
/// Families covered: the ones judged against a datasheet or link ceiling (memory.stream.*,
/// gemm.cublas.*, transfer.h2d/d2h/bidir, transfer.p2p, collective.*). The families judged at
/// the clock seen (compute.fma.*, tensor.mma.*, gemm.custom.*) or without a ceiling (latency,
/// cache, burn-in) are left out: no public figure of them was used.
///
/// transfer.p2p over PCIe is built with the ceiling of the maximum link (gen_max, width_max),
/// the ceiling the burnin-transfers branch moves p2p_ceiling to: the inventory's idle reading
/// (Gen1 for power saving) would make every healthy peer copy "impossible".

#include <string>
#include <vector>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::testing {

/// A healthy figure: a fraction of the result's reference, and where it comes from.
struct stock_figure {
  double fraction = 0;
  std::string source;
};

/// The healthy figures of one model.
struct stock_figures {
  stock_figure stream;
  stock_figure gemm_fp64, gemm_fp32, gemm_tensor, gemm_fp8, gemm_small;
  stock_figure h2d_ce, d2h_ce, bidir_ce, h2d_sm, d2h_sm, bidir_sm;
  stock_figure p2p_one_way, p2p_both_ways;
  stock_figure collective;
};

/// One stock node: its GPUs as NVML and the CUDA runtime report them, its host, its links.
struct stock_system {
  std::string name; ///< "8x-h100-sxm"
  std::string spec_id;
  std::string gpu_name; ///< NVML's
  std::uint32_t pci_device_id = 0;
  int gpus = 8;
  int cc_major = 9, cc_minor = 0, sm_count = 132;
  int sm_clock_max_mhz = 1980, mem_clock_max_mhz = 2619, bus_width_bits = 5120;
  std::int64_t memory_mib = 81559, l2_mib = 50;
  int pcie_gen = 5, pcie_width = 16;
  double power_limit_w = 700;
  int nvlink_links = 0;     ///< per GPU, through NVSwitches; 0: a PCIe node
  unsigned nvml_nvlink = 0; ///< nvmlNvlinkVersion_t of the links (6: NVLink 4.0)
  int sockets = 2;          ///< GPUs split evenly over them, in index order
  /// The PCIe path of two GPUs of one socket (host.topology's words): "single_switch", ...
  std::string same_socket_path = "multiple_switches";
  std::int64_t host_memory_gib = 2015;
  std::vector<std::string> nccl_transports = {"P2P"};
  std::string cpu_model = "Intel(R) Xeon(R) Platinum 8480C";
  bool c2c = false;    ///< attached to Grace by NVLink-C2C, addressing mode ATS (GB200)
  bool fabric = false; ///< NVML reports an NVLink fabric registration (NVSwitch, NVL72)
  stock_figures figures;
};

/// The seven stock nodes of issue 17: 8x H100 SXM, 8x H200, 8x A100 SXM4 80 GB and 40 GB,
/// 8x L40S, 4x H100 PCIe (two sockets), 4x T4.
[[nodiscard]] const std::vector<stock_system>& stock_systems();

/// The five nodes of issue 19 (item 8): 8x B200 (DGX B200), a GB200 NVL72 compute tray (4 GPUs),
/// 8x RTX PRO 6000 Blackwell Server Edition, 8x H20 (HGX), 10x L40S on PCIe switches. Each
/// field that is not a datasheet figure says where it comes from in stock_fixtures.cpp; a
/// result whose row and inventory give it no reference is built at a synthetic median and
/// says so (observations.synthetic_no_reference): only its siblings judge it.
[[nodiscard]] const std::vector<stock_system>& issue19_systems();

/// The report of a healthy run of `suite` ("quick" or "standard") on `system`.
[[nodiscard]] report stock_report(const stock_system& system, const std::string& suite);

/// Sets the median of every ok result of GPU `device` (or, with device -1, of every GPU) whose
/// bench id starts with `prefix` and whose axes contain `axes` to `fraction` of its
/// reference, as the harness would have measured it.
void set_fraction(report& r, const std::string& prefix, const nlohmann::ordered_json& axes,
                  int device, double fraction);

} // namespace gpuspec::reports::testing
