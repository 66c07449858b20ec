// The health judge (reports/health.hpp) over inventories taken the way `gpuspec health` takes
// them: the spine's inventory through the fake NVML (tests/fakes) on a fixture host root, the
// shipped spec table and expectation settings. For every rule, the degraded input that must trip
// it and the healthy one that must not.

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

#include "gpuspec/host/fabric_services.hpp"
#include "gpuspec/host/kernel_log.hpp"
#include "gpuspec/host/pci_gpus.hpp"
#include "gpuspec/reports/health/health.hpp"
#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/reports/render/health_render.hpp"
#include "gpuspec/spine/inventory.hpp"
#include "shipped_tables.hpp"

namespace {

using gpuspec::testing::shipped_specs;

using namespace gpuspec::reports;

const expectation_settings& settings() { return gpuspec::testing::shipped_rules().settings; }

/// The PCI bus of a sysfs fixture (tests/fixtures/sysfs), as cmd_health reads it.
pci_bus_reading pci_bus(const std::string& tree) {
  return gpuspec::host::read_pci_gpus(GPUSPEC_FIXTURES_DIR "/sysfs/" + tree);
}

/// The inventory of a fake-NVML configuration on a fixture host, as cmd_health takes it, with
/// the PCI bus of the HGX node the eight-GPU configurations stand for.
health_input inventory(const std::string& nvml_config, const std::string& host = "x86-gpu-node") {
  ::setenv("GPUSPEC_NVML_LIBRARY", GPUSPEC_FAKE_NVML_PATH, 1);
  ::setenv("GPUSPEC_FAKE_NVML_CONFIG", (GPUSPEC_FAKE_NVML_CONFIGS "/" + nvml_config).c_str(), 1);
  const std::string root = GPUSPEC_FIXTURES_DIR "/hosts/" + host;
  auto inv = gpuspec::spine::take_inventory(root, {});
  gpuspec::spine::match_spec_rows(shipped_specs(), inv.devices);
  health_input in;
  in.inventory.host = inv.host;
  in.inventory.devices = inv.devices;
  in.kernel_module_version = gpuspec::host::read_nvidia_module_version(root);
  in.kernel_log.state = kernel_log_state::read;
  in.kernel_log.source = "test";
  in.pci_bus = pci_bus("hgx-eight-gpu");
  in.fabric_services = gpuspec::host::read_fabric_services(root, in.inventory.host.hostname);
  return in;
}

/// A kernel log from a fixture file, read as cmd_health reads GPUSPEC_KERNEL_LOG.
kernel_log_reading log_file(const std::string& name) {
  const auto text = gpuspec::host::read_kernel_log(GPUSPEC_FIXTURES_DIR "/kernel-log/" + name);
  EXPECT_TRUE(text.read) << text.why;
  return kernel_log_from_text(text.source, text.text);
}

health_outcome judge_report(const health_input& in) {
  return judge_health(in, shipped_specs(), settings());
}

std::vector<const diagnosis*> all(const health_outcome& h) {
  std::vector<const diagnosis*> out;
  for (const auto& n : h.check.nodes) {
    for (const auto& d : n.diagnoses)
      out.push_back(&d);
    for (const auto& g : n.gpus)
      for (const auto& d : g.diagnoses)
        out.push_back(&d);
  }
  return out;
}

const diagnosis* find(const health_outcome& h, const std::string& code) {
  for (const auto* d : all(h))
    if (d->code == code)
      return d;
  return nullptr;
}

const gpu_verdict& gpu(const health_outcome& h, int index) {
  for (const auto& g : h.check.nodes.front().gpus)
    if (g.index == index)
      return g;
  throw std::out_of_range("no GPU " + std::to_string(index));
}

TEST(HealthJudge, HealthyEightGpuNodePassesWithNoFindingAndNoDrainReason) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log = log_file("clean-boot.log");
  const auto h = judge_report(in);
  ASSERT_EQ(h.check.nodes.front().gpus.size(), 8U);
  for (const auto* d : all(h))
    ADD_FAILURE() << d->code << ": " << d->cause;
  EXPECT_EQ(h.check.status, verdict_status::pass);
  EXPECT_EQ(exit_code_of(h.check.status), 0);
  EXPECT_EQ(h.drain_reason, "");
}

TEST(HealthJudge, PendingRowRemapWarnsAndTheDrainReasonNamesTheGpu) {
  auto in = inventory("eight-row-remap-pending.json");
  in.kernel_log = log_file("clean-boot.log");
  const auto h = judge_report(in);
  EXPECT_EQ(h.check.status, verdict_status::warn);
  EXPECT_EQ(gpu(h, 3).status, verdict_status::warn);
  EXPECT_EQ(gpu(h, 2).status, verdict_status::pass);
  const auto* d = find(h, "GPUSPEC-ROW-REMAP-PENDING");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->device, 3);
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-ROW-REMAP-PENDING:gpu3");
}

TEST(HealthJudge, AMigModePendingAResetWarnsAndAPartitionedGpuDoesNot) {
  auto in = inventory("a100-mig-pending-reset.json");
  in.kernel_log = log_file("clean-boot.log");
  auto h = judge_report(in);
  const auto* d = find(h, "GPUSPEC-MIG-PENDING-RESET");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, verdict_status::warn);
  EXPECT_EQ(d->device, 0);
  EXPECT_NE(d->cause.find("MIG mode is disabled and becomes enabled"), std::string::npos)
      << d->cause;
  EXPECT_EQ(gpu(h, 0).status, verdict_status::warn);
  // A GPU partitioned and settled (7 x 1g.10gb, nothing pending) is no finding.
  in = inventory("a100-mig-7x1g.json");
  in.kernel_log = log_file("clean-boot.log");
  h = judge_report(in);
  EXPECT_EQ(find(h, "GPUSPEC-MIG-PENDING-RESET"), nullptr);
}

TEST(HealthJudge, Xid79InTheKernelLogFailsItsGpuOnly) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log = log_file("xid79-gpu3.log");
  const auto h = judge_report(in);
  EXPECT_EQ(h.check.status, verdict_status::fail);
  EXPECT_EQ(gpu(h, 3).status, verdict_status::fail);
  // GPU 0's Xid 13 is an application's fault: listed, not held against it.
  EXPECT_EQ(gpu(h, 0).status, verdict_status::pass);
  ASSERT_EQ(h.xids.size(), 3U);
  EXPECT_EQ(h.xids[0].device, 0);
  EXPECT_EQ(h.xids[0].entry.kind, xid_class::application);
  const auto* d = find(h, "GPUSPEC-XID-HARDWARE");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->device, 3);
  EXPECT_EQ(d->severity, verdict_status::fail);
  EXPECT_EQ(d->step, remediation::reboot);
  EXPECT_EQ(d->evidence.at("xid"), "79");
  EXPECT_EQ(d->evidence.at("xid.count"), "2");
  EXPECT_EQ(d->evidence.at("pci_bus_id"), "00000000:5D:00.0");
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-XID-HARDWARE:gpu3");
}

