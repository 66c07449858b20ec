// `gpuspec --version` as a script runs it: the first line it parses, the commit this checkout
// was built from, what the build was compiled against, and what it finds at run time through
// the fake NVML (tests/fakes) or without a driver; and the same build in `info --json` and in
// the report `run` writes (run.build).

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec_process_test.hpp"
#include "run_process.hpp"

namespace fs = std::filesystem;

namespace {

constexpr bool cuda_build = GPUSPEC_TEST_CUDA_BUILD != 0;
constexpr const char* not_built_in = "not built in (host-only build)";

using gpuspec::testing::process_result;

/// "key: value" lines after the first, by key.
std::map<std::string, std::string> fields(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line); // "gpuspec <version>"
  while (std::getline(in, line)) {
    const auto colon = line.find(": ");
    EXPECT_NE(colon, std::string::npos) << "not a \"key: value\" line: " << line;
    if (colon != std::string::npos)
      out[line.substr(0, colon)] = line.substr(colon + 2);
  }
  return out;
}

/// The commit the build stamp must hold (cmake/GpuspecBuildStamp.cmake): HEAD's full hash when
/// the source folder is the top of a git checkout, "" otherwise (the stamp then says "unknown").
std::string head_commit() {
  const auto top = gpuspec::testing::run_in(
      fs::temp_directory_path(), "git -C '" GPUSPEC_SOURCE_DIR "' rev-parse --show-toplevel");
  if (top.exit_code != 0)
    return "";
  std::error_code ec;
  if (fs::canonical(top.out.substr(0, top.out.find('\n')), ec) !=
      fs::canonical(GPUSPEC_SOURCE_DIR, ec))
    return "";
  const auto head = gpuspec::testing::run_in(fs::temp_directory_path(),
                                             "git -C '" GPUSPEC_SOURCE_DIR "' rev-parse HEAD");
  return head.exit_code == 0 ? head.out.substr(0, head.out.find('\n')) : "";
}

/// The version the build stamp must hold: GPUSPEC_TEST_VERSION (the project's) outside git;
/// in a checkout with no release tag, that version "+g<commits>.<12-digit HEAD>", so that a later
/// commit's packages upgrade an earlier one's. Past a release tag vX.Y.Z, "X.Y.Z" or
/// "X.Y.Z+g<commits since>.<HEAD>": asked of git describe as the stamp does.
std::string expected_version() {
  if (head_commit().empty())
    return GPUSPEC_TEST_VERSION;
  const auto git = [](const std::string& args) {
    const auto r = gpuspec::testing::run_in(fs::temp_directory_path(),
                                            "git -C '" GPUSPEC_SOURCE_DIR "' " + args);
    return r.exit_code == 0 ? r.out.substr(0, r.out.find('\n')) : std::string();
  };
  const std::string head = git("rev-parse --short=12 HEAD");
  const std::string tagged = git("describe --tags --long --abbrev=12 '--match=v[0-9]*'");
  if (tagged.empty())
    return std::string(GPUSPEC_TEST_VERSION) + "+g" + git("rev-list --count HEAD") + "." + head;
  // v1.2.3-N-g<hash>
  const auto dash = tagged.find('-');
  const std::string release = tagged.substr(1, dash - 1);
  const std::string since = tagged.substr(dash + 1, tagged.find('-', dash + 1) - dash - 1);
  return since == "0" ? release : release + "+g" + since + "." + head;
}

class GpuspecVersion : public gpuspec::testing::gpuspec_process_test {};

TEST_F(GpuspecVersion, FirstLineIsTheVersionThenTheCommitAndTheBuildDate) {
  const auto r = gpuspec("--version");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "gpuspec " + expected_version());
  const auto f = fields(r.out);
  const std::string head = head_commit();
  const std::string commit = f.at("commit");
  if (head.empty()) {
    EXPECT_EQ(commit, "unknown");
  } else {
    // `git describe --always --dirty --abbrev=12`: 12 hex digits or more, HEAD's prefix.
    const std::string hash = commit.substr(0, commit.find("-dirty"));
    EXPECT_GE(hash.size(), 12U) << commit;
    EXPECT_EQ(head.rfind(hash, 0), 0U)
        << commit << " is not HEAD (" << head << "); rebuild after a commit";
    EXPECT_TRUE(commit == hash || commit == hash + "-dirty") << commit;
  }
  // ISO 8601, UTC: 2026-12-02T08:30:00Z.
  EXPECT_EQ(f.at("build date").size(), 20U) << f.at("build date");
  EXPECT_EQ(f.at("build date").back(), 'Z') << f.at("build date");
  EXPECT_EQ(f.at("built against NVML").find(" (nvml.h API version)"), 2U)
      << f.at("built against NVML");
}

TEST_F(GpuspecVersion, SaysWhatTheBuildLeftOut) {
  const auto f = fields(gpuspec("--version").out);
  for (const char* key : {"built against CUDA", "built against cuBLAS", "built against NCCL",
                          "found CUDA runtime", "found cuBLAS", "found NCCL"}) {
    SCOPED_TRACE(key);
    ASSERT_TRUE(f.contains(key));
    if (cuda_build)
      EXPECT_NE(f.at(key), not_built_in);
    else
      EXPECT_EQ(f.at(key), not_built_in);
  }
}

