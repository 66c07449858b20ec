// burnin.gemm and memory.test: the burn-in (docs/burnin.md).
//
// burnin.gemm loads its GPU for the run's --duration (every GPU of the run at once: the spine
// starts one worker per GPU), alternating a GEMM phase (45 s) with a memory-test phase (15 s):
// - GEMM: cuBLASLt D = A·B, 8192^3, bf16 (or fp16) inputs and output, FP32 accumulation. A
//   Tensor Core GEMM of that size keeps every SM's Tensor Cores busy, which is what draws a
//   Hopper card to its power limit (FP32 FMA work alone does not). The algorithm is the
//   heuristic's first result, restricted to no split-K reduction scheme (the reduction mask is
//   CUBLASLT_REDUCTION_SCHEME_NONE), pinned for the whole run and recorded with its id, tile,
//   stages and split-K. Inputs come from one seed on every GPU (gemm_fill.hpp), so every
//   iteration's output must be bit for bit the first iteration's, on this GPU and on every
//   other GPU of the same model with the same algorithm: each iteration's output is reduced on
//   the device to a 64-bit checksum (output_checksum.hpp) and compared on the host.
// - Memory test (memtest.hpp): most of the free device memory, from cudaMalloc (never managed
//   memory), leaving headroom for the context, cuBLASLt and the GEMM's buffers; each pass one
//   pattern (walking ones, walking zeros, moving inversions, address in address, random), every
//   word written and read back; a bad word is recorded with its address.
// Per interval (a minute) the time series holds the GEMM's throughput, clocks, temperature,
// power, throttle reasons, mismatches and memory words checked (burnin_timeline.hpp); raw
// telemetry samples are kept around events. Progress goes to the watchdog after every batch and
// every memory pass (a few per second at most a second apart); Ctrl-C ends the run at the next
// batch or pass and keeps what was done. Hardware: bf16 needs sm_80; fp16 runs everywhere.
//
// memory.test runs one pass of each pattern over the same memory, on its own (standard and
// burnin suites), and reports the bandwidth of each pass.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "../src/cublaslt_handles.cuh"

#include "gpuspec/benches/bench_state.cuh"
#include "gpuspec/benches/families.hpp"
#include "gpuspec/benches/gemm_check.hpp"
#include "gpuspec/benches/gemm_cublas.hpp"
#include "gpuspec/host/burnin_timeline.hpp"
#include "gpuspec/kernels/cublas_check.cuh"
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/kernels/gemm_fill.hpp"
#include "gpuspec/kernels/memtest.hpp"
#include "gpuspec/kernels/output_checksum.hpp"

