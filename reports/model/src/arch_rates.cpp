// The per-architecture rate table. Each figure is dense operations per SM per clock (an FMA is 2
// operations), read from the architecture whitepapers' per-SM tables and cross-checked against
// the datasheet peaks in specs/gpus.json by tests/unit/specs. docs/specs.md explains each row.
// Blackwell (10.0, 10.3, 12.0) has no per-SM table in a document we could open: those rates are
// inferred from datasheet or whitepaper totals / SMs / clock, and each row names which keys are
// inferred and how (rate_source returns that basis for them).

#include "gpuspec/reports/model/arch_rates.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace gpuspec::reports::inline model {
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

constexpr std::string_view blackwell_guide_source =
    "CUDA C++ Best Practices Guide 13.4, 12.1.1 \"Throughput of Native Arithmetic Instructions\" "
    "(FP64: 64 FMA per clock per SM on 10.0, 2 on 12.0; FP32: 128 results per clock per SM), "
    "https://docs.nvidia.com/cuda/cuda-c-best-practices-guide/index.html";
constexpr std::string_view sm100_inferred =
    "inferred, not printed by NVIDIA: the NVIDIA Blackwell Datasheet (HGX B200 and GB200 NVL72 "
    "per-GPU columns, sparse / 2, "
    "https://nvdam.widen.net/s/wwnsxrhm2w/blackwell-datasheet-3384703) "
    "fixes the ratios FP4 : FP8 = FP6 = INT8 : FP16 : TF32 = 8 : 4 : 2 : 1 and FP64 Tensor = FP64; "
    "the rate is the power of two under which B200 (148 SMs) and GB200 (152 SMs) each fit one "
    "clock below their NVML max SM clock (1856 and 2008 MHz implied; no clock is published)";
constexpr std::string_view sm103_source =
    "NVIDIA Technical Blog, \"Inside NVIDIA Blackwell Ultra: The Chip Powering the AI Factory "
    "Era\" (128 CUDA cores for FP32 per SM), https://developer.nvidia.com/blog/"
    "inside-nvidia-blackwell-ultra-the-chip-powering-the-ai-factory-era";
constexpr std::string_view sm103_inferred =
    "inferred, not printed by NVIDIA: the NVIDIA DGX/HGX B300 page as quoted (FP4 144 | 108 "
    "PFLOPS sparse | dense and FP8 72 PFLOPS sparse per 8 GPUs, https://www.nvidia.com/en-us/"
    "data-center/dgx-b300/) gives 13.5 PF FP4 and 4.5 PF FP8 dense per GPU: FP8 as on 10.0, FP4 "
    "1.5 times 10.0's; the blog's 15 PF dense NVFP4 for 160 SMs fits the same rate";
constexpr std::string_view sm120_source =
    "NVIDIA RTX Blackwell GPU Architecture whitepaper (V1.1), Appendix A, Table 3 (GeForce RTX "
    "5090: 170 SMs, 2407 MHz boost), https://images.nvidia.com/aem-dam/Solutions/geforce/"
    "blackwell/nvidia-rtx-blackwell-gpu-architecture.pdf; FP32 and FP64 from the CUDA C++ Best "
    "Practices Guide 13.4, 12.1.1, https://docs.nvidia.com/cuda/cuda-c-best-practices-guide/";
constexpr std::string_view sm120_inferred =
    "inferred from the whitepaper's RTX 5090 totals / 170 SMs / 2407 MHz: FP16 Tensor with FP16 "
    "accumulate 419 TFLOPS (1024), FP8 with FP16 accumulate 838 (2048), FP4 1676 (4096); that "
    "professional parts (RTX PRO 6000) run FP16/FP8 at this rate with FP32 accumulate is not "
    "published";

