// Device test of transfer.p2p through the session, as `gpuspec run` runs it
// (runner_support.hpp). The pairs are planned from the GPUs the run measures: with one GPU there
// is no pair and so no case; with two, quick plans their two ordered pairs (the ring both ways),
// each measured and every byte of each destination verified (or not_supported, with NVML's P2P
// verdicts, where the two have no peer access), and says so in pairs_planned. Skipped without a
// GPU; the two-GPU tests are skipped on a node with one.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpu_test_support.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "runner_support.hpp"

namespace r = gpuspec::reports;

namespace {

struct transfer_p2p_test : gpuspec::testing::gpu_test {
  void SetUp() override {
    gpu_test::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    gpuspec::testing::take_runner_inventory(inv);
  }
  gpuspec::testing::runner_inventory inv;
};

bool starts_with(const std::string& text, const std::string& head) {
  return text.rfind(head, 0) == 0;
}

std::vector<int> first_gpus(std::size_t count) {
  const auto found = gpuspec::spine::take_inventory("/", gpuspec::benches::enrich_with_cuda);
  std::vector<int> out;
  for (const auto& d : found.devices)
    if (d.cuda_index && out.size() < count)
      out.push_back(d.index);
  return out;
}

TEST_F(transfer_p2p_test, one_gpu_has_no_pair_and_so_no_case) {
  auto o = gpuspec::testing::short_run_options(inv, "quick", "^transfer\\.p2p$", 3, 5, 1.0);
  o.devices = first_gpus(1);
  gpuspec::testing::run_quietly(o, inv);
  ASSERT_FALSE(HasFatalFailure());
  // The plan fits the node: no pair of one GPU, not 56 skipped results.
  EXPECT_TRUE(inv.report.results.empty()) << inv.report.results.size();
}

TEST_F(transfer_p2p_test, two_gpus_verify_every_byte_of_their_pairs) {
  // The first two GPUs of the inventory the run will take.
  const std::vector<int> two = first_gpus(2);
  if (two.size() < 2)
    GTEST_SKIP() << "one GPU: no pair";
  auto o = gpuspec::testing::short_run_options(inv, "quick", "^transfer\\.p2p$", 3, 5, 1.0);
  o.devices = two;
  gpuspec::testing::run_quietly(o, inv);
  ASSERT_FALSE(HasFatalFailure());
  const std::string forward = std::to_string(two[0]) + "->" + std::to_string(two[1]);
  const std::string back = std::to_string(two[1]) + "->" + std::to_string(two[0]);
  int measured = 0;
  for (const auto& res : inv.report.results) {
    const std::string pair = res.axes.at("pair").get<std::string>();
    SCOPED_TRACE(r::parameters_of(res).dump());
    EXPECT_TRUE(pair == forward || pair == back) << "a pair of the GPUs measured only";
    EXPECT_EQ(res.observations.value("pairs_planned", ""),
              "a ring over the 2 GPUs, each to the next and back: 2 of the 2 ordered pairs "
              "(quick suite)");
    if (res.status == r::result_status::not_supported) {
      EXPECT_TRUE(starts_with(res.reason, "no peer access between GPU")) << res.reason;
      continue;
    }
    ++measured;
    EXPECT_EQ(res.status, r::result_status::ok) << res.reason;
    EXPECT_EQ(res.check.status, r::verification_status::passed) << res.check.detail;
    EXPECT_TRUE(res.check.detail.find("bytes equal") != std::string::npos) << res.check.detail;
    EXPECT_GT(res.stats.median, 0.0);
    EXPECT_TRUE(res.ceiling_value.clock_adjusted.has_value());
  }
  // quick: the ring both ways, each with the first value of the other axes (ce, one way, 256
  // MiB): the two ordered pairs of the two GPUs, measured, or none where they have no peer
  // access.
  EXPECT_EQ(inv.report.results.size(), 2u);
  EXPECT_TRUE(measured == 0 || measured == 2) << measured;
}

TEST_F(transfer_p2p_test, latency_one_gpu_skips_and_two_gpus_walk_the_peer_chain) {
  const std::vector<int> two = first_gpus(2);
  auto o =
      gpuspec::testing::short_run_options(inv, "standard", "^transfer\\.p2p_latency$", 3, 5, 1.0);
  o.devices = two;
  gpuspec::testing::run_quietly(o, inv);
  ASSERT_FALSE(HasFatalFailure());
  // standard: every ordered pair of the GPUs measured: 2 of two GPUs, none of one.
  ASSERT_EQ(inv.report.results.size(), two.size() == 2 ? 2u : 0u);
  int measured = 0;
  for (const auto& res : inv.report.results) {
    SCOPED_TRACE(r::parameters_of(res).dump());
    EXPECT_EQ(res.bench_id, "transfer.p2p_latency");
    if (res.status == r::result_status::skipped || res.status == r::result_status::not_supported)
      continue;
    ++measured;
    EXPECT_EQ(res.status, r::result_status::ok) << res.reason;
    EXPECT_EQ(res.check.status, r::verification_status::passed) << res.check.detail;
    EXPECT_EQ(res.unit, r::metric_unit::nanoseconds);
    EXPECT_FALSE(res.higher_is_better);
    EXPECT_GT(res.stats.median, 0.0);
  }
  EXPECT_TRUE(measured == 0 || measured == 2) << measured;
}

} // namespace
