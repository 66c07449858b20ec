// A partitioned GPU's MIG devices (host/mig_probe.hpp) against the fake NVML's MIG configurations
// (tests/fixtures/nvml), and the ceilings scaled to a MIG device (host/mig_ceilings.hpp).

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "gpuspec/host/device_probe.hpp"
#include "gpuspec/host/mig_ceilings.hpp"
#include "gpuspec/host/mig_probe.hpp"
#include "gpuspec/host/nvml_library.hpp"

namespace gb = gpuspec::host;
namespace reports = gpuspec::reports;

namespace {

const std::filesystem::path mig_configs = GPUSPEC_FAKE_NVML_CONFIGS;

std::vector<reports::device_info> probe(const std::string& config) {
  ::setenv("GPUSPEC_FAKE_NVML_CONFIG", (mig_configs / config).c_str(), 1);
  std::string why;
  auto nvml = gb::nvml_library::open(why, GPUSPEC_FAKE_NVML_PATH);
  if (!nvml) {
    ADD_FAILURE() << why;
    return {};
  }
  return gb::probe_devices(*nvml);
}

TEST(MigProbe, SevenOneGOfAnA100AreListedWithTheirIdsProfileAndSlices) {
  const auto devices = probe("a100-mig-7x1g.json");
  ASSERT_EQ(devices.size(), 1u);
  const auto& d = devices[0];
  EXPECT_EQ(d.mig_mode, "enabled");
  EXPECT_EQ(d.mig_mode_pending, ""); // the same after a reset
  EXPECT_EQ(d.mig_memory_slices, 8);
  ASSERT_EQ(d.mig_instances.size(), 7u);
  for (int i = 0; i < 7; ++i) {
    const auto& m = d.mig_instances[static_cast<std::size_t>(i)];
    SCOPED_TRACE(i);
    EXPECT_EQ(m.mig_index, i);
    EXPECT_EQ(m.gpu_instance_id, 7 + i);
    EXPECT_EQ(m.compute_instance_id, 0);
    EXPECT_EQ(m.profile, "1g.10gb");
    EXPECT_EQ(m.sm_count, 14);
    EXPECT_EQ(m.memory_bytes, std::int64_t{9728} << 20);
    EXPECT_EQ(m.memory_slices, 1);
    EXPECT_EQ(m.copy_engines, 1);
    EXPECT_TRUE(m.uuid.starts_with("MIG-")) << m.uuid;
    EXPECT_TRUE(m.problems.empty());
  }
}

TEST(MigProbe, AnH100OfMixedProfilesKeepsEachProfile) {
  const auto devices = probe("h100-mig-3g-2x2g.json");
  ASSERT_EQ(devices.size(), 1u);
  const auto& m = devices[0].mig_instances;
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].profile, "3g.40gb");
  EXPECT_EQ(m[0].memory_slices, 4);
  EXPECT_EQ(m[1].profile, "2g.20gb");
  EXPECT_EQ(m[1].memory_slices, 2);
  EXPECT_EQ(m[2].gpu_instance_id, 4);
}

TEST(MigProbe, AWholeGpuHasNoMigDevicesAndAPendingModeIsSaid) {
  const auto whole = probe("eight-a100-four-mig.json");
  ASSERT_EQ(whole.size(), 8u);
  EXPECT_EQ(whole[0].mig_instances.size(), 2u);
  EXPECT_TRUE(whole[4].mig_instances.empty());
  EXPECT_FALSE(whole[4].mig_memory_slices);
  const auto pending = probe("a100-mig-pending-reset.json");
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].mig_mode, "disabled");
  EXPECT_EQ(pending[0].mig_mode_pending, "enabled");
  EXPECT_TRUE(pending[0].mig_instances.empty());
}