TEST(HealthJudge, AProcessNamedLinuxVersionDoesNotMakeAnXidHistory) {
  // Its segfault line, "Linux version [pid]: segfault at ...", was read as a reboot: the Xid 48
  // before it became history and the node passed.
  auto in = inventory("eight-healthy.json");
  in.kernel_log = log_file("forged-banner-after-xid48-gpu3.log");
  EXPECT_EQ(in.kernel_log.boots, 1U);
  const auto h = judge_report(in);
  EXPECT_EQ(h.check.status, verdict_status::fail);
  EXPECT_EQ(gpu(h, 3).status, verdict_status::fail);
  EXPECT_TRUE(h.xid_history.empty());
}

TEST(HealthJudge, ADriverMessageAProgramWroteIntoItsSegfaultLineDrainsNothing) {
  // Files named like an Xid 79, a fatal SXid and "GPU has fallen off the bus", faulted in: the
  // kernel prints each name inside its segfault line. No driver wrote them.
  auto in = inventory("eight-healthy.json");
  in.kernel_log = log_file("forged-xid79-in-segfault.log");
  const auto h = judge_report(in);
  for (const auto* d : all(h))
    ADD_FAILURE() << d->code << ": " << d->cause;
  EXPECT_EQ(h.check.status, verdict_status::pass);
  EXPECT_TRUE(h.xids.empty());
  EXPECT_EQ(h.drain_reason, "");
}

TEST(HealthJudge, AStringFromNvmlCannotForgeALineNorReachTheTerminalRaw) {
  // A GPU name with a newline forged the "drain reason:" line the Slurm script read, and its
  // escape sequences reached the terminal.
  auto in = inventory("eight-healthy.json");
  in.kernel_log = log_file("xid79-gpu3.log");
  in.inventory.devices[0].name = "NVIDIA H100\ndrain reason: gpuspec:FORGED:gpu0\x1b[2J\xc2\x9b";
  in.inventory.host.hostname = "node\rVerdict: PASS";
  const auto h = judge_report(in);
  const auto text = render_health_text(h, 0.1);
  EXPECT_EQ(text.find("\ndrain reason: gpuspec:FORGED"), std::string::npos) << text;
  EXPECT_NE(text.find("\ndrain reason: gpuspec:GPUSPEC-XID-HARDWARE:gpu3\n"), std::string::npos);
  EXPECT_NE(text.find("NVIDIA H100\\ndrain reason: gpuspec:FORGED:gpu0\\x1b[2J\\u009b"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("node\\rVerdict: PASS"), std::string::npos);
  for (const char c : text)
    EXPECT_TRUE(c == '\n' || static_cast<unsigned char>(c) >= 0x20) << static_cast<int>(c);
  EXPECT_EQ(text.find("\xc2\x9b"), std::string::npos);
}

TEST(HealthJudge, ApplicationXidsAloneDoNotFailTheNode) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log = log_file("xid13-application.log");
  const auto h = judge_report(in);
  EXPECT_EQ(h.xids.size(), 2U);
  EXPECT_EQ(h.check.status, verdict_status::pass);
  EXPECT_EQ(h.drain_reason, "");
}

xid_event event(int xid, const std::string& bus) {
  auto e = parse_xid_line("NVRM: Xid (PCI:" + bus + "): " + std::to_string(xid) + ", test line");
  EXPECT_TRUE(e);
  return e.value_or(xid_event{});
}

TEST(HealthJudge, DriverClassXidThatNeedsAResetFails) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log.events = {event(119, "0000:2a:00")};
  const auto h = judge_report(in);
  const auto* d = find(h, "GPUSPEC-XID-DRIVER");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->device, 1);
  EXPECT_EQ(d->severity, verdict_status::fail);
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-XID-DRIVER:gpu1");
}

TEST(HealthJudge, AnXidNotInTheCatalogWarnsItIsNeverBenign) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log.events = {event(4242, "0000:18:00")};
  const auto h = judge_report(in);
  const auto* d = find(h, "GPUSPEC-XID-UNKNOWN");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, verdict_status::warn);
  EXPECT_EQ(h.check.status, verdict_status::warn);
}

TEST(HealthJudge, AnXidAtAnAddressNoGpuHasIsTheNodesFinding) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log.events = {event(79, "0000:3b:00")};
  const auto h = judge_report(in);
  const auto* d = find(h, "GPUSPEC-XID-HARDWARE");
  ASSERT_NE(d, nullptr);
  EXPECT_FALSE(d->device);
  EXPECT_NE(d->cause.find("no GPU of the inventory"), std::string::npos) << d->cause;
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-XID-HARDWARE:node");
}

TEST(HealthJudge, AnUnreadKernelLogIsInconclusiveNeverAPass) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log = {};
  in.kernel_log.state = kernel_log_state::not_read;
  in.kernel_log.why = "/dev/kmsg: Operation not permitted; dmesg: exit status 256";
  const auto h = judge_report(in);
  EXPECT_EQ(h.check.status, verdict_status::inconclusive);
  EXPECT_EQ(exit_code_of(h.check.status), 3);
  const auto* d = find(h, "GPUSPEC-KERNEL-LOG-UNREAD");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->cause.find("Operation not permitted"), std::string::npos);
  EXPECT_EQ(h.drain_reason, "");
}

TEST(HealthJudge, AFailureStillOutranksAnUnreadKernelLog) {
  auto in = inventory("eight-row-remap-pending.json");
  in.inventory.devices[5].counters_before["remapped_rows.failure"] = reading::of(1);
  in.kernel_log.state = kernel_log_state::not_read;
  const auto h = judge_report(in);
  EXPECT_EQ(h.check.status, verdict_status::fail);
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-ROW-REMAP-FAILURE:gpu5");
}

TEST(HealthJudge, ASkippedKernelLogIsNotedNotPassedOff) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log.state = kernel_log_state::skipped;
  const auto h = judge_report(in);
  EXPECT_EQ(h.check.status, verdict_status::pass);
  EXPECT_EQ(find(h, "GPUSPEC-KERNEL-LOG-UNREAD"), nullptr);
  ASSERT_EQ(h.check.notes.size(), 1U);
  EXPECT_NE(h.check.notes[0].find("not checked"), std::string::npos);
}

TEST(HealthJudge, KernelModuleOlderThanTheLibrariesFails) {
  auto in = inventory("eight-healthy.json", "x86-gpu-node-old-module");
  ASSERT_EQ(in.kernel_module_version, "575.57.08");
  const auto h = judge_report(in);
  const auto* d = find(h, "GPUSPEC-DRIVER-MISMATCH");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->evidence.at("kernel_module"), "575.57.08");
  EXPECT_EQ(d->evidence.at("nvml_driver"), "580.65.06");
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-DRIVER-MISMATCH:node");
}

TEST(HealthJudge, NvmlLibraryMismatchFailsWhileAMissingDriverIsUnknown) {
  const auto mismatch = judge_report(inventory("driver-library-mismatch.json"));
  EXPECT_EQ(mismatch.check.status, verdict_status::fail);
  EXPECT_NE(find(mismatch, "GPUSPEC-DRIVER-MISMATCH"), nullptr);

  const auto missing = judge_report(inventory("driver-not-loaded.json"));
  EXPECT_EQ(missing.check.status, verdict_status::inconclusive);
  EXPECT_EQ(find(missing, "GPUSPEC-DRIVER-MISMATCH"), nullptr);
  EXPECT_NE(missing.check.nodes.front().message.find("nvmlInit_v2"), std::string::npos);
}