namespace gpuspec::benches {

namespace {

constexpr std::int64_t burnin_dim = 8192;
constexpr std::uint64_t burnin_seed = 20261201; ///< the same on every GPU, in every run
constexpr std::uint64_t seed_a = burnin_seed * 2 + 1;
constexpr std::uint64_t seed_b = burnin_seed * 2 + 2;
constexpr double gemm_phase_s = 45;
constexpr double memtest_phase_s = 15;
/// A batch of GEMM iterations lasts about this long: long enough to keep the GPU busy between
/// two host synchronisations, short enough for the watchdog's heartbeat.
constexpr double target_batch_s = 0.25;
constexpr int max_batch = 256;
/// Left free beside the memory test's buffer: the context, cuBLASLt, the driver (at least
/// 1 GiB, or 5% of the GPU's memory).
constexpr std::size_t min_headroom_bytes = std::size_t{1} << 30;
constexpr std::size_t min_memtest_bytes = std::size_t{64} << 20;
/// Raw samples kept before and after an event.
constexpr double event_before_s = 5, event_after_s = 1;

template <class... Args> std::string cat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

/// The pinned cuBLASLt GEMM: column-major D[m,n] = A[m,k] · B[k,n], all of one 16-bit type.
class pinned_gemm {
public:
  pinned_gemm(cudaDataType_t type, std::int64_t dim)
      : m_dim(dim), m_desc(CUBLAS_COMPUTE_32F, CUDA_R_32F),
        m_layout(type, static_cast<std::uint64_t>(dim), static_cast<std::uint64_t>(dim), dim) {
    const cublasOperation_t n = CUBLAS_OP_N;
    m_desc.set(CUBLASLT_MATMUL_DESC_TRANSA, n);
    m_desc.set(CUBLASLT_MATMUL_DESC_TRANSB, n);
    lt_preference preference;
    preference.set(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, gemm_cublas_workspace_bytes);
    // No split-K reduction: each output element is summed in one sequence.
    preference.set(CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                   static_cast<std::uint32_t>(CUBLASLT_REDUCTION_SCHEME_NONE));
    cublasLtMatmulHeuristicResult_t result{};
    int returned = 0;
    const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
        m_handle.get(), m_desc.get(), m_layout.get(), m_layout.get(), m_layout.get(),
        m_layout.get(), preference.get(), 1, &result, &returned);
    if (status != CUBLAS_STATUS_SUCCESS || returned < 1 || result.state != CUBLAS_STATUS_SUCCESS) {
      m_unsupported = cat("cuBLASLt has no algorithm without a split-K reduction for this GEMM "
                          "(status ",
                          kernels::describe_cublas_status(status), ", ", returned, " result(s))");
      return;
    }
    m_algo = result.algo;
    const auto attribute = [&](cublasLtMatmulAlgoConfigAttributes_t a) {
      std::uint32_t v = 0;
      std::size_t written = 0;
      (void)cublasLtMatmulAlgoConfigGetAttribute(&m_algo, a, &v, sizeof v, &written);
      return v;
    };
    const std::uint32_t id = attribute(CUBLASLT_ALGO_CONFIG_ID);
    const std::uint32_t tile = attribute(CUBLASLT_ALGO_CONFIG_TILE_ID);
    const std::uint32_t stages = attribute(CUBLASLT_ALGO_CONFIG_STAGES_ID);
    m_split_k = attribute(CUBLASLT_ALGO_CONFIG_SPLITK_NUM);
    m_reduction = attribute(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME);
    m_description = cat("id=", id, " tile=", tile, " stages=", stages, " split_k=", m_split_k,
                        " reduction_scheme=", m_reduction);
  }

  [[nodiscard]] const std::string& unsupported() const { return m_unsupported; }
  [[nodiscard]] const std::string& description() const { return m_description; }
  /// Split-K 1 (or none) and no reduction scheme: one summation order, the same every run.
  [[nodiscard]] bool deterministic() const {
    return m_split_k <= 1 && m_reduction == CUBLASLT_REDUCTION_SCHEME_NONE;
  }
  [[nodiscard]] std::string reduction() const {
    return m_reduction == CUBLASLT_REDUCTION_SCHEME_NONE ? "none" : cat("scheme ", m_reduction);
  }

