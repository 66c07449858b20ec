// evaluate_host_checks: every check in each of its outcomes.

#include "gpuspec/host/host_checks.hpp"

#include <string>

#include "test_text.hpp"
#include <gtest/gtest.h>

namespace gb = gpuspec::host;
using gpuspec::reports::check_status;
using gpuspec::reports::device_info;
using gpuspec::reports::host_check;
using gpuspec::reports::host_info;

namespace {

using gpuspec::testing::gib;

device_info healthy_gpu(int index) {
  device_info d;
  d.index = index;
  d.memory_bytes = 80 * gib;
  d.pcie = {5, 5, 16, 16, 5};
  d.persistence_mode = "enabled";
  d.power_limit_w = 700;
  d.power_limit_default_w = 700;
  d.temperature_c = 34;
  d.ecc_mode = "enabled";
  return d;
}

host_info healthy_host() {
  host_info h;
  h.memory_bytes = 2048 * gib;
  h.nouveau_loaded = false;
  return h;
}

/// The one check with `id` (and `device`, for GPU checks).
host_check find(const std::vector<host_check>& checks, const std::string& id,
                std::optional<int> device = std::nullopt) {
  for (const auto& c : checks)
    if (c.id == id && c.device == device)
      return c;
  ADD_FAILURE() << "no check " << id;
  return {};
}

using gpuspec::testing::contains;

} // namespace

TEST(HostChecks, AllPassOnAHealthyNode) {
  const auto checks = gb::evaluate_host_checks(healthy_host(), {healthy_gpu(0), healthy_gpu(1)});
  ASSERT_EQ(checks.size(), 2u + 6u * 2u);
  for (const auto& c : checks)
    EXPECT_EQ(c.status, check_status::pass) << c.id << ": " << c.message;
  // Stable order: host checks, then each GPU check for every device.
  EXPECT_EQ(checks[0].id, "host.nouveau");
  EXPECT_EQ(checks[1].id, "host.memory_ratio");
  EXPECT_EQ(checks[2].id, "gpu.pcie_link");
  EXPECT_EQ(checks[2].device, 0);
  EXPECT_EQ(checks[3].device, 1);
  EXPECT_EQ(checks[4].id, "gpu.pcie_slot");
  EXPECT_EQ(checks[4].device, 0);
  EXPECT_EQ(checks[11].id, "gpu.temperature");
  EXPECT_EQ(checks[13].id, "gpu.ecc_mode");
  EXPECT_EQ(checks[13].device, 1);
  EXPECT_FALSE(checks[0].device);
}

TEST(HostChecks, Nouveau) {
  host_info h = healthy_host();
  h.nouveau_loaded = true;
  auto c = find(gb::evaluate_host_checks(h, {}), "host.nouveau");
  EXPECT_EQ(c.status, check_status::fail);
  EXPECT_TRUE(contains(c.message, "nouveau kernel module is loaded")) << c.message;
  h.nouveau_loaded.reset();
  c = find(gb::evaluate_host_checks(h, {}), "host.nouveau");
  EXPECT_EQ(c.status, check_status::skipped);
  EXPECT_FALSE(c.message.empty());
}

TEST(HostChecks, MemoryRatioWarnsOnlyBelowVendorReferenceSystems) {
  // The lowest reference system: 1.5 TB for 8 x 141 GB (MLPerf Inference v4.1, Lenovo).
  EXPECT_NEAR(gpuspec::reports::lowest_reference_memory_ratio(), 1536.0 / 1128.0, 1e-12);
  const std::vector<device_info> eight(8, healthy_gpu(0)); // 640 GiB in all
  host_info h = healthy_host();
  h.memory_bytes = 800 * gib; // 1.25 x: below 1.36 x less the 5% allowance (1.29 x)
  auto c = find(gb::evaluate_host_checks(h, eight), "host.memory_ratio");
  EXPECT_EQ(c.status, check_status::warn);
  EXPECT_TRUE(contains(c.message, "host RAM 800.0 GiB is 1.25 x")) << c.message;
  EXPECT_TRUE(contains(c.message, "total GPU memory 640.0 GiB")) << c.message;
  EXPECT_TRUE(contains(c.message, "Lenovo")) << c.message;

  h.memory_bytes = 900 * gib; // 1.41 x: what vendors ship; the 2 x advice is only a note
  c = find(gb::evaluate_host_checks(h, eight), "host.memory_ratio");
  EXPECT_EQ(c.status, check_status::pass) << c.message;
  EXPECT_TRUE(contains(c.message, "advice")) << c.message;

  h.memory_bytes = 1280 * gib; // exactly 2x: no note
  c = find(gb::evaluate_host_checks(h, eight), "host.memory_ratio");
  EXPECT_EQ(c.status, check_status::pass);
  EXPECT_FALSE(contains(c.message, "advice")) << c.message;
}

