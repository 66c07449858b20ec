// nvml_library, probe_devices, read_error_counters and counter_delta, against the fake NVML
// (tests/fakes) and its configurations in tests/fixtures/nvml.

#include "gpuspec/host/device_probe.hpp"
#include "gpuspec/host/gpu_activity.hpp"
#include "gpuspec/host/nvml_library.hpp"
#include "gpuspec/reports/model/text_format.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "gpuspec/reports/judge/host_rules.hpp"

namespace gb = gpuspec::host;
using gpuspec::reports::counter_set;
using gpuspec::reports::reading;

namespace {

const std::string fake_path = GPUSPEC_FAKE_NVML_PATH;
const std::filesystem::path configs = GPUSPEC_FAKE_NVML_CONFIGS;

const char* const all_counters[] = {"ecc.volatile.corrected",
                                    "ecc.volatile.uncorrected",
                                    "ecc.aggregate.corrected",
                                    "ecc.aggregate.uncorrected",
                                    "retired_pages.single_bit",
                                    "retired_pages.double_bit",
                                    "retired_pages.pending",
                                    "remapped_rows.correctable",
                                    "remapped_rows.uncorrectable",
                                    "remapped_rows.pending",
                                    "remapped_rows.failure",
                                    "pcie.replay",
                                    "nvlink.links_active",
                                    "nvlink.crc_flit",
                                    "nvlink.crc_data",
                                    "nvlink.replay",
                                    "nvlink.recovery"};

/// Points the fake at `config` (or at nothing) for the next nvmlInit_v2.
void use_config(const std::optional<std::filesystem::path>& config) {
  if (config)
    ::setenv("GPUSPEC_FAKE_NVML_CONFIG", config->c_str(), 1);
  else
    ::unsetenv("GPUSPEC_FAKE_NVML_CONFIG");
}

/// A configuration written for one test.
std::filesystem::path write_config(const std::string& name, const std::string& json) {
  const auto path =
      std::filesystem::path(::testing::TempDir()) / ("gpuspec_fake_nvml_" + name + ".json");
  std::ofstream(path) << json;
  return path;
}

gb::nvml_library open_fake(const std::optional<std::filesystem::path>& config) {
  use_config(config);
  std::string why;
  auto lib = gb::nvml_library::open(why, fake_path);
  if (!lib)
    throw std::runtime_error("the fake NVML did not open: " + why);
  return std::move(*lib);
}

bool has_problem_starting(const gpuspec::reports::device_info& d, const std::string& prefix) {
  for (const auto& p : d.problems)
    if (p.rfind(prefix, 0) == 0)
      return true;
  return false;
}

} // namespace

// --- nvml_library ------------------------------------------------------------------------

TEST(NvmlLibrary, MissingLibrarySaysSoPlainly) {
  std::string why;
  const auto lib = gb::nvml_library::open(why, "/nonexistent/libnvidia-ml.so.1");
  EXPECT_FALSE(lib);
  EXPECT_EQ(why.rfind("no NVIDIA driver: /nonexistent/libnvidia-ml.so.1 could not be opened (", 0),
            0u)
      << why;
  EXPECT_NE(why.find("No such file"), std::string::npos) << "dlerror's words are kept: " << why;
}

TEST(NvmlLibrary, DefaultNameOnThisMachine) {
  std::string why;
  const auto lib = gb::nvml_library::open(why);
  if (lib)
    GTEST_SKIP() << "this machine has an NVIDIA driver";
  EXPECT_EQ(why.rfind("no NVIDIA driver: libnvidia-ml.so.1 could not be opened (", 0), 0u) << why;
}

TEST(NvmlLibrary, ALibraryThatIsNotNvml) {
  std::string why;
  const auto lib = gb::nvml_library::open(why, "libm.so.6");
  EXPECT_FALSE(lib);
  EXPECT_NE(why.find("does not export nvmlInit_v2"), std::string::npos) << why;
}

TEST(NvmlLibrary, InitFailureIsReported) {
  use_config(configs / "driver-not-loaded.json");
  std::string why;
  const auto lib = gb::nvml_library::open(why, fake_path);
  EXPECT_FALSE(lib);
  EXPECT_EQ(why, "nvmlInit_v2 failed: Driver Not Loaded (is the NVIDIA kernel module loaded?)");
}