TEST(HealthJudge, AVbiosOtherThanTheMajoritysWarnsOnThatGpuOnly) {
  auto in = inventory("eight-healthy.json");
  in.inventory.devices[6].vbios = "96.00.61.00.01";
  const auto h = judge_report(in);
  const auto* d = find(h, "GPUSPEC-VBIOS-MIXED");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->device, 6);
  EXPECT_EQ(gpu(h, 6).status, verdict_status::warn);
  EXPECT_EQ(gpu(h, 5).status, verdict_status::pass);
}

TEST(HealthJudge, UncorrectableEccSinceTheDriverLoadedFails) {
  auto in = inventory("eight-healthy.json");
  in.inventory.devices[2].counters_before["ecc.volatile.uncorrected"] = reading::of(2);
  const auto h = judge_report(in);
  const auto* d = find(h, "GPUSPEC-ECC-UNCORRECTED");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->device, 2);
  EXPECT_NE(d->cause.find("since the driver loaded"), std::string::npos);
  // The aggregate (lifetime) count is history, not today's health: it trips nothing.
  auto lifetime = inventory("eight-healthy.json");
  lifetime.inventory.devices[2].counters_before["ecc.aggregate.uncorrected"] = reading::of(2);
  EXPECT_EQ(find(judge_report(lifetime), "GPUSPEC-ECC-UNCORRECTED"), nullptr);
}

TEST(HealthJudge, PcieLinkBelowTheCardsWidthWarnsAgainstTheSpecRow) {
  auto in = inventory("eight-healthy.json");
  in.inventory.devices[4].pcie.width_current = 8;
  const auto h = judge_report(in);
  const auto* d = find(h, "GPUSPEC-PCIE-LINK-DEGRADED");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->device, 4);
}

TEST(HealthJudge, ASlotRiserOrBiosThatCapsTheLinkWarnsOnThatGpuFromIdleReadings) {
  // pcie-links.json: GPU 1's maximum with this system is Gen4 under its own Gen5 (NVML's two
  // maxima); GPU 0 idles at Gen1 (power saving) and GPU 2 is a Gen4 card in a Gen4 system.
  auto in = inventory("pcie-links.json");
  in.kernel_log = log_file("clean-boot.log");
  // A three-GPU node: its bus holds these three, not the HGX fixture's eight.
  in.pci_bus.gpus.clear();
  for (const auto& dev : in.inventory.devices)
    in.pci_bus.gpus.push_back(dev.pci_bus_id.substr(4)); // "00000000:18:00.0" -> "0000:18:00.0"
  const auto h = judge_report(in);
  const auto* d = find(h, "GPUSPEC-PCIE-LINK-CAPPED");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->device, 1);
  EXPECT_EQ(d->severity, verdict_status::warn);
  for (const char* part :
       {"the system allows Gen4", "the GPU can train Gen5 (NVML)", "riser", "BIOS"})
    EXPECT_NE(d->cause.find(part), std::string::npos) << part << ": " << d->cause;
  for (int healthy : {0, 2})
    for (const auto& g : gpu(h, healthy).diagnoses)
      ADD_FAILURE() << "GPU " << healthy << ": " << g.code << ": " << g.cause;
  EXPECT_EQ(gpu(h, 1).diagnoses.size(), 1U);
  EXPECT_EQ(h.check.status, verdict_status::warn);
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-PCIE-LINK-CAPPED:gpu1");
}

TEST(HealthJudge, NvlinkLinksDownAgainstIdenticalGpusFails) {
  auto in = inventory("eight-healthy.json");
  const auto active = in.inventory.devices[7].counters_before.at("nvlink.links_active").value;
  ASSERT_TRUE(active && *active > 1);
  in.inventory.devices[7].counters_before["nvlink.links_active"] = reading::of(*active - 2);
  const auto h = judge_report(in);
  const auto* d = find(h, "GPUSPEC-NVLINK-DOWN");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->device, 7);
}

TEST(HealthJudge, PersistenceOffAndEccOffWarn) {
  auto in = inventory("eight-healthy.json");
  in.inventory.devices[1].persistence_mode = "disabled";
  in.inventory.devices[1].ecc_mode = "disabled";
  const auto h = judge_report(in);
  EXPECT_NE(find(h, "GPUSPEC-PERSISTENCE-OFF"), nullptr);
  EXPECT_NE(find(h, "GPUSPEC-ECC-DISABLED"), nullptr);
  EXPECT_EQ(gpu(h, 1).status, verdict_status::warn);
}

// ---- issue 16: boots, contained errors, recovery actions, NVLink 5, MIG, the PCI bus ----------

TEST(HealthJudge, AnXidFromBeforeTheLastRebootIsHistoryNotAFinding) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log = log_file("journal-two-boots-xid79-earlier.log");
  const auto h = judge_report(in);
  EXPECT_EQ(h.check.status, verdict_status::pass);
  EXPECT_EQ(h.drain_reason, "");
  EXPECT_TRUE(h.xids.empty());
  ASSERT_EQ(h.xid_history.size(), 2U);
  EXPECT_EQ(h.xid_history[0].event.xid, 79);
  EXPECT_EQ(h.xid_history[0].device, 3);
  EXPECT_EQ(h.kernel_log_boots, 2U);
  ASSERT_EQ(h.check.notes.size(), 1U);
  EXPECT_NE(h.check.notes[0].find("spans 2 boots"), std::string::npos) << h.check.notes[0];
  // The same Xid 79 in this boot fails, as before.
  in.kernel_log = log_file("xid79-gpu3.log");
  EXPECT_EQ(judge_report(in).check.status, verdict_status::fail);
  // dmesg of two boots (a second banner): the current boot's application Xid only.
  in.kernel_log = log_file("dmesg-two-banners-xid79-earlier.log");
  const auto dmesg = judge_report(in);
  EXPECT_EQ(dmesg.check.status, verdict_status::pass);
  ASSERT_EQ(dmesg.xids.size(), 1U);
  EXPECT_EQ(dmesg.xids[0].event.xid, 13);
}

TEST(HealthJudge, AContainedErrorThatAccountsForTheEccCountWarnsResetWhenConvenient) {
  auto in = inventory("eight-one-uncorrected-ecc.json");
  in.kernel_log = log_file("xid94-contained-gpu3.log");
  const auto h = judge_report(in);
  EXPECT_EQ(h.check.status, verdict_status::warn);
  EXPECT_EQ(gpu(h, 3).status, verdict_status::warn);
  const auto* d = find(h, "GPUSPEC-ECC-UNCORRECTED");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, verdict_status::warn);
  EXPECT_NE(d->cause.find("reset when convenient"), std::string::npos) << d->cause;
  EXPECT_EQ(d->evidence.at("xid94.count"), "1");
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-ECC-UNCORRECTED:gpu3");
  // Uncontained (Xid 95): fails, as does the same count with no contained Xid to account for it.
  in.kernel_log = log_file("xid95-uncontained-gpu3.log");
  const auto uncontained = judge_report(in);
  EXPECT_EQ(uncontained.check.status, verdict_status::fail);
  EXPECT_EQ(find(uncontained, "GPUSPEC-ECC-UNCORRECTED")->severity, verdict_status::fail);
  in.kernel_log = log_file("clean-boot.log");
  EXPECT_EQ(find(judge_report(in), "GPUSPEC-ECC-UNCORRECTED")->severity, verdict_status::fail);
  // More uncorrected errors than contained Xids: not accounted for.
  in.inventory.devices[3].counters_before["ecc.volatile.uncorrected"] = reading::of(2);
  in.kernel_log = log_file("xid94-contained-gpu3.log");
  EXPECT_EQ(judge_report(in).check.status, verdict_status::fail);
}