TEST(HostChecks, StockDgxH200AndDgx1DoNotWarn) {
  // DGX H200: NVML reports 143771 MiB per H200; MemTotal of 2 TB of DIMMs is about 2015 GiB.
  device_info h200 = healthy_gpu(0);
  h200.memory_bytes = std::int64_t{143771} << 20;
  host_info dgx = healthy_host();
  dgx.memory_bytes = 2015 * gib;
  EXPECT_EQ(
      find(gb::evaluate_host_checks(dgx, std::vector<device_info>(8, h200)), "host.memory_ratio")
          .status,
      check_status::pass);
  // DGX-1: 512 GB for 8 x V100 32 GB (32510 MiB each), MemTotal about 503 GiB.
  device_info v100 = healthy_gpu(0);
  v100.memory_bytes = std::int64_t{32510} << 20;
  host_info dgx1 = healthy_host();
  dgx1.memory_bytes = 503 * gib;
  EXPECT_EQ(
      find(gb::evaluate_host_checks(dgx1, std::vector<device_info>(8, v100)), "host.memory_ratio")
          .status,
      check_status::pass);
}

TEST(HostChecks, MemoryRatioSkipped) {
  EXPECT_EQ(find(gb::evaluate_host_checks(healthy_host(), {}), "host.memory_ratio").status,
            check_status::skipped);
  host_info h = healthy_host();
  h.memory_bytes.reset();
  EXPECT_EQ(find(gb::evaluate_host_checks(h, {healthy_gpu(0)}), "host.memory_ratio").status,
            check_status::skipped);
  device_info unknown = healthy_gpu(1);
  unknown.memory_bytes.reset();
  const auto c = find(gb::evaluate_host_checks(healthy_host(), {healthy_gpu(0), unknown}),
                      "host.memory_ratio");
  EXPECT_EQ(c.status, check_status::skipped);
  EXPECT_TRUE(contains(c.message, "GPU 1")) << c.message;
}

TEST(HostChecks, PcieWidthBelowMaximumWarns) {
  device_info d = healthy_gpu(0);
  d.pcie = {5, 5, 8, 16, 5};
  const auto c = find(gb::evaluate_host_checks(healthy_host(), {d}), "gpu.pcie_link", 0);
  EXPECT_EQ(c.status, check_status::warn);
  EXPECT_TRUE(contains(c.message, "x8")) << c.message;
  EXPECT_TRUE(contains(c.message, "x16")) << c.message;
}

TEST(HostChecks, PcieGenerationBelowMaximumIsNormalAtIdle) {
  device_info d = healthy_gpu(0);
  d.pcie = {1, 5, 16, 16, 5};
  auto c = find(gb::evaluate_host_checks(healthy_host(), {d}), "gpu.pcie_link", 0);
  EXPECT_EQ(c.status, check_status::pass);
  EXPECT_TRUE(contains(c.message, "Gen1")) << c.message;
  EXPECT_TRUE(contains(c.message, "Gen5")) << c.message;
  EXPECT_TRUE(contains(c.message, "idle")) << c.message;

  gb::host_check_options loaded;
  loaded.pcie_under_load = true;
  c = find(gb::evaluate_host_checks(healthy_host(), {d}, loaded), "gpu.pcie_link", 0);
  EXPECT_EQ(c.status, check_status::fail);
  EXPECT_TRUE(contains(c.message, "under load")) << c.message;
}