TEST(NvmlLibrary, MalformedConfigFailsInit) {
  use_config(write_config("malformed", "{ not json"));
  std::string why;
  EXPECT_FALSE(gb::nvml_library::open(why, fake_path));
  EXPECT_NE(why.find("nvmlInit_v2 failed"), std::string::npos) << why;
}

TEST(NvmlLibrary, NoConfigMeansNoDevices) {
  const auto lib = open_fake(std::nullopt);
  unsigned count = 99;
  ASSERT_EQ(lib.api().device_count(&count), NVML_SUCCESS);
  EXPECT_EQ(count, 0u);
  EXPECT_TRUE(gb::probe_devices(lib).empty());
}

TEST(NvmlLibrary, OpensTheFakeAndResolvesEveryEntryPoint) {
  const auto lib = open_fake(configs / "two-healthy.json");
  const gb::nvml_api& api = lib.api();
  unsigned count = 0;
  ASSERT_EQ(api.device_count(&count), NVML_SUCCESS);
  EXPECT_EQ(count, 2u);
  EXPECT_NE(api.pci_info, nullptr);
  EXPECT_NE(api.gpu_pcie_gen_max, nullptr);
  EXPECT_NE(api.temperature, nullptr);
  EXPECT_NE(api.temperature_threshold, nullptr);
  EXPECT_NE(api.nvlink_error_counter, nullptr);
  EXPECT_NE(api.clocks_event_reasons, nullptr)
      << "the fake exports only the older ...ClocksThrottleReasons name";
  EXPECT_EQ(lib.error_text(NVML_ERROR_NOT_SUPPORTED), "Not Supported");
  EXPECT_EQ(lib.error_text(NVML_ERROR_GPU_IS_LOST), "GPU is lost");
}

TEST(NvmlLibrary, MoveOnly) {
  static_assert(!std::is_copy_constructible_v<gb::nvml_library>);
  static_assert(std::is_nothrow_move_constructible_v<gb::nvml_library>);
  auto a = open_fake(configs / "two-healthy.json");
  gb::nvml_library b(std::move(a));
  EXPECT_EQ(a.api().init, nullptr); // NOLINT(bugprone-use-after-move): the moved-from state
  EXPECT_EQ(a.error_text(NVML_ERROR_NOT_SUPPORTED), "NVML error 3");
  unsigned count = 0;
  ASSERT_EQ(b.api().device_count(&count), NVML_SUCCESS);
  EXPECT_EQ(count, 2u);

  auto c = open_fake(configs / "two-healthy.json"); // NVML counts its initialisations
  c = std::move(b);
  ASSERT_EQ(c.api().device_count(&count), NVML_SUCCESS);
  EXPECT_EQ(count, 2u);
}

// --- versions and devices ----------------------------------------------------------------

TEST(ProbeDriverVersions, DriverAndCuda) {
  gpuspec::reports::host_info host;
  {
    const auto lib = open_fake(configs / "two-healthy.json");
    gb::probe_driver_versions(lib, host);
  }
  EXPECT_EQ(host.driver_version, "580.65.06");
  EXPECT_EQ(host.cuda_driver_version, "13.0");

  const auto lib = open_fake(configs / "degraded.json");
  gb::probe_driver_versions(lib, host);
  EXPECT_EQ(host.driver_version, "550.90.07");
  EXPECT_EQ(host.cuda_driver_version, "12.4");
}

TEST(ProbeDevices, TheNvlinkC2cLinkAndAddressingMode) {
  // A PCIe GPU whose NVML answers neither query: no c2c, so its report is unchanged.
  {
    const auto lib = open_fake(configs / "two-healthy.json");
    for (const auto& d : gb::probe_devices(lib))
      EXPECT_FALSE(d.c2c) << d.index;
  }
  const auto lib = open_fake(configs / "c2c-two.json");
  const auto devices = gb::probe_devices(lib);
  ASSERT_EQ(devices.size(), 2u);
  ASSERT_TRUE(devices[0].c2c);
  EXPECT_EQ(devices[0].c2c->mode, "enabled");
  EXPECT_EQ(devices[0].c2c->addressing_mode, "ats");
  EXPECT_TRUE(gpuspec::reports::is_c2c_attached(devices[0]));
  ASSERT_TRUE(devices[1].c2c);
  EXPECT_EQ(devices[1].c2c->mode, "disabled");
  EXPECT_EQ(devices[1].c2c->addressing_mode, "hmm");
  EXPECT_FALSE(gpuspec::reports::is_c2c_attached(devices[1]));
  EXPECT_TRUE(devices[0].problems.empty());
}

