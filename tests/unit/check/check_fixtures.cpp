#include "check_fixtures.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "gpuspec/collectives/bandwidth.hpp"
#include "gpuspec/collectives/collective_sizes.hpp"
#include "gpuspec/host/ceilings.hpp"
#include "gpuspec/host/collective_ceiling.hpp"
#include "gpuspec/host/nvml_events.hpp"
#include "gpuspec/host/pcie_link.hpp"
#include "gpuspec/kernels/pointer_chase.hpp" // parse_size_text
#include "gpuspec/kernels/transfer_math.hpp"
#include "gpuspec/reports/judge/event_rules.hpp"
#include "gpuspec/reports/judge/host_rules.hpp"
#include "gpuspec/reports/model/reference.hpp"
#include "gpuspec/reports/model/statistics.hpp"
#include "test_text.hpp"

namespace gpuspec::reports::testing {
namespace {

using gpuspec::testing::gib;
constexpr int gpus = 8;

// What an H200 reports to NVML and the CUDA runtime: 143771 MiB, 132 SMs, a 50 MiB L2, a
// 6144-bit bus and a 3201 MHz memory clock (4917 GB/s by the memory formula, against the
// datasheet's 4800; issue 9), 1980 MHz SM clock, 700 W, PCIe Gen5 x16, 18 NVLink links.
constexpr std::int64_t h200_memory_bytes = std::int64_t{143771} << 20;
constexpr int h200_mem_clock_mhz = 3201;
constexpr int h200_bus_width_bits = 6144;
constexpr int h200_sm_clock_max_mhz = 1980;
constexpr int nvlink_links = 18;

counter_set clean_counters(std::int64_t links) {
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

device_info device(int index) {
  device_info d;
  d.index = index;
  d.cuda_index = index;
  d.name = "NVIDIA H200";
  d.uuid = "GPU-5e5e5e5e-0000-0000-0000-00000000000" + std::to_string(index);
  d.serial = "SYNTHETIC-000" + std::to_string(index);
  d.vbios = "96.00.AF.00.01";
  d.pci_bus_id = "00000000:" + std::string(index < 4 ? "1" : "9") + std::to_string(index) + ":00.0";
  d.pci_device_id = 0x2335;
  d.pci_subsystem_id = 0x18871761;
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.memory_bytes = h200_memory_bytes;
  d.l2_bytes = 50 * (std::int64_t{1} << 20);
  d.sm_clock_mhz = 345;
  d.sm_clock_max_mhz = h200_sm_clock_max_mhz;
  d.mem_clock_mhz = h200_mem_clock_mhz;
  d.mem_clock_max_mhz = h200_mem_clock_mhz;
  d.memory_bus_width_bits = h200_bus_width_bits;
  d.pcie = {1, 5, 16, 16, std::nullopt}; // Gen1 at idle: power saving
  d.power_limit_w = 700.0;
  d.power_limit_default_w = 700.0;
  d.power_limit_max_w = 700.0;
  d.temperature_c = 34;
  d.ecc_mode = "enabled";
  d.ecc_mode_pending = "enabled";
  d.mig_mode = "disabled";
  d.persistence_mode = "enabled";
  d.spec_id = "h200-sxm-141gb";
  d.counters_before = clean_counters(nvlink_links);
  d.counters_after = clean_counters(nvlink_links);
  d.counters_delta = clean_counters(0);
  // As the run's inventory reads it: nothing else on the GPU (the idle precondition).
  d.activity = gpu_activity{0, {}, "ok"};
  return d;
}

const gpu_spec& h200_row() {
  static const spec_table table = synthetic_specs();
  return *table.find("h200-sxm-141gb");
}

/// Ten samples around `value`, as the stopping rule leaves them (cv well under 1%).
void measure(result& r, double value, double seconds) {
  for (int k = 0; k < 10; ++k) {
    r.samples.push_back(value * (1.0 + 0.001 * (k - 5)));
    r.sample_seconds.push_back(seconds);
  }
  r.stats = summarize(r.samples);
  r.host_seconds_median = seconds * 1.01;
  r.stop_reason = "cv_target";
}

telemetry_summary window(double sm_clock, double temperature, double power,
                         std::vector<std::string> reasons) {
  telemetry_summary t;
  t.samples = 50;
  t.period_ms = 20;
  t.sm_clock_mhz_min = sm_clock - 15;
  t.sm_clock_mhz_median = sm_clock;
  t.sm_clock_mhz_max = sm_clock;
  t.mem_clock_mhz_min = h200_mem_clock_mhz;
  t.mem_clock_mhz_median = h200_mem_clock_mhz;
  t.temperature_c_max = temperature;
  t.power_w_mean = power - 20;
  t.power_w_max = power;
  t.low_clock_fraction = 0.0;
  t.throttled = !reasons.empty();
  t.throttle_reasons = std::move(reasons);
  t.status = "ok";
  t.window_start_s = 1.0;
  t.window_end_s = 1.6;
  return t;
}

/// What bench_state::take_result settles once the samples are in: the reference, the
/// efficiencies against it and against the clock-adjusted ceiling.
void settle(result& r) {
  r.ceiling_value.reference = choose_reference(r.ceiling_value);
  settle_efficiency(r);
  r.gpus_busy = gpus;
}

/// STREAM copy or triad (fp32, 1 GiB arrays) as benches/families/stream.cpp writes it, at
/// `value` GB/s, with the ceiling host/ceilings.cpp attaches.
result stream_result(const std::string& op, int dev, double value) {
  const bool triad = op == "triad";
  const std::uint64_t n = std::uint64_t{1} << 28;
  result r;
  r.bench_id = "memory.stream." + op;
  r.devices = {dev};
  r.axes = {{"dtype", "fp32"}};
  r.observations = {{"array_bytes", n * 4},    {"elements", n},
                    {"arrays", triad ? 3 : 2}, {"array_bytes_requested", std::uint64_t{1} << 30},
                    {"shrunk_to_fit", false},  {"l2_bytes", 50 * (std::int64_t{1} << 20)},
                    {"below_4x_l2", false}};
  if (triad)
    r.observations["scalar"] = 0.4;
  r.metric = "bandwidth";
  r.unit = metric_unit::gigabytes_per_second;
  r.cache_state = "cold";
  r.bytes_per_iteration = static_cast<double>((triad ? 3 : 2) * n * 4);
  r.flops_per_iteration = triad ? 2.0 * static_cast<double>(n) : 0.0;
  measure(r, value, *r.bytes_per_iteration / (value * 1e9));
  r.telemetry = window(h200_sm_clock_max_mhz, 62, 420, {});
  r.ceiling_value = host::memory_bandwidth_ceiling(
      r.telemetry.mem_clock_mhz_median,
      "median of the NVML memory clock sampled during the measurement", h200_bus_width_bits,
      &h200_row());
  r.check = {verification_status::passed, 0.0, 1e-6, "every element against the analytic value"};
  settle(r);
  return r;
}

/// cuBLASLt FP16 Tensor Core GEMM, 8192^3 NN, as benches/families/gemm_cublas.cpp writes it:
/// SW power capping at the default 700 W limit while drawing it (how Tensor Core GEMMs run),
/// the SM clock at 1755 MHz.
result gemm_result(int dev, double tflops) {
  constexpr double m = 8192;
  const double ops = 2 * m * m * m;
  constexpr int reps = 40;
  result r;
  r.bench_id = "gemm.cublas.fp16_tc";
  r.devices = {dev};
  r.axes = {{"shape", "8192x8192x8192"}, {"layout", "NN"}};
  r.observations = {{"m", 8192},
                    {"n", 8192},
                    {"k", 8192},
                    {"a_type", "CUDA_R_16F"},
                    {"compute_type", "CUBLAS_COMPUTE_32F"},
                    {"api", "cublasLtMatmul"},
                    {"algo_id", 21},
                    {"heuristic_results", 8},
                    {"gemms_per_sample", reps},
                    {"ops_per_gemm", ops},
                    {"l2_bytes", 50 * (std::int64_t{1} << 20)},
                    {"b_exceeds_l2", true},
                    {"ceiling_key", "fp16_tc"}};
  r.metric = "throughput";
  r.unit = metric_unit::teraflop_per_second;
  r.cache_state = "hot";
  r.flops_per_iteration = ops * reps;
  const double min_bytes = 3 * m * m * 2 * reps; // A and B read, D written, fp16
  r.observations["roofline_bytes"] = min_bytes;
  measure(r, tflops, *r.flops_per_iteration / (tflops * 1e12));
  r.telemetry = window(1755, 71, 699, {"sw_power_cap"});
  host::compute_ceiling_inputs in;
  in.key = "fp16_tc";
  in.cc_major = 9;
  in.cc_minor = 0;
  in.sm_count = 132;
  in.sm_clock_mhz = r.telemetry.sm_clock_mhz_median;
  in.clock_origin = "median of the NVML SM clock sampled during the measurement";
  in.device_name = "NVIDIA H200";
  in.spec = &h200_row();
  const auto memory = host::memory_bandwidth_ceiling(r.telemetry.mem_clock_mhz_median,
                                                     "median of the NVML memory clock",
                                                     h200_bus_width_bits, &h200_row());
  r.ceiling_value =
      host::apply_roofline(host::compute_ceiling(in), *r.flops_per_iteration, min_bytes, memory);
  r.check = {verification_status::passed, 2e-4, 5e-3, "sampled against a host reference"};
  settle(r);
  return r;
}

/// A host transfer (transfer.h2d or .d2h; pinned, copy engines, 256 MiB, the quick suite's size)
/// as benches/families/transfer.cpp and the harness write it, at `gbs`, with the link NVML
/// reported under load (`gen` x `width`, in the telemetry and the observations) and the ceiling
/// host/pcie_link.hpp attaches: the link the card and its slot can reach.
result transfer_result(const device_info& d, const std::string& kind, double gbs, int gen,
                       int width) {
  const auto k = kind == "h2d"   ? kernels::transfer_kind::h2d
                 : kind == "d2h" ? kernels::transfer_kind::d2h
                                 : kernels::transfer_kind::bidir;
  const std::uint64_t bytes = kernels::transfer_quick_bytes;
  const std::uint64_t copies = kernels::transfer_copies_per_sample(bytes);
  const int directions = kernels::transfer_directions(k);
  result r;
  r.bench_id = "transfer." + kind;
  r.devices = {d.index};
  r.axes = {{"memory", "pinned"}, {"engine", "copy_engine"}, {"size", "256MiB"}};
  // The observations in the order transfer.cpp and the harness add them.
  r.observations = {{"bytes_per_copy", bytes},
                    {"copies_per_sample", copies},
                    {"directions", directions},
                    {"numa_node", d.index < 4 ? 0 : 1},
                    {"numa_binding", "mbind"},
                    {"host_memory_node", d.index < 4 ? 0 : 1},
                    {"gpu_local_cpus", d.index < 4 ? "0-55,112-167" : "56-111,168-223"},
                    {"cpu_affinity", "bound"},
                    {"launch_hold", true},
                    {"pcie_gen_under_load", gen},
                    {"pcie_width_under_load", width},
                    {"pcie_link_samples_under_load", 50}};
  r.metric = "bandwidth";
  r.unit = metric_unit::gigabytes_per_second;
  r.cache_state = "hot";
  r.bytes_per_iteration = kernels::transfer_bytes_per_sample(k, bytes, copies);
  measure(r, gbs, *r.bytes_per_iteration / (gbs * 1e9));
  r.telemetry = window(h200_sm_clock_max_mhz, 45, 150, {});
  r.telemetry.pcie_gen_min = gen;
  r.telemetry.pcie_width_min = width;
  host::pcie_ceiling_inputs in;
  in.directions = directions;
  in.under_load = host::pcie_link_state{gen, width};
  in.under_load_samples = 50;
  in.inventory = {d.pcie.gen_current, d.pcie.width_current};
  in.reachable = pcie_reachable_link(d, &h200_row());
  in.spec = &h200_row();
  r.ceiling_value = host::pcie_transfer_ceiling(in);
  r.check = {verification_status::passed, 0.0, 0.0,
             "every byte of the destination against the source"};
  settle(r);
  return r;
}

} // namespace

void add_transfers(report& r, int dev, double h2d_gbs, double d2h_gbs, int gen, int width) {
  const device_info& d = r.devices[static_cast<std::size_t>(dev)];
  r.results.push_back(transfer_result(d, "h2d", h2d_gbs, gen, width));
  r.results.push_back(transfer_result(d, "d2h", d2h_gbs, gen, width));
}

result collective_result(const report& rep, const collective_case& cc) {
  namespace co = collectives;
  const auto kind = co::parse_collective(cc.kind);
  if (!kind)
    throw std::invalid_argument("no collective " + cc.kind);
  const int eb = co::element_size(co::element_type::fp32);
  const int nranks = cc.ranks;
  const auto counts = co::counts_for_size(*kind, kernels::parse_size_text(cc.size), eb, nranks);
  const int iterations = static_cast<int>(std::clamp<std::uint64_t>(
      (std::uint64_t{1} << 30) / std::max<std::uint64_t>(kernels::parse_size_text(cc.size), 1), 20,
      200));
  result r;
  r.bench_id = "collective." + cc.kind;
  for (int i = 0; i < nranks; ++i)
    r.devices.push_back(i);
  r.axes = {{"dtype", "fp32"}, {"size", cc.size}, {"placement", "out_of_place"}};
  // The observations in the order collective.cpp adds them.
  auto& o = r.observations;
  o["nranks"] = nranks;
  o["size_bytes"] = counts.table_bytes;
  o["count"] = counts.param_count;
  o["nccl_tests_type"] = "float";
  o["redop"] = co::has_reduction(*kind) ? "sum" : "none";
  o["root"] = co::has_root(*kind) ? 0 : -1;
  o["iterations_per_sample"] = iterations;
  o["nccl_version"] = "2.21.5";
  o["nccl_transports"] = cc.transports;
  if (nranks > 1)
    o["nccl_nvls_channels"] = 16;
  o["nccl_algorithm"] = nranks > 1 ? "NVLS" : "RING";
  o["nccl_protocol"] = "SIMPLE";
  if (cc.timed_out_ranks) {
    // What collective.cpp writes when the deadline passes: no samples, the ranks named.
    std::vector<std::string> who;
    for (int k : *cc.timed_out_ranks)
      who.push_back("rank " + std::to_string(k) + " (GPU " + std::to_string(k) + ")");
    std::string names;
    for (const auto& w : who)
      names += (names.empty() ? "" : ", ") + w;
    o["ranks_not_finished"] = *cc.timed_out_ranks;
    r.status = result_status::failed;
    r.failure = failure_kind::benchmark;
    r.reason = "collective timed out: " + cc.kind + " of " + cc.size +
               " did not finish within 40.0 s (sample 3); not arrived: " + names +
               "; communicators aborted";
    r.check.detail = "the benchmark has no check";
    r.telemetry = window(h200_sm_clock_max_mhz, 48, 180, {});
    r.gpus_busy = nranks;
    return r;
  }

  // The busbw the case asks for, as the time per call that gives it.
  const double factor = co::bus_factor(*kind, nranks);
  const double bytes = co::algbw_bytes(*kind, counts.param_count, eb, nranks);
  const double seconds = factor > 0 ? bytes * factor / (cc.busbw_gbs * 1e9) : 1e-5;
  for (int k = 0; k < 10; ++k) {
    const double s_k = seconds * (1.0 + 0.001 * (k - 5));
    r.sample_seconds.push_back(s_k);
    r.samples.push_back(co::bandwidth(*kind, counts.param_count, eb, nranks, s_k).busbw_gbs);
  }
  r.stats = summarize(r.samples);
  std::vector<double> sorted = r.sample_seconds;
  std::sort(sorted.begin(), sorted.end());
  const auto median = co::bandwidth(*kind, counts.param_count, eb, nranks, sorted[5]);
  o["time_us"] = sorted[5] * 1e6;
  o["algbw_gbs"] = median.algbw_gbs;
  o["bus_factor"] = factor;
  if (nranks == 1)
    o["one_rank"] = "one rank: nothing crosses a bus (busbw factor 0); reported, not judged";
  r.metric = "busbw";
  r.unit = metric_unit::gigabytes_per_second;
  r.bytes_per_iteration = bytes;

  host::collective_ceiling_inputs in;
  for (int i = 0; i < nranks; ++i)
    in.gpus.push_back({&rep.devices[static_cast<std::size_t>(i)], cc.row ? cc.row : &h200_row()});
  in.in_switch_factor = *kind == co::collective_kind::all_reduce ? std::max(1.0, factor) : 1.0;
  const auto choice = host::collective_link_ceiling(in);
  o["ceiling_link"] = std::string(host::to_string(choice.link));
  o["ceiling_why"] = choice.why;
  r.ceiling_value = choice.ceiling;

  std::vector<std::int64_t> wrong = cc.wrong_per_rank;
  wrong.resize(static_cast<std::size_t>(nranks), 0);
  std::int64_t total = 0;
  std::string per_rank;
  for (auto w : wrong) {
    total += w;
    per_rank += (per_rank.empty() ? "" : ", ") + std::to_string(w);
  }
  o["wrong_per_rank"] = wrong;
  o["wrong"] = total;
  r.check.status = total == 0 ? verification_status::passed : verification_status::failed;
  r.check.detail = "every output element against its exact value (seeded integers); #wrong " +
                   std::to_string(total) + " (per rank: " + per_rank + ")";
  if (total == 0)
    r.check.max_rel_error = 0.0;
  // Telemetry merged by worst GPU, as the spine writes node-wide results.
  r.telemetry = window(h200_sm_clock_max_mhz, 55, 260, {});
  // What node_state::take_result settles.
  r.ceiling_value.reference = choose_reference(r.ceiling_value);
  settle_efficiency(r);
  if (total > 0) {
    r.status = result_status::failed;
    r.failure = failure_kind::verification;
    r.reason = "verification failed: " + r.check.detail;
  }
  r.gpus_busy = nranks;
  return r;
}

namespace {

std::vector<result*> results_of(report& r, int dev) {
  std::vector<result*> out;
  for (auto& res : r.results)
    if (res.devices == std::vector<int>{dev})
      out.push_back(&res);
  return out;
}

} // namespace

void add_nvml_events(report& r, int device,
                     const std::vector<std::pair<gpu_event_type, std::uint64_t>>& events) {
  result& res = *results_of(r, device).front();
  const double start = res.telemetry.window_start_s.value_or(0);
  const double end = res.telemetry.window_end_s.value_or(start);
  // The run's clock origin, and the events spread evenly inside the window, as the watcher
  // would take them.
  const auto origin = std::chrono::steady_clock::time_point{};
  std::vector<host::nvml_event> taken;
  for (std::size_t k = 0; k < events.size(); ++k) {
    const double t =
        start + (end - start) * static_cast<double>(k + 1) / static_cast<double>(events.size() + 1);
    taken.push_back({origin + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                  std::chrono::duration<double>(t)),
                     device, events[k].first, events[k].second});
  }
  auto converted = host::to_report_events(taken, origin);
  res.events.insert(res.events.end(), converted.begin(), converted.end());
}

namespace {

void fail_result(result& res, failure_kind failure, std::string reason) {
  res.status = result_status::failed;
  res.failure = failure;
  res.reason = std::move(reason);
}

void throttle(report& r, int dev, std::vector<std::string> reasons, double factor) {
  scale_device_results(r, dev, factor);
  for (auto* res : results_of(r, dev)) {
    res->telemetry.throttle_reasons = reasons;
    res->telemetry.throttled = true;
  }
}

/// The burn-in (benches/families/burnin.cpp, docs/burnin.md) as its harness writes it: a run of
/// `seconds` (12 minutes unless told) of bf16 8192^3 GEMMs with cuBLASLt's first heuristic
/// algorithm pinned, in 60 s cycles of 45 s of GEMMs and 15 s of memory test (one pattern pass),
/// one interval a minute at `tflops` (synthetic: 71% of the datasheet's bf16 figure, as
/// gemm_result), every checksum equal to the first, every word read back right. A run that ends
/// inside its first GEMM phase has no memory pass, and then no memtest record, as the harness
/// leaves it (`if (m.passes > 0) record.memtest = m`).
result burnin_result(int dev, double tflops, double seconds = 720) {
  constexpr double cycle_s = 60, gemm_s = 45;
  constexpr double m = 8192;
  const double ops = 2 * m * m * m;
  result r;
  r.bench_id = "burnin.gemm";
  r.devices = {dev};
  r.axes = {{"dtype", "bf16"}};
  r.observations = {{"m", 8192}, {"n", 8192}, {"k", 8192}, {"algo_id", 21}};
  r.metric = "throughput";
  r.unit = metric_unit::teraflop_per_second;
  r.cache_state = "hot";
  r.flops_per_iteration = ops;
  r.stop_reason = "time_cap";
  r.check = {verification_status::passed, std::nullopt, std::nullopt,
             "every iteration's checksum equal to iteration 0's"};
  burnin_record b;
  b.duration_s = seconds;
  b.elapsed_s = seconds + 0.5;
  b.busy_s = seconds - 30 * seconds / 720; // idle between batches: 30 s of 12 minutes
  b.interval_s = cycle_s;
  b.idle_power_w = 120;
  burnin_gemm g;
  g.dtype = "bf16";
  g.m = g.n = g.k = 8192;
  g.seed = 20261201;
  g.algorithm = "id=21 tile=15 stages=10 split_k=1 swizzle=0 custom=0";
  g.reduction = "none";
  g.deterministic = true;
  g.determinism_note = "split-K 1, no reduction scheme: each output element summed in one order";
  g.reference_checksum = "0x5e5e00000000c0de";
  burnin_memtest mt;
  mt.bytes = 128 * gib;
  mt.patterns = {"walking_ones", "walking_zeros", "moving_inversions", "address", "random"};
  const std::int64_t words = mt.bytes / 8;
  for (double start = 0; start < seconds; start += cycle_s) {
    const double length = std::min(cycle_s, seconds - start);
    burnin_interval in;
    in.start_s = 2.0 + start;
    in.end_s = in.start_s + length;
    // 45 s of GEMMs at `tflops`, then 15 s of memory test (one pattern pass).
    in.gemm_iterations = static_cast<std::int64_t>(std::min(gemm_s, length) * tflops * 1e12 / ops);
    in.throughput = tflops;
    in.telemetry_samples = static_cast<std::int64_t>(std::ceil(length));
    in.sm_clock_mhz_median = 1755;
    in.mem_clock_mhz_median = h200_mem_clock_mhz;
    in.temperature_c_max = 71;
    in.power_w_mean = 680;
    in.power_w_max = 699;
    in.throttle_reasons = {"sw_power_cap"};
    if (length > gemm_s) {
      in.memtest_words = words;
      mt.words_checked += words;
      ++mt.passes;
    }
    g.iterations += in.gemm_iterations;
    r.samples.push_back(tflops);
    r.sample_seconds.push_back(length);
    b.intervals.push_back(in);
  }
  b.gemm = g;
  if (mt.passes > 0)
    b.memtest = mt;
  r.burnin = b;
  r.stats = summarize(r.samples);
  r.telemetry = window(1755, 71, 699, {"sw_power_cap"});
  r.telemetry.window_start_s = 2.0;
  r.telemetry.window_end_s = 2.0 + seconds;
  r.gpus_busy = gpus;
  return r;
}

/// Replaces GPU `dev`'s burn-in by one of `seconds`.
void burnin_lasting(report& r, int dev, double seconds) {
  for (auto& res : r.results)
    if (res.bench_id == "burnin.gemm" && res.devices.front() == dev)
      res = burnin_result(dev, 700, seconds);
}

/// Sets the burn-in's interval throughputs of GPU `dev` from `from` on to `factor` times.
void slow_burnin_from(report& r, int dev, std::size_t from, double factor) {
  auto& res = *results_of(r, dev).back();
  auto& in = res.burnin->intervals;
  for (std::size_t i = from; i < in.size(); ++i) {
    in[i].throughput = *in[i].throughput * factor;
    res.samples[i] = *in[i].throughput;
  }
  res.stats = summarize(res.samples);
}

burnin_record& burnin_of(report& r, int dev) { return *results_of(r, dev).back()->burnin; }

} // namespace

spec_table synthetic_specs() {
  auto table = load_spec_table(std::filesystem::path(GPUSPEC_SPECS_DIR) / "gpus.json");
  if (!table)
    throw std::runtime_error(table.error().to_string());
  return std::move(table).value();
}

report healthy_report(const std::string& hostname, double scale) {
  report r;
  r.run.tool_version = "0.1.0";
  r.run.started_utc = "2026-12-01T02:00:00Z";
  r.run.finished_utc = "2026-12-01T02:01:00Z";
  r.run.suite = "quick";
  r.run.command_line = {"gpuspec", "run"};
  r.run.backend = "cuda";
  r.run.concurrency = gpus;
  auto& h = r.host;
  h.hostname = hostname;
  h.os = "Ubuntu 22.04.4 LTS";
  h.kernel = "5.15.0-119-generic";
  h.cpu_model = "Intel(R) Xeon(R) Platinum 8480C";
  h.cpu_logical_cores = 224;
  h.cpu_sockets = 2;
  h.memory_bytes = 2015 * gib; // MemTotal of 2 TB of DIMMs (32 x 64 GB)
  h.numa_nodes = 2;
  h.nouveau_loaded = false;
  h.driver_version = "550.54.15";
  h.cuda_driver_version = "12.4";
  h.cuda_runtime_version = "12.4";
  h.cublas_version = "12.4.5";
  h.gpu_status = "ok";
  for (int i = 0; i < gpus; ++i) {
    r.devices.push_back(device(i));
    r.run.devices.push_back(i);
  }
  // As the run records them: the one implementation of the rules.
  h.checks = evaluate_host_checks(h, r.devices);
  for (int i = 0; i < gpus; ++i) {
    r.results.push_back(stream_result("copy", i, 4300 * scale));
    r.results.push_back(stream_result("triad", i, 4350 * scale));
    r.results.push_back(gemm_result(i, 700 * scale));
  }
  r.complete = true;
  return r;
}

void scale_device_results(report& r, int dev, double factor) {
  for (auto* res : results_of(r, dev)) {
    for (auto& s : res->samples)
      s *= factor;
    res->stats = summarize(res->samples);
    settle_efficiency(*res);
  }
}

void add_burnin(report& r, double seconds) {
  r.run.suite = "burnin";
  for (int i = 0; i < gpus; ++i)
    r.results.push_back(burnin_result(i, 700, seconds));
}

report healthy_burnin_report() { return burnin_report(720); }

report burnin_report(double seconds) {
  report r = healthy_report();
  add_burnin(r, seconds);
  return r;
}

report build(const std::function<void(report&)>& degrade) {
  report r = healthy_report();
  degrade(r);
  return r;
}

const std::vector<degraded_variant>& degraded_variants() {
  using vs = verdict_status;
  static const std::vector<degraded_variant> variants = {
      // GPU 2 read at x8 at idle, no reading under load: a warning (the first variant: a warn).
      {"pcie-link-degraded--x8-at-idle", "GPUSPEC-PCIE-LINK-DEGRADED", 2, vs::warn,
       [](report& r) { r.devices[2].pcie.width_current = 8; }},
      // GPU 2 trained at x8 of the card's and slot's x16, at idle and under load (its results'
      // telemetry): a link below what it can reach under load fails.
      {"pcie-link-degraded", "GPUSPEC-PCIE-LINK-DEGRADED", 2, vs::fail,
       [](report& r) {
         r.devices[2].pcie.width_current = 8;
         for (auto* res : results_of(r, 2)) {
           res->telemetry.pcie_gen_min = 5;
           res->telemetry.pcie_width_min = 8;
         }
       }},
      // Gen1 at idle is power saving; under load the link stayed at Gen3 x16, and the host
      // transfers moved what Gen3 x16 moves (80% of its 15.75 GB/s), judged against the Gen5 x16
      // the card and its slot can reach.
      {"pcie-link-degraded--gen3-under-load", "GPUSPEC-PCIE-LINK-DEGRADED", 2, vs::fail,
       [](report& r) {
         r.devices[2].pcie.gen_max_system = 5;
         for (auto* res : results_of(r, 2)) {
           res->telemetry.pcie_gen_min = 3;
           res->telemetry.pcie_width_min = 16;
         }
         add_transfers(r, 2, 12.6, 12.4, 3, 16);
       }},
      // Trained at Gen4 x8 under load: a quarter of the link, transfers at 80% of Gen4 x8.
      {"pcie-link-degraded--gen4-x8-under-load", "GPUSPEC-PCIE-LINK-DEGRADED", 2, vs::fail,
       [](report& r) {
         r.devices[2].pcie = {1, 5, 8, 16, 5};
         for (auto* res : results_of(r, 2)) {
           res->telemetry.pcie_gen_min = 4;
           res->telemetry.pcie_width_min = 8;
         }
         add_transfers(r, 2, 12.6, 12.5, 4, 8);
       }},
      // A Gen5 card behind a riser (or a BIOS setting) that allows Gen4: NVML's GPU maximum
      // Gen5, its maximum with this system Gen4. Found at idle; the transfers at 80% of Gen4 x16
      // pass, judged against the Gen4 x16 the card can reach in this slot.
      {"pcie-link-capped", "GPUSPEC-PCIE-LINK-CAPPED", 2, vs::warn,
       [](report& r) {
         r.devices[2].pcie.gen_max_system = 4;
         for (auto* res : results_of(r, 2)) {
           res->telemetry.pcie_gen_min = 4;
           res->telemetry.pcie_width_min = 16;
         }
         add_transfers(r, 2, 25.2, 25.0, 4, 16);
       }},
      // An x16 card in an x8 slot: NVML's maximum width is the slot's; the spec row says x16.
      {"pcie-link-capped--x8-slot", "GPUSPEC-PCIE-LINK-CAPPED", 2, vs::warn,
       [](report& r) {
         r.devices[2].pcie = {1, 5, 8, 8, 5};
       }},
      {"pcie-replays", "GPUSPEC-PCIE-REPLAYS", 2, vs::warn,
       [](report& r) {
         r.devices[2].counters_after["pcie.replay"] = reading::of(120);
         r.devices[2].counters_delta["pcie.replay"] = reading::of(120);
       }},
      {"power-limit-low", "GPUSPEC-POWER-LIMIT-LOW", 2, vs::warn,
       [](report& r) { r.devices[2].power_limit_w = 500; }},
      // Measured with --allow-busy while another program held GPU 2.
      {"gpu-shared", "GPUSPEC-GPU-SHARED", 2, vs::warn,
       [](report& r) {
         r.devices[2].activity =
             gpu_activity{96, {{4242, "python3", std::int64_t{20} << 30, "compute"}}, "ok"};
       }},
      {"persistence-off", "GPUSPEC-PERSISTENCE-OFF", 2, vs::warn,
       [](report& r) { r.devices[2].persistence_mode = "disabled"; }},
      {"gpu-temperature-high", "GPUSPEC-GPU-TEMPERATURE-HIGH", 2, vs::warn,
       [](report& r) { r.devices[2].temperature_c = 83; }},
      // Throughput passes; the telemetry peaked within 5 °C of the GPU's own slowdown threshold.
      {"gpu-temperature-high--near-slowdown-threshold", "GPUSPEC-GPU-TEMPERATURE-HIGH", 2, vs::warn,
       [](report& r) {
         r.devices[2].temperature_slowdown_c = 87;
         for (auto* res : results_of(r, 2))
           res->telemetry.temperature_c_max = 84;
       }},
      {"ecc-disabled", "GPUSPEC-ECC-DISABLED", 2, vs::warn,
       [](report& r) {
         r.devices[2].ecc_mode = "disabled";
         r.devices[2].ecc_mode_pending = "disabled";
       }},
      {"ecc-corrected-storm", "GPUSPEC-ECC-CORRECTED-STORM", 2, vs::warn,
       [](report& r) {
         r.devices[2].counters_after["ecc.volatile.corrected"] = reading::of(5000);
         r.devices[2].counters_delta["ecc.volatile.corrected"] = reading::of(5000);
         r.devices[2].counters_after["ecc.aggregate.corrected"] = reading::of(5000);
         r.devices[2].counters_delta["ecc.aggregate.corrected"] = reading::of(5000);
       }},
      {"thermal-throttle", "GPUSPEC-THERMAL-THROTTLE", 2, vs::warn,
       [](report& r) {
         throttle(r, 2, {"hw_thermal", "sw_thermal"}, 0.8);
         for (auto* res : results_of(r, 2))
           res->telemetry.temperature_c_max = 92;
       }},
      // A whole node at 92 °C with HW thermal slowdown on every result, throughput still above
      // the pass line: a finding all the same.
      {"thermal-throttle--passing-node-at-92c", "GPUSPEC-THERMAL-THROTTLE", 0, vs::warn,
       [](report& r) {
         for (int i = 0; i < gpus; ++i)
           for (auto* res : results_of(r, i)) {
             res->telemetry.throttle_reasons = {"hw_thermal"};
             res->telemetry.throttled = true;
             res->telemetry.temperature_c_max = 92;
           }
       }},
      {"hw-slowdown", "GPUSPEC-HW-SLOWDOWN", 2, vs::warn,
       [](report& r) {
         for (auto* res : results_of(r, 2)) {
           res->telemetry.throttle_reasons = {"hw_slowdown"};
           res->telemetry.throttled = true;
         }
       }},
      {"power-throttle", "GPUSPEC-POWER-THROTTLE", 2, vs::warn,
       [](report& r) {
         throttle(r, 2, {"sw_power_cap", "hw_power_brake"}, 0.8);
       }},
      // SW power capping is named only where it is not the normal state: here the draw peaked
      // at 450 W of a 700 W limit.
      {"power-throttle--capped-short-of-the-limit", "GPUSPEC-POWER-THROTTLE", 2, vs::warn,
       [](report& r) {
         throttle(r, 2, {"sw_power_cap"}, 0.8);
         for (auto* res : results_of(r, 2)) {
           res->telemetry.power_w_max = 450;
           res->telemetry.power_w_mean = 430;
         }
       }},
      {"sm-clock-low", "GPUSPEC-SM-CLOCK-LOW", 2, vs::warn,
       [](report& r) {
         scale_device_results(r, 2, 0.8);
         for (auto* res : results_of(r, 2)) {
           res->telemetry.low_clock_fraction = 0.6;
           res->telemetry.sm_clock_mhz_min = 900;
           res->telemetry.sm_clock_mhz_median = 1200;
           res->telemetry.throttle_reasons.clear();
           res->telemetry.throttled = false;
         }
       }},
      // The throughput passes (a memory-bound result), but the SM clock sits at a quarter of
      // its siblings'.
      {"sm-clock-below-siblings", "GPUSPEC-SM-CLOCK-BELOW-SIBLINGS", 2, vs::warn,
       [](report& r) {
         for (auto* res : results_of(r, 2)) {
           res->telemetry.sm_clock_mhz_min = 480;
           res->telemetry.sm_clock_mhz_median = 490;
           res->telemetry.sm_clock_mhz_max = 500;
         }
       }},
      {"memory-clock-low", "GPUSPEC-MEMORY-CLOCK-LOW", 2, vs::warn,
       [](report& r) {
         scale_device_results(r, 2, 0.8);
         for (auto* res : results_of(r, 2)) {
           res->telemetry.mem_clock_mhz_min = 2600;
           res->telemetry.mem_clock_mhz_median = 2600;
         }
       }},
      {"ecc-uncorrected", "GPUSPEC-ECC-UNCORRECTED", 2, vs::fail,
       [](report& r) {
         r.devices[2].counters_after["ecc.volatile.uncorrected"] = reading::of(3);
         r.devices[2].counters_delta["ecc.volatile.uncorrected"] = reading::of(3);
       }},
      // Events during a result (event_rules.hpp), as NVML's event set delivers them.
      {"xid-hardware--during-a-result", "GPUSPEC-XID-HARDWARE", 2, vs::fail,
       [](report& r) {
         add_nvml_events(r, 2, {{gpu_event_type::xid, 79}});
       }},
      {"xid-driver--during-a-result", "GPUSPEC-XID-DRIVER", 2, vs::fail,
       [](report& r) {
         add_nvml_events(r, 2, {{gpu_event_type::xid, 119}});
       }},
      // 999: NVML's own word for an Xid it does not know.
      {"xid-unknown--during-a-result", "GPUSPEC-XID-UNKNOWN", 2, vs::warn,
       [](report& r) {
         add_nvml_events(r, 2, {{gpu_event_type::xid, 999}});
       }},
      {"ecc-uncorrected--double-bit-event", "GPUSPEC-ECC-UNCORRECTED", 2, vs::fail,
       [](report& r) {
         add_nvml_events(r, 2, {{gpu_event_type::ecc_double_bit, 0}});
       }},
      {"ecc-corrected-storm--single-bit-events", "GPUSPEC-ECC-CORRECTED-STORM", 2, vs::warn,
       [](report& r) {
         add_nvml_events(
             r, 2,
             std::vector<std::pair<gpu_event_type, std::uint64_t>>(
                 single_bit_events_warn_above + 1, {gpu_event_type::ecc_single_bit, 0}));
       }},
      {"row-remap-pending", "GPUSPEC-ROW-REMAP-PENDING", 2, vs::warn,
       [](report& r) {
         r.devices[2].counters_after["remapped_rows.pending"] = reading::of(1);
         r.devices[2].counters_delta["remapped_rows.pending"] = reading::of(1);
       }},
      {"row-remap-failure", "GPUSPEC-ROW-REMAP-FAILURE", 2, vs::fail,
       [](report& r) {
         r.devices[2].counters_before["remapped_rows.failure"] = reading::of(1);
         r.devices[2].counters_after["remapped_rows.failure"] = reading::of(1);
       }},
      {"page-retirement-pending", "GPUSPEC-PAGE-RETIREMENT-PENDING", 2, vs::warn,
       [](report& r) {
         r.devices[2].counters_after["retired_pages.pending"] = reading::of(1);
         r.devices[2].counters_delta["retired_pages.pending"] = reading::of(1);
       }},
      {"nvlink-down", "GPUSPEC-NVLINK-DOWN", 2, vs::fail,
       [](report& r) {
         r.devices[2].counters_after["nvlink.links_active"] = reading::of(16);
         r.devices[2].counters_delta["nvlink.links_active"] = reading::of(-2);
       }},
      {"nvlink-errors", "GPUSPEC-NVLINK-ERRORS", 2, vs::warn,
       [](report& r) {
         r.devices[2].counters_after["nvlink.crc_flit"] = reading::of(40);
         r.devices[2].counters_delta["nvlink.crc_flit"] = reading::of(40);
       }},
      {"nouveau-loaded", "GPUSPEC-NOUVEAU-LOADED", std::nullopt, vs::fail,
       [](report& r) { r.host.nouveau_loaded = true; }},
      // 1 TB of host RAM for 8 x 141 GB: below the 1.36 x vendors ship (the stock 2 TB passes).
      {"host-memory-low", "GPUSPEC-HOST-MEMORY-LOW", std::nullopt, vs::warn,
       [](report& r) { r.host.memory_bytes = 1007 * gib; }},
      {"sibling-outlier", "GPUSPEC-SIBLING-OUTLIER", 2, vs::warn,
       [](report& r) { scale_device_results(r, 2, 0.92); }},
      {"below-spec", "GPUSPEC-BELOW-SPEC", 0, vs::fail,
       [](report& r) {
         for (int i = 0; i < gpus; ++i)
           scale_device_results(r, i, 0.6);
       }},
      {"no-spec-row", "GPUSPEC-NO-SPEC-ROW", 0, vs::warn,
       [](report& r) {
         for (auto& d : r.devices) {
           d.name = "NVIDIA Synthetic Unlisted GPU";
           d.spec_id = "";
           d.pci_device_id = 0x0FFE;
         }
       }},
      {"result-failed", "GPUSPEC-RESULT-FAILED", 2, vs::fail,
       [](report& r) {
         fail_result(*results_of(r, 2).front(), failure_kind::benchmark,
                     "synthetic: the kernel launch failed");
       }},
      // As the harness writes a wrong answer: status failed, failure verification.
      {"verification-failed", "GPUSPEC-VERIFICATION-FAILED", 2, vs::fail,
       [](report& r) {
         auto& res = *results_of(r, 2).front();
         res.check.status = verification_status::failed;
         res.check.max_rel_error = 0.5;
         res.check.detail = "element 7 differs from the analytic value";
         fail_result(res, failure_kind::verification, "verification failed: " + res.check.detail);
       }},
      {"gpu-start-failed", "GPUSPEC-GPU-START-FAILED", 2, vs::fail,
       [](report& r) {
         for (auto* res : results_of(r, 2))
           fail_result(*res, failure_kind::gpu_start,
                       "synthetic: cudaSetDevice: CUDA-capable device is busy or unavailable");
       }},
      {"worker-hung", "GPUSPEC-WORKER-HUNG", 2, vs::fail,
       [](report& r) {
         for (auto* res : results_of(r, 2))
           fail_result(*res, failure_kind::worker_timeout,
                       "GPU 2: no answer for 45 s in " + res->bench_id + "; worker killed");
       }},
      {"worker-crashed", "GPUSPEC-WORKER-CRASHED", 2, vs::fail,
       [](report& r) {
         for (auto* res : results_of(r, 2))
           fail_result(*res, failure_kind::worker_signal,
                       "GPU 2: worker killed by SIGSEGV in " + res->bench_id);
       }},
      {"worker-exited", "GPUSPEC-WORKER-EXITED", 2, vs::fail,
       [](report& r) {
         for (auto* res : results_of(r, 2))
           fail_result(*res, failure_kind::worker_exit,
                       "GPU 2: worker exited with status 1 before " + res->bench_id);
       }},
      {"worker-protocol", "GPUSPEC-WORKER-PROTOCOL", 2, vs::fail,
       [](report& r) {
         for (auto* res : results_of(r, 2))
           fail_result(*res, failure_kind::worker_protocol,
                       "GPU 2: the worker wrote a line that is not a result message");
       }},
      // NCCL staged an all-reduce through host memory between GPUs whose NVLink is up (a
      // stale NCCL_P2P_DISABLE=1): far below the link, and the finding names the transport.
      {"nccl-transport-fallback", "GPUSPEC-NCCL-TRANSPORT-FALLBACK", 0, vs::fail,
       [](report& r) {
         collective_case c;
         c.transports = {"SHM"};
         c.busbw_gbs = 0.1 * 450;
         r.results.push_back(collective_result(r, c));
       }},
      // The same fallback at 1 MiB, reported and not judged: the finding still warns.
      {"nccl-transport-fallback--below-the-plateau", "GPUSPEC-NCCL-TRANSPORT-FALLBACK", 0, vs::warn,
       [](report& r) {
         collective_case c;
         c.size = "1MiB";
         c.transports = {"P2P", "NET/Socket"};
         c.busbw_gbs = 20;
         r.results.push_back(collective_result(r, c));
       }},
      {"collective-timeout", "GPUSPEC-COLLECTIVE-TIMEOUT", 5, vs::fail,
       [](report& r) {
         collective_case c;
         c.timed_out_ranks = std::vector<int>{5, 6};
         r.results.push_back(collective_result(r, c));
       }},
      // #wrong > 0 on one rank: a wrong answer, as any other.
      {"verification-failed--nccl-wrong-elements", "GPUSPEC-VERIFICATION-FAILED", 0, vs::fail,
       [](report& r) {
         collective_case c;
         c.wrong_per_rank = {0, 0, 0, 12};
         r.results.push_back(collective_result(r, c));
       }},
      // An all-reduce at 30% of the NVLink bar with nothing in the inventory to explain it.
      {"below-spec--collective-slow", "GPUSPEC-BELOW-SPEC", 0, vs::fail,
       [](report& r) {
         collective_case c;
         c.busbw_gbs = 0.3 * 450;
         r.results.push_back(collective_result(r, c));
       }},
      // Fell off the bus: every query answers "GPU is lost", and no result came back.
      {"gpu-lost", "GPUSPEC-GPU-LOST", 2, vs::fail,
       [](report& r) {
         auto& d = r.devices[2];
         d.problems = {"nvmlDeviceGetName: GPU is lost (further queries skipped)"};
         for (auto* set : {&d.counters_after, &d.counters_delta})
           for (auto& [name, value] : *set)
             value = reading::unavailable("GPU is lost");
         std::erase_if(r.results, [](const result& x) { return x.devices.front() == 2; });
       }},
      // Burn-in (docs/burnin.md): a healthy burn-in on every GPU, then one GPU degraded.
      {"burnin-checksum-mismatch", "GPUSPEC-BURNIN-CHECKSUM-MISMATCH", 3, vs::fail,
       [](report& r) {
         add_burnin(r);
         auto& g = *burnin_of(r, 3).gemm;
         g.checksum_mismatches = 1;
         g.mismatches = {{17, 4.75, g.reference_checksum, "0x5e5e00000000c0df"}};
         burnin_of(r, 3).intervals[0].checksum_mismatches = 1;
       }},
      {"burnin-checksum-differs", "GPUSPEC-BURNIN-CHECKSUM-DIFFERS", 5, vs::fail,
       [](report& r) {
         add_burnin(r);
         burnin_of(r, 5).gemm->reference_checksum = "0x5e5e00000000c0df";
       }},
      {"memory-bad-words", "GPUSPEC-MEMORY-BAD-WORDS", 4, vs::fail,
       [](report& r) {
         add_burnin(r);
         auto& m = *burnin_of(r, 4).memtest;
         m.bad_words = 3;
         // Read again after the pass: right then, a transient error (still a fail).
         m.bad = {{"0x00007f3a40000008", "moving_inversions", "0xffffffffffffffff",
                   "0xfffffffffffbffff", "0x0000000000000000", false}};
       }},
      {"burnin-drift", "GPUSPEC-BURNIN-DRIFT", 6, vs::fail,
       [](report& r) {
         add_burnin(r);
         slow_burnin_from(r, 6, 8, 0.80); // the last 4 minutes 20% slower
       }},
      {"burnin-drift--within-the-fail-threshold", "GPUSPEC-BURNIN-DRIFT", 6, vs::warn,
       [](report& r) {
         add_burnin(r);
         slow_burnin_from(r, 6, 8, 0.92);
       }},
  };
  return variants;
}

const std::vector<inconclusive_variant>& inconclusive_variants() {
  static const std::vector<inconclusive_variant> variants = {
      {"no-samples", "GPUSPEC-NO-WORK", 1,
       [](report& r) {
         auto& res = *results_of(r, 1).front();
         res.samples.clear();
         res.sample_seconds.clear();
         res.stats = summarize(res.samples);
         res.efficiency = std::nullopt;
         res.efficiency_clock_adjusted = std::nullopt;
       }},
      {"zero-rate", "GPUSPEC-NO-WORK", 1,
       [](report& r) {
         auto& res = *results_of(r, 1).front();
         for (auto& s : res.samples)
           s = 0;
         res.stats = summarize(res.samples);
         res.efficiency = 0.0;
         res.efficiency_clock_adjusted = 0.0;
       }},
      {"zero-watts", "GPUSPEC-TELEMETRY-IMPOSSIBLE", 1,
       [](report& r) {
         auto& t = results_of(r, 1).front()->telemetry;
         t.power_w_mean = 0;
         t.power_w_max = 0;
       }},
      {"temperature-255", "GPUSPEC-TELEMETRY-IMPOSSIBLE", 1,
       [](report& r) { results_of(r, 1).front()->telemetry.temperature_c_max = 255; }},
      {"telemetry-missing", "GPUSPEC-TELEMETRY-MISSING", 1,
       [](report& r) {
         auto& t = results_of(r, 1).front()->telemetry;
         t = telemetry_summary{};
         t.status = "unavailable: NVML not loaded";
       }},
      // A timer that saw nearly nothing: 1.5 x the ceiling at the clock seen.
      {"impossible-result", "GPUSPEC-IMPOSSIBLE-RESULT", 1,
       [](report& r) {
         auto& res = *results_of(r, 1).front();
         for (auto& s : res.samples)
           s *= 1.5 / 0.9;
         res.stats = summarize(res.samples);
         settle_efficiency(res);
       }},
      {"report-inconsistent--median-outside-min-max", "GPUSPEC-REPORT-INCONSISTENT", 1,
       [](report& r) {
         auto& res = *results_of(r, 1).front();
         res.stats.median = 2 * res.stats.max;
         settle_efficiency(res);
       }},
      {"report-inconsistent--n-not-the-sample-count", "GPUSPEC-REPORT-INCONSISTENT", 1,
       [](report& r) { results_of(r, 1).front()->stats.n = 50; }},
      {"report-inconsistent--negative-time", "GPUSPEC-REPORT-INCONSISTENT", 1,
       [](report& r) { results_of(r, 1).front()->sample_seconds[3] = -0.01; }},
      {"report-inconsistent--passed-beyond-tolerance", "GPUSPEC-REPORT-INCONSISTENT", 1,
       [](report& r) { results_of(r, 1).front()->check.max_rel_error = 1e-3; }},
      {"report-inconsistent--edited-median", "GPUSPEC-REPORT-INCONSISTENT", 1,
       [](report& r) {
         auto& res = *results_of(r, 1).front();
         res.stats.median = res.stats.min;
         settle_efficiency(res);
       }},
      {"report-inconsistent--counter-delta", "GPUSPEC-REPORT-INCONSISTENT", 1,
       [](report& r) {
         auto& d = r.devices[1];
         d.counters_after["pcie.replay"] = reading::of(7);
         d.counters_delta["pcie.replay"] = reading::of(2);
       }},
      // An Xid the worker says it saw on a GPU the inventory does not have.
      {"report-inconsistent--event-on-unlisted-gpu", "GPUSPEC-REPORT-INCONSISTENT", 1,
       [](report& r) {
         add_nvml_events(r, 1, {{gpu_event_type::xid, 79}});
         results_of(r, 1).front()->events.front().device = 8;
       }},
      // Two inventory entries for GPU 1: which is GPU 1 cannot be told.
      {"report-inconsistent--duplicate-device-index", "GPUSPEC-REPORT-INCONSISTENT", 1,
       [](report& r) {
         r.devices.push_back(r.devices[1]);
         r.devices.back().serial = "SYNTHETIC-0001-B";
       }},
      {"stand-in", "GPUSPEC-STAND-IN", std::nullopt, [](report& r) { r.run.backend = "stand-in"; }},
      {"gpu-not-measured", "GPUSPEC-GPU-NOT-MEASURED", 1,
       [](report& r) {
         for (auto* res : results_of(r, 1)) {
           res->status = result_status::not_supported;
           res->reason = "synthetic: the GPU lacks this unit";
         }
       }},
      {"gpu-not-measured--no-results", "GPUSPEC-GPU-NOT-MEASURED", 1,
       [](report& r) {
         std::erase_if(r.results, [](const result& x) { return x.devices.front() == 1; });
       }},
      // Refused by the idle precondition: another program held GPU 1, so it has no result.
      {"gpu-busy", "GPUSPEC-GPU-BUSY", 1,
       [](report& r) {
         r.devices[1].activity =
             gpu_activity{97, {{4242, "python3", std::int64_t{20} << 30, "compute"}}, "ok"};
         std::erase_if(r.results, [](const result& x) { return x.devices.front() == 1; });
       }},
      {"run-incomplete", "GPUSPEC-RUN-INCOMPLETE", std::nullopt,
       [](report& r) {
         r.complete = false;
         r.incomplete_reason = "interrupted";
       }},
      {"burnin-too-little-work", "GPUSPEC-BURNIN-TOO-LITTLE-WORK", 1,
       [](report& r) {
         add_burnin(r);
         burnin_of(r, 1).busy_s = 120; // 2 of the 12 minutes asked
       }},
      {"burnin-too-little-work--power-at-idle", "GPUSPEC-BURNIN-TOO-LITTLE-WORK", 1,
       [](report& r) {
         add_burnin(r);
         for (auto& in : burnin_of(r, 1).intervals)
           in.power_w_max = 125; // idle 120 W: the GEMMs never loaded the GPU
       }},
      // `--duration 1s`: one second of GEMMs, no memory pass, no memtest record.
      {"burnin-too-short", "GPUSPEC-BURNIN-TOO-SHORT", 2,
       [](report& r) {
         add_burnin(r);
         burnin_lasting(r, 2, 1);
       }},
      // scripts/gpu-validate.sh's `--duration 2m`: two memory passes, under the minimum.
      {"burnin-too-short--two-minutes", "GPUSPEC-BURNIN-TOO-SHORT", 2,
       [](report& r) {
         add_burnin(r);
         burnin_lasting(r, 2, 120);
       }},
      // 12 minutes of GEMMs on a GPU with too little free memory for the memory test.
      {"burnin-no-memory-pass", "GPUSPEC-BURNIN-NO-MEMORY-PASS", 4,
       [](report& r) {
         add_burnin(r);
         auto& b = burnin_of(r, 4);
         b.memtest.reset();
         for (auto& in : b.intervals)
           in.memtest_words = 0;
       }},
  };
  return variants;
}

std::set<std::string> diagnosis_codes(const check_outcome& o) {
  std::set<std::string> out;
  const auto add = [&](const diagnosis& d) {
    out.insert(d.code + "@" + (d.device ? std::to_string(*d.device) : std::string("node")));
  };
  for (const auto& n : o.nodes) {
    for (const auto& d : n.diagnoses)
      add(d);
    for (const auto& g : n.gpus)
      for (const auto& d : g.diagnoses)
        add(d);
    for (const auto& v : n.results)
      for (const auto& d : v.diagnoses)
        add(d);
  }
  return out;
}

std::string findings_summary(const check_outcome& o) {
  std::string out;
  for (const auto& c : diagnosis_codes(o))
    out += "  " + c + "\n";
  std::size_t n = 0;
  for (const auto& v : o.nodes.at(0).results)
    if (v.status != verdict_status::pass && v.status != verdict_status::skipped && n++ < 8)
      out += "  " + v.name + " [" + std::string(to_string(v.status)) + "]: " + v.message + "\n";
  return out;
}

} // namespace gpuspec::reports::testing
