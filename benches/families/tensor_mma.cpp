// tensor.mma.{fp16,bf16,tf32,int8,fp8,fp8_e5m2,fp6,fp6_e2m3,fp4}: the dense Tensor Core ceiling
// of each input type (fp8 is e4m3, fp6 e3m2, fp4 e2m1).
//
// What it measures: Tensor Core throughput in TFLOP/s (TOPS for int8) with nothing else in the
// way: operands resident in registers (mma.sync) or shared memory (wgmma), many independent
// accumulators, every SM full, no memory traffic in the timed loop; hot (no L2 flush: nothing
// is read from memory). Judged against the clock-adjusted dense peak of the type
// (set_compute_ceiling: SMs × SM clock during the run × the architecture's rate, FP32
// accumulation for the float types, which GeForce parts run at half rate), except fp6 and fp4
// through kind::f8f6f4, which runs them at the FP8 rate: those are judged against fp8_tc, and
// the parameters ceiling_key and ceiling_note say so (kernels::tc_plan). Counted as 2·M·N·K per
// instruction.
//
// Which kernel (kernels::plan_tc_peak): compute capability 9.0 runs the sm_90a wgmma kernels
// (m64n256kK, A and B in shared memory) when the build has them, since mma.sync on Hopper tops
// out well below the datasheet; 10.x (B200, B300) runs the sm_100f tcgen05.mma kernels
// (m128n256kK, accumulator in tensor memory) for every type but int8, which is not measured
// there (no kind::i8 kernel; mma.sync is not the path its peak is stated for); 12.x (RTX 5090, RTX
// PRO 6000) runs mma.sync, with kind::f8f6f4 for fp6 and fp4 (sm_120f); everything else runs
// warp-level mma.sync (m16n8k16 fp16/bf16, m16n8k8 tf32, m16n8k32 int8/e4m3/e5m2; on Turing
// m16n8k8 fp16 and m8n8k16 int8). The parameter `path` says which ran. Types the GPU lacks
// (bf16/tf32 before sm_80, fp8 before sm_89, fp6/fp4 before Blackwell) are not supported; fp8
// through mma.sync on a GPU where ptxas converts it to fp16 (sm_90 without the wgmma build, 10.x
// without the tcgen05 build) is skipped with that reason: it would not be an fp8 figure.
//
// Check: the accumulators alternate A·(-B) and A·B, so after any number of instructions each
// holds exactly A·B; every element of every accumulator tile is compared bit for bit with A·B
// computed on the host (mma_peak.hpp). That cannot tell how many instructions ran, so every warp
// (warpgroup for wgmma) also stores the trips its pairs loop ran, and each must equal the pairs
// the FLOP count assumes (work_count.hpp). Outputs are poisoned with a value no result can take
// (NaN for FP32 accumulators, 0x80808080 for INT32: |A·B| <= 1568 here), so an element never
// written is reported as such. A short run is checked before timing, so a wrong fragment or
// shared-memory layout fails fast with the first mismatch named, and the timed runs' output and
// counts are checked again at the end.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "gpuspec/benches/bench_state.cuh"
#include "gpuspec/benches/families.hpp"
#include "gpuspec/benches/verification.hpp"
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/kernels/fill.hpp"
#include "gpuspec/kernels/mma_peak.hpp"
#include "gpuspec/kernels/tcgen05_peak.hpp"
#include "gpuspec/kernels/wgmma_peak.hpp"
#include "gpuspec/kernels/work_count.hpp"

