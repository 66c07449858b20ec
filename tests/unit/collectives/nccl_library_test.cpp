// The NCCL loader (nccl_library.hpp) against the fake libnccl (tests/fakes/fake_nccl.cpp): the
// entry points resolved by name and called through the table, a library lacking one entry
// point named in the message, and a missing file with dlerror's words. Runs without a GPU.

#include <string>

#include <gtest/gtest.h>

#include "gpuspec/collectives/nccl_library.hpp"
#include "gpuspec/collectives/nccl_version.hpp"

namespace gpuspec::collectives {
namespace {

TEST(nccl_library, resolves_every_entry_point_and_calls_through_the_table) {
  std::string why = "stale";
  const auto nccl = nccl_library::open({GPUSPEC_FAKE_NCCL_PATH}, why);
  ASSERT_TRUE(nccl.has_value()) << why;
  EXPECT_TRUE(why.empty());
  EXPECT_EQ(nccl->name(), GPUSPEC_FAKE_NCCL_PATH);
  int code = 0;
  ASSERT_EQ(nccl->api().get_version(&code), ncclSuccess);
  EXPECT_EQ(decode_nccl_version(code), "2.99.1"); // the fake's made-up version
  EXPECT_EQ(nccl->api().group_start(), ncclInvalidUsage);
  EXPECT_EQ(nccl->error_text(ncclInvalidUsage), "fake NCCL (tests/fakes): nothing is real");
}

TEST(nccl_library, a_library_lacking_an_entry_point_is_named_with_it) {
  std::string why;
  const auto nccl = nccl_library::open({GPUSPEC_FAKE_NCCL_NO_ABORT_PATH}, why);
  EXPECT_FALSE(nccl.has_value());
  EXPECT_EQ(why, std::string(GPUSPEC_FAKE_NCCL_NO_ABORT_PATH) +
                     " does not export ncclCommAbort (gpuspec needs NCCL 2.14 or later, or the "
                     "file is not NCCL)");
}

TEST(nccl_library, a_missing_file_is_not_found_with_dlerror_s_words) {
  std::string why;
  EXPECT_FALSE(nccl_library::open({"/nonexistent/libnccl.so.2"}, why).has_value());
  EXPECT_EQ(why.rfind("not found (/nonexistent/libnccl.so.2: ", 0), 0U) << why;
  EXPECT_EQ(why.back(), ')') << why;
}

TEST(nccl_library, the_search_stops_at_the_first_file_that_opens) {
  // A file that exists but lacks an entry point stops the search: it is what dlopen found
  // under that name, and a different NCCL behind it would hide the problem.
  std::string why;
  EXPECT_FALSE(nccl_library::open({GPUSPEC_FAKE_NCCL_NO_ABORT_PATH, GPUSPEC_FAKE_NCCL_PATH}, why));
  EXPECT_NE(why.find("ncclCommAbort"), std::string::npos) << why;
  EXPECT_TRUE(nccl_library::open({"/nonexistent/libnccl.so.2", GPUSPEC_FAKE_NCCL_PATH}, why));
}

} // namespace
} // namespace gpuspec::collectives
