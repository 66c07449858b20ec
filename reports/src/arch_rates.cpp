// The per-architecture rate table. Each figure is dense operations per SM per clock (an FMA is 2
// operations), read from the architecture whitepapers' per-SM tables and cross-checked against
// the datasheet peaks in specs/gpus.json by tests/unit/specs. docs/specs.md explains each row.

#include "gpuspec/reports/arch_rates.hpp"

#include <algorithm>
#include <array>

namespace gpuspec::reports {
namespace {

constexpr std::string_view volta_source =
    "NVIDIA Tesla V100 GPU Architecture whitepaper (WP-08608-001_v1.1), "
    "https://images.nvidia.com/content/volta-architecture/pdf/volta-architecture-whitepaper.pdf";
constexpr std::string_view turing_source =
    "NVIDIA Turing GPU Architecture whitepaper (WP-09183-001_v01), "
    "https://images.nvidia.com/aem-dam/en-zz/Solutions/design-visualization/technologies/"
    "turing-architecture/NVIDIA-Turing-Architecture-Whitepaper.pdf";
constexpr std::string_view ga100_source =
    "NVIDIA A100 Tensor Core GPU Architecture whitepaper (V1.0), "
    "https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/"
    "nvidia-ampere-architecture-whitepaper.pdf";
constexpr std::string_view ga102_source =
    "NVIDIA Ampere GA102 GPU Architecture whitepaper (V2.0), "
    "https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf";
constexpr std::string_view ada_source = "NVIDIA Ada GPU Architecture whitepaper (V2.02), "
                                        "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/"
                                        "nvidia-ada-gpu-architecture.pdf";
constexpr std::string_view hopper_source =
    "NVIDIA H100 Tensor Core GPU Architecture whitepaper (V1.01), "
    "https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper";

// Columns: fp64, fp64_tc, fp32, fp16, bf16, tf32_tc, fp16_tc, bf16_tc, int8_tc, fp8_tc, int32.
constexpr auto none = std::nullopt;
const std::array<arch_rate_row, 6> table{{
    {70, "volta", volta_source, 64, none, 128, 256, none, none, 1024, none, none, none, 128,
     "8 Tensor Cores per SM, 64 FP16 FMA per clock each"},
    {75, "turing", turing_source, 4, none, 128, 256, none, none, 1024, none, 2048, none, 128,
     "Tesla/Quadro rates; GeForce Turing runs FP16 Tensor Core math with FP32 accumulate at "
     "half rate"},
    {80, "ampere", ga100_source, 64, 128, 128, 512, 256, 1024, 2048, 2048, 4096, none, 128,
     "GA100: 4 third-generation Tensor Cores per SM, 256 FP16 FMA per clock each"},
    {86, "ampere", ga102_source, 4, none, 256, 256, 256, 512, 1024, 1024, 2048, none, 128,
     "GA10x: 2 FP32 datapaths per SM partition; professional rates; GeForce GA10x runs "
     "FP16/BF16/TF32 Tensor Core math with FP32 accumulate at half rate"},
    {89, "ada", ada_source, 4, none, 256, 256, 256, 512, 1024, 1024, 2048, 2048, 128,
     "professional (RTX 6000 Ada, L4, L40S) rates; GeForce Ada runs FP16/BF16/FP8 Tensor Core "
     "math with FP32 accumulate at half rate"},
    {90, "hopper", hopper_source, 128, 256, 256, 512, 512, 2048, 4096, 4096, 8192, 8192, 128,
     "the datasheets state the non-FP64 Tensor Core figures at a lower clock than the FP32 "
     "boost clock (H100 SXM5 1830 MHz vs 1980 MHz; H100 PCIe 1620 MHz vs 1755 MHz)"},
}};

} // namespace

std::span<const arch_rate_row> arch_rate_table() { return table; }

const arch_rate_row* find_arch_rates(int cc_major, int cc_minor) {
  const int sm = cc_major * 10 + cc_minor;
  const auto* it =
      std::find_if(table.begin(), table.end(), [sm](const arch_rate_row& r) { return r.sm == sm; });
  return it == table.end() ? nullptr : &*it;
}

std::optional<double> rate_of(const arch_rate_row& row, std::string_view key) {
  if (key == "fp64")
    return row.fp64;
  if (key == "fp64_tc")
    return row.fp64_tc;
  if (key == "fp32")
    return row.fp32;
  if (key == "fp16")
    return row.fp16;
  if (key == "bf16")
    return row.bf16;
  if (key == "tf32_tc")
    return row.tf32_tc;
  if (key == "fp16_tc")
    return row.fp16_tc;
  if (key == "bf16_tc")
    return row.bf16_tc;
  if (key == "int8_tc")
    return row.int8_tc;
  if (key == "fp8_tc")
    return row.fp8_tc;
  if (key == "int32")
    return row.int32;
  return std::nullopt;
}

std::string_view rate_source(const arch_rate_row& row, std::string_view key) {
  return key == "int32" ? int32_rate_source : row.source;
}

bool geforce_halves_fp32_accumulate(int cc_major, int cc_minor, std::string_view key) {
  const int sm = cc_major * 10 + cc_minor;
  if (sm == 75)
    return key == "fp16_tc";
  if (sm == 86 || sm == 89)
    return key == "fp16_tc" || key == "bf16_tc" || key == "tf32_tc" || key == "fp8_tc";
  return false;
}

std::optional<double> rate_per_sm_per_clock(int cc_major, int cc_minor, std::string_view key) {
  const arch_rate_row* row = find_arch_rates(cc_major, cc_minor);
  return row == nullptr ? std::nullopt : rate_of(*row, key);
}

double peak_from_clock(int sm_count, double clock_mhz, double rate_per_sm_per_clock) {
  return static_cast<double>(sm_count) * clock_mhz * 1e6 * rate_per_sm_per_clock / 1e12;
}

double memory_bandwidth_gbs(double mem_clock_mhz, int bus_width_bits, double transfers_per_clock) {
  return mem_clock_mhz * 1e6 * transfers_per_clock * static_cast<double>(bus_width_bits) / 8.0 /
         1e9;
}

std::optional<double> clock_adjusted_peak(int cc_major, int cc_minor, int sm_count,
                                          double clock_mhz, std::string_view key) {
  const auto rate = rate_per_sm_per_clock(cc_major, cc_minor, key);
  if (!rate || sm_count <= 0 || !(clock_mhz > 0)) {
    return std::nullopt;
  }
  return peak_from_clock(sm_count, clock_mhz, *rate);
}

bool is_low_precision_tensor_key(std::string_view key) {
  return key.ends_with("_tc") && key != "fp64_tc";
}

} // namespace gpuspec::reports
