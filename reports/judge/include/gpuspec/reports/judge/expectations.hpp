#pragma once
/// Expectation rules (specs/expect.json, docs/check.md): for each benchmark, the pass and warn
/// fractions of its reference, plus the thresholds of the other frames and rules. A site file
/// can override any rule or setting.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuspec/reports/judge/host_rules.hpp"
#include "gpuspec/reports/judge/mig_layout.hpp"
#include "gpuspec/reports/model/outcome.hpp"
#include "gpuspec/reports/model/reference.hpp"

namespace gpuspec::reports::inline judge {

/// Version 3 adds the rule selectors (shape_class, path, accumulation) and per-architecture or
/// per-model overrides; a version 2 file (fractions and axis conditions only) still loads, and a
/// version 2 file that uses a version 3 key is refused naming the key. Version 1 also named the
/// ceiling that judges a benchmark; each result now carries its reference (reference.hpp), and a
/// version 1 file is rejected with a message saying how to change it.
inline constexpr const char* expectations_schema_version = "gpuspec.expect.v3";
inline constexpr const char* expectations_schema_v2 = "gpuspec.expect.v2";

/// GEMM shape classes (`shape_class`): "skinny" when M or N is at most gemm_skinny_max (M =
/// tokens: decode-like products, memory-bound), else "small" below gemm_large_min_mnk
/// multiply-adds (4096^3: 1024^3 and 2048^3 fill too few waves on a big GPU), else "large".
inline constexpr std::int64_t gemm_skinny_max = 128;
inline constexpr double gemm_large_min_mnk = 4096.0 * 4096.0 * 4096.0;
/// The class of an M x N x K product: "skinny", "small" or "large".
[[nodiscard]] std::string_view gemm_shape_class(std::int64_t m, std::int64_t n, std::int64_t k);

/// The values each selector takes, for the rule file's checks and the docs.
inline constexpr std::string_view shape_class_values[] = {"large", "small", "skinny"};
/// "nvlink": over NVLink; "pcie": over PCIe within one socket (host transfers, peer copies and
/// collectives without NVLink); "cross_socket": over PCIe and the link between CPU sockets;
/// "c2c": a host transfer of a GPU attached by NVLink-C2C (Grace-based nodes); "network_<kind>":
/// a collective across nodes held to their NICs, by NIC type (infiniband, roce, efa, tcpx), and
/// "network" when no record names the type.
inline constexpr std::string_view path_values[] = {
    "nvlink",       "pcie",        "cross_socket", "c2c", "network", "network_infiniband",
    "network_roce", "network_efa", "network_tcpx"};
/// The bytes a size text states: "<digits>" then B, KiB, MiB, GiB (powers of 1024, as our size
/// axes and nccl-tests' sizes are written) or KB, MB, GB (powers of 1000: the CUDA samples'
/// "40 MB"); blanks between the number and the unit are allowed. nullopt for anything else.
[[nodiscard]] std::optional<std::uint64_t> size_in_bytes(std::string_view text);

/// "fp32", "fp16", "fp64", "int32": the GEMM's accumulation type (cuBLAS compute type);
/// "fast": FP8 with cuBLASLt's fast accumulation (CUBLASLT_MATMUL_DESC_FAST_ACCUM).
inline constexpr std::string_view accumulation_values[] = {"fp32", "fp16", "fp64", "int32", "fast"};

/// Fractions for some architectures or spec-table rows, inside a rule: the rule is chosen as
/// always, then an override naming the GPU's spec row wins over one naming its architecture.
struct rule_override {
  std::vector<std::string> arch; ///< arch_rates.hpp names: "turing", "ampere", "ada", "hopper"
  std::vector<std::string> spec; ///< spec-table row ids: "t4", "h200-sxm-141gb"
  double pass = 0.85;
  double warn = 0.75;
  bool informational = false;
  std::string why;
  friend bool operator==(const rule_override&, const rule_override&) = default;
};

struct expectation_rule {
  std::string pattern; ///< bench id, exact or with '*' wildcards: "memory.stream.*"
  /// Axis conditions: the rule matches a result only if each named axis holds one of the
  /// listed values ("memory": ["pinned"], "size": ["256 MiB", "1 GiB"]). Empty: any result of
  /// the pattern. A result that no rule matches is not judged (an informational figure).
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;
  /// Selectors (version 3): facts derived from the result in one place (rule_subject), each a
  /// list of accepted values; empty: any. Each counts as one condition, as an axis does.
  std::vector<std::string> shape_class;  ///< gemm_shape_class of the result's M, N, K
  std::vector<std::string> path;         ///< path_values: the link the result crossed
  std::vector<std::string> accumulation; ///< accumulation_values
  /// `min_size`: the result's size (its `size` axis, else its `size_bytes` observation) is at
  /// least this many bytes: the sizes large enough to measure the link, whichever grid a tool
  /// ran (ours, nvbandwidth's 512 MiB buffer, the CUDA samples' 40 MB, nccl-tests' -e).
  std::optional<std::uint64_t> min_bytes;
  /// Per-architecture or per-model fractions (version 3), the spec row's first.
  std::vector<rule_override> overrides;
  double pass = 0.85; ///< fraction of the result's reference at or above: pass
  double warn = 0.75; ///< at or above (and below pass): warn; below: fail
  /// Reported, not judged: the figure is shown with its efficiency, and its verdict is
  /// `skipped` with `why` (latency-bound sizes, pageable copies). Findings from its telemetry
  /// and a failed verification still count.
  bool informational = false;
  std::string why; ///< the justification, for people
  int layer = 0;   ///< 0 for the base file, 1 for a site file: higher layers win
};

/// What a rule is chosen by: the result's bench id and axes, and the facts derived from the
/// result, its GPU and the node (subject_of). Empty strings: not known, or not applicable.
struct rule_subject {
  std::string bench_id;
  nlohmann::ordered_json axes;
  std::string shape_class;  ///< from the observations m, n, k
  std::string path;         ///< from host.topology, the p2p path, or the collective's link
  std::string accumulation; ///< from the observations compute_type and fast_accum
  std::optional<std::uint64_t> size_bytes; ///< the axis `size`, else the observation size_bytes
  std::string arch;                        ///< the GPU's architecture (arch_rates.hpp)
  std::string spec_id;                     ///< the GPU's matched spec row
};

/// The rule and fractions that judge a subject: the rule, and the override of it that applied
/// (null when none did).
struct rule_choice {
  const expectation_rule* rule = nullptr;
  const rule_override* applied = nullptr;
  double pass = 0;
  double warn = 0;
  bool informational = false;
  std::string why;
};

struct expectation_settings {
  double sibling_threshold = 0.05; ///< below the siblings' median by more than this: warns
  /// Below the siblings' median by more than this (and an outlier by the z bound) fails: beyond
  /// the widest spread identical healthy GPUs show (docs/check.md, "Three frames").
  double sibling_fail_threshold = 0.25;
  double outlier_z = -3.5;          ///< modified z-score bound (siblings and fleet)
  int fleet_min_reports = 10;       ///< reports of one model for the fleet frame
  double baseline_tolerance = 0.05; ///< pass within this of the baseline median
  double low_clock_fraction = 0.10; ///< telemetry samples under 75% SM clock, above: diagnosed
  double mem_clock_fraction = 0.95; ///< median memory clock under this x max: diagnosed
  double max_plausible_temperature_c = 200; ///< at or above: telemetry impossible
  /// A result above its clock-adjusted ceiling by more than this (and 3 x its own cv) is
  /// impossible: the timer saw less work than was done.
  double impossible_margin = 0.03;
  /// The site's temperature limit: a result whose telemetry peaked at or above it warns.
  int temperature_limit_c = default_temperature_limit_c;
  /// A result whose median SM clock is under this fraction of identical siblings' warns.
  double sibling_clock_fraction = 0.80;
  /// SW power capping is named as a cause only when the limit is below its default or the
  /// draw peaked under this fraction of the limit (capping at full draw is normal).
  double power_draw_fraction = 0.90;
  /// Corrected ECC errors during the run at or above this count warn (a storm).
  int ecc_corrected_storm = 100;
  /// A carried datasheet ceiling further than this (relative) from the spec table's is stale
  /// or edited: the spec table's judges.
  double datasheet_tolerance = default_datasheet_tolerance;
  /// Burn-in (docs/burnin.md; an initial policy, like the fractions): throughput of the last
  /// intervals below the first ones' by more than `burnin_drift_warn` warns, by more than
  /// `burnin_drift_fail` fails.
  double burnin_drift_warn = 0.05;
  double burnin_drift_fail = 0.15;
  /// A burn-in busy for less than this fraction of its --duration did too little work:
  /// inconclusive.
  double burnin_min_busy_fraction = 0.5;
  /// A burn-in whose power never rose above its idle power by this fraction did not load the
  /// GPU: inconclusive.
  double burnin_idle_power_margin = 0.10;
  /// The shortest burn-in that can pass (initial policy, for acceptance, to be revisited once
  /// burn-ins of real GPUs are on record): a burn-in that loaded its GPU for less than this is
  /// reported, and judged inconclusive, never passed. 10 minutes is ten of the burn-in's
  /// 45 s GEMM + 15 s memory-test cycles (docs/burnin.md).
  double burnin_min_duration_s = 600;
  friend bool operator==(const expectation_settings&, const expectation_settings&) = default;
};

struct expectations {
  expectation_settings settings;
  std::vector<expectation_rule> rules;
  /// The site's declared MIG layouts ("mig_layout", version 3, optional; `gpuspec health`
  /// judges them): a file that gives the key replaces the layer below's list. The shipped file
  /// declares none.
  std::vector<mig_layout_rule> mig_layouts;

