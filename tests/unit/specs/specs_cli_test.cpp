// `gpuspec specs` end to end: list, one row, --check, --json, --table, $GPUSPEC_SPECS, and the
// exit codes (0; 1 for an unexplained disagreement; 3 for a bad table or an unknown id).

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

struct process_result {
  int exit_code = -1;
  std::string out, err;
};

process_result gpuspec(const std::string& args, const std::string& env = "") {
  const fs::path err =
      fs::temp_directory_path() / ("gpuspec-specs-stderr-" + std::to_string(::getpid()));
  const std::string cmd =
      "env " + env + " '" GPUSPEC_BINARY "' " + args + " 2>'" + err.string() + "'";
  process_result r;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) {
    throw std::runtime_error("popen failed");
  }
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) {
    r.out.append(buf.data(), n);
  }
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err);
  r.err.assign(std::istreambuf_iterator<char>(in), {});
  fs::remove(err);
  return r;
}

const std::string fixtures = std::string(GPUSPEC_FIXTURES_DIR) + "/specs";

} // namespace

TEST(SpecsCommand, ListsEveryRow) {
  const auto r = gpuspec("specs");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("h100-sxm5-80gb"), std::string::npos);
  EXPECT_NE(r.out.find("rtx-6000-ada"), std::string::npos);
  EXPECT_NE(r.out.find("fp16_tc"), std::string::npos);
}

TEST(SpecsCommand, ShowsOneRowWithItsSources) {
  const auto r = gpuspec("specs h100-sxm5-80gb");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Tensor Core figures at 1830 MHz"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("whitepaper"), std::string::npos);
  EXPECT_NE(r.out.find("0x2330"), std::string::npos);
}

TEST(SpecsCommand, UnknownIdIsExitThreeWithTheIds) {
  const auto r = gpuspec("specs rtx-6000");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("no row with id \"rtx-6000\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rtx-6000-ada"), std::string::npos);
}

TEST(SpecsCommand, CheckOfTheShippedTablePasses) {
  const auto r = gpuspec("specs --check");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("0 disagree"), std::string::npos) << r.out;
}

TEST(SpecsCommand, CheckJsonListsFindings) {
  const auto r = gpuspec("specs --check --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_DOUBLE_EQ(j.at("tolerance").get<double>(), 0.02);
  EXPECT_GT(j.at("findings").size(), 100U);
}

TEST(SpecsCommand, JsonRowAndList) {
  const auto one = gpuspec("specs a100-sxm4-40gb --json");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const auto j = nlohmann::json::parse(one.out);
  EXPECT_EQ(j.at("pci_device_ids").at(0), "0x20B0");
  EXPECT_DOUBLE_EQ(j.at("peaks").at("fp16_tc").get<double>(), 312);
  const auto all = gpuspec("specs --json");
  ASSERT_EQ(all.exit_code, 0);
  EXPECT_GE(nlohmann::json::parse(all.out).size(), 20U);
}

TEST(SpecsCommand, BadTableIsExitThreeNamingFileAndField) {
  const auto r = gpuspec("specs --table '" + fixtures + "/negative_rate.json'");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("negative_rate.json: rows[1].peaks.fp16_tc: "), std::string::npos) << r.err;
  const auto dup = gpuspec("specs --check", "GPUSPEC_SPECS='" + fixtures + "/duplicate_id.json'");
  EXPECT_EQ(dup.exit_code, 3);
  EXPECT_NE(dup.err.find("duplicate_id.json: rows[1].id: duplicate id"), std::string::npos)
      << dup.err;
}

TEST(SpecsCommand, UnexplainedDisagreementIsExitOne) {
  // valid_minimal.json is an A100-like row: make its FP32 figure 10% high.
  auto j = nlohmann::ordered_json::parse(std::ifstream(fixtures + "/valid_minimal.json"));
  j["rows"][0]["peaks"]["fp32"] = 21.5;
  const fs::path file =
      fs::temp_directory_path() / ("gpuspec-specs-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << j.dump(2);
  const auto r = gpuspec("specs --check --table '" + file.string() + "'");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("disagrees"), std::string::npos);
  j["rows"][0]["check_notes"] = {{"peaks.fp32", "a known exception"}};
  std::ofstream(file) << j.dump(2);
  const auto noted = gpuspec("specs --check --table '" + file.string() + "'");
  EXPECT_EQ(noted.exit_code, 0) << noted.out;
  EXPECT_NE(noted.out.find("explained"), std::string::npos);
  fs::remove(file);
}