// Columns: fp64, fp64_tc, fp32, fp16, bf16, tf32_tc, fp16_tc, bf16_tc, int8_tc, fp8_tc, int32,
// notes, fp6_tc, fp4_tc, the keys whose rate is inferred and how.
constexpr auto none = std::nullopt;
const std::array<arch_rate_row, 9> table{{
    {70,
     "volta",
     volta_source,
     64,
     none,
     128,
     256,
     none,
     none,
     1024,
     none,
     none,
     none,
     128,
     "8 Tensor Cores per SM, 64 FP16 FMA per clock each",
     none,
     none,
     {},
     {}},
    {75,
     "turing",
     turing_source,
     4,
     none,
     128,
     256,
     none,
     none,
     1024,
     none,
     2048,
     none,
     128,
     "Tesla/Quadro rates; GeForce Turing runs FP16 Tensor Core math with FP32 accumulate at "
     "half rate",
     none,
     none,
     {},
     {}},
    {80,
     "ampere",
     ga100_source,
     64,
     128,
     128,
     512,
     256,
     1024,
     2048,
     2048,
     4096,
     none,
     128,
     "GA100: 4 third-generation Tensor Cores per SM, 256 FP16 FMA per clock each",
     none,
     none,
     {},
     {}},
    {86,
     "ampere",
     ga102_source,
     4,
     none,
     256,
     256,
     256,
     512,
     1024,
     1024,
     2048,
     none,
     128,
     "GA10x: 2 FP32 datapaths per SM partition; professional rates; GeForce GA10x runs "
     "FP16/BF16/TF32 Tensor Core math with FP32 accumulate at half rate",
     none,
     none,
     {},
     {}},
    {89,
     "ada",
     ada_source,
     4,
     none,
     256,
     256,
     256,
     512,
     1024,
     1024,
     2048,
     2048,
     128,
     "professional (RTX 6000 Ada, L4, L40S) rates; GeForce Ada runs FP16/BF16/FP8 Tensor Core "
     "math with FP32 accumulate at half rate",
     none,
     none,
     {},
     {}},
    {90,
     "hopper",
     hopper_source,
     128,
     256,
     256,
     512,
     512,
     2048,
     4096,
     4096,
     8192,
     8192,
     128,
     "the datasheets state the non-FP64 Tensor Core figures at a lower clock than the FP32 "
     "boost clock (H100 SXM5 1830 MHz vs 1980 MHz; H100 PCIe 1620 MHz vs 1755 MHz)",
     none,
     none,
     {},
     {}},
    {100, "blackwell", blackwell_guide_source, 128, 128, 256, none, none, 4096, 8192, 8192, 16384,
     16384, none,
     "B200, GB200: as on Hopper, the Tensor Core figures imply a lower clock than the FP32/FP64 "
     "ones (B200: 1856 against about 1965 MHz); no clock is published",
     16384, 32768, "fp64_tc tf32_tc fp16_tc bf16_tc int8_tc fp8_tc fp6_tc fp4_tc", sm100_inferred},
    {103, "blackwell", sm103_source, none, none, 256, none, none, none, none, none, none, 16384,
     none,
     "B300, GB300 (Blackwell Ultra): FP64 and INT8 are cut to figures no whole rate reproduces; "
     "TF32/FP16/BF16/FP6 Tensor figures are in no NVIDIA document we could open",
     none, 49152, "fp8_tc fp4_tc", sm103_inferred},
    {120, "blackwell", sm120_source, 4, none, 256, none, none, none, 1024, 1024, none, 2048, none,
     "GeForce RTX 50 and RTX PRO Blackwell: GeForce runs FP16/BF16/FP8 Tensor Core math with FP32 "
     "accumulate at half rate (RTX 5090: 209.5 and 419 TFLOPS), FP4 at the full rate; no FP64 "
     "Tensor Core; TF32 and INT8 rows of the whitepaper were not available to us",
     none, 4096, "fp16_tc bf16_tc fp8_tc fp4_tc", sm120_inferred},
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
  if (key == "fp6_tc")
    return row.fp6_tc;
  if (key == "fp4_tc")
    return row.fp4_tc;
  if (key == "int32")
    return row.int32;
  return std::nullopt;
}

bool rate_is_inferred(const arch_rate_row& row, std::string_view key) {
  std::string_view rest = row.inferred_keys;
  while (!rest.empty()) {
    const auto space = rest.find(' ');
    if (rest.substr(0, space) == key) {
      return true;
    }
    rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
  }
  return false;
}

std::string_view rate_source(const arch_rate_row& row, std::string_view key) {
  if (key == "int32") {
    return int32_rate_source;
  }
  return rate_is_inferred(row, key) ? row.inferred_basis : row.source;
}

bool is_geforce_name(std::string_view name) {
  return name.find("GeForce") != std::string_view::npos;
}

bool geforce_halves_fp32_accumulate(int cc_major, int cc_minor, std::string_view key) {
  const int sm = cc_major * 10 + cc_minor;
  if (sm == 75)
    return key == "fp16_tc";
  if (sm == 86 || sm == 89)
    return key == "fp16_tc" || key == "bf16_tc" || key == "tf32_tc" || key == "fp8_tc";
  if (sm == 120) // RTX Blackwell whitepaper: FP16/BF16 and FP8 halved, FP4 not
    return key == "fp16_tc" || key == "bf16_tc" || key == "fp8_tc";
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

} // namespace gpuspec::reports::model