TEST_F(GpuspecVersion, FindsTheDriverThroughNvml) {
  const auto r = gpuspec("--version", fake("eight-healthy.json"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto f = fields(r.out);
  EXPECT_EQ(f.at("found NVIDIA driver (NVML)"), "580.65.06");
  EXPECT_EQ(f.at("found CUDA driver"), "13.0");
}

TEST_F(GpuspecVersion, WithoutADriverSaysWhyAndStillExitsZero) {
  const auto r = gpuspec("--version");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto f = fields(r.out);
  EXPECT_EQ(f.at("found NVIDIA driver (NVML)").rfind("not found (no NVIDIA driver", 0), 0U)
      << f.at("found NVIDIA driver (NVML)");
  if (!cuda_build) { // a CUDA build asks cudaDriverGetVersion too, which is 0 without a driver
    // NVML's problem once, on the driver's line; the CUDA driver's line points there.
    EXPECT_EQ(f.at("found CUDA driver"), "not found (as the line above)");
    EXPECT_EQ(r.out.find("no NVIDIA driver"), r.out.rfind("no NVIDIA driver")) << r.out;
  }
  // The library is there, but its initialisation fails (the kernel module is not loaded).
  const auto init = fields(gpuspec("--version", fake("driver-not-loaded.json")).out);
  EXPECT_EQ(init.at("found NVIDIA driver (NVML)").rfind("not found (nvmlInit_v2 failed", 0), 0U)
      << init.at("found NVIDIA driver (NVML)");
}

TEST_F(GpuspecVersion, InfoJsonAndTheReportCarryTheSameBuild) {
  const auto f = fields(gpuspec("--version").out);
  const auto info = gpuspec("info --json");
  const auto j = nlohmann::json::parse(info.out);
  const auto& build = j.at("build");
  EXPECT_EQ(build.at("version"), expected_version());
  EXPECT_EQ(build.at("commit"), f.at("commit"));
  EXPECT_EQ(build.at("build_date"), f.at("build date"));
  EXPECT_EQ(build.at("built_against").at("cuda"), f.at("built against CUDA"));
  EXPECT_EQ(build.at("built_against").at("cublas"), f.at("built against cuBLAS"));
  EXPECT_EQ(build.at("built_against").at("nccl"), f.at("built against NCCL"));
  EXPECT_EQ(f.at("built against NVML"),
            build.at("built_against").at("nvml").get<std::string>() + " (nvml.h API version)");

  (void)gpuspec("run -o report.json");
  const auto loaded = gpuspec::reports::load_report(m_dir / "report.json");
  ASSERT_TRUE(loaded) << loaded.error().to_string();
  const auto& run = loaded.value().run;
  ASSERT_TRUE(run.build);
  EXPECT_EQ(run.build->version, run.tool_version);
  EXPECT_EQ(run.build->commit, f.at("commit"));
  EXPECT_EQ(run.build->built_against.cuda, f.at("built against CUDA"));
  // What was found at run time is the host's, as --version says it.
  const auto& host = loaded.value().host;
  EXPECT_EQ(host.cublas_version, f.at("found cuBLAS"));
  EXPECT_EQ(host.nccl_version, f.at("found NCCL"));
  EXPECT_EQ(host.cuda_runtime_version, f.at("found CUDA runtime"));
  const std::string cmd = "env PYTHONPATH='" GPUSPEC_PYTHONPATH
                          "' python3 '" GPUSPEC_VALIDATE_SCRIPT "' '" GPUSPEC_SCHEMA "' '" +
                          (m_dir / "report.json").string() + "' >/dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code != 77) { // 77: jsonschema missing (CI makes that a failure through its own env)
    EXPECT_EQ(code, 0) << "schema validation of the report";
  }
}

} // namespace

namespace {

// The CUDA build started by a host-only gpuspec of another version (two packages from different
// builds): one line naming both versions and how to install matching ones, exit 3, before any
// work; the same version goes on.
TEST_F(GpuspecVersion, AHandOverFromAnotherVersionIsRefusedInOneLine) {
  const std::string mine = expected_version();
  const auto other = gpuspec("--version", "GPUSPEC_HANDED_OVER_BY_VERSION=0.0.1 " + no_driver());
  EXPECT_EQ(other.exit_code, 3) << other.out;
  EXPECT_EQ(other.out, "");
  EXPECT_EQ(other.err, "gpuspec: gpuspec 0.0.1 handed over to gpuspec-cuda13 " + mine +
                           ": install the same version of both packages (apt-get install gpuspec=" +
                           mine + " gpuspec-cuda13=" + mine + ")\n");
  const auto same =
      gpuspec("--version", "GPUSPEC_HANDED_OVER_BY_VERSION='" + mine + "' " + no_driver());
  EXPECT_EQ(same.exit_code, 0) << same.err;
}

} // namespace