// Issue 31: the drain reason names the gravest finding, not the first in rule order. A GPU
// over the temperature limit fails, and its rule runs before the ECC rules and on a GPU listed
// before the one with the uncorrected error; the error, which says the GPU's answers cannot be
// trusted, is still what the node is drained for.
TEST(HealthJudge, TheDrainReasonTakesAnUncorrectedEccErrorOverATemperature) {
  auto in = inventory("eight-one-uncorrected-ecc.json");
  in.kernel_log = log_file("xid95-uncontained-gpu3.log");
  in.inventory.devices[1].temperature_c = 91;
  in.inventory.devices[3].temperature_c = 91;
  const auto h = judge_report(in);
  EXPECT_EQ(h.check.status, verdict_status::fail);
  const auto* hot = find(h, "GPUSPEC-GPU-TEMPERATURE-HIGH");
  ASSERT_NE(hot, nullptr);
  EXPECT_EQ(hot->severity, verdict_status::fail);
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-ECC-UNCORRECTED:gpu3");
  // Without the error (a clean log, no count), the temperature is the node's reason.
  in.kernel_log = log_file("clean-boot.log");
  in.inventory.devices[3].counters_before["ecc.volatile.uncorrected"] = reading::of(0);
  in.inventory.devices[3].counters_after["ecc.volatile.uncorrected"] = reading::of(0);
  const auto hot_only = judge_report(in);
  EXPECT_EQ(find(hot_only, "GPUSPEC-ECC-UNCORRECTED"), nullptr);
  EXPECT_EQ(hot_only.drain_reason, "gpuspec:GPUSPEC-GPU-TEMPERATURE-HIGH:gpu1");
}

// A GPU lost before NVML could name it fails as lost, without "no spec-table row matches ''"
// beside it; its named sibling with no row still gets the finding.
TEST(HealthJudge, ALostGpuIsNotAlsoAGpuWithNoSpecRow) {
  auto in = inventory("mixed-lost.json");
  in.kernel_log = log_file("clean-boot.log");
  const auto h = judge_report(in);
  EXPECT_EQ(h.check.status, verdict_status::fail);
  const auto& lost = gpu(h, 1);
  std::vector<std::string> codes;
  for (const auto& d : lost.diagnoses)
    codes.push_back(d.code);
  EXPECT_NE(std::find(codes.begin(), codes.end(), "GPUSPEC-GPU-LOST"), codes.end());
  EXPECT_EQ(std::find(codes.begin(), codes.end(), "GPUSPEC-NO-SPEC-ROW"), codes.end());
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-GPU-LOST:gpu1");
  // The spec row of a named GPU taken away: that GPU still gets the finding.
  in.inventory.devices[0].name = "NVIDIA GeForce RTX 9999 (no row)";
  in.inventory.devices[0].pci_device_id.reset();
  in.inventory.devices[0].spec_id.clear();
  const auto unnamed_row = judge_report(in);
  const auto& named = gpu(unnamed_row, 0);
  EXPECT_TRUE(std::any_of(named.diagnoses.begin(), named.diagnoses.end(),
                          [](const diagnosis& d) { return d.code == "GPUSPEC-NO-SPEC-ROW"; }));
}

TEST(HealthJudge, TheRecoveryActionXidFailsWithTheActionItNames) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log = log_file("xid154-reset-required-gpu1.log");
  const auto h = judge_report(in);
  EXPECT_EQ(h.check.status, verdict_status::fail);
  const auto* d = find(h, "GPUSPEC-XID-DRIVER");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->device, 1);
  EXPECT_EQ(d->step, remediation::reset_gpu);
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-XID-DRIVER:gpu1");
  // A reboot asked for (the earlier boot of the journal fixture, as this boot's).
  in.kernel_log.events = {
      event(154, "0000:2a:00"),
  };
  in.kernel_log.events[0].text =
      "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)";
  const auto reboot = judge_report(in);
  EXPECT_EQ(reboot.check.status, verdict_status::fail);
  EXPECT_EQ(find(reboot, "GPUSPEC-XID-DRIVER")->step, remediation::reboot);
  // The action back to none by the last line: the GPU was recovered.
  in.kernel_log = log_file("xid154-back-to-none-gpu1.log");
  const auto recovered = judge_report(in);
  EXPECT_EQ(recovered.check.status, verdict_status::pass);
  EXPECT_EQ(recovered.xids.size(), 2U);
}

TEST(HealthJudge, NvLink5XidsFailWhenTheLineSaysFatal) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log = log_file("xid149-netir-fatal-gpu5.log");
  const auto h = judge_report(in);
  EXPECT_EQ(h.check.status, verdict_status::fail);
  const auto* d = find(h, "GPUSPEC-XID-HARDWARE");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->device, 5);
  EXPECT_EQ(d->step, remediation::reset_gpu);
  EXPECT_NE(d->cause.find("NETIR_LINK_EVT  Fatal"), std::string::npos) << d->cause;
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-XID-HARDWARE:gpu5");
  in.kernel_log = log_file("xid145-rlw-nonfatal-gpu5.log");
  const auto nonfatal = judge_report(in);
  EXPECT_EQ(nonfatal.check.status, verdict_status::warn);
}

TEST(HealthJudge, MigAttributedXidsCountForTheirGpuAndNameTheInstance) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log = log_file("mig-xid-gpu0.log");
  const auto h = judge_report(in);
  ASSERT_EQ(h.xids.size(), 2U);
  EXPECT_EQ(h.xids[0].device, 0);
  EXPECT_EQ(h.xids[1].event.gpu_instance, 5);
  EXPECT_EQ(h.check.status, verdict_status::fail);
  const auto* d = find(h, "GPUSPEC-XID-HARDWARE");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->device, 0);
  EXPECT_NE(d->cause.find("MIG GPU instance 5"), std::string::npos) << d->cause;
  EXPECT_EQ(d->evidence.at("xid.mig"), "MIG GPU instance 5");
  const auto j = health_to_json(h, 0.1);
  EXPECT_EQ(j.at("xids")[1].at("gpu_instance"), 5);
}

