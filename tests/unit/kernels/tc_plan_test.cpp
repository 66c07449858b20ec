// The tensor.mma plan (kernels::plan_tc_peak, wgmma_peak.hpp) where issue 29 changed it, on the
// host: which ceiling judges each path (kind::f8f6f4 runs fp6 and fp4 at the FP8 rate), int8 on
// Blackwell 10.x (not measured, with the reason), the e5m2 wgmma kernel on Hopper, and the
// tcgen05 launch's shared-memory sizing. tests/gpu/tensor_mma_test.cpp holds the rest of the
// plan's tests and the device side.

#include <gtest/gtest.h>

#include <array>
#include <string>

#include "gpuspec/kernels/tcgen05_peak.hpp"
#include "gpuspec/kernels/wgmma_peak.hpp"

namespace k = gpuspec::kernels;
using k::tc_dtype;
using k::tc_path;

namespace {

constexpr std::array<tc_dtype, 9> all_dtypes{
    tc_dtype::fp16,     tc_dtype::bf16,     tc_dtype::tf32,
    tc_dtype::int8,     tc_dtype::fp8_e4m3, tc_dtype::fp8_e5m2,
    tc_dtype::fp6_e3m2, tc_dtype::fp6_e2m3, tc_dtype::fp4_e2m1};

constexpr std::array<tc_dtype, 3> sub_byte{tc_dtype::fp6_e3m2, tc_dtype::fp6_e2m3,
                                           tc_dtype::fp4_e2m1};

const k::tc_builds all_built{true, true, true};

bool runs(const k::tc_plan& p) {
  return p.path == tc_path::wgmma || p.path == tc_path::tcgen05 || p.path == tc_path::mma_sync;
}

} // namespace

TEST(tc_plan_ceiling, f8f6f4_kinds_are_judged_against_the_fp8_rate) {
  // 10.x: tcgen05.mma kind::f8f6f4; 12.x: mma.sync m16n8k32 kind::f8f6f4. Both run fp6 and fp4
  // at the FP8 rate: judged against fp4_tc a healthy B200 would read about 0.5.
  for (int sm : {100, 103, 120, 121})
    for (tc_dtype t : sub_byte) {
      SCOPED_TRACE(std::string(k::tc_dtype_name(t)) + " sm_" + std::to_string(sm));
      const k::tc_plan p = k::plan_tc_peak(t, sm, all_built);
      ASSERT_TRUE(runs(p)) << p.reason;
      EXPECT_EQ(p.ceiling, "fp8_tc");
      EXPECT_NE(p.ceiling_note.find("kind::f8f6f4"), std::string::npos) << p.ceiling_note;
      EXPECT_NE(p.ceiling_note.find("mxf4nvf4"), std::string::npos) << p.ceiling_note;
      EXPECT_NE(p.ceiling_note.find("judged against fp8_tc"), std::string::npos) << p.ceiling_note;
      EXPECT_NE(p.ceiling_note.find(sm / 10 == 10 ? "tcgen05.mma" : "m16n8k64"), std::string::npos)
          << p.ceiling_note;
    }
}

TEST(tc_plan_ceiling, every_other_path_is_judged_against_its_own_type) {
  for (tc_dtype t : all_dtypes)
    for (int sm : {75, 80, 86, 89, 90, 100, 103, 110, 120, 121})
      for (const k::tc_builds& b : {all_built, k::tc_builds{}}) {
        SCOPED_TRACE(std::string(k::tc_dtype_name(t)) + " sm_" + std::to_string(sm));
        const k::tc_plan p = k::plan_tc_peak(t, sm, b);
        if (!runs(p)) {
          EXPECT_TRUE(p.ceiling.empty());
          continue;
        }
        if (k::tc_is_sub_byte(t))
          continue; // above
        EXPECT_EQ(p.ceiling, k::tc_ceiling_key(t));
        EXPECT_TRUE(p.ceiling_note.empty()) << p.ceiling_note;
      }
}

