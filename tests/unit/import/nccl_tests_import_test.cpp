// nccl-tests logs (tests/fixtures/import/nccl-tests, real public logs; README.md names each
// source): every figure asserted here was read from the log by hand.
#include <gtest/gtest.h>

#include <string>

#include "gpuspec/reports/import/import.hpp"
#include "import_fixtures.hpp"

namespace gpuspec::reports {
namespace {

report imported(const std::string& name) {
  auto r = load_log(test::import_fixture_path("nccl-tests/" + name));
  if (!r)
    throw std::runtime_error(r.error().to_string());
  return std::move(r).value();
}

const result& at(const report& r, const std::string& size, const std::string& placement) {
  for (const auto& res : r.results)
    if (res.axes.value("size", "") == size && res.axes.value("placement", "") == placement)
      return res;
  throw std::runtime_error("no result " + size + " " + placement);
}

TEST(NcclTestsImport, NvlsEightGpus) {
  const auto r = imported("h100x8-all_reduce-nvls-256M-2G.log");
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.run.source->sha256,
            "764560c247a194be51645d2a21f37922c5aa65eab4308a1e076ece9cb852371f");
  ASSERT_EQ(r.devices.size(), 8u);
  EXPECT_EQ(r.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(r.devices[7].pci_bus_id, "0xdf");
  ASSERT_EQ(r.results.size(), 8u); // 4 sizes, out of place and in place
  const auto& big = at(r, "2GiB", "out_of_place");
  EXPECT_EQ(big.bench_id, "collective.all_reduce");
  EXPECT_EQ(big.metric, "busbw");
  EXPECT_EQ(big.unit, metric_unit::gigabytes_per_second);
  EXPECT_DOUBLE_EQ(big.stats.median, 470.73);
  EXPECT_DOUBLE_EQ(big.observations.at("algbw_gbs").get<double>(), 268.99);
  EXPECT_DOUBLE_EQ(big.observations.at("time_us").get<double>(), 7983.5);
  EXPECT_EQ(big.observations.at("source_line"), 19);
  EXPECT_EQ(big.observations.at("nranks"), 8);
  EXPECT_EQ(big.observations.at("wrong"), 0);
  EXPECT_EQ(big.check.status, verification_status::passed);
  EXPECT_EQ(big.axes.at("dtype"), "fp32");
  EXPECT_DOUBLE_EQ(at(r, "256MiB", "in_place").stats.median, 420.42);
  EXPECT_EQ(big.ceiling_value.spec_figure, "nvlink_gbs");
  EXPECT_EQ(big.telemetry.samples, 0);
}

TEST(NcclTestsImport, TwoNodesOfEightAreANodeAndItsNeighbour) {
  const auto r = imported("h100x16-2node-all_reduce-a3mega-tcpxo.log");
  EXPECT_EQ(r.host.hostname, "ztan-mig-235z");
  EXPECT_EQ(r.devices.size(), 8u);
  ASSERT_EQ(r.nodes.size(), 1u);
  EXPECT_EQ(r.nodes[0].host.hostname, "ztan-mig-gq73");
  const auto& big = at(r, "8GiB", "out_of_place");
  EXPECT_DOUBLE_EQ(big.stats.median, 338.82);
  EXPECT_EQ(big.observations.at("nranks"), 16);
  EXPECT_EQ(big.observations.at("iterations_per_sample"), 20);
  EXPECT_EQ(big.observations.at("source_line"), 54);
  // Across nodes the network bounds busbw, and the log does not state its rate.
  EXPECT_EQ(big.ceiling_value.reference, reference_kind::none);
}

TEST(NcclTestsImport, MpiPrefixesAndNcclInfoLinesAreSkipped) {
  const auto r = imported("t4x2-2node-all_reduce-efa-mpi-nccl-info.log");
  EXPECT_EQ(r.run.source->version, "NCCL 2.12.7+cuda11.4");
  EXPECT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].name, "Tesla T4");
  const auto& big = at(r, "1GiB", "in_place");
  EXPECT_DOUBLE_EQ(big.stats.median, 3.12);
  EXPECT_EQ(big.observations.at("iterations_per_sample"), 100);
  EXPECT_EQ(big.observations.at("source_line"), 88);
}

TEST(NcclTestsImport, InPlaceNotCheckedIsNotAPassedCheck) {
  const auto r = imported("h100x16-2node-alltoall-ib-inplace-na.log");
  const auto& in_place = at(r, "512KiB", "in_place");
  EXPECT_EQ(in_place.check.status, verification_status::skipped);
  EXPECT_TRUE(in_place.observations.at("wrong").is_null());
  EXPECT_DOUBLE_EQ(in_place.stats.median, 9.79);
  EXPECT_EQ(at(r, "512KiB", "out_of_place").check.status, verification_status::passed);
  EXPECT_TRUE(r.devices.empty()); // the post starts at the table: no "# Using devices"
}