namespace gpuspec::benches {

namespace {

using kernels::tc_dtype;

constexpr std::uint64_t operand_seed = 0x6770757374656e31ull;

/// Pairs of the check run and of the run that sizes the work.
constexpr std::uint32_t short_pairs = 256;
/// One run of the timed work lasts about this long (the harness repeats it).
constexpr double target_run_seconds = 0.010;
constexpr std::uint32_t max_pairs = kernels::tc_max_pairs;

/// Appends its parts to one string (no `"literal" + std::string` chains: GCC 12's -Wrestrict
/// misfires on them at -O3).
template <class... Parts> std::string concat(const Parts&... parts) {
  std::string s;
  (s += ... += parts);
  return s;
}

std::string sm_text(int sm) { return concat("sm_", std::to_string(sm)); }

/// One peak kernel, whichever path: how to launch it and what it must produce.
struct peak_kernel {
  std::function<void(std::uint32_t pairs, kernels::stream_handle)> launch;
  std::function<double(std::uint32_t pairs)> operations;
  std::size_t output_words = 0;
  std::size_t tile_words = 0;
  const std::vector<double>* tile = nullptr; ///< the exact A·B every tile must hold
  tc_dtype dtype = tc_dtype::fp16;
  std::string ceiling; ///< the arch-rate key judging it (tc_plan::ceiling)
  kernels::device_buffer<std::uint32_t>* out = nullptr;
  kernels::device_buffer<std::uint32_t>* trips = nullptr; ///< one work counter per unit
  const char* unit = "warp";                              ///< what one counter counts for
  kernels::device_buffer<std::uint32_t>* status = nullptr;
  std::string what; ///< for the verification's detail
};

std::uint32_t read_status(const peak_kernel& k, kernels::stream_ref s) {
  std::uint32_t status = 0;
  GPUSPEC_CUDA_CHECK(
      cudaMemcpyAsync(&status, k.status->data(), sizeof status, cudaMemcpyDeviceToHost, s.get()));
  s.synchronize();
  return status;
}

/// Every element of every tile against A·B, exactly; an element still holding the poison is
/// not written. T is the accumulator type: float, or std::int32_t.
template <class T> elementwise_report check_tiles(const peak_kernel& k, kernels::stream_ref s) {
  std::vector<T> host(k.output_words);
  GPUSPEC_CUDA_CHECK(
      cudaMemcpyAsync(host.data(), k.out->data(), k.out->bytes(), cudaMemcpyDeviceToHost, s.get()));
  s.synchronize();
  const std::uint32_t poison = kernels::tc_output_poison_word(k.dtype);
  return check_elementwise(
      host.data(), host.size(), [&k](std::size_t i) { return (*k.tile)[i % k.tile_words]; }, 0.0,
      [&host, poison](std::size_t i) { return std::bit_cast<std::uint32_t>(host[i]) == poison; });
}

/// The output of a run of `pairs` pairs: every tile against A·B, and every unit's work counter
/// against `pairs`, the trips the FLOP count assumes. Either failing fails the verification.
reports::verification check_output(const peak_kernel& k, std::uint32_t pairs,
                                   kernels::stream_ref s) {
  reports::verification v = to_verification(
      kernels::tc_is_integer(k.dtype) ? check_tiles<std::int32_t>(k, s) : check_tiles<float>(k, s),
      0.0, k.what);
  std::vector<std::uint32_t> trips(k.trips->size());
  GPUSPEC_CUDA_CHECK(cudaMemcpyAsync(trips.data(), k.trips->data(), k.trips->bytes(),
                                     cudaMemcpyDeviceToHost, s.get()));
  s.synchronize();
  const kernels::work_count_verdict work = kernels::judge_work_counts(trips, pairs);
  v.detail += "; " + kernels::describe_work_counts(work, k.unit);
  if (!work.passed())
    v.status = reports::verification_status::failed;
  return v;
}

/// Poisons the tiles (kernels::tc_output_poison_byte: a value no accumulator can reach) and the
/// work counters (kernels::work_count_poison), and clears the status word.
void reset_outputs(const peak_kernel& k, kernels::stream_ref s) {
  kernels::poison_with_byte(k.out->data(), k.out->bytes(), kernels::tc_output_poison_byte(k.dtype),
                            s.handle());
  kernels::poison_with_nan(k.trips->data(), k.trips->bytes(), s.handle());
  GPUSPEC_CUDA_CHECK(cudaMemsetAsync(k.status->data(), 0, sizeof(std::uint32_t), s.get()));
}

/// The check run, the sizing run, the timed runs and the final check, for either path.
void measure(bench_state& state, const peak_kernel& k) {
  const tc_dtype dtype = k.dtype;
  const kernels::stream_ref s = state.stream();

  // --- a short run, checked before anything is timed -----------------------------------------
  reset_outputs(k, s);
  k.launch(short_pairs, s.handle());
  s.synchronize();
  const std::uint32_t status = read_status(k, s);
  if (!kernels::tc_status_ran(status)) {
    if ((status & kernels::tc_status_missing) != 0) {
      state.skip(concat("the code this build runs on this GPU was compiled for ",
                        sm_text(kernels::tc_status_arch(status) / 10),
                        ", which lacks the instruction (add the GPU's architecture to "
                        "CMAKE_CUDA_ARCHITECTURES)"));
      return;
    }
    throw std::runtime_error("the Tensor Core kernel did not write its status word: it did not "
                             "run to the end");
  }
  state.add_parameter("kernel_arch", sm_text(kernels::tc_status_arch(status) / 10));
  const reports::verification first = check_output(k, short_pairs, s);
  if (first.status != reports::verification_status::passed) {
    state.set_verification(first);
    throw std::runtime_error(concat("the Tensor Core result is wrong before timing (",
                                    std::to_string(short_pairs), " pairs): ", first.detail));
  }

  // --- size the work: one timed run of short_pairs, scaled to target_run_seconds -------------
  const double short_seconds =
      state.setup_seconds([&](kernels::stream_ref q) { k.launch(short_pairs, q.handle()); });
  double scaled = short_seconds > 0.0
                      ? static_cast<double>(short_pairs) * target_run_seconds / short_seconds
                      : static_cast<double>(max_pairs);
  scaled = std::clamp(scaled, static_cast<double>(short_pairs), static_cast<double>(max_pairs));
  const auto pairs = static_cast<std::uint32_t>(scaled);
  state.add_parameter("pairs", pairs);
  state.add_parameter("instructions_per_accumulator", kernels::mma_ops_per_accumulator(pairs));

  // --- the work --------------------------------------------------------------------------------
  reset_outputs(k, s);
  s.synchronize();
  const bool integer = kernels::tc_is_integer(dtype);
  if (integer)
    state.set_integer_ops_per_iteration(k.operations(pairs));
  else
    state.set_flops_per_iteration(k.operations(pairs));
  state.set_cache_mode(cache_mode::hot);
  state.set_compute_ceiling(k.ceiling, !integer);
  state.exec([&](kernels::stream_ref ws) { k.launch(pairs, ws.handle()); });
  if (state.interrupted())
    return;

  // --- the timed runs' output ----------------------------------------------------------------
  if (!kernels::tc_status_ran(read_status(k, s)))
    throw std::runtime_error("the Tensor Core kernel's status word is unset after the timed runs");
  state.set_verification(check_output(k, pairs, s));
}

std::string tile_what(std::size_t tiles, int m, int n) {
  return concat("all ", std::to_string(tiles), " accumulator tiles (", std::to_string(m), "x",
                std::to_string(n),
                ") against A·B computed exactly on the host (A, B and -B seeded, small multiples "
                "of 1/2 or integers in [-7, 7]: bit-exact)");
}

/// The plan's ceiling on the kernel, and the parameters that say which ceiling and why.
void judge_as_planned(bench_state& state, peak_kernel& k, const kernels::tc_plan& plan) {
  k.ceiling = plan.ceiling;
  state.add_parameter("ceiling_key", plan.ceiling);
  if (!plan.ceiling_note.empty())
    state.add_parameter("ceiling_note", plan.ceiling_note);
}

void run_mma_sync(bench_state& state, const kernels::tc_plan& plan, int sm) {
  const kernels::mma_variant v = *plan.variant;
  const kernels::mma_variant_info info = kernels::mma_info(v);
  const kernels::mma_problem problem = kernels::make_mma_problem(v, operand_seed);
  // Uploads on the state's stream, then a synchronisation: the harness stream does not wait
  // for the legacy default stream, where a plain cudaMemcpy from pageable memory may still be
  // in flight when it returns.
  const kernels::stream_ref stream = state.stream();
  auto upload = [&stream](const std::vector<std::uint32_t>& host) {
    kernels::device_buffer<std::uint32_t> d(host.size());
    GPUSPEC_CUDA_CHECK(cudaMemcpyAsync(d.data(), host.data(), host.size() * sizeof(std::uint32_t),
                                       cudaMemcpyHostToDevice, stream.get()));
    return d;
  };
  const kernels::device_buffer<std::uint32_t> a = upload(problem.a_frag);
  const kernels::device_buffer<std::uint32_t> b_pos = upload(problem.b_pos_frag);
  const kernels::device_buffer<std::uint32_t> b_neg = upload(problem.b_neg_frag);
  stream.synchronize();
  const unsigned blocks = kernels::mma_sync_peak_blocks(v);
  kernels::device_buffer<std::uint32_t> out(kernels::mma_output_words(v, blocks));
  kernels::device_buffer<std::uint32_t> trips(kernels::mma_count_words(blocks));
  kernels::device_buffer<std::uint32_t> status(1);

  state.add_parameter("path", "mma.sync");
  state.add_parameter("instruction", kernels::mma_ptx(v));
  state.add_parameter("shape", concat("m", std::to_string(info.m), "n", std::to_string(info.n), "k",
                                      std::to_string(info.k)));
  state.add_parameter("accumulate", kernels::tc_is_integer(info.dtype) ? "int32" : "fp32");
  state.add_parameter("blocks", blocks);
  state.add_parameter("threads_per_block", kernels::mma_block_threads);
  state.add_parameter("warps", static_cast<std::uint64_t>(blocks) * kernels::mma_warps_per_block);
  state.add_parameter("accumulators_per_warp", kernels::mma_accumulators);
  state.add_parameter("operands", "A, B and -B in registers, loaded once");
  if (sm == 90)
    state.add_parameter("note", kernels::hopper_mma_sync_note);

  peak_kernel k;
  k.launch = [&, v, blocks](std::uint32_t pairs, kernels::stream_handle on) {
    kernels::launch_mma_sync_peak(v, a.data(), b_pos.data(), b_neg.data(), out.data(), trips.data(),
                                  status.data(), blocks, pairs, on);
  };
  k.operations = [v, blocks](std::uint32_t pairs) {
    return kernels::mma_sync_operations(v, blocks, pairs);
  };
  k.output_words = out.size();
  k.tile_words = static_cast<std::size_t>(info.m * info.n);
  k.tile = &problem.c;
  k.dtype = info.dtype;
  k.out = &out;
  k.trips = &trips;
  k.unit = "warp";
  k.status = &status;
  k.what = tile_what(out.size() / k.tile_words, info.m, info.n);
  judge_as_planned(state, k, plan);
  measure(state, k);
}

/// Operand rows in device memory, uploaded on the state's stream, then synchronised (see
/// run_mma_sync): the shared-memory paths' A, B and -B.
struct operand_rows {
  kernels::device_buffer<std::uint8_t> a, b_pos, b_neg;
};

operand_rows upload_rows(kernels::stream_ref stream, const std::vector<std::uint8_t>& a,
                         const std::vector<std::uint8_t>& b_pos,
                         const std::vector<std::uint8_t>& b_neg) {
  auto upload = [&stream](const std::vector<std::uint8_t>& host) {
    kernels::device_buffer<std::uint8_t> d(host.size());
    GPUSPEC_CUDA_CHECK(
        cudaMemcpyAsync(d.data(), host.data(), host.size(), cudaMemcpyHostToDevice, stream.get()));
    return d;
  };
  operand_rows rows{upload(a), upload(b_pos), upload(b_neg)};
  stream.synchronize();
  return rows;
}

void run_wgmma(bench_state& state, tc_dtype dtype, const kernels::tc_plan& plan) {
  const kernels::wgmma_problem problem = kernels::make_wgmma_problem(dtype, operand_seed);
  const operand_rows rows =
      upload_rows(state.stream(), problem.a_rows, problem.b_pos_rows, problem.b_neg_rows);
  const kernels::device_buffer<std::uint8_t>& a = rows.a;
  const kernels::device_buffer<std::uint8_t>& b_pos = rows.b_pos;
  const kernels::device_buffer<std::uint8_t>& b_neg = rows.b_neg;
  // Device queries once, here, never in a launch: the sizing run times the launches.
  const kernels::wgmma_peak_launch prepared = kernels::prepare_wgmma_peak(dtype);
  const unsigned blocks = prepared.blocks;
  kernels::device_buffer<std::uint32_t> out(kernels::wgmma_output_words(blocks));
  kernels::device_buffer<std::uint32_t> trips(kernels::wgmma_count_words(blocks));
  kernels::device_buffer<std::uint32_t> status(1);

  state.add_parameter("path", "wgmma");
  state.add_parameter("instruction", kernels::wgmma_ptx(dtype));
  state.add_parameter("shape", concat("m64n256k", std::to_string(problem.k)));
  state.add_parameter("accumulate", kernels::tc_is_integer(dtype) ? "int32" : "fp32");
  state.add_parameter("blocks", blocks);
  state.add_parameter("threads_per_block", kernels::wgmma_block_threads);
  state.add_parameter("warpgroups",
                      static_cast<std::uint64_t>(blocks) * kernels::wgmma_warpgroups_per_block);
  state.add_parameter("operands",
                      "A, B and -B in shared memory (K-major, no swizzle), matrix descriptors");

  peak_kernel k;
  k.launch = [&, blocks](std::uint32_t pairs, kernels::stream_handle on) {
    kernels::launch_wgmma_peak(prepared, a.data(), b_pos.data(), b_neg.data(), out.data(),
                               trips.data(), status.data(), blocks, pairs, on);
  };
  k.operations = [dtype, blocks](std::uint32_t pairs) {
    return kernels::wgmma_operations(dtype, blocks, pairs);
  };
  k.output_words = out.size();
  k.tile_words = static_cast<std::size_t>(kernels::wgmma_m * kernels::wgmma_n);
  k.tile = &problem.d;
  k.dtype = dtype;
  k.out = &out;
  k.trips = &trips;
  k.unit = "warpgroup";
  k.status = &status;
  k.what = tile_what(out.size() / k.tile_words, kernels::wgmma_m, kernels::wgmma_n);
  judge_as_planned(state, k, plan);
  measure(state, k);
}

void run_tcgen05(bench_state& state, tc_dtype dtype, const kernels::tc_plan& plan) {
  const kernels::tcgen05_problem problem = kernels::make_tcgen05_problem(dtype, operand_seed);
  const operand_rows rows =
      upload_rows(state.stream(), problem.a_rows, problem.b_pos_rows, problem.b_neg_rows);
  // Device queries and the kernel's shared-memory attribute once, here, never in a launch: the
  // sizing run times the launches.
  const kernels::tcgen05_peak_launch prepared = kernels::prepare_tcgen05_peak(dtype);
  const unsigned blocks = prepared.blocks;
  kernels::device_buffer<std::uint32_t> out(kernels::tcgen05_output_words(blocks));
  kernels::device_buffer<std::uint32_t> trips(kernels::tcgen05_count_words(blocks));
  kernels::device_buffer<std::uint32_t> status(1);

  state.add_parameter("path", "tcgen05");
  state.add_parameter("instruction", kernels::tcgen05_ptx(dtype));
  state.add_parameter("shape", concat("m128n256k", std::to_string(problem.k)));
  state.add_parameter("accumulate", "fp32 (tensor memory)");
  state.add_parameter("blocks", blocks);
  state.add_parameter("threads_per_block", kernels::tcgen05_block_threads);
  state.add_parameter("dynamic_smem_bytes", prepared.dynamic_smem_bytes);
  state.add_parameter("operands", "A, B and -B in shared memory (K-major, no swizzle), matrix "
                                  "descriptors; D in 256 tensor-memory columns per block");

  peak_kernel k;
  k.launch = [&, blocks](std::uint32_t pairs, kernels::stream_handle on) {
    kernels::launch_tcgen05_peak(prepared, rows.a.data(), rows.b_pos.data(), rows.b_neg.data(),
                                 out.data(), trips.data(), status.data(), blocks, pairs, on);
  };
  k.operations = [dtype, blocks](std::uint32_t pairs) {
    return kernels::tcgen05_operations(dtype, blocks, pairs);
  };
  k.output_words = out.size();
  k.tile_words = static_cast<std::size_t>(kernels::tcgen05_m * kernels::tcgen05_n);
  k.tile = &problem.d;
  k.dtype = dtype;
  k.out = &out;
  k.trips = &trips;
  k.unit = "block";
  k.status = &status;
  k.what = tile_what(out.size() / k.tile_words, kernels::tcgen05_m, kernels::tcgen05_n);
  judge_as_planned(state, k, plan);
  measure(state, k);
}

/// What this build holds for the plan.
kernels::tc_builds this_build() {
  return {kernels::wgmma_peak_built(), kernels::tcgen05_peak_built(), kernels::mma_f8f6f4_built()};
}

template <tc_dtype Dtype> void tensor_mma(bench_state& state) {
  cudaDeviceProp prop{};
  GPUSPEC_CUDA_CHECK(cudaGetDeviceProperties(&prop, state.cuda_device()));
  const int sm = prop.major * 10 + prop.minor;
  const kernels::tc_plan plan = kernels::plan_tc_peak(Dtype, sm, this_build());
  switch (plan.path) {
  case kernels::tc_path::not_supported:
    state.not_supported(plan.reason);
    return;
  case kernels::tc_path::not_measured:
    state.skip(plan.reason);
    return;
  case kernels::tc_path::wgmma:
    run_wgmma(state, Dtype, plan);
    return;
  case kernels::tc_path::tcgen05:
    run_tcgen05(state, Dtype, plan);
    return;
  case kernels::tc_path::mma_sync:
    run_mma_sync(state, plan, sm);
    return;
  }
}

} // namespace

void register_tensor_mma_benchmarks(registry& r) {
  const std::vector<std::string> all{"quick", "standard", "full"};
  const std::vector<std::string> standard{"standard", "full"};
  r.add("tensor.mma.fp16",
        "Dense fp16 Tensor Core peak, FP32 accumulate (mma.sync m16n8k16; wgmma on Hopper, "
        "tcgen05 on Blackwell 10.x)",
        tensor_mma<tc_dtype::fp16>)
      .in_suites(all);
  r.add("tensor.mma.bf16",
        "Dense bf16 Tensor Core peak, FP32 accumulate (mma.sync m16n8k16; wgmma on Hopper)",
        tensor_mma<tc_dtype::bf16>)
      .in_suites(standard);
  r.add("tensor.mma.tf32",
        "Dense tf32 Tensor Core peak, FP32 accumulate (mma.sync m16n8k8; wgmma on Hopper)",
        tensor_mma<tc_dtype::tf32>)
      .in_suites(standard);
  r.add("tensor.mma.int8",
        "Dense int8 Tensor Core peak, INT32 accumulate (mma.sync m16n8k32; wgmma on Hopper; "
        "not measured on Blackwell 10.x)",
        tensor_mma<tc_dtype::int8>)
      .in_suites(standard);
  r.add("tensor.mma.fp8",
        "Dense fp8 (e4m3) Tensor Core peak, FP32 accumulate (mma.sync m16n8k32 on sm_89; "
        "wgmma on Hopper, tcgen05 on Blackwell 10.x)",
        tensor_mma<tc_dtype::fp8_e4m3>)
      .in_suites(standard);
  r.add("tensor.mma.fp8_e5m2",
        "Dense fp8 (e5m2) Tensor Core peak, FP32 accumulate (mma.sync m16n8k32 on sm_89 and "
        "12.x; wgmma on Hopper, tcgen05 kind::f8f6f4 on Blackwell 10.x)",
        tensor_mma<tc_dtype::fp8_e5m2>)
      .in_suites(standard);
  r.add("tensor.mma.fp6",
        "Dense fp6 (e3m2) Tensor Core peak, FP32 accumulate (Blackwell: tcgen05 kind::f8f6f4 on "
        "10.x, mma.sync kind::f8f6f4 on 12.x; judged against the FP8 rate it runs at)",
        tensor_mma<tc_dtype::fp6_e3m2>)
      .in_suites(standard);
  r.add("tensor.mma.fp6_e2m3",
        "Dense fp6 (e2m3) Tensor Core peak, FP32 accumulate (Blackwell: tcgen05 kind::f8f6f4 on "
        "10.x, mma.sync kind::f8f6f4 on 12.x; judged against the FP8 rate it runs at)",
        tensor_mma<tc_dtype::fp6_e2m3>)
      .in_suites(standard);
  r.add("tensor.mma.fp4",
        "Dense fp4 (e2m1) Tensor Core peak, FP32 accumulate (Blackwell: tcgen05 kind::f8f6f4 on "
        "10.x, mma.sync kind::f8f6f4 on 12.x; judged against the FP8 rate it runs at)",
        tensor_mma<tc_dtype::fp4_e2m1>)
      .in_suites(standard);
}

} // namespace gpuspec::benches
