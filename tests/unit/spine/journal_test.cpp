// The journal: what is appended is what is read back, in report order; a journal without its end
// line recovers as an incomplete report naming it; a last line cut short is dropped and said;
// anything else that is not a journal line is an error naming the line. Property tests: random
// reports survive the journal, and no truncation of a journal makes the reader throw.

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/spine/journal.hpp"
#include "sample_reports.hpp"

namespace spine = gpuspec::spine;
namespace r = gpuspec::reports;
namespace fs = std::filesystem;

namespace {

class Journal : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() /
            ("gpuspec-journal-" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
             std::to_string(::getpid()));
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  [[nodiscard]] std::string text_of(const fs::path& p) const {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  void write_text(const fs::path& p, const std::string& text) const {
    std::ofstream(p, std::ios::binary) << text;
  }

  /// A header, three results arriving out of report order, and optionally the end line.
  fs::path write_sample(bool finish) {
    r::report head = r::testing::synthetic_report();
    head.results.clear();
    head.run.devices = {1, 0}; // the order the run was asked for
    head.complete = false;
    head.incomplete_reason = "the run is in progress";
    const fs::path p = m_dir / "report.json.journal";
    spine::journal_writer w(p, head);
    const auto results = r::testing::synthetic_report().results;
    w.append({0, 1, results[1]});
    w.append({1, 0, results[0]});
    w.append({0, 0, results[2]});
    if (finish) {
      head.complete = true;
      head.incomplete_reason.clear();
      head.run.finished_utc = "2000-01-01T00:02:00Z";
      w.finish(head);
    }
    return p;
  }

  fs::path m_dir;
};

} // namespace

TEST_F(Journal, IsNamedAfterItsReport) {
  EXPECT_EQ(spine::journal_path_for("out/r.json"), fs::path("out/r.json.journal"));
}

TEST_F(Journal, AFinishedJournalHoldsTheReportInReportOrder) {
  const auto p = write_sample(true);
  const auto c = spine::read_journal(p);
  ASSERT_TRUE(c) << c.error().to_string();
  EXPECT_TRUE(c.value().finished);
  EXPECT_FALSE(c.value().last_line_cut);
  const auto& rep = c.value().report;
  EXPECT_TRUE(rep.complete);
  EXPECT_EQ(rep.run.finished_utc, "2000-01-01T00:02:00Z");
  const auto results = r::testing::synthetic_report().results;
  // GPU 1 first (run.devices is {1, 0}), then GPU 0's cases 0 and 1.
  ASSERT_EQ(rep.results.size(), 3U);
  EXPECT_EQ(rep.results[0], results[0]);
  EXPECT_EQ(rep.results[1], results[2]);
  EXPECT_EQ(rep.results[2], results[1]);
  const auto recovered = spine::recover_report(p);
  ASSERT_TRUE(recovered);
  EXPECT_TRUE(recovered.value().complete);
}

TEST_F(Journal, NodeWideResultsComeBackMarkedAndFollowEveryOneGpuResult) {
  r::report head = r::testing::synthetic_report();
  head.results.clear();
  head.run.devices = {0, 1};
  const fs::path p = m_dir / "report.json.journal";
  const auto results = r::testing::synthetic_report().results;
  {
    spine::journal_writer w(p, head);
    // The node-wide worker takes the first GPU's id and numbers its cases from 0 again.
    w.append({0, 0, results[2], true});
    w.append({1, 0, results[1]});
    w.append({0, 0, results[0]});
  }
  EXPECT_NE(text_of(p).find("\"node_wide\":true"), std::string::npos);
  const auto c = spine::read_journal(p);
  ASSERT_TRUE(c) << c.error().to_string();
  const auto& rep = c.value().report;
  ASSERT_EQ(rep.results.size(), 3U);
  EXPECT_EQ(rep.results[0], results[0]);
  EXPECT_EQ(rep.results[1], results[1]);
  EXPECT_EQ(rep.results[2], results[2]);
}

TEST_F(Journal, ANodeWideMarkThatIsNotTrueIsAnError) {
  r::report head = r::testing::synthetic_report();
  head.results.clear();
  const fs::path p = m_dir / "report.json.journal";
  { spine::journal_writer w(p, head); }
  std::string text = text_of(p);
  const auto result = r::result_to_json(r::testing::synthetic_report().results[0]).dump();
  text += "{\"device\":0,\"case\":0,\"node_wide\":false,\"result\":" + result + "}\n";
  write_text(p, text);
  const auto c = spine::read_journal(p);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().field, "line 2: node_wide") << c.error().to_string();
}

TEST_F(Journal, WithoutItsEndLineItRecoversAsAnIncompleteReportNamingIt) {
  const auto p = write_sample(false);
  const auto rep = spine::recover_report(p);
  ASSERT_TRUE(rep) << rep.error().to_string();
  EXPECT_FALSE(rep.value().complete);
  EXPECT_NE(rep.value().incomplete_reason.find(p.string()), std::string::npos);
  EXPECT_NE(rep.value().incomplete_reason.find("3 result(s)"), std::string::npos)
      << rep.value().incomplete_reason;
  EXPECT_EQ(rep.value().results.size(), 3U);
}

TEST_F(Journal, ALineFoundTwiceIsOneResultAndSaid) {
  // A journal with its result lines duplicated recovered duplicated results.
  const auto p = write_sample(false);
  std::string text = text_of(p);
  const auto first_end = text.find('\n');
  text += text.substr(first_end + 1); // every result line again
  write_text(p, text);
  std::size_t duplicates = 0;
  const auto rep = spine::recover_report(p, &duplicates);
  ASSERT_TRUE(rep) << rep.error().to_string();
  EXPECT_EQ(rep.value().results.size(), 3U);
  EXPECT_EQ(duplicates, 3U);
  EXPECT_NE(rep.value().incomplete_reason.find("3 line(s) found twice were kept once"),
            std::string::npos)
      << rep.value().incomplete_reason;
}