  void enqueue(const void* a, const void* b, void* d, void* workspace,
               kernels::stream_ref s) const {
    const float alpha = 1.0f, beta = 0.0f;
    GPUSPEC_CUBLAS_CHECK(cublasLtMatmul(m_handle.get(), m_desc.get(), &alpha, a, m_layout.get(), b,
                                        m_layout.get(), &beta, d, m_layout.get(), d, m_layout.get(),
                                        &m_algo, workspace, gemm_cublas_workspace_bytes, s.get()));
  }

private:
  std::int64_t m_dim;
  lt_handle m_handle;
  lt_matmul_desc m_desc;
  lt_matrix_layout m_layout;
  cublasLtMatmulAlgo_t m_algo{};
  std::uint32_t m_split_k = 1, m_reduction = 0;
  std::string m_unsupported, m_description;
};

/// The memory test's buffer: most of what is free once everything else is allocated.
kernels::device_buffer<std::uint64_t> memtest_buffer() {
  std::size_t free_bytes = 0, total_bytes = 0;
  GPUSPEC_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t headroom = std::max(min_headroom_bytes, total_bytes / 20);
  if (free_bytes < headroom + min_memtest_bytes)
    return {};
  return kernels::device_buffer<std::uint64_t>((free_bytes - headroom) / 8);
}

/// One memory pass of one pattern over `words`; adds what it found to `m`. Returns the words
/// found bad.
std::int64_t memtest_pass(bench_state& state, kernels::device_buffer<std::uint64_t>& words,
                          kernels::memtest_pattern p, std::uint64_t seed,
                          kernels::device_buffer<kernels::memtest_outcome>& outcome,
                          reports::burnin_memtest& m, double& busy_s) {
  const kernels::memtest_outcome zero{};
  GPUSPEC_CUDA_CHECK(cudaMemcpyAsync(outcome.data(), &zero, sizeof zero, cudaMemcpyHostToDevice,
                                     state.stream().get()));
  const std::size_t n = words.size();
  busy_s += state.time_run([&](kernels::stream_ref s) {
    kernels::memtest_fill(words.data(), n, p, seed, false, s.handle());
    if (kernels::memtest_has_inverse(p)) {
      // Moving inversions: read and invert ascending, read and restore descending, read.
      kernels::memtest_check(words.data(), n, p, seed, false, true, false, outcome.data(),
                             s.handle());
      kernels::memtest_check(words.data(), n, p, seed, true, true, true, outcome.data(),
                             s.handle());
    }
    kernels::memtest_check(words.data(), n, p, seed, false, false, false, outcome.data(),
                           s.handle());
  });
  kernels::memtest_outcome found{};
  GPUSPEC_CUDA_CHECK(cudaMemcpy(&found, outcome.data(), sizeof found, cudaMemcpyDeviceToHost));
  const auto reads = static_cast<std::int64_t>(kernels::memtest_has_inverse(p) ? 3 : 1);
  m.bytes = static_cast<std::int64_t>(words.bytes());
  ++m.passes;
  m.patterns.emplace_back(kernels::name_of(p));
  m.words_checked += reads * static_cast<std::int64_t>(n);
  m.bad_words += static_cast<std::int64_t>(found.bad_words);
  // The first bad words, read again now that the pass is over: a word that holds what the pass
  // left in it (the pattern's first phase: every pass ends there) read wrong once, a transient;
  // one still wrong is stuck (cuda_memtest and DCGM's memtest tell the two apart so). The pass
  // walked the whole buffer since, far more than the L2 holds, so the read reaches the DRAM for
  // all but the last few words of a pass.
  const auto base = reinterpret_cast<std::uint64_t>(words.data());
  for (std::uint32_t i = 0; i < found.recorded && m.bad.size() < reports::burnin_max_bad_words;
       ++i) {
    const kernels::memtest_record& r = found.first[i];
    std::uint64_t again = 0;
    GPUSPEC_CUDA_CHECK(cudaMemcpy(&again, reinterpret_cast<const void*>(r.address), sizeof again,
                                  cudaMemcpyDeviceToHost));
    const std::uint64_t left = kernels::memtest_word(p, seed, base, (r.address - base) / 8, false);
    reports::burnin_bad_word w;
    w.address = host::hex_word(r.address);
    w.pattern = std::string(kernels::name_of(p));
    w.expected = host::hex_word(r.expected);
    w.actual = host::hex_word(r.actual);
    w.reread = host::hex_word(again);
    w.stuck = kernels::memtest_reread_stuck(left, again);
    m.bad.push_back(std::move(w));
  }
  return static_cast<std::int64_t>(found.bad_words);
}

/// Copies A, B and D (column-major, burnin_dim square) back and checks sampled entries of D (the
/// four corners and 256 seeded ones) against the Dot2 host reference of gemm_check.hpp, every entry
/// scanned for finiteness, within the tolerance of the precision (bf16 or fp16 in and out, FP32
/// accumulation on Tensor Cores, K = 8192, mixed signs: gemm_fill.hpp).
reports::verification check_against_host(const kernels::device_buffer<std::uint16_t>& a_device,
                                         const kernels::device_buffer<std::uint16_t>& b_device,
                                         const kernels::device_buffer<std::uint16_t>& d_device,
                                         bool bf16, kernels::stream_ref stream) {
  const auto copy_back = [&](const kernels::device_buffer<std::uint16_t>& buffer) {
    std::vector<std::uint16_t> host(buffer.size());
    GPUSPEC_CUDA_CHECK(cudaMemcpyAsync(host.data(), buffer.data(), buffer.bytes(),
                                       cudaMemcpyDeviceToHost, stream.get()));
    return host;
  };
  const auto a = copy_back(a_device);
  const auto b = copy_back(b_device);
  const auto d = copy_back(d_device);
  stream.synchronize();
  const gemm_element type = bf16 ? gemm_element::bf16 : gemm_element::fp16;
  const auto view = [&](const std::vector<std::uint16_t>& data) {
    return matrix_view{data.data(), type,       burnin_dim,
                       burnin_dim,  burnin_dim, storage_order::col_major};
  };
  gemm_check_options options;
  options.tolerance = gemm_tolerance(bf16 ? gemm_precision::bf16 : gemm_precision::fp16, burnin_dim,
                                     gemm_input_signs::mixed);
  options.seed = burnin_seed;
  return gemm_sample_check(view(a), view(b), view(d), options,
                           cat("cublasLtMatmul ", bf16 ? "bf16" : "fp16",
                               " D of the first batch against a Dot2 host reference from A and B "
                               "copied back (seeded, non-zero)"));
}

reports::verification memtest_verification(const reports::burnin_memtest& m) {
  reports::verification v;
  v.status = m.bad_words == 0 ? reports::verification_status::passed
                              : reports::verification_status::failed;
  const auto stuck =
      std::count_if(m.bad.begin(), m.bad.end(),
                    [](const reports::burnin_bad_word& w) { return w.stuck == true; });
  const auto transient =
      std::count_if(m.bad.begin(), m.bad.end(), [](const auto& w) { return w.stuck == false; });
  v.detail = m.bad_words == 0
                 ? cat("every word read back as written (", m.words_checked, " words checked)")
                 : cat(m.bad_words, " bad word(s) of ", m.words_checked,
                       " checked; of the first read again after their pass, ", stuck,
                       " still wrong (stuck), ", transient, " right (transient)");
  return v;
}

/// One burn-in GEMM run (burnin_gemm), by phase: the buffers and what the result declares
/// (constructor), the record's start, the loop of GEMM batches and memory-test passes to the
/// duration, the telemetry intervals and events as they close, and the result at the end.
class gemm_burn {
public:
  gemm_burn(bench_state& state, const pinned_gemm& gemm, bool bf16)
      : m_state(state), m_gemm(gemm), m_bf16(bf16), m_a(dim * dim), m_b(dim * dim), m_d(dim * dim),
        m_workspace(gemm_cublas_workspace_bytes), m_sums(max_batch) {
    // Allocate, initialise: the same seeded inputs on every GPU; the memory test gets most of
    // what is left.
    const auto fill = bf16 ? kernels::gemm_fill_type::bf16 : kernels::gemm_fill_type::fp16;
    kernels::launch_gemm_fill(m_a.data(), fill, dim * dim, seed_a, state.stream().handle());
    kernels::launch_gemm_fill(m_b.data(), fill, dim * dim, seed_b, state.stream().handle());
    m_outcome = kernels::device_buffer<kernels::memtest_outcome>(1);
    m_words = memtest_buffer();
    state.stream().synchronize();
    state.set_flops_per_iteration(m_flops);
    state.set_compute_ceiling(bf16 ? "bf16_tc" : "fp16_tc");
    state.set_cache_mode(cache_mode::hot);
    state.add_parameter("m", burnin_dim);
    state.add_parameter("n", burnin_dim);
    state.add_parameter("k", burnin_dim);
    state.add_parameter("algorithm", gemm.description());
  }

