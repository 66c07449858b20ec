// The gpuspec executable run as a user runs it, on this machine (no GPU, no driver) and against
// the fake NVML (tests/fakes): exit codes, messages, and the reports it writes.

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "gpuspec/kernels/stream_math.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec_process_test.hpp"
#include "run_process.hpp"

namespace fs = std::filesystem;

namespace {

constexpr bool cuda_build = GPUSPEC_TEST_CUDA_BUILD != 0;
/// A CUDA build with NCCL's header: NCCL is opened at run time, and the fake libnccl is built.
constexpr bool nccl_loader_build = GPUSPEC_TEST_FAKE_NCCL != 0;

using gpuspec::testing::process_result;

class GpuspecProcess : public gpuspec::testing::gpuspec_process_test {
protected:
  static std::string fixture_root(const std::string& host) {
    return std::string("--root '" GPUSPEC_FIXTURES_DIR "/hosts/") + host + "'";
  }

  /// The report loads with the strict loader and validates against the schema.
  gpuspec::reports::report load_valid(const fs::path& file) {
    auto loaded = gpuspec::reports::load_report(file);
    EXPECT_TRUE(loaded.has_value()) << (loaded ? "" : loaded.error().to_string());
    const std::string cmd = "env PYTHONPATH='" GPUSPEC_PYTHONPATH
                            "' python3 '" GPUSPEC_VALIDATE_SCRIPT "' '" GPUSPEC_SCHEMA "' '" +
                            file.string() + "' >/dev/null 2>&1";
    const int status = std::system(cmd.c_str());
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code != 77) { // 77: jsonschema missing (CI makes that a failure through its own env)
      EXPECT_EQ(code, 0) << "schema validation of " << file;
    }
    return loaded ? loaded.value() : gpuspec::reports::report{};
  }
};

TEST_F(GpuspecProcess, HelpListsTheSubcommandsAndExitsZero) {
  const auto r = gpuspec("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* cmd : {"info", "list", "run"})
    EXPECT_NE(r.out.find(cmd), std::string::npos) << cmd;
}

TEST_F(GpuspecProcess, NoSubcommandIsBadUsage) {
  const auto r = gpuspec("");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("subcommand"), std::string::npos) << r.err;
}

TEST_F(GpuspecProcess, UnknownSuiteIsBadUsage) {
  const auto r = gpuspec("run --suite bogus");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("--suite"), std::string::npos) << r.err;
}

TEST_F(GpuspecProcess, InvalidFilterIsRejectedBeforeAnythingIsWritten) {
  const auto r = gpuspec("run --filter '(' -o report.json");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("not a valid regular expression"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(m_dir / "report.json"));
}

TEST_F(GpuspecProcess, InvalidDeviceListIsBadUsage) {
  const auto r = gpuspec("run --devices 0,x -o report.json");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("--devices"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(m_dir / "report.json"));
}

TEST_F(GpuspecProcess, InfoWithoutDriverPrintsTheHostAndSaysWhy) {
  const auto r = gpuspec("info");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.out.find("Host"), std::string::npos);
  EXPECT_NE(r.out.find("host.nouveau"), std::string::npos);
  EXPECT_NE(r.out.find("No GPU part: no NVIDIA driver"), std::string::npos) << r.out;
}

TEST_F(GpuspecProcess, InfoJsonWithoutDriver) {
  const auto r = gpuspec("info --json " + fixture_root("x86-dual-socket-nouveau"));
  EXPECT_EQ(r.exit_code, 3);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j.at("devices").empty());
  EXPECT_EQ(j.at("host").at("gpu_status").get<std::string>().rfind("no NVIDIA driver", 0), 0U);
  EXPECT_EQ(j.at("host").at("nouveau_loaded"), true);
  EXPECT_EQ(j.at("host").at("numa_nodes"), 2);
}

TEST_F(GpuspecProcess, RunWithoutDriverWritesHostInventoryAndExitsUnknown) {
  const auto r = gpuspec("run -o report.json " + fixture_root("x86-dual-socket-nouveau"));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("no GPU: no NVIDIA driver"), std::string::npos) << r.err;
  const auto rep = load_valid(m_dir / "report.json");
  EXPECT_FALSE(rep.complete);
  EXPECT_EQ(rep.incomplete_reason.rfind("no GPU: no NVIDIA driver", 0), 0U)
      << rep.incomplete_reason;
  EXPECT_TRUE(rep.results.empty());
  EXPECT_TRUE(rep.devices.empty());
  EXPECT_EQ(rep.run.suite, "quick");
  ASSERT_FALSE(rep.host.checks.empty());
  EXPECT_EQ(rep.host.checks.front().id, "host.nouveau");
  EXPECT_EQ(rep.host.checks.front().status, gpuspec::reports::check_status::fail);
}

