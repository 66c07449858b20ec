// write_file_atomically: the target is either the old file or the whole new one, never a
// partial file, and a failure leaves no temporary behind.

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "gpuspec/reports/model/report_json.hpp"
#include "test_text.hpp"

namespace gpuspec::reports {
namespace {

namespace fs = std::filesystem;

using gpuspec::testing::read_text;

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class AtomicWrite : public ::testing::Test {
protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_dir = fs::temp_directory_path() /
            (std::string("gpuspec-atomic-") + info->name() + "-" + std::to_string(::getpid()));
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  fs::path m_dir;
};

TEST_F(AtomicWrite, CreatesTheFile) {
  const fs::path file = m_dir / "report.json";
  write_file_atomically(file, "{}\n");
  EXPECT_EQ(read_text(file), "{}\n");
  EXPECT_EQ(names_in(m_dir), std::vector<std::string>{"report.json"});
}

TEST_F(AtomicWrite, ReplacesAnExistingFile) {
  const fs::path file = m_dir / "report.json";
  std::ofstream(file) << "old content that is longer than the new one";
  write_file_atomically(file, "new");
  EXPECT_EQ(read_text(file), "new");
  EXPECT_EQ(names_in(m_dir), std::vector<std::string>{"report.json"});
}

TEST_F(AtomicWrite, WritesEmptyAndLargeText) {
  write_file_atomically(m_dir / "empty", "");
  EXPECT_TRUE(fs::exists(m_dir / "empty"));
  EXPECT_EQ(fs::file_size(m_dir / "empty"), 0U);
  std::string large(5 * 1024 * 1024, 'x');
  large[12345] = '\0'; // binary-safe
  write_file_atomically(m_dir / "large", large);
  EXPECT_EQ(read_text(m_dir / "large"), large);
}

TEST_F(AtomicWrite, MissingFolderThrowsAndCreatesNothing) {
  const fs::path file = m_dir / "no" / "such" / "folder" / "report.json";
  try {
    write_file_atomically(file, "{}");
    FAIL() << "no exception";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_file_or_directory);
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(m_dir / "no"));
  EXPECT_TRUE(names_in(m_dir).empty());
}

TEST_F(AtomicWrite, TargetThatIsAFolderIsLeftAlone) {
  const fs::path target = m_dir / "report.json";
  fs::create_directories(target / "inside");
  EXPECT_THROW(write_file_atomically(target, "{}"), std::system_error);
  EXPECT_TRUE(fs::is_directory(target / "inside"));
  EXPECT_EQ(names_in(m_dir), std::vector<std::string>{"report.json"}); // no temporary left
}

TEST_F(AtomicWrite, AFifoIsWrittenThroughNeverReplaced) {
  // `-o FIFO`: a reader gets the text, and the FIFO stays a FIFO (a rename made it a file).
  const fs::path fifo = m_dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The reading end opened first (non-blocking, so no thread waits on a FIFO that a rename
  // took away): the writer's open then succeeds at once, and the text fits the pipe's buffer.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  write_file_atomically(fifo, "{\"verdict\": \"pass\"}\n");
  std::array<char, 256> buffer{};
  const ssize_t n = ::read(reader, buffer.data(), buffer.size());
  ::close(reader);
  EXPECT_EQ(std::string(buffer.data(), n > 0 ? static_cast<std::size_t>(n) : 0U),
            "{\"verdict\": \"pass\"}\n");
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(names_in(m_dir), std::vector<std::string>{"pipe"}); // no temporary left
}

TEST_F(AtomicWrite, ADeviceIsWrittenThroughNeverReplaced) {
  // As root, `check ... -o /dev/null` replaced /dev/null with a regular file. A null device of
  // our own (mknod needs root); unprivileged, the system's /dev/null, which the old code could
  // not replace and refused to write.
  fs::path device = "/dev/null";
  if (::geteuid() == 0) {
    device = m_dir / "null";
    ASSERT_EQ(::mknod(device.c_str(), S_IFCHR | 0666, ::makedev(1, 3)), 0);
  }
  write_file_atomically(device, "discarded\n");
  EXPECT_TRUE(fs::is_character_file(device));
  EXPECT_EQ(read_text(device), "");
  if (::geteuid() == 0) {
    EXPECT_EQ(names_in(m_dir), std::vector<std::string>{"null"});
  }
}

TEST_F(AtomicWrite, ALinkIsWrittenThroughAndStaysALink) {
  const fs::path file = m_dir / "real.json";
  const fs::path link = m_dir / "link.json";
  std::ofstream(file) << "old content, longer than the new";
  fs::create_symlink(file.filename(), link);
  write_file_atomically(link, "new");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_text(file), "new");
  EXPECT_EQ(names_in(m_dir), (std::vector<std::string>{"link.json", "real.json"}));
}

TEST_F(AtomicWrite, NotAFileNameThrows) {
  EXPECT_THROW(write_file_atomically(m_dir / "", "{}"), std::system_error);
  EXPECT_THROW(write_file_atomically(m_dir / "..", "{}"), std::system_error);
  EXPECT_TRUE(names_in(m_dir).empty());
}

/// A write that fails half-way (here: the file-size limit, EFBIG) removes the temporary and
/// leaves the existing report as it was.
TEST_F(AtomicWrite, FailedWriteLeavesTheOldFileUntouched) {
  const fs::path file = m_dir / "report.json";
  std::ofstream(file) << "the old report";

  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN); // EFBIG instead of a signal
  rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  bool threw = false;
  std::string what;
  try {
    write_file_atomically(file, std::string(100000, 'y'));
  } catch (const std::system_error& e) {
    threw = true;
    what = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);