  /// Runs the load for `duration_s` from now; `setup_begin_s` (when the setup began) to now is
  /// the idle window.
  void run(double duration_s, double setup_begin_s) {
    start_record(duration_s, setup_begin_s);
    const host::burnin_schedule schedule{duration_s, gemm_phase_s,
                                         m_words.size() > 0 ? memtest_phase_s : 0};
    for (;;) {
      const double now_s = m_state.run_clock_s();
      const host::burnin_phase phase = host::phase_at(schedule, now_s - m_load_begin_s);
      if (phase == host::burnin_phase::done || m_state.interrupted())
        break;
      if (phase == host::burnin_phase::memtest)
        memtest_phase();
      else
        gemm_batch();
    }
  }

  /// Ends the result: the record, one sample per interval, the verification.
  void finish() {
    const double load_end_s = m_state.run_clock_s();
    close_intervals(load_end_s + m_timeline->interval_s()); // the last, partial interval too
    m_record.elapsed_s = load_end_s - m_load_begin_s;
    m_record.interval_s = m_timeline->interval_s();
    m_record.gemm = m_g;
    if (m_m.passes > 0)
      m_record.memtest = m_m;
    m_record.intervals = m_timeline->intervals();
    m_record.event_samples = m_timeline->event_samples();

    std::vector<double> samples, sample_seconds;
    for (const auto& in : m_record.intervals)
      if (in.throughput) {
        samples.push_back(*in.throughput);
        sample_seconds.push_back(m_flops * static_cast<double>(in.gemm_iterations) /
                                 (*in.throughput * 1e12));
      }
    m_state.set_verification(verification());
    m_state.finish_sustained(std::move(samples), std::move(sample_seconds), std::move(m_record),
                             m_load_begin_s, load_end_s);
  }

private:
  static constexpr auto dim = static_cast<std::size_t>(burnin_dim);

