// gpu-burn's output (wilicc/gpu-burn, gpu_burn-drv.cpp) read into one result per GPU: its last
// Gflop/s, its error count, and gpu-burn's own OK/FAULTY. gpu-burn prints "OK" for a GPU that
// never ran (0 Gflop/s after an init error) and exits 0 when FAULTY, so the verdict is taken
// from the figures, not its word (docs/import.md, "gpu-burn"): zero throughput, a GPU far below
// its siblings, a dead worker or an aborted run fail. A figure that holds up is a cuBLAS GEMM
// result as our own (bench id gemm.cublas.<precision>, its M, N and K), so the same rule
// judges it against the spec table's peak for the model the log names, and its siblings.
#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <regex>
#include <string>

#include <fmt/format.h>

#include "imported_report.hpp"
#include "readers.hpp"

namespace gpuspec::reports::inline import::detail {
namespace {

struct gpu_state {
  std::string name, uuid;
  std::optional<double> gflops;
  std::optional<long long> errors;
  bool died = false;
  std::size_t line = 0; ///< of its last progress figure
  std::string verdict;  ///< "OK", "FAULTY", "" when the summary does not name it
  std::size_t verdict_line = 0;
};

struct parsed_burn {
  std::map<int, gpu_state> gpus;
  std::string init_error, kill;
  bool summary = false, aborted = false;
  bool doubles = false, tensor_cores = false;
  /// The side of the matrices, from lines only one era of gpu-burn prints: "Using compare file"
  /// and "Burning for N seconds." (8192x8192), "Burning for N secs" (2048x2048); 0 when the log
  /// holds neither.
  int size = 0;
};

/// The flags of a gpu_burn command line in the log ("./gpu_burn -d -tc 60").
void read_command(std::string_view text, parsed_burn& p) {
  const auto at = text.find("gpu_burn");
  if (at == std::string_view::npos)
    return;
  for (const auto f : blank_fields(text.substr(at)))
    if (f == "-d")
      p.doubles = true;
    else if (f == "-tc")
      p.tensor_cores = true;
}

/// A whole number or a figure of the log, or a log_error naming its line (out of range, or
/// not a number: "." matches the pattern).
template <typename T> T number_at(const log_line& l, const std::string& text) {
  T v{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size())
    throw log_error(l.number, fmt::format("'{}' is not a number gpuspec can read", text));
  return v;
}

/// One progress record: "50.0%  proc'd: 636 (2085 Gflop/s) - ...   errors: 0 - ...   temps:".
void read_progress(const log_line& l, std::string_view text, parsed_burn& p) {
  static const std::regex gflops(R"((-?\d+) \((-?[0-9.]+) Gflop/s\))");
  static const std::regex errors(R"((-?\d+)\s*(\((?:WARNING|DIED)!\))?)");
  const auto errors_at = text.find("errors:");
  if (errors_at == std::string_view::npos)
    throw log_error(l.number, "a gpu-burn progress line without \"errors:\"");
  const std::string procd(text.substr(0, errors_at));
  const auto temps_at = text.find("temps:", errors_at);
  const std::string errs(text.substr(errors_at + 7, temps_at == std::string_view::npos
                                                        ? std::string_view::npos
                                                        : temps_at - errors_at - 7));
  int gpu = 0;
  for (auto it = std::sregex_iterator(procd.begin(), procd.end(), gflops);
       it != std::sregex_iterator(); ++it, ++gpu) {
    auto& g = p.gpus[gpu];
    g.gflops = number_at<double>(l, (*it)[2].str());
    g.line = l.number;
  }
  gpu = 0;
  for (auto it = std::sregex_iterator(errs.begin(), errs.end(), errors);
       it != std::sregex_iterator() && gpu < static_cast<int>(p.gpus.size()); ++it, ++gpu) {
    auto& g = p.gpus[gpu];
    g.errors = number_at<long long>(l, (*it)[1].str());
    g.died = g.died || (*it)[2].str() == "(DIED!)";
  }
}

parsed_burn parse_burn(const std::vector<log_line>& lines) {
  static const std::regex gpu_line(R"(^GPU (\d+): (.*?) \(UUID: ([^)]*)\)$)");
  static const std::regex verdict_line(R"(^GPU (\d+): (OK|FAULTY)$)");
  parsed_burn p;
  for (const auto& l : lines) {
    const auto text = trim_blanks(l.text);
    const std::string s(text);
    std::smatch m;
    if (std::regex_match(s, m, gpu_line)) {
      auto& g = p.gpus[number_at<int>(l, m[1].str())];
      g.name = m[2].str();
      g.uuid = m[3].str();
    } else if (std::regex_match(s, m, verdict_line)) {
      auto& g = p.gpus[number_at<int>(l, m[1].str())];
      g.verdict = m[2].str();
      g.verdict_line = l.number;
    } else if (text.starts_with("Couldn't init a GPU test:")) {
      p.init_error = std::string(trim_blanks(text.substr(25)));
    } else if (text.starts_with("Killing processes")) {
      p.kill = std::string(text);
    } else if (text.starts_with("Tested ") && text.ends_with("GPUs:")) {
      p.summary = true;
    } else if (text.find("No clients are alive!") != std::string_view::npos) {
      p.aborted = true;
    } else if (text.starts_with("Initialized device")) {
      p.doubles = p.doubles || text.ends_with("using DOUBLES");
    } else if (text.find("Using compare file") != std::string_view::npos ||
               (text.find("Burning for") != std::string_view::npos && text.ends_with("seconds."))) {
      p.size = 8192;
    } else if (text.find("Burning for") != std::string_view::npos && text.ends_with("secs")) {
      p.size = 2048;
    } else if (text.find("Tensor Cores") != std::string_view::npos) {
      p.tensor_cores = true;
    }
    read_command(text, p);
    // Several records can share one physical line (a missing newline in the post).
    for (auto at = text.find("proc'd:"); at != std::string_view::npos;
         at = text.find("proc'd:", at + 7)) {
      const auto next = text.find("proc'd:", at + 7);
      read_progress(l, text.substr(at + 7, next == std::string_view::npos ? next : next - at - 7),
                    p);
    }
  }
  return p;
}

/// Why this GPU's burn is not a pass, or "" when its figures hold up.
std::string why_failed(const gpu_state& g, double siblings_median, const parsed_burn& p) {
  if (g.verdict == "FAULTY")
    return fmt::format("gpu-burn: FAULTY ({} errors)", g.errors.value_or(0));
  if (g.died)
    return "gpu-burn: the GPU's worker DIED";
  if (g.errors && *g.errors != 0)
    return fmt::format("gpu-burn: {} errors", *g.errors);
  if (p.aborted)
    return "gpu-burn aborted the run: \"No clients are alive!\"";
  const std::string said = g.verdict == "OK" ? "gpu-burn said OK, but " : "";
  if (!g.gflops)
    return said + "no progress line: the GPU never reported any work" +
           (p.init_error.empty() ? "" : " (\"Couldn't init a GPU test: " + p.init_error + "\")");
  if (*g.gflops <= 0)
    return said + "the GPU did 0 Gflop/s" +
           (p.init_error.empty() ? "" : " (\"Couldn't init a GPU test: " + p.init_error + "\")");
  if (siblings_median > 0 && *g.gflops < 0.5 * siblings_median)
    return said + fmt::format("{:g} Gflop/s is under half of its siblings' median {:g}", *g.gflops,
                              siblings_median);
  return {};
}

/// What gpu-burn multiplied, as our cuBLAS GEMM family names it, and the spec table's peak that
/// bounds it ("" for none).
struct burn_gemm {
  std::string bench_id, peak, note;
  int size = 0;
};

burn_gemm gemm_of(const parsed_burn& p) {
  burn_gemm g;
  g.size = p.size;
  if (p.doubles) {
    // cuBLAS DGEMM runs on FP64 Tensor Cores where a GPU has them (Ampere, Hopper) and on the
    // FP64 units elsewhere; the log names no compute capability, so neither peak is safe.
    g.bench_id = "gemm.cublas.fp64";
    g.note = "gpu-burn -d (DGEMM): the log does not say whether cuBLAS used FP64 Tensor Cores, "
             "so no datasheet peak bounds it; only its siblings judge it";
  } else if (p.tensor_cores) {
    g.bench_id = "gemm.cublas.tf32_tc";
    g.peak = "peaks.tf32_tc";
    g.note = "gpu-burn -tc (SGEMM with tensor-op math): judged as TF32 Tensor Core GEMM";
  } else {
    g.bench_id = "gemm.cublas.fp32";
    g.peak = "peaks.fp32";
  }
  return g;
}

} // namespace

bool looks_like_gpu_burn(const std::vector<log_line>& lines) {
  for (const auto& l : lines) {
    const auto text = l.text;
    if (text.find("proc'd:") != std::string_view::npos ||
        text.find("gpu_burn") != std::string_view::npos ||
        text.find("Burning for") != std::string_view::npos)
      return true;
  }
  return false;
}

report read_gpu_burn(const std::vector<log_line>& lines, run_source source) {
  const auto p = parse_burn(lines);
  if (p.gpus.empty())
    throw log_error(lines.empty() ? 0 : lines.back().number,
                    "a gpu-burn log that names no GPU and no figure: nothing to judge");
  source.truncated = !p.summary && !p.aborted;
  source.notes.push_back("gpu-burn states no version");
  const auto gemm = gemm_of(p);
  source.notes.push_back(fmt::format(
      "gpu-burn's figure is its last progress line's Gflop/s of cuBLAS GEMM on {}; it is judged "
      "as {} by the same rule as our own, against the spec table's peak for the model the log "
      "names, and against its siblings",
      gemm.size == 8192   ? "8192x8192 matrices (the current gpu-burn's lines)"
      : gemm.size == 2048 ? "2048x2048 matrices (an older gpu-burn's lines: a small shape, "
                            "reported beside the peak, not judged)"
                          : "matrices whose size the log does not tell (no line that dates the "
                            "gpu-burn): without a shape, reported, not judged",
      gemm.bench_id));
  if (!gemm.note.empty())
    source.notes.push_back(gemm.note);
  source.notes.push_back("the log has no telemetry beyond temperatures: clocks and throttle "
                         "reasons are not known");
  report r = imported_report(std::move(source));
  std::vector<double> figures;
  for (const auto& [index, g] : p.gpus)
    if (g.gflops)
      figures.push_back(*g.gflops);
  std::sort(figures.begin(), figures.end());
  const double median = figures.empty() ? 0 : figures[figures.size() / 2];
  for (const auto& [index, g] : p.gpus) {
    device_info d;
    d.index = index;
    d.name = g.name;
    d.uuid = g.uuid;
    r.devices.push_back(d);
    r.run.devices.push_back(index);
    auto res = imported_result(gemm.bench_id, "throughput", metric_unit::gigaflop_per_second,
                               g.gflops.value_or(0), g.line ? g.line : g.verdict_line, "gpu-burn");
    res.devices = {index};
    if (gemm.size > 0)
      for (const auto* dim : {"m", "n", "k"})
        res.observations[dim] = gemm.size;
    if (!gemm.peak.empty()) {
      res.ceiling_value.reference = reference_kind::datasheet;
      res.ceiling_value.spec_figure = gemm.peak;
      res.ceiling_value.datasheet_source =
          "the spec table's " + gemm.peak + " for the model the log names";
    }
    if (!g.gflops) {
      res.samples.clear();
      res.stats = {};
    }
    res.observations["gpu_burn_verdict"] = g.verdict;
    if (g.errors)
      res.observations["errors"] = *g.errors;
    if (!p.kill.empty())
      res.observations["gpu_burn_end"] = p.kill;
    if (const auto why = why_failed(g, median, p); !why.empty()) {
      res.status = result_status::failed;
      const bool wrong = g.verdict == "FAULTY" || (g.errors && *g.errors != 0 && !g.died);
      res.failure = wrong ? failure_kind::verification : failure_kind::benchmark;
      if (wrong) {
        res.check.status = verification_status::failed;
        res.check.detail = why;
      }
      res.reason = why;
    } else {
      res.check.status = verification_status::passed;
      res.check.detail = "gpu-burn compared every result with the first: 0 errors";
    }
    r.results.push_back(std::move(res));
  }
  finish_report(r);
  return r;
}

const log_reader gpu_burn_reader{"gpu-burn", looks_like_gpu_burn, read_gpu_burn};

} // namespace gpuspec::reports::import::detail