  EXPECT_TRUE(threw);
  EXPECT_NE(what.find(file.string()), std::string::npos) << what;
  EXPECT_NE(what.find("writing"), std::string::npos) << what;
  EXPECT_EQ(read_text(file), "the old report");
  EXPECT_EQ(names_in(m_dir), std::vector<std::string>{"report.json"});
}

TEST_F(AtomicWrite, RelativePathWritesIntoTheCurrentFolder) {
  const fs::path before = fs::current_path();
  fs::current_path(m_dir);
  write_file_atomically("here.json", "here");
  fs::current_path(before);
  EXPECT_EQ(read_text(m_dir / "here.json"), "here");
  EXPECT_EQ(names_in(m_dir), std::vector<std::string>{"here.json"});
}

TEST_F(AtomicWrite, StaleTemporaryWithTheSameNameIsNotReused) {
  // A temporary left by a crashed writer that had this pid: creation is exclusive, so the
  // writer takes the next free name and the stale file is not overwritten or renamed.
  const fs::path stale = m_dir / (".report.json.tmp." + std::to_string(::getpid()) + ".0");
  std::ofstream(stale) << "stale";
  write_file_atomically(m_dir / "report.json", "fresh");
  EXPECT_EQ(read_text(m_dir / "report.json"), "fresh");
  EXPECT_EQ(read_text(stale), "stale");
}

TEST_F(AtomicWrite, ConcurrentWritersNeverLeaveAPartialFile) {
  const fs::path file = m_dir / "report.json";
  constexpr int writers = 4;
  constexpr int rounds = 50;
  std::vector<std::string> contents;
  for (int w = 0; w < writers; ++w) {
    contents.push_back(std::string(20000 + 1000 * w, static_cast<char>('a' + w)));
  }
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < rounds; ++i) {
        write_file_atomically(file, contents[static_cast<std::size_t>(w)]);
      }
    });
  }
  std::vector<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    if (fs::exists(file)) {
      seen.push_back(read_text(file));
    }
  }
  for (std::thread& t : threads) {
    t.join();
  }
  seen.push_back(read_text(file));
  for (const std::string& text : seen) {
    EXPECT_NE(std::find(contents.begin(), contents.end(), text), contents.end())
        << "a partial or mixed file of " << text.size() << " bytes";
  }
  EXPECT_EQ(names_in(m_dir), std::vector<std::string>{"report.json"});
}

} // namespace
} // namespace gpuspec::reports
