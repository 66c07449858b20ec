// NVIDIA's Xid catalog as gpuspec holds it (reports/xid_catalog.hpp).

#include <set>

#include <gtest/gtest.h>

#include "gpuspec/reports/judge/xid_catalog.hpp"

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

TEST(XidLineClass, TheRecoveryActionXidIsJudgedByTheActionItNames) {
  using gpuspec::reports::recovery_action_of;
  using gpuspec::reports::remediation;
  // Lines as the driver writes them (pasted in public bug reports, gpud's and NVSentinel's
  // tests): the action's number, then its name, which drivers have spelt differently.
  const auto reset =
      classify_xid(154, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)");
  EXPECT_EQ(reset.severity, verdict_status::fail);
  EXPECT_EQ(reset.step, remediation::reset_gpu);
  EXPECT_EQ(
      classify_xid(154, "GPU recovery action changed from 0x0 (None) to 0x1 (PF FLR)").severity,
      verdict_status::fail);
  for (const char* reboot : {"GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot "
                             "Required)",
                             "GPU recovery action changed from 0x0 (None) to 0x2 (OS Reboot)"}) {
    const auto e = classify_xid(154, reboot);
    EXPECT_EQ(e.severity, verdict_status::fail) << reboot;
    EXPECT_EQ(e.step, remediation::reboot) << reboot;
  }
  const auto drain =
      classify_xid(154, "GPU recovery action changed from 0x0 (None) to 0x4 (Drain and Reset)");
  EXPECT_EQ(drain.severity, verdict_status::fail);
  EXPECT_EQ(drain.step, remediation::reset_gpu);
  // Back to none: the GPU takes work again.
  EXPECT_EQ(
      classify_xid(154, "GPU recovery action changed from 0x4 (Drain and Reset) to 0x0 (None)")
          .severity,
      verdict_status::pass);
  // A line that names no action is the catalog's entry (warn), as NVML's event without text.
  EXPECT_EQ(classify_xid(154, "").severity, verdict_status::warn);
  EXPECT_EQ(classify_xid(154, "GPU recovery action changed").severity, verdict_status::warn);
  EXPECT_EQ(recovery_action_of("changed from 0x0 (None) to 0x7 (System Reboot)"), std::nullopt);
  EXPECT_EQ(recovery_action_of("GPU recovery action changed from 0x0 (None) to 0x7 (x)"), 7U);
}

TEST(XidLineClass, NvLink5XidsAreJudgedByTheSeverityTheLineGives) {
  // Real lines (leptonai/gpud #1160 and #1174, their tests; NVIDIA/open-gpu-kernel-modules #1150).
  for (const char* fatal :
       {"NETIR_LINK_EVT Fatal XC0 i0 Link 00 (0x025001c6 0x00000000 0x00000000 0x00000000 "
        "0x00000000 0x00000000)",
        "NETIR_LINK_EVT  Fatal   XC0 i0 Link 01 (0x021425c6 0x00000000 0x00000000 0x00000000 "
        "0x00000000 0x00000000)",
        "NETIR_INT  Fatal   XC0 i0 Link -1", "NETIR_LINK_EVT Fatal XC 1 i 2 Link 01 [0x0000000a]",
        "pid=1234, name=python3, NETIR_LINK_EVT Fatal XC0 i0 Link 08 (0x004505c6)"}) {
    const auto e = classify_xid(149, fatal);
    EXPECT_EQ(e.severity, verdict_status::fail) << fatal;
    EXPECT_EQ(e.step, gpuspec::reports::remediation::reset_gpu) << fatal;
    EXPECT_EQ(e.kind, xid_class::hardware);
  }
  for (int xid : {144, 145}) {
    const auto e = classify_xid(xid, "RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000008 "
                                     "0x00000001 0x00000000 0x00100000 0x00000004)");
    EXPECT_EQ(e.severity, verdict_status::warn) << xid;
  }
  EXPECT_EQ(classify_xid(144, "SAW_MVB Nonfatal XC0 i0 Link 0 (0x00000001 0x00000008)").severity,
            verdict_status::warn);
  // A line that says neither is the entry's warning; the word elsewhere means nothing.
  EXPECT_EQ(classify_xid(149, "garbled Fatal").severity, verdict_status::warn);
  EXPECT_EQ(classify_xid(149, "").severity, verdict_status::warn);
  // Only the NVLink 5 family reads the word: Xid 13's text is not judged.
  EXPECT_EQ(classify_xid(13, "GR_EXCEPTION Fatal XC0").severity, verdict_status::pass);
}

TEST(XidLineClass, AContainedErrorSaysResetWhenConvenient) {
  const auto contained = classify_xid(94);
  EXPECT_EQ(contained.severity, verdict_status::warn);
  EXPECT_NE(contained.action.find("reset the GPU when convenient"), std::string_view::npos);
  EXPECT_EQ(classify_xid(95).severity, verdict_status::fail);
}

} // namespace