TEST(ProbeDevices, TwoHealthyFieldByField) {
  const auto lib = open_fake(configs / "two-healthy.json");
  const auto devices = gb::probe_devices(lib);
  ASSERT_EQ(devices.size(), 2u);
  const auto& d = devices[0];
  EXPECT_EQ(d.index, 0);
  EXPECT_FALSE(d.cuda_index);
  EXPECT_EQ(d.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d.uuid, "GPU-5e7e71c0-0000-4000-8000-000000000000");
  EXPECT_EQ(d.serial, "SYNTHETIC-0000");
  EXPECT_EQ(d.vbios, "96.00.99.00.01");
  EXPECT_EQ(d.pci_bus_id, "00000000:18:00.0");
  EXPECT_EQ(d.pci_device_id, 0x2330u);
  EXPECT_EQ(d.pci_subsystem_id, 0x16C110DEu);
  EXPECT_EQ(d.cc_major, 9);
  EXPECT_EQ(d.cc_minor, 0);
  EXPECT_FALSE(d.sm_count) << "the CUDA side fills it";
  EXPECT_EQ(d.memory_bytes, 85520809984);
  EXPECT_EQ(d.sm_clock_mhz, 1980);
  EXPECT_EQ(d.sm_clock_max_mhz, 1980);
  EXPECT_EQ(d.mem_clock_mhz, 2619);
  EXPECT_EQ(d.mem_clock_max_mhz, 2619);
  EXPECT_EQ(d.memory_bus_width_bits, 5120);
  EXPECT_EQ(d.pcie.gen_current, 5);
  EXPECT_EQ(d.pcie.gen_max, 5);
  EXPECT_EQ(d.pcie.gen_max_system, 5);
  EXPECT_EQ(d.pcie.width_current, 16);
  EXPECT_EQ(d.pcie.width_max, 16);
  EXPECT_EQ(d.power_limit_w, 700.0);
  EXPECT_EQ(d.power_limit_default_w, 700.0);
  EXPECT_EQ(d.power_limit_max_w, 700.0);
  EXPECT_EQ(d.temperature_c, 34);
  EXPECT_EQ(d.ecc_mode, "enabled");
  EXPECT_EQ(d.ecc_mode_pending, "enabled");
  EXPECT_EQ(d.mig_mode, "disabled");
  EXPECT_EQ(d.persistence_mode, "enabled");
  EXPECT_TRUE(d.problems.empty()) << d.problems.front();
  EXPECT_TRUE(d.counters_after.empty());
  EXPECT_TRUE(d.counters_delta.empty());

  const counter_set& c = d.counters_before;
  for (const char* name : all_counters) {
    ASSERT_TRUE(c.contains(name)) << name;
    EXPECT_TRUE(c.at(name).value) << name << ": " << c.at(name).status;
  }
  EXPECT_EQ(c.at("ecc.aggregate.corrected"), reading::of(3));
  EXPECT_EQ(c.at("ecc.volatile.uncorrected"), reading::of(0));
  EXPECT_EQ(c.at("nvlink.links_active"), reading::of(18));
  EXPECT_EQ(c.at("nvlink.crc_flit"), reading::of(0));

  EXPECT_EQ(devices[1].index, 1);
  EXPECT_EQ(devices[1].pci_bus_id, "00000000:2A:00.0");
  EXPECT_EQ(devices[1].temperature_c, 36);
  // GPU 0 reports its slowdown threshold; GPU 1 does not, which is not a problem.
  EXPECT_EQ(devices[0].temperature_slowdown_c, 87);
  EXPECT_FALSE(devices[1].temperature_slowdown_c.has_value());
  EXPECT_TRUE(devices[1].problems.empty());
}

