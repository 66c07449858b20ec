// Tensor Core peak on consumer and workstation Blackwell (compute capability 12.x: RTX 5090, RTX
// PRO 6000) for fp6 (e3m2, e2m3) and fp4 (e2m1): warp-level mma.sync with kind::f8f6f4.
//
// What it measures, and how: as mma_peak.cu (the same body, mma_peak_body.cuh: operands in
// registers, eight independent accumulator chains per warp, B and -B alternating so each ends
// at exactly A·B, the trips counted); only the instruction differs. Each element travels in an
// 8-bit container (tc_encode: fp6 in bits 0-5, fp4 in bits 2-5). Hardware: mma.sync with
// kind::f8f6f4 needs an architecture- or family-specific 12.x target; this file is compiled for
// sm_120f alone (one cubin for 12.0 and 12.1) by kernels/CMakeLists.txt, and
// mma_f8f6f4_peak_absent.cpp stands in when it is not. fp8 on 12.x (e4m3, e5m2) runs the plain
// mma.sync kernels of mma_peak.cu, native there (QMMA).
//
// Written without a Blackwell GPU: compiled, checked statically (QMMA.16832.F32.E2M1.E2M1 and
// its siblings in the SASS) and reviewed against the PTX ISA, never run here.

#include "gpuspec/kernels/mma_peak.hpp"

#include "gpuspec/kernels/mma_peak_body.cuh"

namespace gpuspec::kernels {

namespace {

GPUSPEC_MMA_SYNC_PEAK_KERNEL(mma_sync_peak_e3m2_m16n8k32, mma_variant::e3m2_m16n8k32)
GPUSPEC_MMA_SYNC_PEAK_KERNEL(mma_sync_peak_e2m3_m16n8k32, mma_variant::e2m3_m16n8k32)
GPUSPEC_MMA_SYNC_PEAK_KERNEL(mma_sync_peak_e2m1_m16n8k32, mma_variant::e2m1_m16n8k32)
#undef GPUSPEC_MMA_SYNC_PEAK_KERNEL

} // namespace

bool mma_f8f6f4_built() { return true; }

mma_kernel mma_f8f6f4_kernel(mma_variant v) {
  switch (v) {
  case mma_variant::e3m2_m16n8k32:
    return mma_sync_peak_e3m2_m16n8k32;
  case mma_variant::e2m3_m16n8k32:
    return mma_sync_peak_e2m3_m16n8k32;
  case mma_variant::e2m1_m16n8k32:
    return mma_sync_peak_e2m1_m16n8k32;
  default:
    return nullptr;
  }
}

} // namespace gpuspec::kernels