  void start_record(double duration_s, double setup_begin_s) {
    m_record.duration_s = duration_s;
    m_load_begin_s = m_state.run_clock_s();
    m_record.idle_power_w = m_state.telemetry_between(setup_begin_s, m_load_begin_s).power_w_mean;
    m_g.dtype = m_bf16 ? "bf16" : "fp16";
    m_g.m = m_g.n = m_g.k = burnin_dim;
    m_g.seed = static_cast<std::int64_t>(burnin_seed);
    m_g.algorithm = m_gemm.description();
    m_g.reduction = m_gemm.reduction();
    m_g.deterministic = m_gemm.deterministic();
    m_g.determinism_note =
        m_g.deterministic ? "split-K 1 and no reduction scheme: one summation order per element"
                          : "the pinned algorithm splits K: its reduction order may vary";
    m_timeline.emplace(m_load_begin_s);
    m_telemetry_until_s = m_load_begin_s;
  }

  void memtest_phase() {
    const auto p =
        kernels::memtest_patterns[m_next_pattern++ % std::size(kernels::memtest_patterns)];
    const std::int64_t bad = memtest_pass(m_state, m_words, p, burnin_seed + m_next_pattern,
                                          m_outcome, m_m, m_record.busy_s);
    const double end_s = m_state.run_clock_s();
    const auto reads = kernels::memtest_has_inverse(p) ? 3 : 1;
    m_timeline->add_memtest(end_s, reads * static_cast<std::int64_t>(m_words.size()), bad);
    if (bad > 0)
      mark_event(end_s);
    close_intervals(end_s);
  }