TEST(ProbeDevices, Degraded) {
  const auto lib = open_fake(configs / "degraded.json");
  const auto devices = gb::probe_devices(lib);
  ASSERT_EQ(devices.size(), 1u);
  const auto& d = devices[0];
  EXPECT_EQ(d.pci_device_id, 0x2331u);
  EXPECT_EQ(d.pcie.width_current, 8);
  EXPECT_EQ(d.pcie.width_max, 16);
  EXPECT_EQ(d.power_limit_w, 300.0);
  EXPECT_EQ(d.power_limit_default_w, 350.0);
  EXPECT_EQ(d.persistence_mode, "disabled");
  EXPECT_EQ(d.temperature_c, 86);
  EXPECT_TRUE(d.problems.empty()) << d.problems.front();

  const counter_set& c = d.counters_before;
  EXPECT_EQ(c.at("ecc.volatile.uncorrected"), reading::of(2));
  EXPECT_EQ(c.at("ecc.aggregate.uncorrected"), reading::of(2));
  EXPECT_EQ(c.at("ecc.volatile.corrected"), reading::of(12));
  EXPECT_EQ(c.at("remapped_rows.uncorrectable"), reading::of(1));
  EXPECT_EQ(c.at("remapped_rows.pending"), reading::of(1));
  EXPECT_EQ(c.at("remapped_rows.failure"), reading::of(0));
  EXPECT_EQ(c.at("pcie.replay"), reading::of(17));
  for (const char* name : {"nvlink.links_active", "nvlink.crc_flit", "nvlink.crc_data",
                           "nvlink.replay", "nvlink.recovery"})
    EXPECT_EQ(c.at(name), reading::not_supported()) << name;
}

TEST(ProbeDevices, BothMaximumGenerationsAreRead) {
  // pcie-links.json: GPU 1's maximum with this system (nvmlDeviceGetMaxPcieLinkGeneration) is
  // Gen4 under its own Gen5 (nvmlDeviceGetGpuMaxPcieLinkGeneration), as behind a Gen4 riser.
  const auto lib = open_fake(configs / "pcie-links.json");
  const auto devices = gb::probe_devices(lib);
  ASSERT_EQ(devices.size(), 3u);
  EXPECT_EQ(devices[0].pcie, (gpuspec::reports::pcie_link{1, 5, 16, 16, 5}));
  EXPECT_EQ(devices[1].pcie, (gpuspec::reports::pcie_link{1, 5, 16, 16, 4}));
  EXPECT_EQ(devices[2].pcie, (gpuspec::reports::pcie_link{1, 4, 16, 16, 4}));
  for (const auto& d : devices)
    EXPECT_TRUE(d.problems.empty()) << d.problems.front();
}

