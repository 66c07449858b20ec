// The health judge (reports/health.hpp) over inventories taken the way `gpuspec health` takes
// them: the spine's inventory through the fake NVML (tests/fakes) on a fixture host root, the
// shipped spec table and expectation settings. For every rule, the degraded input that must trip
// it and the healthy one that must not.

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "gpuspec/benches/kernel_log.hpp"
#include "gpuspec/reports/expectations.hpp"
#include "gpuspec/reports/health.hpp"
#include "gpuspec/spine/inventory.hpp"

namespace {

using namespace gpuspec::reports;

const spec_table& shipped_specs() {
  static const spec_table t = [] {
    auto loaded = load_spec_table(GPUSPEC_SPECS_DIR "/gpus.json");
    if (!loaded)
      throw std::runtime_error(loaded.error().to_string());
    return std::move(loaded).value();
  }();
  return t;
}

const expectation_settings& settings() {
  static const expectations e = [] {
    auto loaded = load_expectations(GPUSPEC_SPECS_DIR "/expect.json");
    if (!loaded)
      throw std::runtime_error(loaded.error().to_string());
    return std::move(loaded).value();
  }();
  return e.settings;
}

/// The inventory of a fake-NVML configuration on a fixture host, as cmd_health takes it.
health_input inventory(const std::string& nvml_config, const std::string& host = "x86-gpu-node") {
  ::setenv("GPUSPEC_NVML_LIBRARY", GPUSPEC_FAKE_NVML_PATH, 1);
  ::setenv("GPUSPEC_FAKE_NVML_CONFIG", (GPUSPEC_FAKE_NVML_CONFIGS "/" + nvml_config).c_str(), 1);
  const std::string root = GPUSPEC_FIXTURES_DIR "/hosts/" + host;
  auto inv = gpuspec::spine::take_inventory(root, {});
  gpuspec::spine::match_spec_rows(shipped_specs(), inv.devices);
  health_input in;
  in.inventory.host = inv.host;
  in.inventory.devices = inv.devices;
  in.kernel_module_version = gpuspec::benches::read_nvidia_module_version(root);
  in.kernel_log.state = kernel_log_state::read;
  in.kernel_log.source = "test";
  return in;
}

/// A kernel log from a fixture file, read as cmd_health reads GPUSPEC_KERNEL_LOG.
kernel_log_reading log_file(const std::string& name) {
  const auto text = gpuspec::benches::read_kernel_log(GPUSPEC_FIXTURES_DIR "/kernel-log/" + name);
  EXPECT_TRUE(text.read) << text.why;
  kernel_log_reading r;
  r.state = kernel_log_state::read;
  r.source = text.source;
  r.events = parse_xid_log(text.text);
  return r;
}

health_outcome judge(const health_input& in) {
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
  const auto h = judge(in);
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
  const auto h = judge(in);
  EXPECT_EQ(h.check.status, verdict_status::warn);
  EXPECT_EQ(gpu(h, 3).status, verdict_status::warn);
  EXPECT_EQ(gpu(h, 2).status, verdict_status::pass);
  const auto* d = find(h, "GPUSPEC-ROW-REMAP-PENDING");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->device, 3);
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-ROW-REMAP-PENDING:gpu3");
}

TEST(HealthJudge, Xid79InTheKernelLogFailsItsGpuOnly) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log = log_file("xid79-gpu3.log");
  const auto h = judge(in);
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

TEST(HealthJudge, ApplicationXidsAloneDoNotFailTheNode) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log = log_file("xid13-application.log");
  const auto h = judge(in);
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
  const auto h = judge(in);
  const auto* d = find(h, "GPUSPEC-XID-DRIVER");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->device, 1);
  EXPECT_EQ(d->severity, verdict_status::fail);
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-XID-DRIVER:gpu1");
}

TEST(HealthJudge, AnXidNotInTheCatalogWarnsItIsNeverBenign) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log.events = {event(4242, "0000:18:00")};
  const auto h = judge(in);
  const auto* d = find(h, "GPUSPEC-XID-UNKNOWN");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, verdict_status::warn);
  EXPECT_EQ(h.check.status, verdict_status::warn);
}

TEST(HealthJudge, AnXidAtAnAddressNoGpuHasIsTheNodesFinding) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log.events = {event(79, "0000:3b:00")};
  const auto h = judge(in);
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
  const auto h = judge(in);
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
  const auto h = judge(in);
  EXPECT_EQ(h.check.status, verdict_status::fail);
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-ROW-REMAP-FAILURE:gpu5");
}

TEST(HealthJudge, ASkippedKernelLogIsNotedNotPassedOff) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log.state = kernel_log_state::skipped;
  const auto h = judge(in);
  EXPECT_EQ(h.check.status, verdict_status::pass);
  EXPECT_EQ(find(h, "GPUSPEC-KERNEL-LOG-UNREAD"), nullptr);
  ASSERT_EQ(h.check.notes.size(), 1U);
  EXPECT_NE(h.check.notes[0].find("not checked"), std::string::npos);
}

