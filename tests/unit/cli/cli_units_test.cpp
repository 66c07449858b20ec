#include <gtest/gtest.h>

#include "cmd_info.hpp"
#include "cmd_run.hpp"
#include "exit_code.hpp"
#include "format.hpp"
#include "text_table.hpp"

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
  reports::pcie_link link{4, 5, 8, 16};
  EXPECT_EQ(format_pcie(link), "Gen4 x8 (max Gen5 x16)");
  EXPECT_EQ(format_reading(reports::reading::not_supported()), "not supported");
  EXPECT_EQ(format_reading(reports::reading::of(0)), "0");
  EXPECT_EQ(format_value(3012.44), "3012.4");
  EXPECT_EQ(format_value(45.214), "45.21");
  EXPECT_EQ(format_value(0.81234), "0.8123");
}

} // namespace
} // namespace gpuspec::cli
