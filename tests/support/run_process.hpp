#pragma once
/// For tests that run the gpuspec executable as a user would: a scratch folder per test, and a
/// command run there with its exit code, stdout and stderr captured.

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace gpuspec::testing {

struct process_result {
  int exit_code = -1;
  std::string out, err;
};

inline std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Runs `command` (a shell command line) in `dir`; stderr is captured through a file there.
inline process_result run_in(const std::filesystem::path& dir, const std::string& command) {
  const std::filesystem::path err = dir / "stderr.txt";
  const std::string cmd = "cd '" + dir.string() + "' && " + command + " 2>'" + err.string() + "'";
  process_result r;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr)
    throw std::runtime_error("popen failed");
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0)
    r.out.append(buf.data(), n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_all(err);
  return r;
}

/// A fresh folder per test, named after it, removed afterwards.
class scratch_dir_test : public ::testing::Test {
protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_dir = std::filesystem::temp_directory_path() /
            (std::string("gpuspec-") + info->test_suite_name() + "-" + info->name() + "-" +
             std::to_string(::getpid()));
    std::filesystem::remove_all(m_dir);
    std::filesystem::create_directories(m_dir);
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  std::filesystem::path m_dir;
};

} // namespace gpuspec::testing