TEST(ProbeDevices, NotSupportedAndLostGpu) {
  const auto lib = open_fake(configs / "mixed-lost.json");
  const auto devices = gb::probe_devices(lib);
  ASSERT_EQ(devices.size(), 2u);

  // GPU 0: complete where it can be, "not supported" where the GPU cannot say.
  const auto& d = devices[0];
  EXPECT_EQ(d.name, "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(d.pci_device_id, 0x2684u);
  EXPECT_EQ(d.serial, "");
  EXPECT_TRUE(has_problem_starting(d, "nvmlDeviceGetSerial: Not Supported"));
  EXPECT_EQ(d.ecc_mode, "not supported");
  EXPECT_EQ(d.ecc_mode_pending, "not supported");
  EXPECT_EQ(d.mig_mode, "not supported");
  EXPECT_EQ(d.persistence_mode, "disabled");
  EXPECT_FALSE(has_problem_starting(d, "nvmlDeviceGetEccMode")) << "not supported is an answer";
  EXPECT_FALSE(has_problem_starting(d, "nvmlDeviceGetMigMode"));
  EXPECT_EQ(d.pcie.gen_current, 1);
  EXPECT_FALSE(d.pcie.gen_max) << "the GPU's own is unknown; the system's never stands in";
  EXPECT_EQ(d.pcie.gen_max_system, 4);
  EXPECT_FALSE(has_problem_starting(d, "nvmlDeviceGetMaxPcieLinkGeneration"));
  EXPECT_FALSE(has_problem_starting(d, "nvmlDeviceGetGpuMaxPcieLinkGeneration"));
  EXPECT_FALSE(d.memory_bus_width_bits);
  EXPECT_TRUE(has_problem_starting(d, "nvmlDeviceGetMemoryBusWidth: Insufficient Permissions"));
  EXPECT_EQ(d.sm_clock_max_mhz, 3105);
  EXPECT_EQ(d.power_limit_max_w, 600.0);
  EXPECT_EQ(d.problems.size(), 2u);

  const counter_set& c = d.counters_before;
  for (const char* name : all_counters) {
    ASSERT_TRUE(c.contains(name)) << name;
    if (std::string(name) == "pcie.replay")
      EXPECT_EQ(c.at(name), reading::of(0));
    else
      EXPECT_EQ(c.at(name), reading::not_supported()) << name << " must never read 0";
  }

  // GPU 1: lost. One problem, no invented values, counters unavailable.
  const auto& lost = devices[1];
  EXPECT_EQ(lost.index, 1);
  ASSERT_EQ(lost.problems.size(), 1u);
  EXPECT_EQ(lost.problems[0], "nvmlDeviceGetName: GPU is lost (further queries skipped)");
  EXPECT_EQ(lost.name, "");
  EXPECT_EQ(lost.uuid, "");
  EXPECT_FALSE(lost.memory_bytes);
  EXPECT_FALSE(lost.temperature_c);
  EXPECT_EQ(lost.persistence_mode, "");
  EXPECT_EQ(lost.ecc_mode, "");
  for (const char* name : all_counters)
    EXPECT_EQ(lost.counters_before.at(name), reading::unavailable("GPU is lost")) << name;
}

/// A root whose /proc/driver/nvidia/gpus lists `bus_ids` (the driver's information files).
std::filesystem::path driver_root(const std::string& name,
                                  const std::vector<std::string>& bus_ids) {
  const auto root = std::filesystem::path(::testing::TempDir()) / ("gpuspec_driver_" + name);
  std::filesystem::remove_all(root);
  for (std::size_t k = 0; k < bus_ids.size(); ++k) {
    const auto dir = root / "proc/driver/nvidia/gpus" / bus_ids[k];
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "information")
        << "Model: \t\t NVIDIA H100 80GB HBM3\nGPU UUID: \t GPU-driver-" << k
        << "\nBus Location: \t " << bus_ids[k] << "\nDevice Minor: \t " << k << "\n";
  }
  return root;
}

