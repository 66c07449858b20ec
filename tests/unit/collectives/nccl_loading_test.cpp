// What gpuspec opens as NCCL and the dlopen handle that opens it, in every build: the choice of
// file ($GPUSPEC_NCCL_LIBRARY alone, else the default names), and dynamic_library against the
// fake NVML (tests/fakes), a real shared library that exports NVML's names and none of NCCL's.
// The NCCL table itself is tested in CUDA builds (nccl_library_test.cpp) against a fake libnccl.

#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "gpuspec/collectives/dynamic_library.hpp"
#include "gpuspec/collectives/nccl_library_choice.hpp"

namespace gpuspec::collectives {
namespace {

TEST(nccl_library_candidates, chosen_library_is_the_only_one_tried) {
  EXPECT_EQ(nccl_library_candidates(std::string("/opt/nccl/lib/libnccl.so.2"), "/usr/lib/x.so"),
            (std::vector<std::string>{"/opt/nccl/lib/libnccl.so.2"}));
}

TEST(nccl_library_candidates, defaults_then_the_build_s_library) {
  EXPECT_EQ(
      nccl_library_candidates(std::nullopt, "/usr/local/cuda/lib/libnccl.so"),
      (std::vector<std::string>{"libnccl.so.2", "libnccl.so", "/usr/local/cuda/lib/libnccl.so"}));
  // An empty variable is as good as none; a build without a library adds nothing.
  EXPECT_EQ(nccl_library_candidates(std::string(), ""),
            (std::vector<std::string>{"libnccl.so.2", "libnccl.so"}));
}

TEST(dynamic_library, missing_files_give_dlerror_for_each) {
  std::string why;
  const auto lib =
      dynamic_library::open_first({"/nonexistent/libnccl.so.2", "/nonexistent/libnccl.so"}, why);
  EXPECT_FALSE(lib.has_value());
  EXPECT_NE(why.find("/nonexistent/libnccl.so.2"), std::string::npos) << why;
  EXPECT_NE(why.find("; /nonexistent/libnccl.so"), std::string::npos) << why;
  EXPECT_NE(why.find("No such file"), std::string::npos) << why;
}

TEST(dynamic_library, nothing_to_open_says_so) {
  std::string why;
  EXPECT_FALSE(dynamic_library::open_first({}, why).has_value());
  EXPECT_EQ(why, "no library name to open");
}

TEST(dynamic_library, opens_the_first_that_exists_and_resolves_by_name) {
  std::string why = "stale";
  auto lib =
      dynamic_library::open_first({"/nonexistent/libnccl.so.2", GPUSPEC_FAKE_NVML_PATH}, why);
  ASSERT_TRUE(lib.has_value()) << why;
  EXPECT_TRUE(why.empty()) << why;
  EXPECT_EQ(lib->name(), GPUSPEC_FAKE_NVML_PATH);
  EXPECT_NE(lib->symbol("nvmlInit_v2"), nullptr);
  EXPECT_EQ(lib->symbol("ncclCommAbort"), nullptr); // not exported: null, never a crash

  // Moved, the handle goes with it and the old one resolves nothing.
  dynamic_library moved = std::move(*lib);
  EXPECT_NE(moved.symbol("nvmlInit_v2"), nullptr);
  EXPECT_EQ(lib->symbol("nvmlInit_v2"), nullptr); // NOLINT(bugprone-use-after-move)
}

} // namespace
} // namespace gpuspec::collectives
