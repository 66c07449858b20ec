#include "stock_fixtures.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <stdexcept>

#include <fmt/format.h>

#include "check_fixtures.hpp"
#include "gpuspec/host/ceilings.hpp"
#include "gpuspec/host/p2p_plan.hpp"
#include "gpuspec/host/pcie_link.hpp"
#include "gpuspec/host/topology.hpp"
#include "gpuspec/kernels/stream_math.hpp"
#include "gpuspec/kernels/transfer_math.hpp"
#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/reports/judge/host_rules.hpp"
#include "gpuspec/reports/model/arch_rates.hpp"
#include "gpuspec/reports/model/reference.hpp"
#include "gpuspec/reports/model/statistics.hpp"
#include "test_text.hpp"

namespace gpuspec::reports::testing {
namespace {

constexpr std::int64_t mib = std::int64_t{1} << 20;
using gpuspec::testing::gib;

// ---- the public figures (docs/check.md, "Thresholds and their sources") ------------------

const std::string dcgm = "NVIDIA/DCGM nvvs/diag-skus.yaml.in";
const std::string mamf = "stas00/ml-engineering compute/accelerator/README.md (MAMF)";
const std::string closest = "no public figure for this model: the closest sourced one, ";

stock_figure fig(double fraction, std::string source) { return {fraction, std::move(source)}; }

/// What every model shares: host transfers, peer copies, collectives, small shapes.
stock_figures common_figures(bool nvlink) {
  stock_figures f;
  f.gemm_small = fig(0.14, "the issue 17 filer's reading at 1024^3 on Hopper (not verified); "
                           "not judged");
  f.h2d_ce = fig(25.0 / 31.51, "A100 PCIe Gen4 host_to_device_memcpy_ce 25-26 GB/s "
                               "(NVIDIA/nvbandwidth#11), low end");
  f.d2h_ce = fig(25.0 / 31.51, "A100 PCIe Gen4 device_to_host_memcpy_ce 25-26 GB/s "
                               "(NVIDIA/nvbandwidth#11), low end");
  f.bidir_ce = fig(36.0 / 63.02, "A100 SXM4 80 GB bidirectional CE ~11 + ~25 GB/s of Gen4 both "
                                 "ways (NVIDIA/nvbandwidth#53)");
  f.h2d_sm = fig(35.03 / 63.02, "H100 host_to_device_memcpy_sm 35.03-35.39 GB/s of Gen5 "
                                "(NVIDIA/nvbandwidth#24), low end");
  f.d2h_sm = fig(52.76 / 63.02, "H100 device_to_host_memcpy_sm 52.76-52.78 GB/s of Gen5 "
                                "(NVIDIA/nvbandwidth#24), low end");
  f.bidir_sm = fig(36.0 / 63.02, closest + "the copy engines' bidirectional figure "
                                           "(NVIDIA/nvbandwidth#53)");
  if (nvlink) {
    f.p2p_one_way = fig(371.02 / 450, "H100 SXM P2P writes 371-377 of 450 GB/s "
                                      "(p2pBandwidthLatencyTest, NVIDIA/nccl#1264), low end");
    f.p2p_both_ways = fig(739.42 / 900, "H100 SXM bidirectional P2P 739-773 of 900 GB/s "
                                        "(NVIDIA/nccl#1264), low end");
    f.collective = fig(365.0 / 450, "8x H100 SXM ring busbw 365-370 of 450 GB/s "
                                    "(NVIDIA/nccl#1455), low end");
  } else {
    f.p2p_one_way = fig(21.80 / 31.51, "RTX A6000 device_to_device_memcpy_read_ce over PCIe "
                                       "Gen4, 21.8-26.3 GB/s (NVIDIA/nvbandwidth#50), low end");
    f.p2p_both_ways = fig(36.0 / 63.02, closest + "host <-> GPU both ways "
                                                  "(NVIDIA/nvbandwidth#53)");
    f.collective = fig(0.44, "the issue 17 filer's reading for collectives over PCIe (not "
                             "verified: no public figure of a stock PCIe node was found)");
  }
  return f;
}

std::vector<stock_system> make_systems() {
  std::vector<stock_system> out;
  const auto hopper_tensor =
      fig(794.5 / 989, mamf + ": H100 SXM BF16 794.5 of 989 (H200 the same)");
  const auto a100_dgemm = fig(18300.0 / 19500, dcgm + ", A100 SXM4 40 GB (20b0): DGEMM ~18300 "
                                                      "GFLOP/s of 19.5 TFLOP/s");
  const auto closest_dgemm = fig(a100_dgemm.fraction, closest + a100_dgemm.source);
  const auto pcie_tensor = fig(252.9 / 312, closest + mamf + ": A100 PCIe BF16 252.9 of 312");
  const auto h100_fp8 = fig(1402.6 / 1979, mamf + ": H100 SXM FP8 1402.6 of 1979");

  stock_system h100;
  h100.name = "8x-h100-sxm";
  h100.spec_id = "h100-sxm5-80gb";
  h100.gpu_name = "NVIDIA H100 80GB HBM3";
  h100.pci_device_id = 0x2330;
  h100.nvlink_links = 18;
  h100.nvml_nvlink = 6;
  h100.nccl_transports = {"P2P", "NVLS"};
  h100.figures = common_figures(true);
  h100.figures.stream = fig(2474.76 / 3350, "H100 SXM device-local copy 2474.76-2514.71 GB/s, "
                                            "read + write (NVIDIA/nccl#1264), low end");
  h100.figures.gemm_fp64 = closest_dgemm;
  h100.figures.gemm_fp32 = fig(39000.0 / 67000, dcgm + ", H100 80GB HBM3 (2330): SGEMM ~39000 "
                                                       "GFLOP/s");
  h100.figures.gemm_tensor = hopper_tensor;
  h100.figures.gemm_fp8 = h100_fp8;
  out.push_back(h100);

  stock_system h200 = h100;
  h200.name = "8x-h200";
  h200.spec_id = "h200-sxm-141gb";
  h200.gpu_name = "NVIDIA H200";
  h200.pci_device_id = 0x2335;
  h200.mem_clock_max_mhz = 3201;
  h200.bus_width_bits = 6144;
  h200.memory_mib = 143771;
  h200.figures.stream = fig(3110.0 / 4800, dcgm + ", H200 (2335): memory bandwidth 3110");
  h200.figures.gemm_fp32 = fig(50000.0 / 67000, dcgm + ", H200 (2335): SGEMM ~50000 GFLOP/s");
  h200.figures.gemm_fp8 = fig(1453.4 / 1979, mamf + ": H200 SXM FP8 1453.4 of 1979");
  out.push_back(h200);

  stock_system a100;
  a100.name = "8x-a100-sxm4-80gb";
  a100.spec_id = "a100-sxm4-80gb";
  a100.gpu_name = "NVIDIA A100-SXM4-80GB";
  a100.pci_device_id = 0x20B2;
  a100.cc_major = 8;
  a100.sm_count = 108;
  a100.sm_clock_max_mhz = 1410;
  a100.mem_clock_max_mhz = 1593;
  a100.memory_mib = 81920;
  a100.l2_mib = 40;
  a100.pcie_gen = 4;
  a100.power_limit_w = 400;
  a100.nvlink_links = 12;
  a100.nvml_nvlink = 4;
  a100.figures = common_figures(true);
  // Issue 30: an A100 reads 69.4-70% of the NVLink bound both ways, under the H100's line.
  const std::string a100_p2p = "the issue 30 filer's reading of A100 SXM4 p2pBandwidthLatencyTest "
                               "logs, 69.4-70% of the bound both ways (not verified), low end";
  a100.figures.p2p_one_way = fig(0.694, a100_p2p);
  a100.figures.p2p_both_ways = fig(0.694, a100_p2p);
  a100.figures.collective.source = closest + a100.figures.collective.source;
  a100.figures.stream = fig(1564.0 / 2039, dcgm + ", A100-SXM4-80GB (20b2): memory bandwidth "
                                                  "~1564000 MB/s");
  a100.figures.gemm_fp64 = fig(9300.0 / 19500, dcgm + ", A100-SXM4-80GB (20b2): DGEMM ~9300 "
                                                      "GFLOP/s");
  a100.figures.gemm_fp32 = fig(18.88 / 19.5, "A100 80GB PCIe cuBLAS SGEMM 18.88 TFLOP/s at "
                                             "5120x4096x4096 (Yinghan-Li/YHs_Sample#4)");
  a100.figures.gemm_tensor = fig(271.2 / 312, mamf + ": A100 SXM BF16 271.2 of 312");
  out.push_back(a100);

  stock_system a100_40 = a100;
  a100_40.name = "8x-a100-sxm4-40gb";
  a100_40.spec_id = "a100-sxm4-40gb";
  a100_40.gpu_name = "NVIDIA A100-SXM4-40GB";
  a100_40.pci_device_id = 0x20B0;
  a100_40.mem_clock_max_mhz = 1215;
  a100_40.memory_mib = 40960;
  a100_40.host_memory_gib = 1007;
  a100_40.figures.stream = fig(1564.0 / 2039, closest + dcgm +
                                                  ", A100-SXM4-80GB (20b2); the "
                                                  "40 GB entry's figure is above "
                                                  "its datasheet");
  a100_40.figures.gemm_fp64 = a100_dgemm;
  out.push_back(a100_40);

  stock_system l40s;
  l40s.name = "8x-l40s";
  l40s.spec_id = "l40s";
  l40s.gpu_name = "NVIDIA L40S";
  l40s.pci_device_id = 0x26B9;
  l40s.cc_major = 8;
  l40s.cc_minor = 9;
  l40s.sm_count = 142;
  l40s.sm_clock_max_mhz = 2520;
  l40s.mem_clock_max_mhz = 9001;
  l40s.bus_width_bits = 384;
  l40s.memory_mib = 46068;
  l40s.l2_mib = 96;
  l40s.pcie_gen = 4;
  l40s.power_limit_w = 350;
  l40s.host_memory_gib = 1007;
  l40s.figures = common_figures(false);
  l40s.figures.stream = fig(700.0 / 864, dcgm + ", NVIDIA L40S (26b9): memory bandwidth ~700000");
  l40s.figures.gemm_fp64 = closest_dgemm;
  l40s.figures.gemm_fp32 = fig(40200.0 / 91600, closest + dcgm +
                                                    ", Nvidia L40 (26b5): SM stress "
                                                    "~40200 GFLOP/s");
  l40s.figures.gemm_tensor = pcie_tensor;
  l40s.figures.gemm_fp8 = fig(h100_fp8.fraction, closest + h100_fp8.source);
  out.push_back(l40s);

  stock_system h100p;
  h100p.name = "4x-h100-pcie";
  h100p.spec_id = "h100-pcie-80gb";
  h100p.gpu_name = "NVIDIA H100 PCIe";
  h100p.pci_device_id = 0x2331;
  h100p.gpus = 4;
  h100p.sm_count = 114;
  h100p.sm_clock_max_mhz = 1755;
  h100p.mem_clock_max_mhz = 1593;
  h100p.power_limit_w = 350;
  h100p.same_socket_path = "single_switch";
  h100p.host_memory_gib = 1007;
  h100p.figures = common_figures(false);
  h100p.figures.stream = fig(1639.0 / 2000, dcgm + ", Nvidia P1010 (2331, H100 PCIe): memory "
                                                   "bandwidth ~1639000");
  h100p.figures.gemm_fp64 = closest_dgemm;
  h100p.figures.gemm_fp32 = fig(20500.0 / 51000, dcgm + ", Nvidia P1010 (2331, H100 PCIe): "
                                                        "SGEMM ~20500 GFLOP/s");
  h100p.figures.gemm_tensor = pcie_tensor;
  h100p.figures.gemm_fp8 = fig(h100_fp8.fraction, closest + h100_fp8.source);
  out.push_back(h100p);

  stock_system t4;
  t4.name = "4x-t4";
  t4.spec_id = "t4";
  t4.gpu_name = "Tesla T4";
  t4.pci_device_id = 0x1EB8;
  t4.gpus = 4;
  t4.cc_major = 7;
  t4.cc_minor = 5;
  t4.sm_count = 40;
  t4.sm_clock_max_mhz = 1590;
  t4.mem_clock_max_mhz = 5001;
  t4.bus_width_bits = 256;
  t4.memory_mib = 15360;
  t4.l2_mib = 4;
  t4.pcie_gen = 3;
  t4.power_limit_w = 70;
  t4.sockets = 1;
  t4.same_socket_path = "host_bridge";
  t4.host_memory_gib = 251;
  t4.figures = common_figures(false);
  t4.figures.stream = fig(244.0 / 320, dcgm + ", Tesla T4 (1eb8): 'experimentally we get about "
                                              "244000 MB/s'");
  t4.figures.gemm_fp64 = closest_dgemm;
  t4.figures.gemm_fp32 = fig(5500.0 / 8100, dcgm + ", Tesla T4 (1eb8): 'T4 has an SGEMM "
                                                   "performance of 5500'");
  t4.figures.gemm_tensor = pcie_tensor;
  out.push_back(t4);
  return out;
}

// ---- issue 19's nodes ------------------------------------------------------------------------
// No public healthy figure of these models was found for the families judged here: every
// measured figure is the closest sourced one above (an H100's over NVLink, an L40S's over PCIe),
// and says so. The inventory fields name their source; "nvidia-smi listings" are public
// nvidia-smi outputs of the model (its name, memory total in MiB and power cap as printed).

const std::string closest19 = "issue 19 node, no public figure of the model: the closest ";

stock_figures closest_figures(const stock_figures& from) {
  stock_figures f = from;
  for (stock_figure* x : {&f.stream, &f.gemm_fp64, &f.gemm_fp32, &f.gemm_tensor, &f.gemm_fp8,
                          &f.gemm_small, &f.h2d_ce, &f.d2h_ce, &f.bidir_ce, &f.h2d_sm, &f.d2h_sm,
                          &f.bidir_sm, &f.p2p_one_way, &f.p2p_both_ways, &f.collective})
    x->source = closest19 + x->source;
  return f;
}

std::vector<stock_system> make_issue19_systems() {
  const auto& stock = stock_systems();
  const auto named = [&](const std::string& name) {
    return *std::find_if(stock.begin(), stock.end(),
                         [&](const stock_system& s) { return s.name == name; });
  };
  const stock_system& h100 = named("8x-h100-sxm");
  const stock_system& l40s = named("8x-l40s");
  // SGEMM on Blackwell: no public figure, and specs/expect.json has no Blackwell override, so
  // the figure its default rule rests on (the closest sourced one to that rule); an H100's or an
  // L40S's fraction, from power-bound architectures with overrides of their own, would fail it.
  const auto blackwell_sgemm =
      fig(18.88 / 19.5, closest19 + "the gemm.cublas.fp32 rule's own: A100 80GB PCIe cuBLAS SGEMM "
                                    "18.88 TFLOP/s at 5120x4096x4096 (Yinghan-Li/YHs_Sample#4)");
  std::vector<stock_system> out;

  stock_system b200;
  b200.name = "8x-b200";
  b200.spec_id = "b200-sxm-180gb";
  b200.gpu_name = "NVIDIA B200"; // nvidia-smi listings; the row's match name
  b200.pci_device_id = 0x2901;
  b200.cc_major = 10;
  b200.cc_minor = 0;
  b200.sm_count = 148;
  // No clock is published: the FP32 datasheet figure over the 10.0 rate, 75 TFLOPS / (148 SMs x
  // 256 FLOP per clock) = 1979 MHz.
  b200.sm_clock_max_mhz = 1979;
  b200.mem_clock_max_mhz = 0; // HBM3e: no clock-adjusted memory ceiling (the row states no bus)
  b200.bus_width_bits = 0;
  b200.memory_mib = 183359;  // nvidia-smi listings of 8x B200: "183359MiB"
  b200.l2_mib = 0;           // not published
  b200.power_limit_w = 1000; // nvidia-smi listings: "/ 1000W"; the row's TDP
  b200.nvlink_links = 18;    // the row's nvlink_links
  b200.nvml_nvlink = 7;      // NVML_NVLINK_VERSION_5_0
  b200.fabric = true;
  b200.nccl_transports = {"P2P", "NVLS"};
  // NVIDIA DGX B200 datasheet: 2x Intel Xeon Platinum 8570, 2 TB system memory (configurable to
  // 4 TB); 2 TiB of DIMMs reads as ~2015 GiB in /proc/meminfo, as the DGX H100 node above.
  b200.cpu_model = "INTEL(R) XEON(R) PLATINUM 8570";
  b200.host_memory_gib = 2015;
  b200.figures = closest_figures(h100.figures);
  b200.figures.gemm_fp32 = blackwell_sgemm;
  out.push_back(b200);

  stock_system gb200 = b200;
  gb200.name = "gb200-tray";
  gb200.spec_id = "gb200-nvl72";
  gb200.gpu_name = "NVIDIA GB200"; // coreweave/nccl-tests#48's NCCL log; the row's match name
  gb200.pci_device_id = 0x2941;
  gb200.gpus = 4; // a compute tray: 2 Grace CPUs, 4 GPUs (NVIDIA GB200 NVL72 datasheet)
  gb200.sm_count = 152;
  gb200.sm_clock_max_mhz = 2056; // 80 TFLOPS FP32 / (152 SMs x 256 FLOP per clock)
  gb200.memory_mib = 177383;     // 186 GB (the datasheet's), in MiB
  gb200.power_limit_w = 1200;    // the row's TDP
  gb200.c2c = true;
  gb200.cpu_model = "Neoverse-V2"; // Grace's cores as lscpu names them
  // Two Grace CPUs of up to 480 GB LPDDR5X each (NVIDIA GB200 NVL72 datasheet), less what the
  // firmware keeps: 858 GiB, 1.24 x the GPUs' memory (grace_check_test.cpp's tray).
  gb200.host_memory_gib = 858;
  out.push_back(gb200);

  stock_system pro;
  pro.name = "8x-rtx-pro-6000-server";
  pro.spec_id = "rtx-pro-6000-bw-server";
  pro.gpu_name = "NVIDIA RTX PRO 6000 Blackwell Server Edition"; // nvidia-smi --query-gpu=name
  pro.pci_device_id = 0x2BB5;
  pro.cc_major = 12;
  pro.cc_minor = 0;
  pro.sm_count = 188;
  pro.sm_clock_max_mhz = 2493; // the row's note: FP32 120 TFLOPS implies 2493 MHz at 12.0's rate
  pro.mem_clock_max_mhz = 0;   // GDDR7: the clock formula of ceilings.hpp is not its
  pro.bus_width_bits = 512;
  pro.memory_mib = 97887; // nvidia-smi listings: "97887 MiB"
  pro.l2_mib = 0;         // not published
  pro.pcie_gen = 5;
  pro.power_limit_w = 600; // nvidia-smi listings: "power.limit 600.00 W"; the row's TDP
  pro.same_socket_path = "multiple_switches";
  // Not a sourced vendor configuration: 1 TiB of DIMMs (1007 GiB in /proc/meminfo), 1.32 x the
  // GPUs' 765 GiB, above the host-memory rule's 1.29 x floor.
  pro.host_memory_gib = 1007;
  pro.figures = closest_figures(l40s.figures);
  pro.figures.gemm_fp32 = blackwell_sgemm;
  out.push_back(pro);

  stock_system h20 = h100;
  h20.name = "8x-h20";
  h20.spec_id = "h20";
  h20.gpu_name = "NVIDIA H20"; // nvidia-smi listings of 8x H20
  h20.pci_device_id = 0x2329;
  h20.sm_count = 78; // the row's
  // Not published; the H100 SXM's (the same die): no ceiling is derived from it for the H20
  // (its row's arch_rates_apply is false), it only fills the telemetry.
  h20.sm_clock_max_mhz = 1980;
  h20.mem_clock_max_mhz = 0;
  h20.bus_width_bits = 0;
  h20.memory_mib = 97871;  // nvidia-smi listings: "97871MiB"
  h20.power_limit_w = 500; // nvidia-smi listings: "/  500W"
  h20.nvlink_links = 18;   // as the HGX H100 board above (not published for the H20)
  h20.fabric = true;
  h20.host_memory_gib = 1007; // a public 8x H20 machine description: "RAM: 1.0 TB"
  h20.figures = closest_figures(h100.figures);
  out.push_back(h20);

  stock_system pcie10 = l40s;
  pcie10.name = "10x-l40s-pcie";
  pcie10.gpus = 10; // 10 double-width GPUs on PCIe switches, 5 per socket
  pcie10.same_socket_path = "multiple_switches";
  pcie10.figures = closest_figures(l40s.figures);
  out.push_back(pcie10);
  return out;
}

// ---- the GEMM precisions, as benches/harness/src/gemm_cublas_table.cpp lists them
// -----------------

struct gemm_row {
  const char* id;
  const char* ceiling; ///< arch_rates key ("fp64" becomes "fp64_tc" where the GPU has it)
  const char* compute;
  int ab_bytes, cd_bytes, min_sm;
  bool integer, quick, fp8;
};

constexpr gemm_row gemm_rows[] = {
    {"fp64", "fp64", "CUBLAS_COMPUTE_64F", 8, 8, 0, false, true, false},
    {"fp32", "fp32", "CUBLAS_COMPUTE_32F", 4, 4, 0, false, true, false},
    {"tf32_tc", "tf32_tc", "CUBLAS_COMPUTE_32F_FAST_TF32", 4, 4, 80, false, true, false},
    {"fp16_tc", "fp16_tc", "CUBLAS_COMPUTE_32F", 2, 2, 70, false, true, false},
    {"fp16_tc_acc16", "fp16_tc", "CUBLAS_COMPUTE_16F", 2, 2, 70, false, false, false},
    {"bf16_tc", "bf16_tc", "CUBLAS_COMPUTE_32F", 2, 2, 80, false, true, false},
    {"int8_tc", "int8_tc", "CUBLAS_COMPUTE_32I", 1, 4, 75, true, true, false},
    {"fp8_tc", "fp8_tc", "CUBLAS_COMPUTE_32F", 1, 2, 89, false, false, true},
};

const char* const gemm_shapes[] = {
    "4096x4096x4096",  "1024x1024x1024", "2048x2048x2048", "8192x8192x8192", "16384x16384x16384",
    "16384x4096x4096", "1x8192x8192",    "8x8192x8192",    "32x8192x8192",   "128x8192x8192"};

// ---- building blocks ----------------------------------------------------------------------

const gpu_spec& row_of(const stock_system& s) {
  static const spec_table table = synthetic_specs();
  const gpu_spec* row = table.find(s.spec_id);
  if (row == nullptr)
    throw std::runtime_error("no spec row " + s.spec_id);
  return *row;
}

counter_set stock_clean_counters(std::int64_t links) {
  counter_set c;
  for (const char* name :
       {"ecc.volatile.corrected", "ecc.volatile.uncorrected", "ecc.aggregate.corrected",
        "ecc.aggregate.uncorrected", "retired_pages.single_bit", "retired_pages.double_bit",
        "retired_pages.pending", "remapped_rows.correctable", "remapped_rows.uncorrectable",
        "remapped_rows.pending", "remapped_rows.failure", "pcie.replay", "nvlink.crc_flit",
        "nvlink.crc_data", "nvlink.replay", "nvlink.recovery"})
    c[name] = reading::of(0);
  c["nvlink.links_active"] = reading::of(links);
  return c;
}

int socket_of(const stock_system& s, int gpu) { return gpu * s.sockets / s.gpus; }

device_info make_device(const stock_system& s, int index) {
  device_info d;
  d.index = index;
  d.cuda_index = index;
  d.name = s.gpu_name;
  d.uuid = fmt::format("GPU-5e5e{:04x}-0000-4000-8000-{:012d}", s.pci_device_id, index);
  d.serial = fmt::format("SYNTHETIC-{}-{}", s.name, index);
  d.vbios = "96.00.00.00.01";
  d.pci_bus_id = fmt::format("00000000:{:02X}:00.0", 0x18 + 0x10 * index);
  d.pci_device_id = s.pci_device_id;
  d.cc_major = s.cc_major;
  d.cc_minor = s.cc_minor;
  d.sm_count = s.sm_count;
  d.memory_bytes = s.memory_mib * mib;
  d.l2_bytes = s.l2_mib * mib;
  d.sm_clock_mhz = 345;
  d.sm_clock_max_mhz = s.sm_clock_max_mhz;
  d.mem_clock_mhz = s.mem_clock_max_mhz;
  d.mem_clock_max_mhz = s.mem_clock_max_mhz;
  d.memory_bus_width_bits = s.bus_width_bits;
  // Gen1 at idle (power saving); NVML's GPU and system maxima the same on a stock system.
  d.pcie = {1, s.pcie_gen, s.pcie_width, s.pcie_width, s.pcie_gen};
  d.power_limit_w = s.power_limit_w;
  d.power_limit_default_w = s.power_limit_w;
  d.power_limit_max_w = s.power_limit_w;
  d.temperature_c = 34;
  d.ecc_mode = "enabled";
  d.ecc_mode_pending = "enabled";
  d.mig_mode = "disabled";
  d.persistence_mode = "enabled";
  d.c2c = s.c2c ? std::optional<c2c_link>(c2c_link{"enabled", "ats"}) : std::nullopt;
  if (s.fabric) {
    // Registered, as nvmlDeviceGetGpuFabricInfoV reports a GPU the fabric manager took in (the
    // cluster UUID a made-up one of this builder; the v1 query: no health mask).
    gpu_fabric f;
    f.state = "completed";
    f.status = "success";
    f.cluster_uuid = "5e5e0000-0000-4000-8000-000000000019";
    f.clique_id = 1;
    d.fabric = f;
  }
  // The row the harness's inventory matches by PCI device id and NVML name, never one given by
  // hand: a model that took a sibling's row would show here.
  static const spec_table table = synthetic_specs();
  const gpu_spec* matched = match_device(table, d);
  if (matched == nullptr || matched->id != s.spec_id)
    throw std::runtime_error(fmt::format("{} ({:#06x}) matches {}, not {}", s.gpu_name,
                                         s.pci_device_id, matched ? matched->id : "no row",
                                         s.spec_id));
  d.spec_id = matched->id;
  d.counters_before = stock_clean_counters(s.nvlink_links);
  d.counters_after = stock_clean_counters(s.nvlink_links);
  d.counters_delta = stock_clean_counters(0);
  d.activity = gpu_activity{0, {}, "ok"};
  return d;
}

topology_info make_topology(const stock_system& s) {
  topology_info t;
  const auto generation = host::nvlink_generation_of(s.nvml_nvlink);
  for (int i = 0; i < s.gpus; ++i) {
    gpu_topology g;
    g.device = i;
    g.numa_node = socket_of(s, i);
    g.cpu_list = socket_of(s, i) == 0 ? "0-55,112-167" : "56-111,168-223";
    if (s.nvlink_links > 0 && generation) {
      g.nvlink_version = std::string(generation->version);
      g.nvlink_link_gbs = generation->link_gbs;
      g.nvlink_link_source = std::string(generation->source);
      for (int l = 0; l < s.nvlink_links; ++l)
        g.nvlinks.push_back({l, true, "switch", fmt::format("00000000:{:02X}:00.0", 0xC0 + l)});
    }
    t.gpus.push_back(g);
  }
  for (int a = 0; a < s.gpus; ++a)
    for (int b = 0; b < s.gpus; ++b) {
      if (a == b)
        continue;
      gpu_pair p;
      p.src = a;
      p.dst = b;
      const bool same = socket_of(s, a) == socket_of(s, b);
      const bool one_switch = same && a / 2 == b / 2;
      p.pcie_path = !same ? "system" : one_switch ? "single_switch" : s.same_socket_path;
      p.nvlink_links = s.nvlink_links;
      p.transport = s.nvlink_links > 0 ? "nvlink" : "pcie";
      const std::string p2p = s.nvlink_links > 0 || same ? "ok" : "topology not supported";
      p.p2p_read = p2p;
      p.p2p_write = p2p;
      p.p2p_nvlink = s.nvlink_links > 0 ? "ok" : "not supported";
      t.pairs.push_back(p);
    }
  return t;
}

telemetry_summary window(const stock_system& s, double power_fraction,
                         std::vector<std::string> reasons = {}) {
  telemetry_summary t;
  t.samples = 50;
  t.period_ms = 20;
  t.sm_clock_mhz_min = s.sm_clock_max_mhz - 15;
  t.sm_clock_mhz_median = s.sm_clock_max_mhz;
  t.sm_clock_mhz_max = s.sm_clock_max_mhz;
  t.mem_clock_mhz_min = s.mem_clock_max_mhz;
  t.mem_clock_mhz_median = s.mem_clock_max_mhz;
  t.temperature_c_max = 62;
  t.power_w_mean = power_fraction * s.power_limit_w * 0.95;
  t.power_w_max = power_fraction * s.power_limit_w;
  t.low_clock_fraction = 0.0;
  t.throttled = !reasons.empty();
  t.throttle_reasons = std::move(reasons);
  t.status = "ok";
  t.window_start_s = 1.0;
  t.window_end_s = 1.6;
  return t;
}

/// The value the check judges a result by (its reference, resolved against the spec row);
/// nullopt where there is none (an identity-only row such as the H20's, no clock to derive one).
std::optional<double> reference_value(const result& r, const gpu_spec* row) {
  return resolve_reference(r, row, default_datasheet_tolerance).value;
}

/// What a result with no reference is built at: a round synthetic median (1000 GB/s, TFLOP/s
/// or TOPS times the figure's fraction), no figure of any GPU. The check cannot judge it against
/// a datasheet; its siblings judge it, as they would a real run's.
constexpr double unreferenced_median = 1000;

/// Ten samples at `fraction` of the reference, as the stopping rule leaves them; the
/// efficiency against the clock-adjusted ceiling, as bench_state settles it.
void measure(result& r, const gpu_spec* row, double fraction) {
  r.ceiling_value.reference = choose_reference(r.ceiling_value);
  const auto reference = reference_value(r, row);
  if (!reference)
    r.observations["synthetic_no_reference"] =
        fmt::format("no reference (the row states no figure and no ceiling was derived): a "
                    "synthetic median of {:g} x {:.3f}, judged by its siblings only",
                    unreferenced_median, fraction);
  const double value = fraction * reference.value_or(unreferenced_median);
  const double work = r.bytes_per_iteration.value_or(0) > 0 ? *r.bytes_per_iteration
                                                            : r.flops_per_iteration.value_or(1);
  const double scale = r.unit == metric_unit::gigabytes_per_second ? 1e9 : 1e12;
  r.samples.clear();
  r.sample_seconds.clear();
  for (int k = 0; k < 10; ++k) {
    const double v = value * (1.0 + 0.001 * (k - 5));
    r.samples.push_back(v);
    r.sample_seconds.push_back(work / (v * scale));
  }
  r.stats = summarize(r.samples);
  r.host_seconds_median = r.stats.median > 0 ? work / (r.stats.median * scale) * 1.01 : 0;
  r.stop_reason = "cv_target";
  settle_efficiency(r); // against the reference, as the harness's one builder does
}

void note_source(result& r, const stock_figure& f) {
  r.observations["synthetic_figure"] =
      fmt::format("{:.3f} of the reference: {}", f.fraction, f.source);
}

// ---- the families -------------------------------------------------------------------------

result stream_result(const stock_system& s, const kernels::stream_op_row& op,
                     const std::string& dtype, int dev) {
  const gpu_spec& row = row_of(s);
  const int arrays = op.arrays_moved();
  const std::uint64_t bytes = std::uint64_t{1} << 30;
  const std::uint64_t n = bytes / (dtype == "fp64" ? 8 : 4);
  result r;
  r.bench_id = "memory.stream." + std::string(op.name);
  r.devices = {dev};
  r.axes = {{"dtype", dtype}};
  r.observations = {{"array_bytes", bytes},   {"elements", n},
                    {"arrays", arrays},       {"array_bytes_requested", bytes},
                    {"shrunk_to_fit", false}, {"l2_bytes", s.l2_mib * mib},
                    {"below_4x_l2", false}};
  r.metric = "bandwidth";
  r.unit = metric_unit::gigabytes_per_second;
  r.cache_state = "cold";
  r.bytes_per_iteration = static_cast<double>(arrays * bytes);
  r.telemetry = window(s, 0.6);
  r.ceiling_value = host::memory_bandwidth_ceiling(
      r.telemetry.mem_clock_mhz_median,
      "median of the NVML memory clock sampled during the measurement", s.bus_width_bits, &row);
  r.check = {verification_status::passed, 0.0, 1e-6, "every element against the analytic value"};
  r.gpus_busy = s.gpus;
  measure(r, &row, s.figures.stream.fraction);
  note_source(r, s.figures.stream);
  return r;
}

const stock_figure& gemm_figure(const stock_system& s, const gemm_row& g, const std::string& cls) {
  if (cls != "large")
    return s.figures.gemm_small;
  if (std::string_view(g.id) == "fp64")
    return s.figures.gemm_fp64;
  if (std::string_view(g.id) == "fp32")
    return s.figures.gemm_fp32;
  if (g.fp8)
    return s.figures.gemm_fp8;
  return s.figures.gemm_tensor;
}

/// One gemm.cublas case as benches/families/gemm_cublas.cpp writes it; nullopt when that family
/// would skip it for its time budget.
std::optional<result> gemm_result(const stock_system& s, const gemm_row& g,
                                  const std::string& shape, const std::string& layout, int dev,
                                  const std::string& suite) {
  const gpu_spec& row = row_of(s);
  std::int64_t m = 0, n = 0, k = 0;
  if (std::sscanf(shape.c_str(), "%ldx%ldx%ld", &m, &n, &k) != 3)
    throw std::invalid_argument(shape);
  result r;
  r.bench_id = std::string("gemm.cublas.") + g.id;
  r.devices = {dev};
  r.axes = {{"shape", shape}, {"layout", layout}};
  const int sm = 10 * s.cc_major + s.cc_minor;
  if (sm < g.min_sm) {
    r.status = result_status::not_supported;
    r.reason = fmt::format("{} needs sm_{} or later; this GPU is sm_{}", r.bench_id, g.min_sm, sm);
    r.telemetry.status = "not measured";
    return r;
  }
  std::string key = g.ceiling;
  if (key == "fp64" && rate_per_sm_per_clock(s.cc_major, s.cc_minor, "fp64_tc"))
    key = "fp64_tc";
  const double ops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  const auto peak =
      clock_adjusted_peak(s.cc_major, s.cc_minor, s.sm_count, s.sm_clock_max_mhz, key);
  const double budget = suite == "quick" ? 0.1 : 1.0;
  if (peak && ops / (*peak * 1e12) > budget)
    return std::nullopt; // the family skips it: longer than the suite's per-GEMM budget
  const double one = peak ? ops / (*peak * 1e12) : 1e-3;
  const int reps = static_cast<int>(std::clamp(std::ceil(2e-3 / one), 1.0, 100.0));
  r.observations = {{"m", m},
                    {"n", n},
                    {"k", k},
                    {"compute_type", g.compute},
                    {"api", "cublasLtMatmul"},
                    {"gemms_per_sample", reps},
                    {"ops_per_gemm", ops},
                    {"l2_bytes", s.l2_mib * mib},
                    {"ceiling_key", key}};
  if (g.fp8)
    r.observations["fast_accum"] = false;
  r.metric = "throughput";
  r.unit = g.integer ? metric_unit::teraops_per_second : metric_unit::teraflop_per_second;
  r.cache_state = "hot";
  r.flops_per_iteration = ops * reps;
  const double min_bytes = (static_cast<double>(m) * static_cast<double>(k) * g.ab_bytes +
                            static_cast<double>(k) * static_cast<double>(n) * g.ab_bytes +
                            static_cast<double>(m) * static_cast<double>(n) * g.cd_bytes) *
                           reps;
  r.observations["roofline_bytes"] = min_bytes;
  const bool tensor = key != "fp64" && key != "fp32";
  r.telemetry =
      window(s, tensor ? 1.0 : 0.8,
             tensor ? std::vector<std::string>{"sw_power_cap"} : std::vector<std::string>{});
  host::compute_ceiling_inputs in;
  in.key = key;
  in.cc_major = s.cc_major;
  in.cc_minor = s.cc_minor;
  in.sm_count = s.sm_count;
  in.sm_clock_mhz = r.telemetry.sm_clock_mhz_median;
  in.clock_origin = "median of the NVML SM clock sampled during the measurement";
  in.device_name = s.gpu_name;
  in.spec = &row;
  const auto memory = host::memory_bandwidth_ceiling(
      r.telemetry.mem_clock_mhz_median, "median of the NVML memory clock", s.bus_width_bits, &row);
  r.ceiling_value =
      host::apply_roofline(host::compute_ceiling(in), *r.flops_per_iteration, min_bytes, memory);
  r.check = {verification_status::passed, 2e-4, 5e-3, "sampled against a host reference"};
  r.gpus_busy = s.gpus;
  const auto& f = gemm_figure(s, g, std::string(gemm_shape_class(m, n, k)));
  measure(r, &row, f.fraction);
  note_source(r, f);
  return r;
}

device_info at_max_link(device_info d) {
  d.pcie.gen_current = d.pcie.gen_max;
  d.pcie.width_current = d.pcie.width_max;
  return d;
}

result transfer_result(const stock_system& s, const std::string& kind, const std::string& memory,
                       const std::string& engine, const std::string& size, int dev) {
  const gpu_spec& row = row_of(s);
  const bool bidir = kind == "bidir";
  const std::uint64_t bytes = kernels::parse_size_text(size);
  const std::uint64_t copies = std::clamp<std::uint64_t>(
      kernels::transfer_sample_min_bytes / std::max<std::uint64_t>(bytes, 1), 1, 64);
  result r;
  r.bench_id = "transfer." + kind;
  r.devices = {dev};
  r.axes = {{"memory", memory}, {"engine", engine}, {"size", size}};
  r.observations = {{"bytes_per_copy", bytes},
                    {"copies_per_sample", copies},
                    {"directions", bidir ? 2 : 1},
                    {"numa_node", socket_of(s, dev)},
                    {"numa_binding", "mbind"},
                    {"pcie_gen_under_load", s.pcie_gen},
                    {"pcie_width_under_load", s.pcie_width},
                    {"pcie_link_samples_under_load", 50}};
  r.metric = "bandwidth";
  r.unit = metric_unit::gigabytes_per_second;
  r.cache_state = "hot";
  r.bytes_per_iteration = static_cast<double>(bytes * copies * (bidir ? 2 : 1));
  r.telemetry = window(s, 0.3);
  r.telemetry.pcie_gen_min = s.pcie_gen;
  r.telemetry.pcie_width_min = s.pcie_width;
  host::pcie_ceiling_inputs in;
  in.directions = bidir ? 2 : 1;
  in.under_load = host::pcie_link_state{s.pcie_gen, s.pcie_width};
  in.under_load_samples = 50;
  in.inventory = {1, s.pcie_width};
  in.spec = &row;
  r.ceiling_value = host::pcie_transfer_ceiling(in);
  r.check = {verification_status::passed, 0.0, 0.0, "every destination byte equal to its source"};
  r.gpus_busy = s.gpus;
  const auto& f = kind == "h2d"   ? (engine == "sm" ? s.figures.h2d_sm : s.figures.h2d_ce)
                  : kind == "d2h" ? (engine == "sm" ? s.figures.d2h_sm : s.figures.d2h_ce)
                                  : (engine == "sm" ? s.figures.bidir_sm : s.figures.bidir_ce);
  measure(r, &row, f.fraction);
  note_source(r, f);
  return r;
}

result p2p_result(const stock_system& s, const report& rep, int src, int dst,
                  const std::string& engine, const std::string& direction,
                  const std::string& size) {
  const bool both = direction == "both_ways";
  const std::uint64_t bytes = kernels::parse_size_text(size);
  const std::uint64_t copies = std::clamp<std::uint64_t>(
      kernels::transfer_sample_min_bytes / std::max<std::uint64_t>(bytes, 1), 1, 64);
  result r;
  r.bench_id = "transfer.p2p";
  r.devices = {src, dst};
  r.axes = {{"pair", fmt::format("{}->{}", src, dst)},
            {"engine", engine},
            {"direction", direction},
            {"size", size}};
  const auto& topo = *rep.host.topology;
  r.observations["path"] = host::p2p_path_text(topo, src, dst);
  r.observations["nvlink_links"] = find_pair(topo, src, dst)->nvlink_links;
  r.observations["copies_per_sample"] = copies;
  r.metric = "bandwidth";
  r.unit = metric_unit::gigabytes_per_second;
  r.cache_state = "hot";
  r.bytes_per_iteration = static_cast<double>(bytes * copies * (both ? 2 : 1));
  // The maximum link (see the header): the ceiling the burnin-transfers branch attaches.
  r.ceiling_value =
      host::p2p_ceiling(topo, at_max_link(rep.devices[static_cast<std::size_t>(src)]),
                        at_max_link(rep.devices[static_cast<std::size_t>(dst)]), both ? 2 : 1);
  r.telemetry = window(s, 0.3);
  r.check = {verification_status::passed, 0.0, std::nullopt, "all bytes equal"};
  r.gpus_busy = 2;
  const auto& f = both ? s.figures.p2p_both_ways : s.figures.p2p_one_way;
  measure(r, nullptr, f.fraction);
  note_source(r, f);
  return r;
}

std::vector<std::string> collective_size_axis(bool quick) {
  std::vector<std::string> sizes{"1GiB", "1MiB", "8B"};
  if (quick)
    return sizes;
  for (std::uint64_t b = 16; b < (std::uint64_t{1} << 30); b *= 2)
    if (b != (std::uint64_t{1} << 20))
      sizes.push_back(kernels::size_text(b));
  return sizes;
}

void add_collectives(const stock_system& s, report& rep, bool quick) {
  const gpu_spec& row = row_of(s);
  const std::vector<std::string> kinds = {"all_reduce", "all_gather", "reduce_scatter", "broadcast",
                                          "reduce",     "alltoall",   "sendrecv"};
  const std::vector<std::string> dtypes =
      quick ? std::vector<std::string>{"fp32"} : std::vector<std::string>{"fp32", "fp16", "bf16"};
  const std::vector<std::string> placements =
      quick ? std::vector<std::string>{"out_of_place"}
            : std::vector<std::string>{"out_of_place", "in_place"};
  for (const auto& kind : kinds)
    for (const auto& dtype : dtypes)
      for (const auto& size : collective_size_axis(quick))
        for (const auto& placement : placements) {
          collective_case c;
          c.kind = kind;
          c.size = size;
          c.ranks = s.gpus;
          c.transports = s.nccl_transports;
          c.row = &row;
          // First for the ceiling, then at the figure's fraction of its reference, so that
          // the times and algbw the builder writes agree with the busbw.
          c.busbw_gbs = 1;
          result probe;
          try {
            probe = collective_result(rep, c);
          } catch (const std::invalid_argument&) {
            continue; // a size that leaves no element per rank (alltoall of 8 B over 8 ranks)
          }
          probe.ceiling_value.reference = choose_reference(probe.ceiling_value);
          c.busbw_gbs = s.figures.collective.fraction *
                        reference_value(probe, &row).value_or(unreferenced_median);
          result r = collective_result(rep, c);
          r.axes["dtype"] = dtype;
          r.axes["placement"] = placement;
          r.telemetry = window(s, 0.4);
          note_source(r, s.figures.collective);
          rep.results.push_back(std::move(r));
        }
}

} // namespace

const std::vector<stock_system>& stock_systems() {
  static const std::vector<stock_system> systems = make_systems();
  return systems;
}

const std::vector<stock_system>& issue19_systems() {
  static const std::vector<stock_system> systems = make_issue19_systems();
  return systems;
}

report stock_report(const stock_system& s, const std::string& suite) {
  const bool quick = suite == "quick";
  report r;
  r.run.tool_version = "0.1.0";
  r.run.started_utc = "2026-12-01T02:00:00Z";
  r.run.finished_utc = quick ? "2026-12-01T02:01:00Z" : "2026-12-01T02:05:00Z";
  r.run.suite = suite;
  r.run.command_line = {"gpuspec", "run", "--suite", suite};
  r.run.backend = "cuda";
  r.run.concurrency = s.gpus;
  auto& h = r.host;
  h.hostname = "stock-" + s.name;
  h.os = "Ubuntu 22.04.4 LTS";
  h.kernel = "5.15.0-119-generic";
  h.cpu_model = s.cpu_model;
  h.cpu_logical_cores = 224;
  h.cpu_sockets = s.sockets;
  h.memory_bytes = s.host_memory_gib * gib;
  h.numa_nodes = s.sockets;
  h.nouveau_loaded = false;
  h.driver_version = "550.54.15";
  h.cuda_driver_version = "12.4";
  h.cuda_runtime_version = "12.4";
  h.cublas_version = "12.4.5";
  h.gpu_status = "ok";
  h.topology = make_topology(s);
  for (int i = 0; i < s.gpus; ++i) {
    r.devices.push_back(make_device(s, i));
    r.run.devices.push_back(i);
  }
  h.checks = evaluate_host_checks(h, r.devices);

  const std::vector<std::string> dtypes =
      quick ? std::vector<std::string>{"fp32"} : std::vector<std::string>{"fp32", "fp64"};
  const auto transfer_sizes = kernels::transfer_size_texts();
  for (int dev = 0; dev < s.gpus; ++dev) {
    for (const auto& op : kernels::stream_ops)
      for (const auto& dtype : dtypes)
        r.results.push_back(stream_result(s, op, dtype, dev));
    for (const auto& g : gemm_rows) {
      if (quick && !g.quick)
        continue;
      const std::vector<std::string> layouts = g.integer || g.fp8
                                                   ? std::vector<std::string>{"NT", "NN"}
                                                   : std::vector<std::string>{"NN", "NT"};
      for (std::size_t sh = 0; sh < (quick ? 1 : std::size(gemm_shapes)); ++sh)
        for (std::size_t l = 0; l < (quick ? 1 : layouts.size()); ++l)
          if (auto res = gemm_result(s, g, gemm_shapes[sh], layouts[l], dev, suite))
            r.results.push_back(std::move(*res));
    }
    for (const char* kind : {"h2d", "d2h", "bidir"})
      for (const char* memory : {"pinned", "pageable"})
        for (const char* engine : {"copy_engine", "sm"}) {
          if (quick &&
              (std::string_view(memory) != "pinned" || std::string_view(engine) != "copy_engine"))
            continue;
          if (std::string_view(memory) == "pageable" && std::string_view(engine) == "sm")
            continue; // no device mapping: the family skips it
          for (std::size_t z = 0; z < (quick ? 1 : transfer_sizes.size()); ++z)
            r.results.push_back(transfer_result(s, kind, memory, engine, transfer_sizes[z], dev));
        }
  }
  for (int a = 0; a < s.gpus; ++a)
    for (int b = 0; b < s.gpus; ++b) {
      if (a == b)
        continue;
      for (const char* engine : {"ce", "sm"})
        for (const char* direction : {"one_way", "both_ways"}) {
          if (quick &&
              (std::string_view(engine) != "ce" || std::string_view(direction) != "one_way"))
            continue;
          for (std::size_t z = 0; z < (quick ? 1 : transfer_sizes.size()); ++z)
            r.results.push_back(p2p_result(s, r, a, b, engine, direction, transfer_sizes[z]));
        }
    }
  add_collectives(s, r, quick);
  r.complete = true;
  return r;
}

void set_fraction(report& r, const std::string& prefix, const nlohmann::ordered_json& axes,
                  int device, double fraction) {
  static const spec_table table = synthetic_specs();
  for (auto& res : r.results) {
    if (res.status != result_status::ok || !res.bench_id.starts_with(prefix))
      continue;
    if (device >= 0 &&
        std::find(res.devices.begin(), res.devices.end(), device) == res.devices.end())
      continue;
    bool match = true;
    for (const auto& [k, v] : axes.items())
      match = match && res.axes.contains(k) && res.axes[k] == v;
    if (!match)
      continue;
    const device_info* d = nullptr;
    for (const auto& x : r.devices)
      if (x.index == res.devices.front())
        d = &x;
    const gpu_spec* row = d != nullptr ? table.find(d->spec_id) : nullptr;
    measure(res, res.bench_id.starts_with("transfer.p2p") ? nullptr : row, fraction);
  }
}

} // namespace gpuspec::reports::testing