TEST(tc_plan_int8, blackwell_10x_is_not_measured_and_says_why) {
  for (int sm : {100, 103})
    for (const k::tc_builds& b : {all_built, k::tc_builds{}}) {
      const k::tc_plan p = k::plan_tc_peak(tc_dtype::int8, sm, b);
      EXPECT_EQ(p.path, tc_path::not_measured);
      EXPECT_NE(p.reason.find("kind::i8"), std::string::npos) << p.reason;
      EXPECT_NE(p.reason.find("sm_" + std::to_string(sm)), std::string::npos) << p.reason;
      EXPECT_NE(p.reason.find("mma.sync"), std::string::npos) << p.reason;
    }
  // Elsewhere int8 still runs.
  EXPECT_EQ(k::plan_tc_peak(tc_dtype::int8, 90, all_built).path, tc_path::wgmma);
  EXPECT_EQ(k::plan_tc_peak(tc_dtype::int8, 120, all_built).path, tc_path::mma_sync);
  EXPECT_EQ(k::plan_tc_peak(tc_dtype::int8, 80, all_built).path, tc_path::mma_sync);
}

TEST(tc_plan_wgmma, e5m2_runs_its_own_wgmma_kernel_on_hopper) {
  EXPECT_TRUE(k::wgmma_has(tc_dtype::fp8_e5m2));
  EXPECT_STREQ(k::wgmma_ptx(tc_dtype::fp8_e5m2),
               "wgmma.mma_async.sync.aligned.m64n256k32.f32.e5m2.e5m2");
  EXPECT_EQ(k::wgmma_k(tc_dtype::fp8_e5m2), 32);
  const k::tc_plan p = k::plan_tc_peak(tc_dtype::fp8_e5m2, 90, all_built);
  EXPECT_EQ(p.path, tc_path::wgmma);
  EXPECT_EQ(p.ceiling, "fp8_tc");
  // Without the sm_90a build, still not measured (mma.sync would be fp16 HMMA).
  EXPECT_EQ(k::plan_tc_peak(tc_dtype::fp8_e5m2, 90, k::tc_builds{}).path, tc_path::not_measured);
  for (tc_dtype t : sub_byte)
    EXPECT_FALSE(k::wgmma_has(t));
  // The e5m2 operands are exact: make_wgmma_problem encodes them without throwing.
  const k::wgmma_problem pr = k::make_wgmma_problem(tc_dtype::fp8_e5m2, 7);
  EXPECT_EQ(pr.k, 32);
  EXPECT_EQ(pr.a_rows.size(), static_cast<std::size_t>(k::wgmma_m * k::wgmma_row_bytes));
}

TEST(tcgen05_launch, dynamic_shared_memory_leaves_room_for_two_blocks_only) {
  // B200: 228 KiB per SM, 227 KiB per block (CUDA C++ Programming Guide, compute capability 10.0).
  const int per_sm = 228 * 1024, per_block = 227 * 1024;
  const int bytes = k::tcgen05_dynamic_smem_bytes(per_sm, per_block);
  const int reserved = 1024; // the system's shared memory per block
  EXPECT_LE(2 * (bytes + reserved), per_sm);
  EXPECT_GT(3 * bytes, per_sm);
  // Never below the operands, never above what a block may opt in to.
  const int operands =
      k::tcgen05_m * k::tcgen05_row_bytes + 2 * k::tcgen05_n * k::tcgen05_row_bytes;
  EXPECT_EQ(k::tcgen05_dynamic_smem_bytes(0, per_block), operands);
  EXPECT_EQ(k::tcgen05_dynamic_smem_bytes(per_sm, 16 * 1024), 16 * 1024);
  // A launch not prepared is refused (the fields a prepare fills).
  const k::tcgen05_peak_launch unprepared;
  EXPECT_EQ(unprepared.device, -1);
  const k::wgmma_peak_launch unprepared_wgmma;
  EXPECT_EQ(unprepared_wgmma.device, -1);
}