TEST(MigProbe, ProfileNamesAreNvidiaSmis) {
  EXPECT_EQ(gb::mig_profile_name(1, 1, std::int64_t{9728} << 20), "1g.10gb");
  EXPECT_EQ(gb::mig_profile_name(1, 1, std::int64_t{4864} << 20), "1g.5gb");
  EXPECT_EQ(gb::mig_profile_name(3, 3, std::int64_t{40192} << 20), "3g.40gb");
  EXPECT_EQ(gb::mig_profile_name(3, 1, std::int64_t{40192} << 20), "1c.3g.40gb");
  EXPECT_EQ(gb::mig_memory_slices_for(7), 8);
  EXPECT_EQ(gb::mig_memory_slices_for(4), 4);
  EXPECT_FALSE(gb::mig_memory_slices_for(5));
  EXPECT_EQ(gb::instance_memory_slices(std::int64_t{19968} << 20, std::int64_t{80} << 30, 8), 2);
  EXPECT_FALSE(gb::instance_memory_slices(1, std::int64_t{80} << 30, 8));
}

/// A 108-SM GPU of 8 memory slices and its 1g.10gb instance (14 SMs, 1 slice).
struct one_g {
  reports::device_info gpu;
  reports::mig_instance m;
  one_g() {
    gpu.sm_count = 108;
    gpu.mig_memory_slices = 8;
    m.sm_count = 14;
    m.memory_slices = 1;
  }
};

TEST(MigCeilings, ComputeScalesBySmsAndMemoryBySlicesEachSayingHow) {
  const one_g a;
  const gb::mig_share share = gb::mig_share_of(a.gpu, a.m);
  ASSERT_TRUE(share.sms && share.memory);
  reports::ceiling fp32;
  fp32.spec_figure = "peaks.fp32";
  fp32.datasheet = 19.5;
  fp32.datasheet_source = "A100 datasheet";
  fp32.clock_adjusted = 2.5; // from the instance's own SMs already
  const auto c = gb::scale_ceiling_to_mig(fp32, share);
  EXPECT_DOUBLE_EQ(*c.datasheet, 19.5 * 14 / 108);
  EXPECT_DOUBLE_EQ(*c.clock_adjusted, 2.5);
  EXPECT_NE(c.datasheet_source.find("14 of 108 SMs"), std::string::npos) << c.datasheet_source;
  EXPECT_NE(c.datasheet_source.find("multiprocessorCount"), std::string::npos);
  EXPECT_DOUBLE_EQ(*c.mig_fraction, 14.0 / 108);
  reports::ceiling memory;
  memory.spec_figure = "memory_bandwidth_gbs";
  memory.datasheet = 2039;
  memory.clock_adjusted = 2039;
  const auto b = gb::scale_ceiling_to_mig(memory, share);
  EXPECT_DOUBLE_EQ(*b.datasheet, 2039.0 / 8);
  EXPECT_DOUBLE_EQ(*b.clock_adjusted, 2039.0 / 8);
  EXPECT_NE(b.datasheet_source.find("1 of 8 memory slices"), std::string::npos);
  // PCIe is not divided: the same ceiling.
  reports::ceiling pcie;
  pcie.spec_figure = "pcie_gbs";
  pcie.datasheet = 32;
  EXPECT_EQ(gb::scale_ceiling_to_mig(pcie, share), pcie);
}

TEST(MigCeilings, AnUnknownShareDropsTheWholeGpusFigure) {
  one_g a;
  a.m.memory_slices.reset();
  const gb::mig_share share = gb::mig_share_of(a.gpu, a.m);
  EXPECT_FALSE(share.memory);
  reports::ceiling memory;
  memory.spec_figure = "memory_bandwidth_gbs";
  memory.datasheet = 2039;
  const auto c = gb::scale_ceiling_to_mig(memory, share);
  EXPECT_FALSE(c.datasheet);
  EXPECT_FALSE(c.mig_fraction);
  EXPECT_NE(c.datasheet_source.find("not known"), std::string::npos);
}

TEST(MigCeilings, AResultIsJudgedAgainstItsShare) {
  const one_g a;
  reports::result r;
  r.unit = reports::metric_unit::gigabytes_per_second;
  r.samples = {240.0};
  r.stats.n = 1;
  r.stats.median = 240.0;
  r.ceiling_value.spec_figure = "memory_bandwidth_gbs";
  r.ceiling_value.datasheet = 2039;
  gb::scale_result_to_mig(r, gb::mig_share_of(a.gpu, a.m));
  ASSERT_TRUE(r.efficiency);
  EXPECT_NEAR(*r.efficiency, 240.0 / (2039.0 / 8), 1e-9); // 94%, not 12% of the whole GPU
}

} // namespace