TEST_F(GpuspecProcess, RunWritesTheDefaultReportNameWhenNoneIsGiven) {
  const auto r = gpuspec("run");
  EXPECT_EQ(r.exit_code, 3);
  int reports = 0;
  for (const auto& entry : fs::directory_iterator(m_dir)) {
    const auto name = entry.path().filename().string();
    if (name.rfind("gpuspec-", 0) == 0 && entry.path().extension() == ".json") {
      ++reports;
      EXPECT_NE(name.find("Z.json"), std::string::npos) << name; // UTC stamp
      (void)load_valid(entry.path());
    }
  }
  EXPECT_EQ(reports, 1);
}

TEST_F(GpuspecProcess, RunIntoAMissingFolderFailsNamingThePath) {
  const auto r = gpuspec("run -o no/such/folder/report.json");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("no/such/folder/report.json"), std::string::npos) << r.err;
}

TEST_F(GpuspecProcess, InfoListsFakeGpusAndJudgesTheHost) {
  const auto r =
      gpuspec("info " + fixture_root("x86-dual-socket-nouveau"), fake("two-healthy.json"));
  EXPECT_NE(r.out.find("GPU 0:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GPU 1:"), std::string::npos) << r.out;
  if (cuda_build) {
    // NVML (the fake) lists GPUs, but the CUDA runtime finds none here: unusable, say why.
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.out.find("The GPUs cannot be used"), std::string::npos) << r.out;
  } else {
    EXPECT_EQ(r.exit_code, 2) << "nouveau is loaded on this fixture host: fail";
  }
}

TEST_F(GpuspecProcess, InfoJsonCarriesDegradedLinkAndUnsupportedCounters) {
  const auto r = gpuspec("info --json", fake("degraded.json"));
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("devices").size(), 1U);
  const auto& d = j.at("devices").at(0);
  EXPECT_EQ(d.at("pcie").at("width_current"), 8);
  EXPECT_EQ(d.at("pcie").at("width_max"), 16);
  EXPECT_EQ(d.at("counters_before").at("nvlink.links_active"), "not supported");
  bool pcie_warned = false;
  for (const auto& c : j.at("host").at("checks"))
    if (c.at("id") == "gpu.pcie_link" && c.at("status") == "warn")
      pcie_warned = true;
  EXPECT_TRUE(pcie_warned);
}

TEST_F(GpuspecProcess, InfoNamesTheGpuWhoseSlotCapsItsLinkFromIdleReadings) {
  // pcie-links.json: GPU 1's maximum with this system is Gen4 under its own Gen5 (a riser or a
  // BIOS setting); GPU 0 idles at Gen1 (power saving) and GPU 2 is a Gen4 card in a Gen4 system.
  const auto r = gpuspec("info --json " + fixture_root("x86-gpu-node"), fake("pcie-links.json"));
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("devices").size(), 3U);
  const auto& pcie = j.at("devices").at(1).at("pcie");
  EXPECT_EQ(pcie.at("gen_max"), 5);
  EXPECT_EQ(pcie.at("gen_max_system"), 4);
  std::map<int, std::string> slot, link;
  for (const auto& c : j.at("host").at("checks")) {
    if (c.at("id") == "gpu.pcie_slot")
      slot[c.at("device").get<int>()] = c.at("status").get<std::string>();
    if (c.at("id") == "gpu.pcie_link")
      link[c.at("device").get<int>()] = c.at("status").get<std::string>();
  }
  EXPECT_EQ(slot, (std::map<int, std::string>{{0, "pass"}, {1, "warn"}, {2, "pass"}}));
  EXPECT_EQ(link, (std::map<int, std::string>{{0, "pass"}, {1, "pass"}, {2, "pass"}}));
  if (!cuda_build) {
    EXPECT_EQ(r.exit_code, 1) << "a capped link warns";
  }
  const auto text = gpuspec("info " + fixture_root("x86-gpu-node"), fake("pcie-links.json"));
  EXPECT_NE(text.out.find("Gen1 x16 (max: GPU Gen5, with this system Gen4 x16)"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("the slot, riser or BIOS caps the PCIe link"), std::string::npos)
      << text.out;
}

TEST_F(GpuspecProcess, RunWithFakeGpusWritesAReportAndSaysWhyNothingRan) {
  const auto r = gpuspec("run -o report.json", fake("two-healthy.json"));
  EXPECT_EQ(r.exit_code, 3);
  const auto rep = load_valid(m_dir / "report.json");
  EXPECT_FALSE(rep.complete);
  EXPECT_EQ(rep.devices.size(), 2U);
  if (cuda_build)
    EXPECT_EQ(rep.incomplete_reason.rfind("no GPU: ", 0), 0U) << rep.incomplete_reason;
  else
    EXPECT_EQ(rep.incomplete_reason.rfind("no benchmarks: this is a host-only build", 0), 0U)
        << rep.incomplete_reason;
}

TEST_F(GpuspecProcess, RunRejectsADeviceTheHostDoesNotHave) {
  const auto r = gpuspec("run --devices 0,5 -o report.json", fake("two-healthy.json"));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("there is no GPU 5"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(m_dir / "report.json"));
}