  void gemm_batch() {
    // A batch of iterations, each a GEMM (timed by the harness's events around it alone) and
    // the checksum of its output (after the GEMM's stop event: not charged to it).
    const auto times = m_state.time_batch(
        m_batch,
        [&](int, kernels::stream_ref s) {
          m_gemm.enqueue(m_a.data(), m_b.data(), m_d.data(), m_workspace.data(), s);
        },
        [&](int i, kernels::stream_ref s) {
          kernels::launch_output_checksum(m_d.data(), dim * dim, m_sums.data() + i, s.handle());
        });
    const double seconds = times.seconds;
    m_record.busy_s += seconds;
    std::array<std::uint64_t, max_batch> host{};
    GPUSPEC_CUDA_CHECK(cudaMemcpy(host.data(), m_sums.data(), sizeof(std::uint64_t) * m_batch,
                                  cudaMemcpyDeviceToHost));
    const double end_s = m_state.run_clock_s();
    for (int i = 0; i < m_batch; ++i)
      count_iteration(host[static_cast<std::size_t>(i)],
                      times.timed_seconds[static_cast<std::size_t>(i)], end_s);
    // Once per run, after the first batch: sampled entries of D against a host reference. The
    // checksums say every iteration and every GPU got the same bits; this says the bits are
    // right, which a GEMM wrong the same way every time would pass otherwise.
    if (!m_reference_check)
      m_reference_check = check_against_host(m_a, m_b, m_d, m_bf16, m_state.stream());
    // The next batch lasts about target_batch_s.
    m_batch = std::clamp(static_cast<int>(target_batch_s * m_batch / std::max(seconds, 1e-6)), 1,
                         max_batch);
    close_intervals(end_s);
  }

  /// One GEMM iteration of a batch: its checksum against iteration 0's, its time.
  void count_iteration(std::uint64_t checksum, double seconds, double end_s) {
    if (m_g.iterations == 0) {
      m_reference = checksum;
      m_g.reference_checksum = host::hex_word(m_reference);
    }
    const bool mismatch = checksum != m_reference;
    if (mismatch) {
      if (m_g.mismatches.size() < reports::burnin_max_mismatches)
        m_g.mismatches.push_back(
            {m_g.iterations, end_s, m_g.reference_checksum, host::hex_word(checksum)});
      ++m_g.checksum_mismatches;
      mark_event(end_s);
    }
    m_timeline->add_gemm(end_s, seconds, m_flops, mismatch);
    ++m_g.iterations;
  }

  void close_intervals(double now_s) {
    // Every interval that has ended gets its telemetry, summarised now, while the sampler
    // still holds it.
    for (;;) {
      const double end = m_timeline->window_of(m_telemetry_until_s).second;
      if (end > now_s)
        break;
      const auto t = m_state.telemetry_between(m_telemetry_until_s, end);
      m_timeline->set_telemetry(m_telemetry_until_s, t);
      // A throttle reason seen for the first time is an event: its samples are kept.
      for (const auto& r : t.throttle_reasons)
        if (std::find(m_reasons_seen.begin(), m_reasons_seen.end(), r) == m_reasons_seen.end()) {
          m_reasons_seen.push_back(r);
          m_timeline->add_event_samples(
              m_state.samples_between(end - event_before_s - event_after_s, end));
        }
      m_telemetry_until_s = end;
    }
  }

  void mark_event(double at_s) {
    if (m_event_seen)
      return;
    m_event_seen = true;
    m_timeline->add_event_samples(
        m_state.samples_between(at_s - event_before_s, at_s + event_after_s));
  }

  [[nodiscard]] reports::verification verification() const {
    reports::verification v;
    const bool reference_ok =
        !m_reference_check || m_reference_check->status != reports::verification_status::failed;
    v.status = m_g.checksum_mismatches == 0 && m_m.bad_words == 0 && reference_ok
                   ? reports::verification_status::passed
                   : reports::verification_status::failed;
    if (m_reference_check) {
      v.max_rel_error = m_reference_check->max_rel_error;
      v.tolerance = m_reference_check->tolerance;
    }
    v.detail = cat(m_g.iterations, " iteration(s), ", m_g.checksum_mismatches,
                   " checksum mismatch(es) against iteration 0's ", m_g.reference_checksum, "; ",
                   m_reference_check ? m_reference_check->detail
                                     : std::string("no iteration: D not checked against the host"),
                   "; ", memtest_verification(m_m).detail);
    return v;
  }