TEST(HealthJudge, AGpuOnTheBusThatNvmlDoesNotListFailsTheNode) {
  auto in = inventory("seven-of-eight.json");
  in.kernel_log = log_file("rminitadapter-9a.log");
  ASSERT_EQ(in.inventory.devices.size(), 7U);
  const auto h = judge_report(in);
  EXPECT_EQ(h.check.status, verdict_status::fail);
  const auto* d = find(h, "GPUSPEC-GPU-NOT-IN-NVML");
  ASSERT_NE(d, nullptr);
  EXPECT_FALSE(d->device);
  EXPECT_EQ(d->evidence.at("pci_bus_id"), "0000:9a:00.0");
  EXPECT_NE(d->cause.find("7 of 8"), std::string::npos) << d->cause;
  EXPECT_NE(d->cause.find("RmInitAdapter failed"), std::string::npos) << d->cause;
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-GPU-NOT-IN-NVML:node");
  // Without a kernel log to say why, still a failure (the bus is the evidence).
  in.kernel_log = log_file("clean-boot.log");
  EXPECT_EQ(judge_report(in).drain_reason, "gpuspec:GPUSPEC-GPU-NOT-IN-NVML:node");
  // All eight listed: nothing (the NVSwitches, the host bridge and the NIC are no GPUs).
  EXPECT_EQ(find(judge_report(inventory("eight-healthy.json")), "GPUSPEC-GPU-NOT-IN-NVML"),
            nullptr);
  // A bus that could not be read: a note, not a verdict.
  auto unread = inventory("seven-of-eight.json");
  unread.pci_bus = pci_bus("does-not-exist");
  const auto u = judge_report(unread);
  EXPECT_EQ(find(u, "GPUSPEC-GPU-NOT-IN-NVML"), nullptr);
  ASSERT_FALSE(u.check.notes.empty());
  EXPECT_NE(u.check.notes.back().find("the PCI bus was not read"), std::string::npos);
}

TEST(HealthJudge, AGpuThatFellOffTheBusAtProbeTimeFailsTheNodeWithoutABusListing) {
  // Issue 30: the driver's three-line probe message for 0000:9a:00.0, no Xid, NVML lists 7, and
  // the PCI bus could not be read: the kernel log's driver message is the evidence.
  auto in = inventory("seven-of-eight.json");
  in.kernel_log = log_file("rminitadapter-9a.log");
  in.pci_bus = pci_bus("does-not-exist");
  ASSERT_FALSE(in.pci_bus.read);
  const auto h = judge_report(in);
  EXPECT_EQ(h.check.status, verdict_status::fail);
  const auto* d = find(h, "GPUSPEC-GPU-NOT-IN-NVML");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->evidence.at("pci_bus_id"), "0000:9a:00.0");
  EXPECT_NE(d->cause.find("has fallen off the bus"), std::string::npos) << d->cause;
  EXPECT_NE(d->cause.find("7 GPUs listed"), std::string::npos) << d->cause;
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-GPU-NOT-IN-NVML:node");
  // With the bus read and the GPU on it, one finding, not two.
  in.pci_bus = pci_bus("hgx-eight-gpu");
  const auto both = judge_report(in);
  EXPECT_EQ(std::count_if(both.check.nodes.front().diagnoses.begin(),
                          both.check.nodes.front().diagnoses.end(),
                          [](const diagnosis& x) { return x.code == "GPUSPEC-GPU-NOT-IN-NVML"; }),
            1);
}

TEST(HealthJudge, AForgedFallenOffTheBusLineNeverFailsANode) {
  // The same words inside a segfault line of a program an unprivileged user named after them,
  // on a node whose NVML lists 7 and whose bus was not read: no driver message, no finding.
  auto in = inventory("seven-of-eight.json");
  in.kernel_log = log_file("forged-xid79-in-segfault.log");
  in.pci_bus = pci_bus("does-not-exist");
  EXPECT_EQ(find(judge_report(in), "GPUSPEC-GPU-NOT-IN-NVML"), nullptr);
  // And the driver's message for a GPU NVML does list says nothing of a missing one.
  auto listed = inventory("eight-healthy.json");
  listed.kernel_log = log_file("rminitadapter-9a.log");
  listed.pci_bus = pci_bus("does-not-exist");
  EXPECT_EQ(find(judge_report(listed), "GPUSPEC-GPU-NOT-IN-NVML"), nullptr);
}

TEST(PciBus, CountsNvidiaDisplayFunctionsOnlyAndSetsAsideOtherDrivers) {
  const auto hgx = pci_bus("hgx-eight-gpu");
  ASSERT_TRUE(hgx.read) << hgx.why;
  EXPECT_EQ(hgx.gpus.size(), 8U);
  EXPECT_EQ(hgx.gpus.front(), "0000:18:00.0");
  EXPECT_TRUE(hgx.other_driver.empty());
  const auto cards = pci_bus("two-cards-one-vfio");
  ASSERT_TRUE(cards.read);
  ASSERT_EQ(cards.gpus.size(), 1U); // the HDMI audio functions are no GPUs
  EXPECT_EQ(cards.gpus[0], "0000:01:00.0");
  ASSERT_EQ(cards.other_driver.size(), 1U);
  EXPECT_EQ(cards.other_driver[0], "0000:41:00.0 (vfio-pci)");
  const auto missing = pci_bus("does-not-exist");
  EXPECT_FALSE(missing.read);
  EXPECT_NE(missing.why.find("does-not-exist"), std::string::npos);
}

TEST(HealthJudge, AFatalSxidIsTheFabricsFailure) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log = log_file("sxid-fatal-nvswitch.log");
  const auto h = judge_report(in);
  EXPECT_EQ(h.check.status, verdict_status::fail);
  const auto* d = find(h, "GPUSPEC-SXID-FATAL");
  ASSERT_NE(d, nullptr);
  EXPECT_FALSE(d->device);
  EXPECT_EQ(d->evidence.at("sxid"), "23001");
  EXPECT_NE(d->cause.find("nvidia-nvswitch2"), std::string::npos) << d->cause;
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-SXID-FATAL:node");
  in.kernel_log = log_file("sxid-nonfatal-nvswitch.log");
  const auto nonfatal = judge_report(in);
  EXPECT_EQ(nonfatal.check.status, verdict_status::pass);
  EXPECT_EQ(nonfatal.sxids.size(), 2U);
}

TEST(HealthJudge, AnUndecodableLogIsInconclusiveNeverZeroXids) {
  auto in = inventory("eight-healthy.json");
  for (const char* name : {"utf16-xid79-gpu3.log", "garbage-bytes.log"}) {
    in.kernel_log = log_file(name);
    EXPECT_EQ(in.kernel_log.state, kernel_log_state::not_read) << name;
    const auto h = judge_report(in);
    EXPECT_EQ(h.check.status, verdict_status::inconclusive) << name;
    const auto* d = find(h, "GPUSPEC-KERNEL-LOG-UNREAD");
    ASSERT_NE(d, nullptr) << name;
    EXPECT_NE(d->cause.find("not text"), std::string::npos) << d->cause;
    const auto text = render_health_text(h, 0.1);
    EXPECT_EQ(text.find("0 Xid lines"), std::string::npos) << text;
    EXPECT_NE(text.find("kernel log: NOT READ"), std::string::npos) << text;
  }
}

TEST(HealthJudge, ACallerTagBeforeTheMessageKeepsTheTime) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log = log_file("caller-tag-xid79-gpu3.log");
  const auto h = judge_report(in);
  const auto* d = find(h, "GPUSPEC-XID-HARDWARE");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->device, 3);
  EXPECT_EQ(d->evidence.at("xid.last_seconds_since_boot"), "5107.644339");
}

TEST(HealthOutputs, JsonCarriesTheDrainReasonAndTheXids) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log = log_file("xid79-gpu3.log");
  const auto j = health_to_json(judge_report(in), 0.25);
  EXPECT_EQ(j.at("schema"), "gpuspec.health.v1");
  EXPECT_EQ(j.at("exit_code"), 2);
  EXPECT_EQ(j.at("drain_reason"), "gpuspec:GPUSPEC-XID-HARDWARE:gpu3");
  EXPECT_EQ(j.at("xids").size(), 3U);
  EXPECT_EQ(j.at("xids")[1].at("class"), "hardware");
  EXPECT_EQ(j.at("check").at("schema"), "gpuspec.check.v1");
}