TEST(HostChecks, PcieUnknownIsSkippedPartlyKnownIsJudged) {
  device_info d = healthy_gpu(0);
  d.pcie = {};
  EXPECT_EQ(find(gb::evaluate_host_checks(healthy_host(), {d}), "gpu.pcie_link", 0).status,
            check_status::skipped);
  d.pcie.width_current = 4;
  d.pcie.width_max = 16;
  const auto c = find(gb::evaluate_host_checks(healthy_host(), {d}), "gpu.pcie_link", 0);
  EXPECT_EQ(c.status, check_status::warn);
  EXPECT_TRUE(contains(c.message, "Gen?")) << c.message;
}

gpuspec::reports::gpu_spec gen5_x16_card() {
  gpuspec::reports::gpu_spec s;
  s.id = "synthetic-gen5";
  s.pcie_gen = 5;
  s.pcie_width = 16;
  return s;
}

gpuspec::reports::gpu_spec gen4_x16_card() {
  gpuspec::reports::gpu_spec s;
  s.id = "synthetic-gen4";
  s.pcie_gen = 4;
  s.pcie_width = 16;
  return s;
}

TEST(HostChecks, AnX8SlotUnderAnX16CardIsTheSlotsFindingNotTheLinks) {
  // An x16 card in an x8 slot: NVML's maximum width is the slot's, so the link is at what the
  // card and its slot can reach; the spec row says the card is x16, and the slot caps it.
  device_info d = healthy_gpu(0);
  d.pcie = {5, 5, 8, 8, 5};
  const auto card = gen5_x16_card();
  EXPECT_EQ(gpuspec::reports::pcie_link_check(d, &card, nullptr).status, check_status::pass);
  // Without a spec row the card's width is unknown (NVML has no GPU-only width): no finding.
  EXPECT_EQ(gpuspec::reports::pcie_slot_check(d, nullptr).status, check_status::pass);
  const auto c = gpuspec::reports::pcie_slot_check(d, &card);
  EXPECT_EQ(c.status, check_status::warn);
  EXPECT_TRUE(contains(c.message, "the system allows x8")) << c.message;
  EXPECT_TRUE(contains(c.message, "the card is x16 (spec row synthetic-gen5)")) << c.message;
  EXPECT_TRUE(contains(c.message, "bifurcation")) << c.message;
}

TEST(HostChecks, ASystemMaximumBelowTheGpusOwnIsACapFoundAtIdle) {
  // A Gen5 card behind a Gen4 riser (or a BIOS set to Gen4): NVML's GPU maximum is Gen5, its
  // maximum with this system Gen4. Idle at Gen1, no load needed: the cap is found from the
  // two maxima, in `info` without a spec row too.
  device_info d = healthy_gpu(0);
  d.pcie = {1, 5, 16, 16, 4};
  const auto checks = gb::evaluate_host_checks(healthy_host(), {d});
  auto c = find(checks, "gpu.pcie_slot", 0);
  EXPECT_EQ(c.status, check_status::warn);
  EXPECT_TRUE(contains(c.message, "the system allows Gen4")) << c.message;
  EXPECT_TRUE(contains(c.message, "the GPU can train Gen5 (NVML)")) << c.message;
  EXPECT_TRUE(contains(c.message, "riser")) << c.message;
  EXPECT_TRUE(contains(c.message, "BIOS")) << c.message;
  // The idle link itself is power saving, not a degraded link.
  EXPECT_EQ(find(checks, "gpu.pcie_link", 0).status, check_status::pass);
  const auto card = gen5_x16_card();
  c = gpuspec::reports::pcie_slot_check(d, &card);
  EXPECT_EQ(c.status, check_status::warn);
  EXPECT_TRUE(contains(c.message, "31.51 GB/s per direction, instead of the card's Gen5 x16, "
                                  "63.02 GB/s"))
      << c.message;
  // Under load at Gen4 the link is at what the slot allows: the cap is the one finding.
  const gpuspec::reports::pcie_under_load gen4{4, 16, "transfer.h2d"};
  c = gpuspec::reports::pcie_link_check(d, &card, &gen4);
  EXPECT_EQ(c.status, check_status::pass) << c.message;
  EXPECT_TRUE(contains(c.message, "reachable Gen4 x16")) << c.message;
}