TEST_F(GpuspecProcess, SpecsDirFromTheEnvironmentIsUsedAndNamedWhenWrong) {
  const auto ok = gpuspec("specs", "GPUSPEC_SPECS_DIR='" GPUSPEC_FIXTURES_DIR "/../../specs'");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("h200-sxm-141gb"), std::string::npos);
  const auto bad = gpuspec("specs", "GPUSPEC_SPECS_DIR=/nonexistent/specs");
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.err.find("/nonexistent/specs/gpus.json"), std::string::npos) << bad.err;
}

TEST_F(GpuspecProcess, ListNamesTheStreamFamilyOrSaysThereIsNone) {
  const auto r = gpuspec("list");
  if (cuda_build) {
    EXPECT_EQ(r.exit_code, 0);
    for (const auto& row : gpuspec::kernels::stream_ops)
      EXPECT_NE(r.out.find("memory.stream." + std::string(row.name)), std::string::npos)
          << row.name;
  } else {
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.err.find("no benchmarks in this build"), std::string::npos) << r.err;
  }
}

// --- NCCL opened at run time (collectives/nccl_library.hpp) ----------------------------------

TEST_F(GpuspecProcess, InfoSaysNcclIsNotFoundWithDlopensWords) {
  const auto r = gpuspec("info", no_driver() + " GPUSPEC_NCCL_LIBRARY=/nonexistent/libnccl.so.2");
  EXPECT_EQ(r.exit_code, 3); // no driver: no verdict, but no crash either
  if (!nccl_loader_build) {
    EXPECT_EQ(r.out.find("not found (/nonexistent"), std::string::npos) << r.out;
    GTEST_SKIP() << "this build has no NCCL loader (no CUDA or no nccl.h)";
  }
  EXPECT_NE(r.out.find("not found (/nonexistent/libnccl.so.2: cannot open shared object file"),
            std::string::npos)
      << r.out;
  const auto j = gpuspec("info --json", fake("two-healthy.json") +
                                            " GPUSPEC_NCCL_LIBRARY=/nonexistent/libnccl.so.2");
  const auto host = nlohmann::json::parse(j.out).at("host");
  EXPECT_EQ(host.at("nccl_version").get<std::string>().rfind("not found (/nonexistent/libnccl", 0),
            0U)
      << host.dump();
}

TEST_F(GpuspecProcess, InfoNamesTheEntryPointTheLibraryLacks) {
  if (!nccl_loader_build)
    GTEST_SKIP() << "this build has no NCCL loader (no CUDA or no nccl.h)";
  const auto r = gpuspec("info --json", no_driver() + " GPUSPEC_NCCL_LIBRARY='" +
                                            GPUSPEC_FAKE_NCCL_NO_ABORT_PATH + "'");
  const auto version = nlohmann::json::parse(r.out).at("host").at("nccl_version");
  EXPECT_EQ(version.get<std::string>(), std::string(GPUSPEC_FAKE_NCCL_NO_ABORT_PATH) +
                                            " does not export ncclCommAbort (gpuspec needs NCCL "
                                            "2.14 or later, or the file is not NCCL)");
}

TEST_F(GpuspecProcess, InfoAsksTheLoadedLibraryForItsVersion) {
  if (!nccl_loader_build)
    GTEST_SKIP() << "this build has no NCCL loader (no CUDA or no nccl.h)";
  const auto r = gpuspec("info --json",
                         no_driver() + " GPUSPEC_NCCL_LIBRARY='" + GPUSPEC_FAKE_NCCL_PATH + "'");
  EXPECT_EQ(nlohmann::json::parse(r.out).at("host").at("nccl_version"), "2.99.1"); // the fake's
}

// The collective cases themselves need a GPU to be reached (the coordinator starts no worker
// when CUDA finds none): on a GPU machine every case is skipped with the loader's words and the
// other families are untouched; here the test is skipped.
TEST_F(GpuspecProcess, CollectiveRunWithoutNcclSkipsEveryCaseWithTheReason) {
  if (!nccl_loader_build)
    GTEST_SKIP() << "this build has no NCCL loader (no CUDA or no nccl.h)";
  const auto r = gpuspec("run --filter '^collective\\.all_reduce$' -o report.json",
                         "GPUSPEC_NCCL_LIBRARY=/nonexistent/libnccl.so.2");
  const auto rep = load_valid(m_dir / "report.json");
  if (rep.incomplete_reason.rfind("no GPU", 0) == 0)
    GTEST_SKIP() << "needs a GPU: " << rep.incomplete_reason;
  EXPECT_NE(r.exit_code, 2) << r.err; // skipped is not a failure
  EXPECT_EQ(rep.host.nccl_version.rfind("not found (/nonexistent/libnccl.so.2: ", 0), 0U);
  ASSERT_FALSE(rep.results.empty()) << r.err;
  for (const auto& res : rep.results) {
    EXPECT_EQ(res.bench_id, "collective.all_reduce");
    EXPECT_EQ(res.status, gpuspec::reports::result_status::skipped) << res.reason;
    EXPECT_EQ(res.reason.rfind("NCCL: not found (/nonexistent/libnccl.so.2: ", 0), 0U)
        << res.reason;
  }
}

} // namespace