TEST(HealthOutputs, PrometheusHasTheHealthFamiliesOnly) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log = log_file("xid79-gpu3.log");
  const auto text = render_health_prometheus(judge_report(in), 0.25);
  EXPECT_NE(
      text.find(
          "# TYPE gpuspec_health_status gauge\ngpuspec_health_status{Hostname=\"gpu-node-01\"} 2"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("gpuspec_health_xid_events{gpu=\"3\""), std::string::npos) << text;
  EXPECT_NE(text.find("xid=\"79\",class=\"hardware\"} 2"), std::string::npos) << text;
  EXPECT_NE(text.find("gpuspec_health_kernel_log_read{Hostname=\"gpu-node-01\"} 1"),
            std::string::npos);
  // Never the check's own families: both may sit in one textfile directory.
  EXPECT_EQ(text.find("gpuspec_check_status"), std::string::npos);
  EXPECT_EQ(text.find("gpuspec_gpu_status"), std::string::npos);
}

TEST(HealthOutputs, TextSaysTheKernelLogWasNotRead) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log.state = kernel_log_state::not_read;
  in.kernel_log.why = "/dev/kmsg: Operation not permitted";
  const auto text = render_health_text(judge_report(in), 0.1);
  EXPECT_NE(text.find("kernel log: NOT READ: /dev/kmsg: Operation not permitted"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Verdict: INCONCLUSIVE (exit code 3)"), std::string::npos) << text;
}

} // namespace

// ---- the NVLink fabric: NVLink 5 links, the GPUs' fabric registration, its services --------

namespace fabric {

/// A PCI bus with the inventory's GPUs and no NVSwitch (an NVL72 tray's, a PCIe server's), as
/// read_pci_gpus lists it: sysfs's lower-case "0000:18:00.0".
pci_bus_reading bus_without_switches(const health_input& in) {
  pci_bus_reading bus;
  bus.read = true;
  bus.source = "test";
  for (const auto& d : in.inventory.devices) {
    std::string id = d.pci_bus_id.substr(d.pci_bus_id.size() - 12);
    std::transform(id.begin(), id.end(), id.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    bus.gpus.push_back(id);
  }
  return bus;
}

/// An NVL72 tray as cmd_health takes it: no NVSwitch on its own bus.
health_input tray(const std::string& nvml_config, const std::string& host = "nvl72-tray") {
  auto in = inventory(nvml_config, host);
  in.pci_bus = bus_without_switches(in);
  in.kernel_log = log_file("clean-boot.log");
  return in;
}

std::vector<std::string> codes_of(const gpu_verdict& g) {
  std::vector<std::string> out;
  for (const auto& d : g.diagnoses)
    out.push_back(d.code);
  return out;
}

} // namespace fabric

TEST(HealthFabric, TheFakeNvmlsFabricInfoReachesTheInventory) {
  const auto in = fabric::tray("nvl72-gb200-tray.json");
  ASSERT_EQ(in.inventory.devices.size(), 4U);
  for (const auto& d : in.inventory.devices) {
    ASSERT_TRUE(d.fabric) << d.index;
    EXPECT_EQ(d.fabric->state, "completed");
    EXPECT_EQ(d.fabric->status, "success");
    EXPECT_EQ(d.fabric->cluster_uuid, "5e7e71c0-0000-4000-8000-000000072072");
    EXPECT_EQ(d.fabric->clique_id, 32766);
    EXPECT_EQ(d.fabric->health_mask, 0x1aa);
    EXPECT_EQ(d.fabric->health_summary, "healthy");
    EXPECT_TRUE(d.problems.empty()) << d.problems.front();
  }
  ASSERT_TRUE(in.inventory.host.topology);
  EXPECT_EQ(in.inventory.host.topology->gpus.at(0).nvlink_version, "5.0");
  EXPECT_EQ(in.inventory.host.topology->gpus.at(0).nvlink_link_gbs, 50.0);
  // A GPU without a fabric (NVML: not supported) has none in the inventory.
  const auto pcie = inventory("ten-pcie.json", "pcie-node");
  for (const auto& d : pcie.inventory.devices)
    EXPECT_FALSE(d.fabric) << d.index;
}

TEST(HealthFabric, AHealthyStockNvl72TrayPasses) {
  const auto h = judge_report(fabric::tray("nvl72-gb200-tray.json"));
  for (const auto* d : all(h))
    if (d->code != "GPUSPEC-NO-SPEC-ROW") // the GB200 row is bw-specs' (issue 19.1)
      ADD_FAILURE() << d->code << ": " << d->cause;
  EXPECT_NE(h.check.status, verdict_status::fail);
  EXPECT_EQ(find(h, "GPUSPEC-IMEX-DOWN"), nullptr);
}

TEST(HealthFabric, AHealthyHgxB200Passes) {
  auto in = inventory("hgx-b200-nvswitch.json");
  in.kernel_log = log_file("clean-boot.log");
  ASSERT_FALSE(in.pci_bus.nvswitches.empty());
  ASSERT_FALSE(in.fabric_services.fabric_manager.empty()); // the fixture host runs it
  const auto h = judge_report(in);
  for (const auto* d : all(h))
    if (d->code != "GPUSPEC-NO-SPEC-ROW")
      ADD_FAILURE() << d->code << ": " << d->cause;
}

TEST(HealthFabric, ALinkDownAndARegistrationInProgressFailTheirGpusOnly) {
  auto in = inventory("hgx-b200-link-down.json");
  in.kernel_log = log_file("clean-boot.log");
  const auto h = judge_report(in);
  EXPECT_EQ(h.check.status, verdict_status::fail);
  EXPECT_EQ(gpu(h, 5).status, verdict_status::fail);
  EXPECT_EQ(fabric::codes_of(gpu(h, 5)).front(), "GPUSPEC-NVLINK-DOWN");
  const auto two = fabric::codes_of(gpu(h, 2));
  EXPECT_NE(std::find(two.begin(), two.end(), "GPUSPEC-FABRIC-NOT-REGISTERED"), two.end());
  for (int i : {0, 1, 3, 4, 6, 7}) {
    SCOPED_TRACE(i);
    for (const auto& c : fabric::codes_of(gpu(h, i)))
      EXPECT_EQ(c, "GPUSPEC-NO-SPEC-ROW");
  }
}

TEST(HealthFabric, OneLinkDownOnEveryGpuFailsAgainstTheSpecRowsLinkCount) {
  // Identical siblings agree (17 each); the H100 SXM row's 900 GB/s over 25 GB/s per link and
  // direction says 18.
  auto in = inventory("hgx-h100-every-gpu-17-links.json");
  in.kernel_log = log_file("clean-boot.log");
  const auto h = judge_report(in);
  EXPECT_EQ(h.check.status, verdict_status::fail);
  for (int i = 0; i < 8; ++i) {
    SCOPED_TRACE(i);
    ASSERT_EQ(gpu(h, i).diagnoses.size(), 1U);
    const auto& d = gpu(h, i).diagnoses.front();
    EXPECT_EQ(d.code, "GPUSPEC-NVLINK-DOWN");
    EXPECT_NE(d.cause.find("17 of the 18 NVLink links"), std::string::npos) << d.cause;
    EXPECT_EQ(d.evidence.at("nvlink.links_expected"), "18");
  }
  // The stock node's 18 each pass.
  auto stock = inventory("hgx-h100-nvswitch.json");
  stock.kernel_log = log_file("clean-boot.log");
  EXPECT_EQ(judge_report(stock).check.status, verdict_status::pass);
}

TEST(HealthFabric, EachFabricFaultOfAnNvl72TrayIsItsGpusFinding) {
  const auto h = judge_report(fabric::tray("nvl72-gb200-tray-degraded.json"));
  EXPECT_EQ(h.check.status, verdict_status::fail);
  const auto has = [&](int i, const char* code) {
    const auto c = fabric::codes_of(gpu(h, i));
    return std::find(c.begin(), c.end(), code) != c.end();
  };
  EXPECT_TRUE(has(0, "GPUSPEC-NVLINK-DOWN"));
  EXPECT_TRUE(has(1, "GPUSPEC-FABRIC-DEGRADED"));
  EXPECT_EQ(gpu(h, 1).status, verdict_status::warn);
  EXPECT_TRUE(has(2, "GPUSPEC-FABRIC-NOT-REGISTERED"));
  EXPECT_NE(find(h, "GPUSPEC-FABRIC-NOT-REGISTERED")->cause.find("Timeout"), std::string::npos);
  EXPECT_TRUE(has(3, "GPUSPEC-FABRIC-DOMAIN-SPLIT"));
  EXPECT_FALSE(has(0, "GPUSPEC-FABRIC-DOMAIN-SPLIT"));
  EXPECT_FALSE(has(1, "GPUSPEC-FABRIC-DOMAIN-SPLIT"));
  EXPECT_NE(find(h, "GPUSPEC-FABRIC-DOMAIN-SPLIT")->cause.find("clique 32767"), std::string::npos);
  EXPECT_EQ(find(h, "GPUSPEC-FABRIC-UNHEALTHY"), nullptr);
}

TEST(HealthFabric, AnUnhealthyRouteOrAWrongConfigurationFails) {
  const auto h = judge_report(fabric::tray("nvl72-gb200-tray-unhealthy.json"));
  const auto* d = find(h, "GPUSPEC-FABRIC-UNHEALTHY");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->device, 2);
  EXPECT_EQ(d->severity, verdict_status::fail);
  EXPECT_NE(d->cause.find("route unhealthy"), std::string::npos) << d->cause;
  EXPECT_NE(d->cause.find("insufficient NVLinks"), std::string::npos) << d->cause;
  EXPECT_EQ(d->evidence.at("fabric.health_mask"), "0x59a");
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-FABRIC-UNHEALTHY:gpu2");
}