TEST(HostChecks, AGen4CardInAGen4SystemIsNotCapped) {
  device_info d = healthy_gpu(0);
  d.pcie = {1, 4, 16, 16, 4}; // idle Gen1: power saving
  const auto card = gen4_x16_card();
  EXPECT_EQ(gpuspec::reports::pcie_slot_check(d, &card).status, check_status::pass);
  EXPECT_EQ(gpuspec::reports::pcie_link_check(d, &card, nullptr).status, check_status::pass);
  const gpuspec::reports::pcie_under_load gen4{4, 16, "transfer.h2d"};
  const auto c = gpuspec::reports::pcie_link_check(d, &card, &gen4);
  EXPECT_EQ(c.status, check_status::pass) << c.message;
}

TEST(HostChecks, ADriverWithoutTheSystemMaximumSkipsTheCapCheck) {
  device_info d = healthy_gpu(0);
  d.pcie = {1, 5, 16, std::nullopt, std::nullopt}; // neither system maximum read
  EXPECT_EQ(gpuspec::reports::pcie_slot_check(d, nullptr).status, check_status::skipped);
}

TEST(HostChecks, PcieGenerationIsJudgedUnderLoadAndSaysSo) {
  device_info d = healthy_gpu(0);
  d.pcie = {1, 5, 16, 16, 5}; // Gen1 at idle: power saving
  const auto card = gen5_x16_card();
  EXPECT_EQ(gpuspec::reports::pcie_link_check(d, &card, nullptr).status, check_status::pass);
  // Trained at Gen3 x16 under load, against the Gen5 x16 the card and its slot can reach.
  const gpuspec::reports::pcie_under_load gen3{3, 16, "transfer.h2d"};
  auto c = gpuspec::reports::pcie_link_check(d, &card, &gen3);
  EXPECT_EQ(c.status, check_status::fail);
  EXPECT_TRUE(contains(c.message, "Gen3 under load (transfer.h2d) below the Gen5")) << c.message;
  // Gen4 x8 under load: both below.
  const gpuspec::reports::pcie_under_load gen4x8{4, 8, "transfer.d2h"};
  c = gpuspec::reports::pcie_link_check(d, &card, &gen4x8);
  EXPECT_EQ(c.status, check_status::fail);
  EXPECT_TRUE(contains(c.message, "width x8 under load (transfer.d2h) below the x16")) << c.message;
  EXPECT_TRUE(contains(c.message, "Gen4 under load")) << c.message;
  const gpuspec::reports::pcie_under_load gen5{5, 16, "gemm.cublas.fp16_tc"};
  c = gpuspec::reports::pcie_link_check(d, &card, &gen5);
  EXPECT_EQ(c.status, check_status::pass) << c.message;
  EXPECT_TRUE(contains(c.message, "under load")) << c.message;
}

TEST(HostChecks, EccMode) {
  device_info d = healthy_gpu(0);
  d.ecc_mode = "disabled";
  auto c = find(gb::evaluate_host_checks(healthy_host(), {d}), "gpu.ecc_mode", 0);
  EXPECT_EQ(c.status, check_status::warn);
  EXPECT_TRUE(contains(c.message, "ECC disabled")) << c.message;
  d.ecc_mode = "not supported"; // a GeForce card: nothing to ask
  EXPECT_EQ(find(gb::evaluate_host_checks(healthy_host(), {d}), "gpu.ecc_mode", 0).status,
            check_status::skipped);
}

