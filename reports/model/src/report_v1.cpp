// Version 1 derivations (report_v1.hpp).

#include "report_v1.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "gpuspec/reports/model/reference.hpp"
#include "gpuspec/reports/model/units.hpp"

namespace gpuspec::reports::inline model::detail {
namespace {

struct v1_benchmark {
  std::string_view pattern; ///< a bench id, or a prefix ending in '.'
  std::array<std::string_view, 2> axes;
  std::string_view spec_figure; ///< "" when none; "ceiling_key" for the recorded key
};

// The registry of commit 810c368 (benches/families/*.cu): every bench id, its axes, and the
// spec-table figure its ceiling stood for.
constexpr std::array<v1_benchmark, 20> registry{{
    {"memory.stream.", {"dtype", ""}, "memory_bandwidth_gbs"},
    {"gemm.cublas.", {"shape", "layout"}, "ceiling_key"},
    {"gemm.custom.sgemm", {"shape", ""}, "peaks.fp32"},
    {"gemm.custom.hgemm_tc", {"shape", ""}, "peaks.fp16_tc"},
    {"cache.l2.read", {"l2_fraction", ""}, ""},
    {"cache.shared", {"", ""}, ""},
    {"latency.l1", {"", ""}, ""},
    {"latency.l2", {"", ""}, ""},
    {"latency.dram", {"", ""}, ""},
    {"latency.sweep", {"bytes", ""}, ""},
    {"latency.launch", {"mode", ""}, ""},
    {"compute.fma.fp32", {"", ""}, "peaks.fp32"},
    {"compute.fma.fp64", {"", ""}, "peaks.fp64"},
    {"compute.fma.fp16x2", {"", ""}, "peaks.fp16"},
    {"compute.fma.int32", {"", ""}, ""},
    {"tensor.mma.fp16", {"", ""}, "peaks.fp16_tc"},
    {"tensor.mma.bf16", {"", ""}, "peaks.bf16_tc"},
    {"tensor.mma.tf32", {"", ""}, "peaks.tf32_tc"},
    {"tensor.mma.int8", {"", ""}, "peaks.int8_tc"},
    {"tensor.mma.fp8", {"", ""}, "peaks.fp8_tc"},
}};

const v1_benchmark* find_benchmark(std::string_view bench_id) {
  for (const auto& b : registry) {
    const bool prefix = b.pattern.ends_with('.');
    if (prefix ? bench_id.starts_with(b.pattern) : bench_id == b.pattern)
      return &b;
  }
  return nullptr;
}

} // namespace

void derive_version_1(result& r, const nlohmann::ordered_json& parameters) {
  r.axes = nlohmann::ordered_json::object();
  r.observations = nlohmann::ordered_json::object();
  const v1_benchmark* known = find_benchmark(r.bench_id);
  for (auto it = parameters.begin(); it != parameters.end(); ++it) {
    const bool axis = known == nullptr || std::find(known->axes.begin(), known->axes.end(),
                                                    it.key()) != known->axes.end();
    (axis ? r.axes : r.observations)[it.key()] = it.value();
  }
  auto& c = r.ceiling_value;
  if (known != nullptr) {
    if (known->spec_figure == "ceiling_key") {
      const auto key = r.observations.find("ceiling_key");
      if (key != r.observations.end() && key->is_string())
        c.spec_figure = peak_figure(key->get<std::string>());
      const auto bytes = r.observations.find("roofline_bytes");
      if (bytes != r.observations.end() && bytes->is_number() && bytes->get<double>() > 0)
        c.roofline_bytes = bytes->get<double>();
    } else if (known->spec_figure == "memory_bandwidth_gbs") {
      // Only a bandwidth is a bandwidth figure (a memory latency is not).
      if (info_of(r.unit).measures == quantity::bytes_per_second)
        c.spec_figure = "memory_bandwidth_gbs";
    } else {
      c.spec_figure = std::string(known->spec_figure);
    }
  }
  c.reference = choose_reference(c);
}

} // namespace gpuspec::reports::model::detail