TEST(IdentifyLostDevices, TheDriversListNamesTheGpuNvmlLost) {
  const auto lib = open_fake(configs / "mixed-lost.json");
  auto devices = gb::probe_devices(lib);
  ASSERT_EQ(devices[1].pci_bus_id, "") << "NVML could not name it";
  // Healthy: nothing lost without a bus id, nothing changes (GPU 0 answered).
  auto healthy = std::vector<gpuspec::reports::device_info>{devices[0]};
  gb::identify_lost_devices(healthy, GPUSPEC_FIXTURES_DIR "/hosts/lost-gpu");
  EXPECT_EQ(healthy[0], devices[0]);

  gb::identify_lost_devices(devices, GPUSPEC_FIXTURES_DIR "/hosts/lost-gpu");
  const auto& lost = devices[1];
  EXPECT_EQ(lost.pci_bus_id, "00000000:02:00.0");
  EXPECT_EQ(lost.name, "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(lost.uuid, "GPU-5e7e71c0-0000-4000-8000-000000004091");
  EXPECT_TRUE(has_problem_starting(lost, "identity from ")) << lost.problems.back();
  EXPECT_EQ(lost.problems.front(), "nvmlDeviceGetName: GPU is lost (further queries skipped)");
  EXPECT_EQ(devices[0].pci_bus_id, "00000000:01:00.0") << "the answering GPU is left alone";
  // Nothing else is invented: memory, clocks and counters stay unknown.
  EXPECT_FALSE(lost.memory_bytes);
  EXPECT_EQ(lost.vbios, "");
}

TEST(IdentifyLostDevices, OnlyWhenItIsUnambiguous) {
  // Three GPUs, two lost (every query answers GPU_IS_LOST), one answering at 18.
  const auto config = write_config("two-lost", R"({"devices": [
      {"name": "NVIDIA H100 80GB HBM3", "pci": {"bus_id": "00000000:18:00.0"}},
      {"fail_all": "NVML_ERROR_GPU_IS_LOST"},
      {"fail_all": "NVML_ERROR_GPU_IS_LOST"}]})");
  const auto lib = open_fake(config);
  const auto probed = gb::probe_devices(lib);
  ASSERT_EQ(probed.size(), 3U);

  // NVML's order is the bus order on the GPU that answered: the lost ones take theirs.
  auto devices = probed;
  gb::identify_lost_devices(
      devices, driver_root("ordered", {"0000:18:00.0", "0000:2a:00.0", "0000:3b:00.0"}));
  EXPECT_EQ(devices[1].pci_bus_id, "00000000:2A:00.0");
  EXPECT_EQ(devices[2].pci_bus_id, "00000000:3B:00.0");
  EXPECT_EQ(devices[2].uuid, "GPU-driver-2");

  // The answering GPU is not where the bus order puts it: which lost GPU is which cannot be
  // told, and nothing is guessed.
  devices = probed;
  gb::identify_lost_devices(
      devices, driver_root("unordered", {"0000:07:00.0", "0000:18:00.0", "0000:3b:00.0"}));
  for (int i : {1, 2}) {
    EXPECT_EQ(devices[i].pci_bus_id, "") << i;
    EXPECT_TRUE(has_problem_starting(devices[i], "identity unknown: NVML lost the GPU, and 2 of "
                                                 "the driver's 3 GPUs"))
        << devices[i].problems.back();
  }
  // No driver list at all (another OS, a container without /proc/driver): nothing changes but
  // the problem line.
  devices = probed;
  gb::identify_lost_devices(devices, driver_root("none", {}));
  EXPECT_EQ(devices[1].pci_bus_id, "");
  EXPECT_EQ(devices[1].name, "");
}

TEST(ProbeDevices, HandleFailure) {
  const auto lib = open_fake(write_config("handle", R"({"devices": [
      {"name": "A", "handle_error": "NVML_ERROR_UNKNOWN"},
      {"name": "B"}]})"));
  const auto devices = gb::probe_devices(lib);
  ASSERT_EQ(devices.size(), 2u);
  ASSERT_EQ(devices[0].problems.size(), 1u);
  EXPECT_EQ(devices[0].problems[0], "nvmlDeviceGetHandleByIndex_v2: Unknown Error");
  EXPECT_EQ(devices[0].counters_before.at("pcie.replay"), reading::unavailable("Unknown Error"));
  EXPECT_EQ(devices[1].name, "B");
  EXPECT_EQ(devices[1].counters_before.at("pcie.replay"), reading::not_supported());
}

// --- counters ----------------------------------------------------------------------------

TEST(ReadErrorCounters, NvlinkSumsOverActiveLinksOnly) {
  const auto lib = open_fake(write_config("nvlink", R"({"devices": [{"nvlink": [
      {"active": true, "crc_flit": 2, "crc_data": 1, "replay": 4, "recovery": 0},
      {"active": true, "crc_flit": 3},
      {"active": false, "crc_flit": 100, "replay": 100}]}]})"));
  const counter_set c = gb::read_error_counters(lib, 0);
  EXPECT_EQ(c.at("nvlink.links_active"), reading::of(2));
  EXPECT_EQ(c.at("nvlink.crc_flit"), reading::of(5));
  EXPECT_EQ(c.at("nvlink.crc_data"), reading::of(1));
  EXPECT_EQ(c.at("nvlink.replay"), reading::of(4));
  EXPECT_EQ(c.at("nvlink.recovery"), reading::of(0));
  EXPECT_EQ(c.size(), std::size(all_counters));
}