TEST(HostChecks, PersistenceMode) {
  device_info d = healthy_gpu(0);
  d.persistence_mode = "disabled";
  auto c = find(gb::evaluate_host_checks(healthy_host(), {d}), "gpu.persistence_mode", 0);
  EXPECT_EQ(c.status, check_status::warn);
  EXPECT_TRUE(contains(c.message, "disabled")) << c.message;
  d.persistence_mode = "not supported";
  EXPECT_EQ(find(gb::evaluate_host_checks(healthy_host(), {d}), "gpu.persistence_mode", 0).status,
            check_status::skipped);
  d.persistence_mode = "";
  EXPECT_EQ(find(gb::evaluate_host_checks(healthy_host(), {d}), "gpu.persistence_mode", 0).status,
            check_status::skipped);
}

TEST(HostChecks, PowerLimit) {
  device_info d = healthy_gpu(0);
  d.power_limit_w = 300;
  d.power_limit_default_w = 350;
  auto c = find(gb::evaluate_host_checks(healthy_host(), {d}), "gpu.power_limit", 0);
  EXPECT_EQ(c.status, check_status::warn);
  EXPECT_TRUE(contains(c.message, "300 W")) << c.message;
  EXPECT_TRUE(contains(c.message, "350 W")) << c.message;

  d.power_limit_w = 400; // raised above the default: not this check's concern
  EXPECT_EQ(find(gb::evaluate_host_checks(healthy_host(), {d}), "gpu.power_limit", 0).status,
            check_status::pass);
  d.power_limit_w = 349.9995; // the same limit, rounded in milliwatts
  EXPECT_EQ(find(gb::evaluate_host_checks(healthy_host(), {d}), "gpu.power_limit", 0).status,
            check_status::pass);
  d.power_limit_default_w.reset();
  EXPECT_EQ(find(gb::evaluate_host_checks(healthy_host(), {d}), "gpu.power_limit", 0).status,
            check_status::skipped);
}

TEST(HostChecks, Temperature) {
  const auto status_at = [](std::optional<int> t, gb::host_check_options o = {}) {
    device_info d = healthy_gpu(0);
    d.temperature_c = t;
    return find(gb::evaluate_host_checks(healthy_host(), {d}, o), "gpu.temperature", 0);
  };
  EXPECT_EQ(status_at(79).status, check_status::pass);
  EXPECT_EQ(status_at(80).status, check_status::warn);
  EXPECT_EQ(status_at(84).status, check_status::warn);
  const auto hot = status_at(86);
  EXPECT_EQ(hot.status, check_status::fail);
  EXPECT_TRUE(contains(hot.message, "86 °C")) << hot.message;
  EXPECT_TRUE(contains(hot.message, "85 °C")) << hot.message;
  EXPECT_EQ(status_at(85).status, check_status::fail);
  EXPECT_EQ(status_at(std::nullopt).status, check_status::skipped);
  EXPECT_EQ(status_at(255).status, check_status::warn) << "an impossible reading is flagged";

  gb::host_check_options cool;
  cool.temperature_limit_c = 70;
  EXPECT_EQ(status_at(70, cool).status, check_status::fail);
  EXPECT_EQ(status_at(64, cool).status, check_status::pass);

  // Near the GPU's own slowdown threshold, under the site limit: warn.
  device_info d = healthy_gpu(0);
  d.temperature_slowdown_c = 78;
  d.temperature_c = 74;
  const auto near = find(gb::evaluate_host_checks(healthy_host(), {d}), "gpu.temperature", 0);
  EXPECT_EQ(near.status, check_status::warn);
  EXPECT_TRUE(contains(near.message, "slowdown threshold 78 °C")) << near.message;
}

TEST(HostChecks, EveryMessageIsSet) {
  device_info d;
  d.index = 3; // everything unknown
  for (const auto& c : gb::evaluate_host_checks(host_info{}, {d})) {
    EXPECT_EQ(c.status, check_status::skipped) << c.id;
    EXPECT_FALSE(c.message.empty()) << c.id;
  }
}