TEST(HealthFabric, AnHgxNodeWithoutFabricManagerFails) {
  auto in = inventory("hgx-b200-nvswitch.json", "pcie-node"); // no nv-fabricmanager running
  in.kernel_log = log_file("clean-boot.log");
  ASSERT_TRUE(in.fabric_services.read) << in.fabric_services.why;
  const auto h = judge_report(in);
  const auto* d = find(h, "GPUSPEC-FABRIC-MANAGER-DOWN");
  ASSERT_NE(d, nullptr);
  EXPECT_FALSE(d->device);
  EXPECT_EQ(d->evidence.at("nvswitches"), std::to_string(in.pci_bus.nvswitches.size()));
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-FABRIC-MANAGER-DOWN:node");
}

/// A /proc tree in a fresh folder under the test's temporary one: `root/proc/<pid>/` with the
/// given comm, argv and real and effective uid, exe linking to `exe` (whose stand-in file is
/// made in the tree).
struct fake_proc {
  std::filesystem::path root;
  explicit fake_proc(const std::string& name)
      : root(std::filesystem::path(::testing::TempDir()) / ("gpuspec-proc-" + name)) {
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root / "proc");
  }
  ~fake_proc() {
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  }
  fake_proc(const fake_proc&) = delete;
  fake_proc& operator=(const fake_proc&) = delete;
  void add(int pid, const std::string& comm, const std::vector<std::string>& argv, int uid,
           const std::string& exe) const {
    const auto dir = root / "proc" / std::to_string(pid);
    std::filesystem::create_directories(dir);
    write(dir / "comm", comm + "\n");
    std::string cmdline;
    for (const auto& a : argv)
      cmdline += a + '\0';
    write(dir / "cmdline", cmdline);
    write(dir / "status", "Name:\t" + comm + "\nUid:\t" + std::to_string(uid) + "\t" +
                              std::to_string(uid) + "\t" + std::to_string(uid) + "\t" +
                              std::to_string(uid) + "\n");
    std::filesystem::create_symlink(exe, dir / "exe");
    const auto file = root / std::filesystem::path(exe).relative_path();
    std::filesystem::create_directories(file.parent_path());
    if (!std::filesystem::exists(file))
      write(file, "stand-in\n");
  }
  static void write(const std::filesystem::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
  }
};

TEST(HealthFabric, ANameAnyUserCanGiveAProcessIsNoFabricManager) {
  // `exec -a nv-fabricmanager sleep 60` as any user: argv[0] says nv-fabricmanager; what runs is
  // /usr/bin/sleep, as uid 1000. It made GPUSPEC-FABRIC-MANAGER-DOWN disappear.
  auto in = inventory("hgx-b200-nvswitch.json", "pcie-node");
  in.kernel_log = log_file("clean-boot.log");
  const fake_proc proc("exec-a");
  proc.add(4242, "sleep", {"nv-fabricmanager", "60"}, 1000, "/usr/bin/sleep");
  // Its comm too, and its executable named so (a copy in the user's home), run as the user.
  proc.add(4243, "nv-fabricmanage", {"/home/u/nv-fabricmanager"}, 1000, "/home/u/nv-fabricmanager");
  // A root process whose comm and argv say so, running something else.
  proc.add(4244, "nv-fabricmanage", {"/usr/bin/nv-fabricmanager"}, 0, "/usr/bin/python3.11");
  in.fabric_services = gpuspec::host::read_fabric_services(proc.root, "pcie-node");
  ASSERT_TRUE(in.fabric_services.read) << in.fabric_services.why;
  EXPECT_TRUE(in.fabric_services.fabric_manager.empty());
  const auto h = judge_report(in);
  EXPECT_NE(find(h, "GPUSPEC-FABRIC-MANAGER-DOWN"), nullptr);
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-FABRIC-MANAGER-DOWN:node");

  // The daemon itself: its executable, run by root, counts.
  const fake_proc real("daemon");
  real.add(2817, "nv-fabricmanage", {"/usr/bin/nv-fabricmanager", "-c", "x.cfg"}, 0,
           "/usr/bin/nv-fabricmanager");
  EXPECT_EQ(gpuspec::host::read_fabric_services(real.root, "n").fabric_manager,
            std::vector<std::string>{"2817 (nv-fabricmanager)"});
  // ...but not from a file anyone but root may have written.
  const auto binary = real.root / "usr/bin/nv-fabricmanager";
  if (::geteuid() == 0) {
    ASSERT_EQ(::chown(binary.c_str(), 65534, 65534), 0);
  } else { // the tree is the test user's: a file someone else owns stands for a user's
    std::filesystem::remove(binary);
    std::filesystem::create_symlink("/", binary);
  }
  EXPECT_TRUE(gpuspec::host::read_fabric_services(real.root, "n").fabric_manager.empty());

  // Run unprivileged, gpuspec cannot read a root process's exe link: a root process's comm is
  // taken then, and said to be (here the link is a plain file, which readlink refuses too).
  const fake_proc unread("unread");
  unread.add(2817, "nv-fabricmanage", {"/usr/bin/nv-fabricmanager"}, 0, "/usr/bin/x");
  unread.add(4242, "nv-fabricmanage", {"nv-fabricmanager"}, 1000, "/usr/bin/x");
  for (const int pid : {2817, 4242}) {
    const auto exe = unread.root / "proc" / std::to_string(pid) / "exe";
    std::filesystem::remove(exe);
    fake_proc::write(exe, "");
  }
  EXPECT_EQ(
      gpuspec::host::read_fabric_services(unread.root, "n").fabric_manager,
      std::vector<std::string>{"2817 (nv-fabricmanage, run by root; its exe link not readable)"});
}

