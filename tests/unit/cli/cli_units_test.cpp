#include <gtest/gtest.h>

#include "gpuspec/cli/cmd_info.hpp"
#include "gpuspec/cli/cmd_run.hpp"
#include "gpuspec/cli/duration.hpp"
#include "gpuspec/cli/exit_code.hpp"
#include "gpuspec/cli/format.hpp"
#include "gpuspec/cli/text_table.hpp"

namespace gpuspec::cli {
namespace {

TEST(ExitCode, WorstWinsWithUnknownOnlyOverPass) {
  EXPECT_EQ(worst(exit_code::pass, exit_code::pass), exit_code::pass);
  EXPECT_EQ(worst(exit_code::pass, exit_code::unknown), exit_code::unknown);
  EXPECT_EQ(worst(exit_code::unknown, exit_code::warn), exit_code::warn);
  EXPECT_EQ(worst(exit_code::fail, exit_code::warn), exit_code::fail);
  EXPECT_EQ(worst(exit_code::warn, exit_code::fail), exit_code::fail);
  EXPECT_EQ(to_int(exit_code::unknown), 3);
}

TEST(HostCheckVerdict, FailOutranksWarnAndSkippedIsNeutral) {
  using reports::check_status;
  std::vector<reports::host_check> checks{{"a", check_status::pass, "", {}},
                                          {"b", check_status::skipped, "", {}}};
  EXPECT_EQ(host_check_verdict(checks), exit_code::pass);
  checks.push_back({"c", check_status::warn, "", 0});
  EXPECT_EQ(host_check_verdict(checks), exit_code::warn);
  checks.push_back({"d", check_status::fail, "", 1});
  EXPECT_EQ(host_check_verdict(checks), exit_code::fail);
}

TEST(Duration, ReadsUnitsFromDaysToSeconds) {
  std::string why;
  EXPECT_EQ(parse_duration("30m", why), 1800.0);
  EXPECT_EQ(parse_duration("90s", why), 90.0);
  EXPECT_EQ(parse_duration("2h", why), 7200.0);
  EXPECT_EQ(parse_duration("1h30m", why), 5400.0);
  EXPECT_EQ(parse_duration("1d2h3m4s", why), 86400.0 + 7200 + 180 + 4);
  EXPECT_EQ(parse_duration("1.5h", why), 5400.0);
  EXPECT_EQ(parse_duration("3S", why), 3.0);
}

TEST(Duration, RejectsWhatIsNotADurationAndSaysWhy) {
  for (const auto& [text, says] :
       std::vector<std::pair<std::string, std::string>>{{"", "empty"},
                                                        {"30x", "'x' is not a unit"},
                                                        {"m", "expected a number"},
                                                        {"30m10", "no unit"},
                                                        {"30", "'30' has no unit: write 30s, 30m"},
                                                        {"1.5", "a bare number is not taken"},
                                                        {"10s5m", "from days to seconds"},
                                                        {"5m5m", "from days to seconds"},
                                                        {"0s", "positive"},
                                                        {"-5m", "expected a number"},
                                                        {"31d", "more than 30 days"}}) {
    std::string why;
    EXPECT_FALSE(parse_duration(text, why)) << text;
    EXPECT_NE(why.find(says), std::string::npos) << text << ": " << why;
  }
}

TEST(DeviceList, ParsesCommaSeparatedIndices) {
  EXPECT_EQ(parse_device_list("0"), std::vector<int>{0});
  EXPECT_EQ(parse_device_list("0,2,7"), (std::vector<int>{0, 2, 7}));
}

TEST(DeviceList, RejectsWhatIsNotAnIndex) {
  for (const char* bad : {"", "a", "0,", "1,x", "-1", "2.5", "0,,1", " 1"})
    EXPECT_THROW((void)parse_device_list(bad), CLI::ValidationError) << "input '" << bad << "'";
}

TEST(TextTable, AlignsColumnsByDisplayWidth) {
  text_table t({"name", "value"}, {text_table::align::left, text_table::align::right});
  t.add_row({"temp", "85 °C"});
  t.add_row({"x", "1"});
  EXPECT_EQ(t.render(), "name  value\n"
                        "-----------\n"
                        "temp  85 °C\n"
                        "x         1\n");
}

TEST(TextTable, RowOfWrongWidthIsABug) {
  text_table t({"a", "b"});
  EXPECT_THROW(t.add_row({"only one"}), std::logic_error);
}

TEST(Format, BytesPcieReadingsAndValues) {
  EXPECT_EQ(format_bytes(std::int64_t{80} << 30), "80.0 GiB");
  EXPECT_EQ(format_bytes(std::int64_t{50} << 20), "50.0 MiB");
  EXPECT_EQ(format_bytes(std::nullopt), "n/a");
  reports::pcie_link link{4, 5, 8, 16, std::nullopt};
  EXPECT_EQ(format_pcie(link), "Gen4 x8 (max Gen5 x16)");
  link.gen_max_system = 4; // a riser or BIOS setting caps the link at Gen4
  EXPECT_EQ(format_pcie(link), "Gen4 x8 (max: GPU Gen5, with this system Gen4 x16)");
  EXPECT_EQ(format_reading(reports::reading::not_supported()), "not supported");
  EXPECT_EQ(format_reading(reports::reading::of(0)), "0");
  EXPECT_EQ(format_value(3012.44), "3012.4");
  EXPECT_EQ(format_value(45.214), "45.21");
  EXPECT_EQ(format_value(0.81234), "0.8123");
}

} // namespace
} // namespace gpuspec::cli

TEST(ChosenFormat, JsonWinsAndAnUnknownNameIsRefusedOnStderr) {
  using gpuspec::cli::chosen_format;
  using gpuspec::reports::output_format;
  EXPECT_EQ(chosen_format("diff", false, "md"), output_format::markdown);
  EXPECT_EQ(chosen_format("diff", true, "md"), output_format::json);
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(chosen_format("compare", false, "bogus").has_value());
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "gpuspec compare: --format bogus: unknown format\n");
}
