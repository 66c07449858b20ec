// NVIDIA's Xid catalog as gpuspec holds it (reports/xid_catalog.hpp).

#include <set>

#include <gtest/gtest.h>

#include "gpuspec/reports/xid_catalog.hpp"

namespace {

using gpuspec::reports::classify_xid;
using gpuspec::reports::find_xid;
using gpuspec::reports::verdict_status;
using gpuspec::reports::xid_catalog;
using gpuspec::reports::xid_class;

TEST(XidCatalog, HoldsTheXidsOperatorsMeet) {
  for (int xid : {13, 31, 32, 38, 43, 45, 48, 61,  62,  63,  64,
                  68, 69, 74, 79, 92, 94, 95, 119, 120, 121, 140}) {
    const auto* e = find_xid(xid);
    ASSERT_NE(e, nullptr) << "Xid " << xid;
    EXPECT_FALSE(e->mnemonic.empty()) << xid;
    EXPECT_FALSE(e->description.empty()) << xid;
    EXPECT_FALSE(e->immediate_action.empty()) << xid;
    EXPECT_FALSE(e->action.empty()) << xid;
    EXPECT_NE(e->kind, xid_class::unknown) << xid;
  }
}

TEST(XidCatalog, IsOrderedOnceEachAndEveryEntryIsJudged) {
  std::set<int> seen;
  int last = 0;
  for (const auto& e : xid_catalog()) {
    EXPECT_GT(e.xid, last);
    last = e.xid;
    EXPECT_TRUE(seen.insert(e.xid).second);
    // Pass, warn or fail: an entry never leaves a health verdict open.
    EXPECT_TRUE(e.severity == verdict_status::pass || e.severity == verdict_status::warn ||
                e.severity == verdict_status::fail)
        << e.xid;
  }
}

TEST(XidCatalog, HardwareFaultsThatNeedAResetOrRebootFail) {
  // Double-bit ECC, remap failure, NVLink, fallen off the bus, uncontained memory error, ECC
  // escape: NVIDIA's immediate action is a reset or a node restart; the GPU takes no work.
  for (int xid : {48, 64, 74, 79, 95, 140}) {
    const auto e = classify_xid(xid);
    EXPECT_EQ(e.kind, xid_class::hardware) << xid;
    EXPECT_EQ(e.severity, verdict_status::fail) << xid;
  }
  EXPECT_EQ(classify_xid(79).immediate_action, "RESTART_BM");
  EXPECT_EQ(classify_xid(79).step, gpuspec::reports::remediation::reboot);
}

TEST(XidCatalog, ApplicationFaultsAreReportedButNotHeldAgainstTheNode) {
  // NVIDIA's k8s-device-plugin keeps these GPUs healthy too (13, 31, 43, 45, 68).
  for (int xid : {13, 31, 32, 43, 45, 68, 69}) {
    const auto e = classify_xid(xid);
    EXPECT_EQ(e.kind, xid_class::application) << xid;
    EXPECT_EQ(e.severity, verdict_status::pass) << xid;
  }
}

TEST(XidCatalog, GspAndFirmwareErrorsAreTheDriversAndTheResetOnesFail) {
  for (int xid : {119, 120}) {
    EXPECT_EQ(classify_xid(xid).kind, xid_class::driver) << xid;
    EXPECT_EQ(classify_xid(xid).severity, verdict_status::fail) << xid;
  }
  EXPECT_EQ(classify_xid(38).kind, xid_class::driver);
  EXPECT_EQ(classify_xid(38).severity, verdict_status::warn);
}

TEST(XidCatalog, AnXidNotInTheCatalogIsUnknownAndWarnsNeverBenign) {
  for (int xid : {1, 9999, 173, 0, -4}) {
    ASSERT_EQ(find_xid(xid), nullptr) << xid;
    const auto e = classify_xid(xid);
    EXPECT_EQ(e.xid, xid);
    EXPECT_EQ(e.kind, xid_class::unknown);
    EXPECT_EQ(e.severity, verdict_status::warn);
    EXPECT_NE(e.action.find("catalog"), std::string_view::npos);
  }
}

TEST(XidCatalog, RecordsItsSourceAndDate) {
  EXPECT_NE(gpuspec::reports::xid_catalog_source.find(
                "https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html"),
            std::string_view::npos);
  EXPECT_NE(gpuspec::reports::xid_catalog_source.find("2025-10-29"), std::string_view::npos);
}

} // namespace