TEST(HealthFabric, APcieServerNeedsNoFabricAndGetsNoFabricFinding) {
  auto in = inventory("ten-pcie.json", "pcie-node");
  in.pci_bus = fabric::bus_without_switches(in);
  in.kernel_log = log_file("clean-boot.log");
  const auto h = judge_report(in);
  for (const auto* d : all(h)) {
    EXPECT_EQ(d->code.find("FABRIC"), std::string::npos) << d->code;
    EXPECT_EQ(d->code.find("IMEX"), std::string::npos) << d->code;
  }
  for (const auto& n : h.check.notes)
    EXPECT_EQ(n.find("fabric"), std::string::npos) << n;
}

TEST(HealthFabric, ImexConfiguredButNotRunningWarns) {
  const auto h = judge_report(fabric::tray("nvl72-gb200-tray.json", "nvl72-tray-imex-down"));
  const auto* d = find(h, "GPUSPEC-IMEX-DOWN");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, verdict_status::warn);
  EXPECT_FALSE(d->device);
}

TEST(HealthFabric, AnImexNodeListWithoutThisNodeFails) {
  const auto in = fabric::tray("nvl72-gb200-tray.json", "nvl72-tray-imex-not-listed");
  EXPECT_EQ(in.fabric_services.imex_nodes.size(), 17U);
  const auto h = judge_report(in);
  const auto* d = find(h, "GPUSPEC-IMEX-NODE-MISSING");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, verdict_status::fail);
  EXPECT_NE(d->cause.find("10.0.0.3"), std::string::npos) << d->cause;
  // The stock tray's list names it.
  const auto ok = fabric::tray("nvl72-gb200-tray.json");
  EXPECT_EQ(ok.fabric_services.imex_node_entry, "10.0.0.3");
  EXPECT_EQ(ok.fabric_services.imex, std::vector<std::string>{"3101 (nvidia-imex)"});
}

TEST(HealthFabric, TheJsonAndTextSayWhatTheFabricNeedsAndWhatRuns) {
  // HGX B200: NVSwitches on the bus, the fixture host's fabric manager running.
  auto hgx = inventory("hgx-b200-nvswitch.json");
  hgx.kernel_log = log_file("clean-boot.log");
  const auto h = judge_report(hgx);
  auto j = health_to_json(h, 0.1);
  EXPECT_EQ(j.at("fabric").at("needs"), "fabric manager");
  EXPECT_EQ(j.at("fabric").at("services_read"), true);
  EXPECT_EQ(j.at("fabric").at("fabric_manager"), hgx.fabric_services.fabric_manager);
  EXPECT_EQ(j.at("pci_bus").at("nvswitches").size(), hgx.pci_bus.nvswitches.size());
  EXPECT_NE(render_health_text(h, 0.1).find("\nfabric: needs fabric manager; running: "),
            std::string::npos);
  // Without the fabric manager: the same block, nothing running, and the finding.
  auto down = inventory("hgx-b200-nvswitch.json", "pcie-node");
  down.kernel_log = log_file("clean-boot.log");
  const auto hd = judge_report(down);
  EXPECT_TRUE(health_to_json(hd, 0.1).at("fabric").at("fabric_manager").empty());
  EXPECT_NE(render_health_text(hd, 0.1).find("\nfabric: needs fabric manager; not running\n"),
            std::string::npos);
  // An NVL72 tray: IMEX, its configuration and the node list's entry for this node.
  const auto tray = judge_report(fabric::tray("nvl72-gb200-tray.json"));
  j = health_to_json(tray, 0.1);
  EXPECT_EQ(j.at("fabric").at("needs"), "imex");
  EXPECT_EQ(j.at("fabric").at("imex"), std::vector<std::string>{"3101 (nvidia-imex)"});
  EXPECT_EQ(j.at("fabric").at("imex_node_entry"), "10.0.0.3");
  EXPECT_FALSE(j.at("fabric").at("imex_config").is_null());
  // A PCIe server: no fabric, `needs` null, no line in the text.
  auto pcie = inventory("ten-pcie.json", "pcie-node");
  pcie.pci_bus = fabric::bus_without_switches(pcie);
  pcie.kernel_log = log_file("clean-boot.log");
  const auto hp = judge_report(pcie);
  EXPECT_TRUE(health_to_json(hp, 0.1).at("fabric").at("needs").is_null());
  EXPECT_EQ(render_health_text(hp, 0.1).find("\nfabric:"), std::string::npos);
}

TEST(HealthFabric, ATrayWithoutImexConfiguredIsANoteNotAFinding) {
  const auto h = judge_report(fabric::tray("nvl72-gb200-tray.json", "pcie-node"));
  EXPECT_EQ(find(h, "GPUSPEC-IMEX-DOWN"), nullptr);
  EXPECT_EQ(find(h, "GPUSPEC-IMEX-NODE-MISSING"), nullptr);
  bool noted = false;
  for (const auto& n : h.check.notes)
    noted = noted || n.find("without IMEX configured") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(FabricServices, ParsersReadTheKernelsAndImexsFormats) {
  EXPECT_EQ(gpuspec::host::parse_fib_trie_local("Local:\n  +-- 10.0.0.0/24 2 0 2\n     |-- "
                                                "10.0.0.3\n        /32 host LOCAL\n     |-- "
                                                "127.0.0.1\n        /32 host LOCAL\n"),
            std::vector<std::string>{"10.0.0.3"});
  EXPECT_EQ(gpuspec::host::parse_if_inet6("00000000000000000000000000000001 01 80 10 80 lo\n"
                                          "fe800000000000000a0000fffe000003 02 40 20 80 eth0\n"),
            std::vector<std::string>{"fe80::a00:ff:fe00:3"});
  EXPECT_EQ(gpuspec::host::parse_imex_nodes("# rack 1\n10.0.0.1\n\n  10.0.0.2  # tray 2\n"),
            (std::vector<std::string>{"10.0.0.1", "10.0.0.2"}));
  // Not there at all: not read, with why.
  const auto none = gpuspec::host::read_fabric_services("/nonexistent/root", "x");
  EXPECT_FALSE(none.read);
  EXPECT_FALSE(none.why.empty());
}