TEST_F(Journal, ALastLineCutShortIsDroppedAndSaid) {
  const auto p = write_sample(false);
  std::string text = text_of(p);
  text.resize(text.size() - 40); // the writer died inside its last line
  write_text(p, text);
  const auto rep = spine::recover_report(p);
  ASSERT_TRUE(rep) << rep.error().to_string();
  EXPECT_EQ(rep.value().results.size(), 2U);
  EXPECT_NE(rep.value().incomplete_reason.find("cut short"), std::string::npos)
      << rep.value().incomplete_reason;
}

TEST_F(Journal, ABadLineInTheMiddleIsAnErrorNamingIt) {
  const auto p = write_sample(false);
  std::string text = text_of(p);
  const auto second = text.find('\n') + 1;
  text.insert(second, "{\"device\": 0}\n");
  write_text(p, text);
  const auto c = spine::read_journal(p);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().file, p.string());
  EXPECT_EQ(c.error().field, "line 2: case") << c.error().to_string();
  EXPECT_EQ(c.error().message, "missing");
}

TEST_F(Journal, AnUnknownOrMistypedFieldIsNamedWithItsLineAndPath) {
  const auto p = write_sample(true);
  const std::string good = text_of(p);
  ASSERT_TRUE(spine::read_journal(p)) << "the healthy journal reads";
  struct bad {
    std::string from, to, field;
  };
  for (const auto& c :
       std::vector<bad>{{"{\"journal\":", "{\"extra\":1,\"journal\":", "line 1: extra"},
                        {"{\"device\":1,", "{\"device\":\"1\",", "line 3: device"},
                        {"\"case\":1,", "\"case\":1,\"cases\":1,", "line 2: cases"},
                        {"{\"end\":{", "{\"end\":{\"schema\":7,", "line 5: end.schema"}}) {
    SCOPED_TRACE(c.to);
    std::string text = good;
    // The header's report holds keys of the same names: the result lines are searched after it.
    const auto at = text.find(c.from, c.field.starts_with("line 1") ? 0 : text.find('\n'));
    ASSERT_NE(at, std::string::npos);
    text.replace(at, c.from.size(), c.to);
    write_text(p, text);
    const auto read = spine::read_journal(p);
    ASSERT_FALSE(read);
    EXPECT_EQ(read.error().file, p.string());
    EXPECT_EQ(read.error().field, c.field) << read.error().to_string();
  }
}

TEST_F(Journal, SomethingElseIsNotAJournal) {
  write_text(m_dir / "empty", "");
  write_text(m_dir / "report", r::to_json_text(r::testing::synthetic_report()));
  write_text(m_dir / "one-line-report", r::to_json(r::testing::synthetic_report()).dump() + "\n");
  for (const char* name : {"empty", "report", "one-line-report", "absent"}) {
    const auto c = spine::read_journal(m_dir / name);
    ASSERT_FALSE(c) << name;
    EXPECT_EQ(c.error().file, (m_dir / name).string());
  }
  // A report, pretty-printed or on one line, is named as one (not "line 1: not JSON").
  for (const char* name : {"report", "one-line-report"}) {
    const auto c = spine::read_journal(m_dir / name);
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().field, "") << name;
    EXPECT_EQ(c.error().message.rfind("not a gpuspec journal (this is a report", 0), 0U)
        << name << ": " << c.error().message;
  }
}

TEST_F(Journal, RandomReportsSurviveIt) {
  for (std::uint64_t seed = 1; seed <= 25; ++seed) {
    SCOPED_TRACE(seed);
    r::report rep = r::testing::random_report(seed);
    rep.run.devices.clear(); // report order: by device index, then case
    r::report head = rep;
    head.results.clear();
    const fs::path p = m_dir / ("random-" + std::to_string(seed) + ".journal");
    {
      spine::journal_writer w(p, head);
      for (std::size_t i = 0; i < rep.results.size(); ++i)
        w.append({0, static_cast<int>(i), rep.results[i]});
      w.finish(head);
    }
    const auto c = spine::read_journal(p);
    ASSERT_TRUE(c) << c.error().to_string();
    EXPECT_EQ(c.value().report, rep);
  }
}

TEST_F(Journal, NoTruncationMakesTheReaderThrowOrInventResults) {
  const auto p = write_sample(true);
  const std::string text = text_of(p);
  const fs::path cut = m_dir / "cut.journal";
  std::size_t last = 0;
  // Every cut near a line end (where a killed writer stops), and a spread of others.
  std::vector<std::size_t> cuts;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n')
      for (std::size_t n = (i > 0 ? i - 1 : 0); n <= std::min(text.size(), i + 2); ++n)
        cuts.push_back(n);
  for (std::size_t n = 0; n <= text.size(); n += text.size() / 97 + 1)
    cuts.push_back(n);
  std::sort(cuts.begin(), cuts.end());
  for (const std::size_t n : cuts) {
    write_text(cut, text.substr(0, n));
    std::optional<r::outcome<spine::journal_contents>> c;
    ASSERT_NO_THROW(c.emplace(spine::read_journal(cut))) << n;
    if (*c) {
      // What a cut journal gives is never more than was written, and grows with the prefix.
      EXPECT_LE(c->value().results, 3U);
      EXPECT_GE(c->value().results, last);
      last = c->value().results;
    }
  }
}
