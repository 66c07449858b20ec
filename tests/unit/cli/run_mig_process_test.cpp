// `gpuspec run` end to end on partitioned GPUs (docs/mig.md), with the fake NVML's MIG
// configurations and the stand-in worker (tests/fakes): one worker per MIG device, started with
// CUDA_VISIBLE_DEVICES naming it; each result carries its instance and a ceiling scaled to the
// instance's share; node-wide cases run over the whole GPUs only and say why not on the
// partitioned ones; --devices names a MIG device.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gpuspec/reports/model/report_json.hpp"
#include "run_process.hpp"

namespace fs = std::filesystem;
namespace r = gpuspec::reports;

namespace {

class RunMig : public gpuspec::testing::scratch_dir_test {
protected:
  gpuspec::testing::process_result run(const std::string& args, const std::string& config,
                                       const std::string& script = "mig-two-cases.json") {
    std::ostringstream s;
    s << "env GPUSPEC_NVML_LIBRARY='" << GPUSPEC_FAKE_NVML_PATH << "' GPUSPEC_FAKE_NVML_CONFIG='"
      << GPUSPEC_FAKE_NVML_CONFIGS << "/" << config << "' GPUSPEC_WORKER='"
      << GPUSPEC_STAND_IN_WORKER << "' GPUSPEC_STAND_IN_SCRIPT='" << GPUSPEC_STAND_IN_SCRIPTS << "/"
      << script << "' '" GPUSPEC_BINARY "' " << args;
    return gpuspec::testing::run_in(m_dir, s.str());
  }
  r::report load() {
    auto loaded = r::load_report(m_dir / "report.json");
    EXPECT_TRUE(loaded.has_value()) << (loaded ? "" : loaded.error().to_string());
    return loaded ? loaded.value() : r::report{};
  }
};

TEST_F(RunMig, SevenOneGInstancesGetSevenWorkersAndSevenInstancesResults) {
  const auto p = run("run -o report.json --max-time 0.2", "a100-mig-7x1g.json");
  EXPECT_EQ(p.exit_code, 3) << p.err; // a stand-in run is never passed
  // The progress counts instances on their GPU, and names each worker by its MIG device.
  EXPECT_NE(p.err.find("gpuspec run: 7 MIG instances on 1 GPU at once, 2 case(s) each"),
            std::string::npos)
      << p.err;
  EXPECT_NE(p.err.find("[gpu 0:mig6] 2/2 stand_in.scale dtype=fp32 ..."), std::string::npos)
      << p.err;
  const r::report rep = load();
  EXPECT_TRUE(rep.complete) << rep.incomplete_reason;
  EXPECT_EQ(rep.schema, "gpuspec.report.v1.2");
  EXPECT_EQ(rep.run.concurrency, 7);
  ASSERT_EQ(rep.devices.size(), 1u);
  ASSERT_EQ(rep.devices[0].mig_instances.size(), 7u);
  // 2 one-GPU cases on each of the 7 MIG devices, then the node-wide case, not run.
  ASSERT_EQ(rep.results.size(), 15u);
  std::set<std::string> instances;
  for (std::size_t i = 0; i < 14; ++i) {
    const r::result& x = rep.results[i];
    SCOPED_TRACE(i);
    ASSERT_TRUE(x.mig);
    instances.insert(x.mig->uuid);
    EXPECT_EQ(x.mig->profile, "1g.10gb");
    EXPECT_EQ(x.mig->gpu_instance_id, 7 + static_cast<int>(i / 2)); // in instance order
    EXPECT_EQ(x.status, r::result_status::ok) << x.reason;
    // Its worker saw that MIG device alone.
    EXPECT_EQ(x.observations.at("CUDA_VISIBLE_DEVICES"), x.mig->uuid);
  }
  EXPECT_EQ(instances.size(), 7u);
  // The copy's ceiling is one memory slice of eight: about 240 GB/s of 254.9, not of 2039.
  const r::result& copy = rep.results[0];
  ASSERT_TRUE(copy.ceiling_value.datasheet);
  EXPECT_DOUBLE_EQ(*copy.ceiling_value.datasheet, 2039.0 / 8);
  EXPECT_EQ(copy.ceiling_value.mig_fraction, 0.125);
  EXPECT_NE(copy.ceiling_value.datasheet_source.find("1 of 8 memory slices"), std::string::npos);
  EXPECT_NEAR(*copy.efficiency, copy.stats.median / (2039.0 / 8), 1e-9);
  EXPECT_GT(*copy.efficiency, 0.9);
  const r::result& node = rep.results[14];
  EXPECT_EQ(node.bench_id, "stand_in.all_reduce");
  EXPECT_EQ(node.status, r::result_status::not_supported);
  EXPECT_NE(node.reason.find("MIG is on"), std::string::npos) << node.reason;
  EXPECT_FALSE(node.mig);
}

TEST_F(RunMig, AMixedNodeIsMeasuredWhole) {
  const auto p = run("run -o report.json --max-time 0.2", "eight-a100-four-mig.json");
  EXPECT_EQ(p.exit_code, 3) << p.err;
  EXPECT_NE(p.err.find("gpuspec run: 4 whole GPUs and 8 MIG instances on 4 GPUs at once, 2 "
                       "case(s) each, then 1 node-wide case(s)"),
            std::string::npos)
      << p.err;
  // The node-wide case is told on the first whole GPU's line: 3 of its 3 cases.
  EXPECT_NE(p.err.find("[gpu 4] 3/3 stand_in.all_reduce"), std::string::npos) << p.err;
  const r::report rep = load();
  EXPECT_TRUE(rep.complete) << rep.incomplete_reason;
  // 4 GPUs x 2 MIG devices + 4 whole GPUs = 12 workers of 2 cases; the node-wide case over the
  // whole GPUs, and its not-run result on the partitioned ones.
  ASSERT_EQ(rep.results.size(), 12u * 2 + 2);
  int on_mig = 0, whole = 0;
  for (std::size_t i = 0; i < 24; ++i)
    ++(rep.results[i].mig ? on_mig : whole);
  EXPECT_EQ(on_mig, 16);
  EXPECT_EQ(whole, 8);
  EXPECT_FALSE(rep.results[16].mig);
  EXPECT_EQ(rep.results[16].devices, std::vector<int>{4}); // after the partitioned GPUs
  EXPECT_TRUE(rep.results[16].observations.find("CUDA_VISIBLE_DEVICES") ==
              rep.results[16].observations.end());
  const auto node_wide = [&](std::vector<int> devices) {
    return std::count_if(rep.results.begin(), rep.results.end(), [&](const r::result& x) {
      return x.bench_id == "stand_in.all_reduce" && x.devices == devices;
    });
  };
  EXPECT_EQ(node_wide({4, 5, 6, 7}), 1);
  EXPECT_EQ(node_wide({0, 1, 2, 3}), 1);
}

TEST_F(RunMig, DevicesNamesAMigDeviceByNumberOrUuid) {
  auto p = run("run -o report.json --max-time 0.2 --devices 0:mig3", "a100-mig-7x1g.json");
  EXPECT_EQ(p.exit_code, 3) << p.err;
  r::report rep = load();
  EXPECT_EQ(rep.run.devices, std::vector<int>{0});
  ASSERT_EQ(rep.results.size(), 3u); // 2 cases on MIG device 3, the node-wide one not run
  EXPECT_EQ(rep.results[0].mig->gpu_instance_id, 10);
  const std::string uuid = rep.devices[0].mig_instances[5].uuid;
  p = run("run -o report.json --max-time 0.2 --devices " + uuid, "a100-mig-7x1g.json");
  rep = load();
  ASSERT_GE(rep.results.size(), 1u);
  EXPECT_EQ(rep.results[0].mig->uuid, uuid);
  p = run("run -o report.json --devices 0:mig9", "a100-mig-7x1g.json");
  EXPECT_EQ(p.exit_code, 3);
  EXPECT_NE(p.err.find("GPU 0 has no MIG device 9 (it has 0, 1, 2, 3, 4, 5, 6)"), std::string::npos)
      << p.err;
}

TEST_F(RunMig, ABurnInLoadsEveryInstanceAtOnceAndCheckNamesTheOneWhoseChecksumDiffers) {
  // mig-burnin.json: MIG device 4 (GPU instance 11) starts from its own reference checksum.
  const auto p = run("run --suite burnin --duration 2s --max-time 0.2 -o report.json",
                     "a100-mig-7x1g.json", "mig-burnin.json");
  const r::report rep = load();
  EXPECT_TRUE(rep.complete) << rep.incomplete_reason;
  ASSERT_EQ(rep.results.size(), 7u);
  std::set<std::string> instances;
  std::string odd_uuid;
  for (const r::result& x : rep.results) {
    ASSERT_TRUE(x.mig);
    ASSERT_TRUE(x.burnin && x.burnin->gemm) << x.mig->uuid;
    instances.insert(x.mig->uuid);
    EXPECT_EQ(x.gpus_busy, 7) << "every instance loaded at once";
    EXPECT_GT(x.burnin->gemm->iterations, 10) << x.mig->uuid;
    // Each instance's checksums are its own, in its own result.
    const bool odd = x.mig->gpu_instance_id == 11;
    EXPECT_EQ(x.burnin->gemm->reference_checksum,
              odd ? "0x5e5e00000001c0de" : "0x5e5e00000000c0de");
    if (odd)
      odd_uuid = x.mig->uuid;
  }
  EXPECT_EQ(instances.size(), 7u);
  const auto check = gpuspec::testing::run_in(
      m_dir, "'" GPUSPEC_BINARY "' check report.json --format json > check.json");
  EXPECT_EQ(check.exit_code, 2) << check.err;
  const auto j = nlohmann::json::parse(std::ifstream(m_dir / "check.json"));
  int differs = 0;
  for (const auto& res : j.at("nodes").at(0).at("results"))
    for (const auto& d : res.at("diagnoses"))
      if (d.at("code") == "GPUSPEC-BURNIN-CHECKSUM-DIFFERS") {
        ++differs;
        const std::string cause = d.at("cause");
        EXPECT_EQ(d.at("evidence").at("mig.uuid"), odd_uuid) << cause;
        EXPECT_EQ(cause.rfind("GPU 0 MIG 1g.10gb, GI 11 CI 0, " + odd_uuid + ": ", 0), 0u) << cause;
        EXPECT_NE(cause.find("0x5e5e00000001c0de differs from 0x5e5e00000000c0de of the 7 MIG "
                             "devices of profile 1g.10gb"),
                  std::string::npos)
            << cause;
        EXPECT_NE(cause.find("GPU 0 MIG 1g.10gb, GI 7 CI 0 0x5e5e00000000c0de"), std::string::npos)
            << cause;
      }
  EXPECT_EQ(differs, 1) << check.out;
}

} // namespace
