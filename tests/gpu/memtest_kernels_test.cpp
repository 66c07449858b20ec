// Device tests of the burn-in's kernels (memtest.hpp, output_checksum.hpp) against their host
// references: a clean buffer reads back clean under every pattern; a word changed between the
// write and the read is found with its address, pattern value and count; the device checksum of
// a GEMM-sized output equals the host's, bit for bit.

#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "gpu_test_support.hpp"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/kernels/memtest.hpp"
#include "gpuspec/kernels/output_checksum.hpp"
#include "gpuspec/kernels/seeded_values.hpp"

namespace k = gpuspec::kernels;

namespace {

struct memtest_kernels : gpuspec::testing::gpu_test {};

k::memtest_outcome outcome_of(const k::device_buffer<k::memtest_outcome>& o) {
  k::memtest_outcome out{};
  EXPECT_EQ(cudaMemcpy(&out, o.data(), sizeof out, cudaMemcpyDeviceToHost), cudaSuccess);
  return out;
}

TEST_F(memtest_kernels, every_pattern_reads_back_clean_and_matches_the_host_reference) {
  constexpr std::size_t n = std::size_t{1} << 22; // 32 MiB
  k::device_buffer<std::uint64_t> words(n);
  k::device_buffer<k::memtest_outcome> outcome(1);
  const auto base = reinterpret_cast<std::uint64_t>(words.data());
  for (const auto p : k::memtest_patterns) {
    SCOPED_TRACE(std::string(k::name_of(p)));
    const k::memtest_outcome zero{};
    ASSERT_EQ(cudaMemcpy(outcome.data(), &zero, sizeof zero, cudaMemcpyHostToDevice), cudaSuccess);
    k::memtest_fill(words.data(), n, p, 7, false, nullptr);
    k::memtest_check(words.data(), n, p, 7, false, false, false, outcome.data(), nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(outcome_of(outcome).bad_words, 0u);
    std::vector<std::uint64_t> host(n);
    ASSERT_EQ(cudaMemcpy(host.data(), words.data(), n * 8, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(k::memtest_check_host(host.data(), n, p, 7, base, false).bad_words, 0u);
  }
}

TEST_F(memtest_kernels, a_word_changed_between_write_and_read_is_found) {
  constexpr std::size_t n = std::size_t{1} << 22;
  k::device_buffer<std::uint64_t> words(n);
  k::device_buffer<k::memtest_outcome> outcome(1);
  const auto base = reinterpret_cast<std::uint64_t>(words.data());
  const k::memtest_outcome zero{};
  ASSERT_EQ(cudaMemcpy(outcome.data(), &zero, sizeof zero, cudaMemcpyHostToDevice), cudaSuccess);
  k::memtest_fill(words.data(), n, k::memtest_pattern::address, 7, false, nullptr);
  // The injected fault: three words written wrong after the fill.
  const std::size_t bad[] = {5, 123457, n - 1};
  for (const std::size_t i : bad) {
    const std::uint64_t wrong = (base + 8 * i) ^ (std::uint64_t{1} << 40);
    ASSERT_EQ(cudaMemcpy(words.data() + i, &wrong, 8, cudaMemcpyHostToDevice), cudaSuccess);
  }
  k::memtest_check(words.data(), n, k::memtest_pattern::address, 7, false, false, false,
                   outcome.data(), nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto out = outcome_of(outcome);
  EXPECT_EQ(out.bad_words, 3u);
  ASSERT_EQ(out.recorded, 3u);
  for (std::uint32_t r = 0; r < out.recorded; ++r) {
    const std::uint64_t i = (out.first[r].address - base) / 8;
    EXPECT_TRUE(i == bad[0] || i == bad[1] || i == bad[2]) << i;
    EXPECT_EQ(out.first[r].expected, out.first[r].address);
    EXPECT_EQ(out.first[r].actual, out.first[r].expected ^ (std::uint64_t{1} << 40));
  }
}

TEST_F(memtest_kernels, moving_inversions_leave_the_pattern_and_find_nothing_on_clean_memory) {
  constexpr std::size_t n = std::size_t{1} << 20;
  k::device_buffer<std::uint64_t> words(n);
  k::device_buffer<k::memtest_outcome> outcome(1);
  const k::memtest_outcome zero{};
  ASSERT_EQ(cudaMemcpy(outcome.data(), &zero, sizeof zero, cudaMemcpyHostToDevice), cudaSuccess);
  const auto p = k::memtest_pattern::moving_inversions;
  k::memtest_fill(words.data(), n, p, 3, false, nullptr);
  k::memtest_check(words.data(), n, p, 3, false, true, false, outcome.data(), nullptr);
  k::memtest_check(words.data(), n, p, 3, true, true, true, outcome.data(), nullptr);
  k::memtest_check(words.data(), n, p, 3, false, false, false, outcome.data(), nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(outcome_of(outcome).bad_words, 0u);
}

TEST_F(memtest_kernels, the_device_checksum_is_the_host_references) {
  constexpr std::size_t n = std::size_t{8192} * 8192;
  std::vector<std::uint16_t> host(n);
  for (std::size_t i = 0; i < n; ++i)
    host[i] = static_cast<std::uint16_t>(k::seeded_bits(11, i));
  k::device_buffer<std::uint16_t> bits(n);
  k::device_buffer<std::uint64_t> sum(1);
  ASSERT_EQ(cudaMemcpy(bits.data(), host.data(), n * 2, cudaMemcpyHostToDevice), cudaSuccess);
  for (int run = 0; run < 3; ++run) {
    k::launch_output_checksum(bits.data(), n, sum.data(), nullptr);
    std::uint64_t device = 0;
    ASSERT_EQ(cudaMemcpy(&device, sum.data(), 8, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(device, k::checksum_of(host.data(), n)) << "run " << run;
  }
}

} // namespace
