// Host tests of the Google Benchmark bridge: each case runs exactly once, in order, with Google
// Benchmark's console output swallowed; an exception stops the later cases and comes back out.

#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpuspec/benches/gbench_bridge.hpp"

namespace b = gpuspec::benches;

TEST(gbench_bridge, runs_each_case_once_in_order_and_quietly) {
  std::vector<std::string> ran;
  std::vector<b::gbench_case> cases;
  for (int i = 0; i < 3; ++i) {
    const std::string name = "memory.stream.triad/dtype=fp32/gpu:" + std::to_string(i);
    cases.push_back(
        {name, [&ran, name, i] {
           ran.push_back(name);
           return b::gbench_outcome{0.001 * (i + 1), {{"median", 100.0 * i}, {"samples", 10.0}}};
         }});
  }
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const auto reported = b::run_through_google_benchmark(cases);
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();

  ASSERT_EQ(ran.size(), 3u);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(ran[static_cast<std::size_t>(i)], cases[static_cast<std::size_t>(i)].name);
  ASSERT_EQ(reported.size(), 3u);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(
        reported[static_cast<std::size_t>(i)].rfind(cases[static_cast<std::size_t>(i)].name, 0), 0u)
        << reported[static_cast<std::size_t>(i)];
  EXPECT_EQ(out, "");
  EXPECT_EQ(err, "");
}

TEST(gbench_bridge, registrations_do_not_leak_into_the_next_run) {
  int first = 0, second = 0;
  (void)b::run_through_google_benchmark({{"a.b/first", [&] {
                                            ++first;
                                            return b::gbench_outcome{};
                                          }}});
  (void)b::run_through_google_benchmark({{"a.b/second", [&] {
                                            ++second;
                                            return b::gbench_outcome{};
                                          }}});
  EXPECT_EQ(first, 1);
  EXPECT_EQ(second, 1);
}

TEST(gbench_bridge, an_exception_stops_the_later_cases_and_is_rethrown) {
  int after = 0;
  std::vector<b::gbench_case> cases{
      {"a.b/ok",
       [] {
         return b::gbench_outcome{0.5, {}};
       }},
      {"a.b/throws", []() -> b::gbench_outcome { throw std::runtime_error("observer failed"); }},
      {"a.b/after",
       [&] {
         ++after;
         return b::gbench_outcome{};
       }},
  };
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  EXPECT_THROW((void)b::run_through_google_benchmark(cases), std::runtime_error);
  (void)::testing::internal::GetCapturedStdout();
  (void)::testing::internal::GetCapturedStderr();
  EXPECT_EQ(after, 0);
  // And Google Benchmark's registrations were cleared on the way out.
  int fresh = 0;
  (void)b::run_through_google_benchmark({{"a.b/fresh", [&] {
                                            ++fresh;
                                            return b::gbench_outcome{};
                                          }}});
  EXPECT_EQ(fresh, 1);
}

TEST(gbench_bridge, no_cases_runs_nothing) {
  EXPECT_TRUE(b::run_through_google_benchmark({}).empty());
}
