// Tensor Core peak with warp-level mma.sync: fp16, bf16, tf32, int8 and fp8 (e4m3).
//
// What it measures: the dense Tensor Core throughput one warp-level mma instruction reaches when
// nothing else limits it. Operands live in registers (loaded once from global memory); each warp
// runs mma_accumulators independent accumulator chains, so the Tensor Core pipeline never waits
// on the previous result, and the launch fills every SM with up to 4 blocks of 8 warps. Bound by
// the Tensor Core issue rate alone (no memory traffic in the loop). Hardware: mma.sync of each
// shape needs sm_80 (sm_75 for the Turing shapes m16n8k8 f16 and m8n8k16 s8, sm_89 for e4m3);
// every kernel exists on every architecture and, compiled for one without its instruction,
// reports that through the status word instead of computing (mma_peak.hpp).
//
// Why this design: an accumulator chain alternates B and -B (mma_peak.hpp), so after any number
// of iterations every accumulator holds exactly A·B, checked bit for bit against the host, with
// no overflow or rounding however long the loop runs. Since that check cannot tell how many
// iterations ran, each warp also stores its loop's trip count (work_count.hpp: the loop counter
// itself, advanced by an opaque add, so the loop body is unchanged). Each kernel is named after its
// instruction so the static-evidence check can find its HMMA/IMMA/QMMA in the SASS. On Hopper
// (sm_90) mma.sync does not reach the dense peak (the wgmma path in src_sm90a does); e4m3
// mma.sync there is even converted to fp16 and run as two HMMA.16816 (cuobjdump -sass).

#include "gpuspec/kernels/mma_peak.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/mma_peak_body.cuh"

namespace gpuspec::kernels {

namespace {

GPUSPEC_MMA_SYNC_PEAK_KERNEL(mma_sync_peak_fp16_m16n8k16, mma_variant::fp16_m16n8k16)
GPUSPEC_MMA_SYNC_PEAK_KERNEL(mma_sync_peak_bf16_m16n8k16, mma_variant::bf16_m16n8k16)
GPUSPEC_MMA_SYNC_PEAK_KERNEL(mma_sync_peak_tf32_m16n8k8, mma_variant::tf32_m16n8k8)
GPUSPEC_MMA_SYNC_PEAK_KERNEL(mma_sync_peak_int8_m16n8k32, mma_variant::int8_m16n8k32)
GPUSPEC_MMA_SYNC_PEAK_KERNEL(mma_sync_peak_fp8_m16n8k32, mma_variant::fp8_m16n8k32)
GPUSPEC_MMA_SYNC_PEAK_KERNEL(mma_sync_peak_fp16_m16n8k8, mma_variant::fp16_m16n8k8)
GPUSPEC_MMA_SYNC_PEAK_KERNEL(mma_sync_peak_int8_m8n8k16, mma_variant::int8_m8n8k16)
GPUSPEC_MMA_SYNC_PEAK_KERNEL(mma_sync_peak_e5m2_m16n8k32, mma_variant::e5m2_m16n8k32)
#undef GPUSPEC_MMA_SYNC_PEAK_KERNEL

mma_kernel kernel_of(mma_variant v) {
  switch (v) {
  case mma_variant::fp16_m16n8k16:
    return mma_sync_peak_fp16_m16n8k16;
  case mma_variant::bf16_m16n8k16:
    return mma_sync_peak_bf16_m16n8k16;
  case mma_variant::tf32_m16n8k8:
    return mma_sync_peak_tf32_m16n8k8;
  case mma_variant::int8_m16n8k32:
    return mma_sync_peak_int8_m16n8k32;
  case mma_variant::fp8_m16n8k32:
    return mma_sync_peak_fp8_m16n8k32;
  case mma_variant::fp16_m16n8k8:
    return mma_sync_peak_fp16_m16n8k8;
  case mma_variant::int8_m8n8k16:
    return mma_sync_peak_int8_m8n8k16;
  case mma_variant::e5m2_m16n8k32:
    return mma_sync_peak_e5m2_m16n8k32;
  case mma_variant::e3m2_m16n8k32:
  case mma_variant::e2m3_m16n8k32:
  case mma_variant::e2m1_m16n8k32:
    if (const mma_kernel k = mma_f8f6f4_kernel(v))
      return k;
    throw std::logic_error(std::string(mma_ptx(v))
                               .append(": the sm_120f kind::f8f6f4 kernels were not built (the "
                                       "build's CUDA architecture list "
                                       "has no 120)"));
  }
  throw std::invalid_argument("mma_sync_peak: unknown variant");
}

} // namespace

unsigned mma_sync_peak_blocks(mma_variant v) {
  int device = 0;
  GPUSPEC_CUDA_CHECK(cudaGetDevice(&device));
  int sms = 0;
  GPUSPEC_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  int per_sm = 0;
  GPUSPEC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, kernel_of(v), static_cast<int>(mma_block_threads), 0));
  const unsigned resident = per_sm < 1 ? 1u
                            : static_cast<unsigned>(per_sm) > mma_max_blocks_per_sm
                                ? mma_max_blocks_per_sm
                                : static_cast<unsigned>(per_sm);
  return static_cast<unsigned>(sms > 0 ? sms : 1) * resident;
}

void launch_mma_sync_peak(mma_variant v, const std::uint32_t* a_frag,
                          const std::uint32_t* b_pos_frag, const std::uint32_t* b_neg_frag,
                          std::uint32_t* out, std::uint32_t* trips, std::uint32_t* status,
                          unsigned blocks, std::uint32_t pairs, stream_handle stream) {
  if (a_frag == nullptr || b_pos_frag == nullptr || b_neg_frag == nullptr || out == nullptr ||
      trips == nullptr || status == nullptr)
    throw std::invalid_argument("launch_mma_sync_peak: every pointer must be device memory");
  if (blocks == 0)
    throw std::invalid_argument("launch_mma_sync_peak: blocks must be at least 1");
  if (pairs > tc_max_pairs)
    throw std::invalid_argument("launch_mma_sync_peak: at most " + std::to_string(tc_max_pairs) +
                                " pairs, got " + std::to_string(pairs));
  const mma_kernel kernel = kernel_of(v);
  const std::uint32_t zero = 0; // see mma_sync_peak_body
  kernel<<<blocks, mma_block_threads, 0, stream>>>(a_frag, b_pos_frag, b_neg_frag, out, trips,
                                                   status, pairs, zero);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

} // namespace gpuspec::kernels