TEST(ReadErrorCounters, NvlinkCountersUnsupportedOnNewerGpus) {
  const auto lib = open_fake(write_config("nvlink_counters", R"({"devices": [{
      "nvlink": [{"active": true}, {"active": true}],
      "errors": {"nvmlDeviceGetNvLinkErrorCounter": "NOT_SUPPORTED"}}]})"));
  const counter_set c = gb::read_error_counters(lib, 0);
  EXPECT_EQ(c.at("nvlink.links_active"), reading::of(2));
  EXPECT_EQ(c.at("nvlink.crc_flit"), reading::not_supported());
  EXPECT_EQ(c.at("nvlink.recovery"), reading::not_supported());
}

TEST(ReadErrorCounters, FailuresOtherThanNotSupportedAreUnavailable) {
  const auto lib = open_fake(write_config("ecc_perm", R"({"devices": [{
      "ecc_errors": {"volatile": {"corrected": 1, "uncorrected": 0}},
      "errors": {"nvmlDeviceGetTotalEccErrors": "NO_PERMISSION"}}]})"));
  const counter_set c = gb::read_error_counters(lib, 0);
  EXPECT_EQ(c.at("ecc.volatile.corrected"), reading::unavailable("Insufficient Permissions"));
  EXPECT_EQ(c.at("pcie.replay"), reading::not_supported());
}

TEST(ReadErrorCounters, RetiredPagesCountQuery) {
  const auto lib = open_fake(write_config("retired", R"({"devices": [{
      "retired_pages": {"single_bit": 3, "double_bit": 1, "pending": true}}]})"));
  const counter_set c = gb::read_error_counters(lib, 0);
  EXPECT_EQ(c.at("retired_pages.single_bit"), reading::of(3));
  EXPECT_EQ(c.at("retired_pages.double_bit"), reading::of(1));
  EXPECT_EQ(c.at("retired_pages.pending"), reading::of(1));
}

TEST(ReadErrorCounters, NoSuchDevice) {
  const auto lib = open_fake(configs / "degraded.json");
  const counter_set c = gb::read_error_counters(lib, 7);
  ASSERT_EQ(c.size(), std::size(all_counters));
  for (const auto& [name, r] : c)
    EXPECT_EQ(r, reading::unavailable("Invalid Argument")) << name;
}

TEST(CounterDelta, DifferencesAndStatuses) {
  const counter_set before = {
      {"ecc.volatile.corrected", reading::of(3)},
      {"ecc.volatile.uncorrected", reading::of(0)},
      {"pcie.replay", reading::of(10)},
      {"nvlink.links_active", reading::of(18)},
      {"nvlink.crc_flit", reading::not_supported()},
      {"remapped_rows.pending", reading::of(0)},
      {"retired_pages.single_bit", reading::unavailable("GPU is lost")},
      {"gone.after", reading::of(1)},
  };
  const counter_set after = {
      {"ecc.volatile.corrected", reading::of(5)},
      {"ecc.volatile.uncorrected", reading::of(2)},
      {"pcie.replay", reading::of(4)}, // reset by a driver reload
      {"nvlink.links_active", reading::of(16)},
      {"nvlink.crc_flit", reading::not_supported()},
      {"remapped_rows.pending", reading::of(1)},
      {"retired_pages.single_bit", reading::of(0)},
      {"new.after", reading::of(1)},
  };
  const counter_set d = gb::counter_delta(before, after);
  EXPECT_EQ(d.at("ecc.volatile.corrected"), reading::of(2));
  EXPECT_EQ(d.at("ecc.volatile.uncorrected"), reading::of(2));
  EXPECT_EQ(d.at("pcie.replay"),
            reading::unavailable("the counter went backwards (reset during the run?)"));
  EXPECT_EQ(d.at("nvlink.links_active"), reading::of(-2)) << "links going down is the point";
  EXPECT_EQ(d.at("nvlink.crc_flit"), reading::not_supported());
  EXPECT_EQ(d.at("remapped_rows.pending"), reading::of(1));
  EXPECT_EQ(d.at("retired_pages.single_bit"), reading::unavailable("GPU is lost"));
  EXPECT_EQ(d.at("gone.after"), reading::unavailable("no reading after the run"));
  EXPECT_EQ(d.at("new.after"), reading::unavailable("no reading before the run"));
  EXPECT_EQ(d.size(), 9u);
}