TEST(NcclTestsImport, UnnamedAllReduceIsKnownByItsBusFactor) {
  const auto r = imported("h800x8-all_reduce-nvlink.log");
  const auto& big = at(r, "4GiB", "out_of_place");
  EXPECT_EQ(big.bench_id, "collective.all_reduce"); // 165.00 / 94.29 = 1.75 = 2 x 7/8
  EXPECT_DOUBLE_EQ(big.stats.median, 165.00);
}

TEST(NcclTestsImport, OldFormatOutOfBoundsFails) {
  const auto r = imported("v100x8-all_gather-4G-out-of-bounds-failed.log");
  EXPECT_EQ(r.run.source->sha256,
            "80a987b8e388cfde43ed0093cbfd2fa1fb4661be3780439269801dc85ca5f91b");
  ASSERT_EQ(r.results.size(), 2u);
  const auto& res = at(r, "4GiB", "out_of_place");
  EXPECT_EQ(res.bench_id, "collective.all_gather");
  EXPECT_DOUBLE_EQ(res.stats.median, 129.05);
  EXPECT_EQ(res.status, result_status::failed);
  EXPECT_EQ(res.failure, failure_kind::verification);
  EXPECT_EQ(res.check.max_rel_error, 1.0);
}

TEST(NcclTestsImport, SingleRankIsReadAndTailWithoutHeaderIsRead) {
  const auto one = imported("rtx5090x1-alltoall-single-size.log");
  EXPECT_EQ(one.results.size(), 2u);
  EXPECT_EQ(one.results[0].bench_id, "collective.alltoall");
  EXPECT_DOUBLE_EQ(one.results[1].observations.at("algbw_gbs").get<double>(), 43046.10);
  // busbw is 0 by nccl-tests' formula with one rank: no link was measured, which is not "no
  // work", and not a pass either.
  for (const auto& res : one.results) {
    EXPECT_EQ(res.status, result_status::skipped);
    EXPECT_NE(res.reason.find("one-rank run measures no link"), std::string::npos) << res.reason;
  }
  const auto tail = imported("unknownx2-all_reduce-tail-nccl-info.log");
  ASSERT_EQ(tail.results.size(), 2u);
  EXPECT_DOUBLE_EQ(tail.results[0].stats.median, 25.86);
  EXPECT_EQ(tail.results[0].observations.at("source_line"), 1);
}

TEST(NcclTestsImport, ATruncatedLogIsReadUpToItsEndAndSaysSo) {
  const auto text = test::read_import_fixture("nccl-tests/h100x8-all_reduce-nvls-256M-2G.log");
  const auto cut = text.substr(0, text.find("    # Out of bounds"));
  const auto r = import_log(cut, "cut.log");
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_FALSE(r.value().complete);
  EXPECT_TRUE(r.value().run.source->truncated);
  EXPECT_EQ(r.value().results.size(), 8u);
  EXPECT_NE(r.value().incomplete_reason.find("truncated"), std::string::npos);
}

TEST(NcclTestsImport, AMangledRowNamesItsLine) {
  auto text = test::read_import_fixture("nccl-tests/h100x8-all_reduce-nvls-256M-2G.log");
  text.replace(text.find("466.57"), 6, "466.57 12");
  const auto r = import_log(text, "mangled.log");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().file, "mangled.log");
  EXPECT_EQ(r.error().field, "line 18");
  EXPECT_NE(r.error().message.find("14 columns"), std::string::npos);
}

TEST(NcclTestsImport, ABusbwThatPrintsAsZeroIsBelowTheLogsPrecisionNotNoWork) {
  const auto r = imported("h800x8-all_reduce-nvlink.log");
  ASSERT_FALSE(r.results.empty());
  const auto& first = r.results.front(); // 8 bytes: busbw 0.00 with a time in the row
  EXPECT_DOUBLE_EQ(first.stats.median, 0);
  EXPECT_EQ(first.status, result_status::skipped);
  EXPECT_NE(first.reason.find("below the two decimals"), std::string::npos) << first.reason;
}

TEST(NcclTestsImport, AcrossHostsEachResultNamesItsRanks) {
  const auto r = imported("t4x2-2node-all_reduce-efa-mpi-nccl-info.log");
  ASSERT_EQ(r.nodes.size(), 1u);
  ASSERT_FALSE(r.results.empty());
  const auto& ranks = r.results.front().observations.at("ranks");
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(ranks[1].at("host"), r.nodes[0].host.hostname);
  EXPECT_EQ(ranks[0].at("status"), "ok");
}

TEST(NcclTestsImport, AHeaderWithoutAColumnNamesTheRowsLine) {
  // Found by fuzz_nccl_tests_loader: a header whose second half lacks busbw.
  const std::string text = "#  size count type redop root time algbw busbw #wrong time algbw "
                           "bus #wrong\n  8 2 float sum -1 1.0 0.00 0.00 0 1.0 0.00 0.00 0\n";
  const auto r = import_log(text, "half.log");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "line 2");
  EXPECT_NE(r.error().message.find("no busbw column"), std::string::npos) << r.error().message;
  EXPECT_FALSE(import_log("NCCL version \n", "v.log"));
}

} // namespace
} // namespace gpuspec::reports
