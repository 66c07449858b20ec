// `gpuspec list` on a terminal (issue 31: 413 columns wide): at 80 columns no line is wider, no
// identifier is cut, and a sweep of 19 sizes wraps between its values. The rows are the real
// registrations of latency.sweep (its sizes from the CUDA-free table the benchmark reads) and of
// a collective, as registry.cpp's axes_text writes their parameters.

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "gpuspec/cli/cmd_list.hpp"
#include "gpuspec/cli/text_table.hpp"
#include "gpuspec/kernels/pointer_chase.hpp"

namespace gpuspec::cli {
namespace {

std::vector<host::benchmark_listing> real_listings() {
  return {
      {"latency.sweep",
       "pointer-chase load latency over chains of 4 KiB to 1 GiB: the L1, L2 and DRAM steps",
       {"standard", "full"},
       fmt::format("bytes={}", fmt::join(kernels::sweep_size_texts(), "|"))},
      {"latency.launch",
       "empty-kernel launch cost per launch, from a stream and from a CUDA graph",
       {"quick", "standard", "full", "burnin"},
       "mode=stream|graph"},
      {"collective.all_reduce",
       "NCCL all_reduce over every selected GPU: nccl-tests' time, algbw, busbw, #wrong",
       {"standard", "full"},
       "dtype=fp32|fp16|bf16 placement=out_of_place|in_place"},
  };
}

TEST(ListTable, FitsEightyColumnsWithoutCuttingAnIdentifier) {
  const auto listings = real_listings();
  ASSERT_GT(listings[0].parameters.size(), 80U); // the sweep alone is wider than the screen
  const std::string wide = list_table_text(listings, 0);
  const std::string text = list_table_text(listings, 80);
  std::istringstream in(text);
  std::size_t lines = 0;
  for (std::string line; std::getline(in, line); ++lines)
    EXPECT_LE(text_table::display_width(line), 80U) << line << "\n" << text;
  EXPECT_GT(lines, listings.size() + 2);
  EXPECT_EQ(text.find("…"), std::string::npos) << text;
  for (const auto& l : listings)
    EXPECT_NE(text.find("\n" + l.id + " "), std::string::npos) << l.id << "\n" << text;
  for (const auto& size : kernels::sweep_size_texts())
    EXPECT_NE(text.find(size), std::string::npos) << size << "\n" << text;
  // Unlimited, one line per benchmark, as before.
  EXPECT_EQ(std::count(wide.begin(), wide.end(), '\n'), static_cast<long>(listings.size() + 2));
}

} // namespace
} // namespace gpuspec::cli