TEST(CounterDelta, UnsupportedOnOneSideOnly) {
  const counter_set d =
      gb::counter_delta({{"x", reading::of(1)}}, {{"x", reading::not_supported()}});
  EXPECT_EQ(d.at("x"), reading::not_supported());
  EXPECT_TRUE(gb::counter_delta({}, {}).empty());
}

TEST(CounterDelta, FromTheFakeBeforeAndAfter) {
  const auto lib = open_fake(configs / "degraded.json");
  const auto devices = gb::probe_devices(lib);
  const counter_set after = gb::read_error_counters(lib, 0);
  const counter_set d = gb::counter_delta(devices[0].counters_before, after);
  EXPECT_EQ(d.at("ecc.volatile.uncorrected"), reading::of(0));
  EXPECT_EQ(d.at("nvlink.crc_flit"), reading::not_supported());
}

// ---- the idle precondition's facts (gpu_activity.hpp) ---------------------------------------

TEST(GpuActivity, ListsEveryProcessWithItsNameAndMemoryAndTheUtilisation) {
  const auto nvml = open_fake(write_config("activity", R"({"devices": [
    {"name": "NVIDIA H200", "utilization": {"gpu": 88, "memory": 40},
     "processes": [{"pid": 4242, "used_memory_mib": 2048},
                   {"pid": 77, "used_memory_mib": 0, "kind": "graphics"},
                   {"pid": 99999, "used_memory_mib": 1}]}]})"));
  // A root with /proc/<pid>/comm for two of the three: the third is another PID namespace's.
  const auto root = std::filesystem::path(::testing::TempDir()) / "gpuspec_activity_root";
  std::filesystem::create_directories(root / "proc" / "4242");
  std::filesystem::create_directories(root / "proc" / "77");
  std::ofstream(root / "proc" / "4242" / "comm") << "python3\n";
  std::ofstream(root / "proc" / "77" / "comm") << "Xorg\n";
  const auto a = gb::read_gpu_activity(nvml, 0, root);
  EXPECT_EQ(a.status, "ok");
  EXPECT_EQ(a.utilization_pct, 88);
  ASSERT_EQ(a.processes.size(), 3U);
  EXPECT_EQ(a.processes[0].pid, 4242);
  EXPECT_EQ(a.processes[0].name, "python3");
  EXPECT_EQ(a.processes[0].used_memory_bytes, std::int64_t{2048} << 20);
  EXPECT_EQ(a.processes[0].kind, "compute");
  EXPECT_EQ(a.processes[1].pid, 99999);
  EXPECT_EQ(a.processes[1].name, "");
  EXPECT_EQ(a.processes[2].pid, 77);
  EXPECT_EQ(a.processes[2].name, "Xorg");
  EXPECT_EQ(a.processes[2].kind, "graphics");
  EXPECT_EQ(gpuspec::reports::processes_text(a.processes),
            "pid 4242 (python3, 2.0 GiB), pid 99999 (name unknown, 0.0 GiB), pid 77 (Xorg, 0.0 "
            "GiB, graphics)");
}

TEST(GpuActivity, AnIdleGpuHasNoProcessAndAListThatCannotBeReadIsNeverCalledIdle) {
  {
    // The fake reads its configuration at the first nvmlInit_v2 only: one library at a time.
    const auto idle = open_fake(write_config("idle", R"({"devices": [{"name": "NVIDIA H200"}]})"));
    const auto a = gb::read_gpu_activity(idle, 0, "/nonexistent");
    EXPECT_EQ(a.status, "ok");
    EXPECT_TRUE(a.processes.empty());
  }
  const auto denied = open_fake(write_config("denied", R"({"devices": [{"name": "NVIDIA H200",
    "errors": {"nvmlDeviceGetComputeRunningProcesses_v3": "NVML_ERROR_NO_PERMISSION"}}]})"));
  const auto b = gb::read_gpu_activity(denied, 0, "/nonexistent");
  EXPECT_EQ(b.status.rfind("the process list could not be read: "
                           "nvmlDeviceGetComputeRunningProcesses_v3: ",
                           0),
            0U)
      << b.status;
}