TEST(HealthJudge, KernelModuleOlderThanTheLibrariesFails) {
  auto in = inventory("eight-healthy.json", "x86-gpu-node-old-module");
  ASSERT_EQ(in.kernel_module_version, "575.57.08");
  const auto h = judge(in);
  const auto* d = find(h, "GPUSPEC-DRIVER-MISMATCH");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->evidence.at("kernel_module"), "575.57.08");
  EXPECT_EQ(d->evidence.at("nvml_driver"), "580.65.06");
  EXPECT_EQ(h.drain_reason, "gpuspec:GPUSPEC-DRIVER-MISMATCH:node");
}

TEST(HealthJudge, NvmlLibraryMismatchFailsWhileAMissingDriverIsUnknown) {
  const auto mismatch = judge(inventory("driver-library-mismatch.json"));
  EXPECT_EQ(mismatch.check.status, verdict_status::fail);
  EXPECT_NE(find(mismatch, "GPUSPEC-DRIVER-MISMATCH"), nullptr);

  const auto missing = judge(inventory("driver-not-loaded.json"));
  EXPECT_EQ(missing.check.status, verdict_status::inconclusive);
  EXPECT_EQ(find(missing, "GPUSPEC-DRIVER-MISMATCH"), nullptr);
  EXPECT_NE(missing.check.nodes.front().message.find("nvmlInit_v2"), std::string::npos);
}

TEST(HealthJudge, AVbiosOtherThanTheMajoritysWarnsOnThatGpuOnly) {
  auto in = inventory("eight-healthy.json");
  in.inventory.devices[6].vbios = "96.00.61.00.01";
  const auto h = judge(in);
  const auto* d = find(h, "GPUSPEC-VBIOS-MIXED");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->device, 6);
  EXPECT_EQ(gpu(h, 6).status, verdict_status::warn);
  EXPECT_EQ(gpu(h, 5).status, verdict_status::pass);
}

TEST(HealthJudge, UncorrectableEccSinceTheDriverLoadedFails) {
  auto in = inventory("eight-healthy.json");
  in.inventory.devices[2].counters_before["ecc.volatile.uncorrected"] = reading::of(2);
  const auto h = judge(in);
  const auto* d = find(h, "GPUSPEC-ECC-UNCORRECTED");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->device, 2);
  EXPECT_NE(d->cause.find("since the driver loaded"), std::string::npos);
  // The aggregate (lifetime) count is history, not today's health: it trips nothing.
  auto lifetime = inventory("eight-healthy.json");
  lifetime.inventory.devices[2].counters_before["ecc.aggregate.uncorrected"] = reading::of(2);
  EXPECT_EQ(find(judge(lifetime), "GPUSPEC-ECC-UNCORRECTED"), nullptr);
}

TEST(HealthJudge, PcieLinkBelowTheCardsWidthWarnsAgainstTheSpecRow) {
  auto in = inventory("eight-healthy.json");
  in.inventory.devices[4].pcie.width_current = 8;
  const auto h = judge(in);
  const auto* d = find(h, "GPUSPEC-PCIE-LINK-DEGRADED");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->device, 4);
}

TEST(HealthJudge, ASlotRiserOrBiosThatCapsTheLinkWarnsOnThatGpuFromIdleReadings) {
  // pcie-links.json: GPU 1's maximum with this system is Gen4 under its own Gen5 (NVML's two
  // maxima); GPU 0 idles at Gen1 (power saving) and GPU 2 is a Gen4 card in a Gen4 system.
  auto in = inventory("pcie-links.json");
  in.kernel_log = log_file("clean-boot.log");
  const auto h = judge(in);
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
  const auto h = judge(in);
  const auto* d = find(h, "GPUSPEC-NVLINK-DOWN");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->device, 7);
}

TEST(HealthJudge, PersistenceOffAndEccOffWarn) {
  auto in = inventory("eight-healthy.json");
  in.inventory.devices[1].persistence_mode = "disabled";
  in.inventory.devices[1].ecc_mode = "disabled";
  const auto h = judge(in);
  EXPECT_NE(find(h, "GPUSPEC-PERSISTENCE-OFF"), nullptr);
  EXPECT_NE(find(h, "GPUSPEC-ECC-DISABLED"), nullptr);
  EXPECT_EQ(gpu(h, 1).status, verdict_status::warn);
}

TEST(HealthOutputs, JsonCarriesTheDrainReasonAndTheXids) {
  auto in = inventory("eight-healthy.json");
  in.kernel_log = log_file("xid79-gpu3.log");
  const auto j = health_to_json(judge(in), 0.25);
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
  const auto text = render_health_prometheus(judge(in), 0.25);
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
  const auto text = render_health_text(judge(in), 0.1);
  EXPECT_NE(text.find("kernel log: NOT READ: /dev/kmsg: Operation not permitted"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Verdict: INCONCLUSIVE (exit code 3)"), std::string::npos) << text;
}

} // namespace
