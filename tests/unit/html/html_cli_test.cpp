// `gpuspec run --html FILE` end to end: without a driver nothing is measured, and the page still
// says why (the check's verdict of the host inventory), with the report written beside it
// embedded. (The pages of check, diff and compare are html_pages_test.py's.)

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "gpuspec/reports/model/report_json.hpp"
#include "run_process.hpp"
#include "test_text.hpp"

namespace {

namespace fs = std::filesystem;

using gpuspec::testing::read_text;

class RunHtml : public gpuspec::testing::scratch_dir_test {};

TEST_F(RunHtml, WritesThePageOfTheCheckWithTheReportEmbedded) {
  const auto r = gpuspec::testing::run_in(
      m_dir, "env GPUSPEC_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 '" GPUSPEC_BINARY
             "' run -o report.json --html page.html");
  EXPECT_EQ(r.exit_code, 3) << r.err; // no GPU: no verdict
  ASSERT_TRUE(fs::exists(m_dir / "page.html")) << r.err;
  const std::string page = read_text(m_dir / "page.html");
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0U);
  EXPECT_NE(page.find("<h1>gpuspec check: "), std::string::npos);
  const std::string open = "<script type=\"application/json\" id=\"gpuspec-report-0\">\n";
  const auto at = page.find(open);
  ASSERT_NE(at, std::string::npos);
  const auto from = at + open.size();
  const auto embedded = gpuspec::reports::parse_report(
      page.substr(from, page.find("</script>", from) - from), "page");
  ASSERT_TRUE(embedded) << embedded.error().to_string();
  const auto written = gpuspec::reports::load_report(m_dir / "report.json");
  ASSERT_TRUE(written);
  EXPECT_EQ(embedded.value(), written.value());
}

} // namespace