  /// The rule for a result (its bench id and axes): the highest layer first, then the most axis
  /// conditions, then the most specific pattern (the most literal characters); nullptr when
  /// none matches.
  [[nodiscard]] const expectation_rule* find(std::string_view bench_id,
                                             const nlohmann::ordered_json& axes = {}) const;
  /// The rule for a subject (the same order; selectors count as conditions), with the override
  /// for the subject's spec row or architecture applied; nullopt when no rule matches.
  [[nodiscard]] std::optional<rule_choice> choose(const rule_subject& subject) const;
};

/// The subject of a result: its bench id and axes; shape class (observations m, n, k);
/// path (transfer.h2d/d2h/bidir: "pcie"; transfer.p2p*: the topology's pair, else the
/// observation "path"; collective.*: the observation "ceiling_link", "cross_socket" when the
/// topology puts two of its GPUs on different sockets); accumulation (observations
/// compute_type and fast_accum); the architecture of `device`; the id of `spec`.
[[nodiscard]] rule_subject subject_of(const report& r, const result& res, const device_info* device,
                                      const gpu_spec* spec);

/// True when `bench_id` matches `pattern` ('*' matches any run of characters, dots included).
[[nodiscard]] bool pattern_matches(std::string_view pattern, std::string_view bench_id);

/// Parses a base file: every rule field but `why` required, settings optional (defaults above).
[[nodiscard]] outcome<expectations> parse_expectations(const nlohmann::ordered_json& j,
                                                       std::string_view file);
/// Merges a site file over `base`: a rule whose pattern is already there may give only the
/// fields it changes; a new pattern needs pattern, pass and warn; settings given replace the
/// base's.
/// Site rules get layer base+1, so they win over any base rule they match.
[[nodiscard]] outcome<expectations> merge_expectations(const expectations& base,
                                                       const nlohmann::ordered_json& site,
                                                       std::string_view file);
/// Reads and parses (missing, empty, non-JSON files are errors naming the file).
[[nodiscard]] outcome<expectations> load_expectations(const std::filesystem::path& file);
[[nodiscard]] outcome<expectations> load_expectations(const std::filesystem::path& file,
                                                      const expectations& base);

} // namespace gpuspec::reports::judge
