// Pointer chase: the load-to-use latency of one thread's dependent loads.
//
// What it measures: one thread follows a chain p = *p through a random single cycle of
// 128-byte slots (pointer_chase.hpp), so each load waits for the one before and the time per
// load is the latency of the level of the memory hierarchy the chain fits in. Bound by that
// latency alone (one load in flight on the whole GPU). Any architecture the build targets.
//
// Two kernels, by the load's cache operator, in inline PTX so the operator is explicit:
//  - pointer_chase_ca_kernel: ld.global.ca.u64, cached in L1 and L2 (SASS LDG.E.64.STRONG.SM
//    on sm_80/90, .STRONG.CTA on sm_75: ptxas's mapping of .ca, as for __ldca). The L1 test
//    and the size sweep.
//  - pointer_chase_cg_kernel: ld.global.cg.u64, cached in L2 only (SASS LDG.E.64.STRONG.GPU):
//    the L2 and DRAM tests, which must not hit L1 at all.
// The address of each load is the 64-bit value the previous one returned: no index arithmetic
// sits on the dependent path, which would add its own cycles to every load.
//
// The kernel also reads clock64 around the timed loads and stores the difference, so the
// benchmark reports cycles per load next to the event-timed nanoseconds. `asm volatile` with a
// "memory" clobber keeps the clock reads and the loads in program order. The last load may
// still be in flight when the second clock read issues (it is not waited for), so cycles/load
// is short by at most one load's latency over the whole launch: under 0.1% for the thousands
// of loads a launch does. Before the timed loads the kernel walks `warm_steps` loads untimed
// by the clock: L1 is not coherent, global data in it need not survive from one kernel to the
// next, so the L1 chain may have to come from L2 again at the start of each launch.
//
// State in device memory (chase_state) carries the cursor from one launch to the next: each
// launch goes on where the last stopped, so the walk goes round the whole chain, and a chain
// larger than L2 keeps missing it (a launch that restarted from slot 0 would find its first
// slots in L2, left there by the launch before). The state also counts launches and steps, so
// the host can check the final cursor against its own walk of the same permutation.

#include "gpuspec/kernels/pointer_chase.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/launch_math.hpp"

namespace gpuspec::kernels {

namespace {

constexpr unsigned build_block_threads = 256;
constexpr std::uint32_t slot_words = chase_slot_bytes / sizeof(std::uint64_t);

__device__ __forceinline__ std::int64_t clock_now() {
  std::int64_t t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) : : "memory");
  return t;
}

template <chase_load Load> __device__ __forceinline__ std::uint64_t load_next(std::uint64_t p) {
  std::uint64_t v;
  if constexpr (Load == chase_load::ca)
    asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  else
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

template <chase_load Load>
__device__ __forceinline__ void chase(chase_state* state, std::uint32_t warm_steps,
                                      std::uint32_t timed_steps) {
  if (threadIdx.x != 0 || blockIdx.x != 0)
    return;
  std::uint64_t p = state->cursor;
  for (std::uint32_t i = 0; i < warm_steps; ++i)
    p = load_next<Load>(p);
  const std::int64_t start = clock_now();
#pragma unroll 8
  for (std::uint32_t i = 0; i < timed_steps; ++i)
    p = load_next<Load>(p);
  const std::int64_t stop = clock_now();
  state->cursor = p;
  state->cycles = stop - start;
  state->launches += 1;
  state->steps += static_cast<std::uint64_t>(warm_steps) + timed_steps;
}

__global__ void __launch_bounds__(32)
    pointer_chase_ca_kernel(chase_state* state, std::uint32_t warm_steps,
                            std::uint32_t timed_steps) {
  chase<chase_load::ca>(state, warm_steps, timed_steps);
}

__global__ void __launch_bounds__(32)
    pointer_chase_cg_kernel(chase_state* state, std::uint32_t warm_steps,
                            std::uint32_t timed_steps) {
  chase<chase_load::cg>(state, warm_steps, timed_steps);
}

__global__ void __launch_bounds__(build_block_threads)
    build_chain_kernel(std::uint64_t* __restrict__ chain, const std::uint32_t* __restrict__ next,
                       std::uint32_t slots) {
  const auto base = reinterpret_cast<std::uint64_t>(chain);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t s = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; s < slots;
       s += stride) {
    std::uint64_t to = next[s];
    if (to >= slots)
      to = s; // a self-loop: the host's walk check fails instead of the chase faulting
    chain[s * slot_words] = base + to * chase_slot_bytes;
  }
}

} // namespace

void launch_build_chain(void* chain, const std::uint32_t* next, std::uint32_t slots,
                        stream_handle stream) {
  if (chain == nullptr || next == nullptr)
    throw std::invalid_argument("launch_build_chain: chain and next must be device memory");
  if (reinterpret_cast<std::uintptr_t>(chain) % chase_slot_bytes != 0)
    throw std::invalid_argument("launch_build_chain: the chain must be " +
                                std::to_string(chase_slot_bytes) + "-byte aligned");
  if (slots == 0)
    throw std::invalid_argument("launch_build_chain: the chain needs at least one slot");
  build_chain_kernel<<<grid_blocks(slots, build_block_threads), build_block_threads, 0, stream>>>(
      static_cast<std::uint64_t*>(chain), next, slots);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

void launch_pointer_chase(chase_state* state, chase_load load, std::uint32_t warm_steps,
                          std::uint32_t timed_steps, stream_handle stream) {
  if (state == nullptr)
    throw std::invalid_argument("launch_pointer_chase: state must be device memory");
  if (timed_steps == 0)
    throw std::invalid_argument("launch_pointer_chase: timed_steps must be at least 1");
  // One block of one thread: one lane of one warp walks, nothing else runs.
  if (load == chase_load::ca)
    pointer_chase_ca_kernel<<<1, 1, 0, stream>>>(state, warm_steps, timed_steps);
  else
    pointer_chase_cg_kernel<<<1, 1, 0, stream>>>(state, warm_steps, timed_steps);
  GPUSPEC_CUDA_CHECK_LAUNCH();
}

void prefer_l1_for_pointer_chase() {
  GPUSPEC_CUDA_CHECK(cudaFuncSetAttribute(pointer_chase_ca_kernel,
                                          cudaFuncAttributePreferredSharedMemoryCarveout,
                                          cudaSharedmemCarveoutMaxL1));
  GPUSPEC_CUDA_CHECK(cudaFuncSetAttribute(pointer_chase_cg_kernel,
                                          cudaFuncAttributePreferredSharedMemoryCarveout,
                                          cudaSharedmemCarveoutMaxL1));
}

} // namespace gpuspec::kernels