  bench_state& m_state;
  const pinned_gemm& m_gemm;
  bool m_bf16;
  kernels::device_buffer<std::uint16_t> m_a, m_b, m_d;
  kernels::device_buffer<std::byte> m_workspace;
  kernels::device_buffer<std::uint64_t> m_sums;
  kernels::device_buffer<kernels::memtest_outcome> m_outcome;
  kernels::device_buffer<std::uint64_t> m_words;
  double m_flops = 2.0 * static_cast<double>(dim * dim * dim);

  reports::burnin_record m_record;
  reports::burnin_gemm m_g;
  reports::burnin_memtest m_m;
  double m_load_begin_s = 0;
  std::optional<host::burnin_timeline> m_timeline;        ///< from the load's start
  std::uint64_t m_reference = 0;                          ///< iteration 0's checksum
  std::optional<reports::verification> m_reference_check; // D against the host, once
  int m_batch = 1;
  std::size_t m_next_pattern = 0;
  double m_telemetry_until_s = 0; ///< telemetry summarised up to here
  bool m_event_seen = false;
  std::vector<std::string> m_reasons_seen;
};

void burnin_gemm(bench_state& state) {
  const bool bf16 = state.axis("dtype") == "bf16";
  int major = 0;
  GPUSPEC_CUDA_CHECK(
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, state.cuda_device()));
  if (bf16 && major < 8)
    return state.not_supported("bf16 Tensor Core GEMMs need compute capability 8.0 or newer");
  const double duration_s =
      state.options().duration_s.value_or(state.options().stopping.max_seconds);
  const double setup_begin_s = state.run_clock_s();
  const pinned_gemm gemm(bf16 ? CUDA_R_16BF : CUDA_R_16F, burnin_dim);
  if (!gemm.unsupported().empty())
    return state.not_supported(gemm.unsupported());
  gemm_burn burn(state, gemm, bf16);
  burn.run(duration_s, setup_begin_s);
  burn.finish();
}

void memory_test(bench_state& state) {
  kernels::device_buffer<kernels::memtest_outcome> outcome(1);
  auto words = memtest_buffer();
  if (words.size() == 0)
    return state.skip("too little free device memory for the memory test");
  state.add_parameter("bytes", static_cast<std::int64_t>(words.bytes()));
  reports::burnin_record record;
  reports::burnin_memtest m;
  std::vector<double> samples, sample_seconds;
  const double begin_s = state.run_clock_s();
  for (const auto p : kernels::memtest_patterns) {
    if (state.interrupted())
      break;
    double seconds = 0;
    memtest_pass(state, words, p, burnin_seed, outcome, m, seconds);
    const double writes = kernels::memtest_has_inverse(p) ? 3 : 1;
    const double reads = writes;
    samples.push_back((reads + writes) * static_cast<double>(words.bytes()) / seconds / 1e9);
    sample_seconds.push_back(seconds);
    record.busy_s += seconds;
  }
  const double end_s = state.run_clock_s();
  record.elapsed_s = end_s - begin_s;
  record.memtest = m;
  state.set_bytes_per_iteration(static_cast<double>(words.bytes()));
  state.set_verification(memtest_verification(m));
  state.finish_sustained(std::move(samples), std::move(sample_seconds), std::move(record), begin_s,
                         end_s);
}

} // namespace

void register_burnin_benchmarks(registry& r) {
  r.add("burnin.gemm",
        "sustained Tensor Core GEMM with per-iteration checksums, alternating with a memory "
        "test, for --duration",
        burnin_gemm)
      .in_suites({"burnin"})
      .with_axis("dtype", {"bf16", "fp16"})
      .with_setup_allowance(120)
      .runs_for_the_duration();
  r.add("memory.test",
        "walking ones and zeros, moving inversions, address in address and random patterns over "
        "most of the free device memory, every word checked",
        memory_test)
      .in_suites({"standard", "burnin"})
      .with_setup_allowance(180);
}

} // namespace gpuspec::benches
