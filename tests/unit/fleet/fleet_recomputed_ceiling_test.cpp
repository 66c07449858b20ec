// Issue 30: an older report of a healthy PCIe node carries peer-copy ceilings held to the idle
// Gen1 link (4 GB/s); `db ingest` files the check's verdicts, so its rows must hold the ceiling
// recomputed from the report's own inventory, never "impossible" forever.

#include <algorithm>

#include <gtest/gtest.h>

#include "fleet_samples.hpp"
#include "gpuspec/fleet/ingest.hpp"
#include "gpuspec/fleet/record.hpp"
#include "gpuspec/reports/model/reference.hpp"
#include "stock_fixtures.hpp"

namespace {

using namespace gpuspec;

TEST(FleetRecord, AnOlderReportsPeerCopiesAreFiledAgainstTheRecomputedCeiling) {
  const auto& systems = reports::testing::stock_systems();
  const auto t4 =
      std::find_if(systems.begin(), systems.end(), [](const auto& s) { return s.name == "4x-t4"; });
  ASSERT_NE(t4, systems.end());
  reports::report r = reports::testing::stock_report(*t4, "quick");
  const double gen1 = *reports::pcie_bandwidth_gbs(1, 16);
  for (auto& x : r.results)
    if (x.bench_id == "transfer.p2p") {
      x.ceiling_value.clock_adjusted = gen1;
      x.ceiling_value.clock_adjusted_source = "the link as the inventory read it: PCIe Gen1 x16";
      reports::settle_efficiency(x);
    }
  const auto& judge = fleet::testing::shipped_judge();
  const auto rec = fleet::record_of(r, fleet::canonical_text(r), judge.specs, judge.rules);
  ASSERT_EQ(rec.nodes.size(), 1U);
  EXPECT_EQ(rec.nodes.front().verdict, "pass") << rec.nodes.front().reason_codes;
  std::size_t peers = 0;
  for (const auto& row : rec.nodes.front().results)
    if (row.bench_id == "transfer.p2p" && row.reference_value) {
      ++peers;
      EXPECT_NEAR(*row.reference_value, *reports::pcie_bandwidth_gbs(3, 16), 0.01);
      EXPECT_EQ(row.verdict, "pass");
    }
  EXPECT_GT(peers, 0U);
}

} // namespace
