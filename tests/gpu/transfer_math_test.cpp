// Host tests of the transfer benchmarks' CUDA-free parts: the size axis, copies per sample and
// bytes counted (transfer_math.hpp), the seeded pattern and the byte-for-byte check, the SM
// copy's grid and its launchers' argument checks (which throw before any CUDA call), and the
// family's registration (axes, suites, what quick runs).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpuspec/benches/registry.hpp"
#include "gpuspec/kernels/host_copy.hpp"
#include "gpuspec/kernels/transfer_math.hpp"

#if defined(__CUDA_RUNTIME_API_H__) || defined(__CUDA_RUNTIME_H__)
#error "the kernels' .hpp headers must not include the CUDA runtime"
#endif

namespace b = gpuspec::benches;
namespace k = gpuspec::kernels;

namespace {
constexpr std::uint64_t kib = 1024, mib = kib * 1024, gib = mib * 1024;
}

TEST(transfer_math, size_axis_is_4kib_to_1gib_by_fours_with_quicks_size_first) {
  const std::vector<std::string> sizes = k::transfer_size_texts();
  EXPECT_EQ(sizes, (std::vector<std::string>{"256MiB", "4KiB", "16KiB", "64KiB", "256KiB", "1MiB",
                                             "4MiB", "16MiB", "64MiB", "1GiB"}));
  std::set<std::uint64_t> seen;
  for (const auto& s : sizes) {
    const std::uint64_t bytes = k::parse_size_text(s);
    EXPECT_EQ(bytes % 16, 0u) << s; // the SM copy's 16-byte accesses
    EXPECT_GE(bytes, 4 * kib);
    EXPECT_LE(bytes, gib);
    seen.insert(bytes);
  }
  EXPECT_EQ(seen.size(), sizes.size());
  for (std::uint64_t bytes = 4 * kib; bytes <= gib; bytes *= 4)
    EXPECT_EQ(seen.count(bytes), 1u) << bytes;
}

TEST(transfer_math, a_sample_moves_at_least_16_mib_in_at_most_64_copies) {
  EXPECT_EQ(k::transfer_copies_per_sample(4 * kib), 64u);
  EXPECT_EQ(k::transfer_copies_per_sample(256 * kib), 64u);
  EXPECT_EQ(k::transfer_copies_per_sample(1 * mib), 16u);
  EXPECT_EQ(k::transfer_copies_per_sample(3 * mib), 6u); // rounded up
  EXPECT_EQ(k::transfer_copies_per_sample(4 * mib), 4u);
  EXPECT_EQ(k::transfer_copies_per_sample(16 * mib), 1u);
  EXPECT_EQ(k::transfer_copies_per_sample(gib), 1u);
  EXPECT_EQ(k::transfer_copies_per_sample(0), 1u);
  for (const auto& s : k::transfer_size_texts()) {
    const std::uint64_t bytes = k::parse_size_text(s);
    const std::uint64_t copies = k::transfer_copies_per_sample(bytes);
    EXPECT_GE(copies, 1u);
    EXPECT_LE(copies, k::transfer_max_copies_per_sample);
    EXPECT_TRUE(copies * bytes >= k::transfer_sample_min_bytes ||
                copies == k::transfer_max_copies_per_sample)
        << s;
  }
}

TEST(transfer_math, bytes_count_each_copy_once_per_direction) {
  using k::transfer_kind;
  EXPECT_EQ(k::transfer_directions(transfer_kind::h2d), 1);
  EXPECT_EQ(k::transfer_directions(transfer_kind::d2h), 1);
  EXPECT_EQ(k::transfer_directions(transfer_kind::bidir), 2);
  EXPECT_EQ(k::transfer_bytes_per_sample(transfer_kind::h2d, 256 * mib, 1), 256.0 * mib);
  EXPECT_EQ(k::transfer_bytes_per_sample(transfer_kind::d2h, 4 * kib, 64), 262144.0);
  EXPECT_EQ(k::transfer_bytes_per_sample(transfer_kind::bidir, gib, 1), 2.0 * gib);
  EXPECT_EQ(k::transfer_bytes_per_sample(transfer_kind::bidir, 1 * mib, 16), 32.0 * mib);
}

TEST(transfer_math, pattern_words_are_never_zero_nor_the_poison) {
  for (const std::uint64_t seed : {0ull, 1ull, 0x6770757370656811ull})
    for (std::uint64_t i = 0; i < 100000; ++i) {
      const std::uint64_t w = k::transfer_pattern_word(seed, i);
      ASSERT_NE(w, 0u);
      ASSERT_NE(w, k::transfer_poison_word);
    }
  EXPECT_NE(k::transfer_pattern_word(1, 0), k::transfer_pattern_word(2, 0));
  EXPECT_NE(k::transfer_pattern_word(1, 0), k::transfer_pattern_word(1, 1));
  EXPECT_EQ(k::transfer_poison_word, 0xFFFFFFFFFFFFFFFFull);
  EXPECT_EQ(k::transfer_poison_byte, 0xFF);
}

TEST(transfer_math, pattern_pieces_line_up_with_the_whole) {
  std::vector<std::byte> whole(64 * kib), pieces(64 * kib);
  k::fill_transfer_pattern(whole, 7, 0);
  k::fill_transfer_pattern(std::span(pieces.data(), 24 * kib), 7, 0);
  k::fill_transfer_pattern(std::span(pieces.data() + 24 * kib, 40 * kib), 7, 24 * kib / 8);
  EXPECT_EQ(std::memcmp(whole.data(), pieces.data(), whole.size()), 0);
  std::uint64_t first = 0;
  std::memcpy(&first, whole.data(), 8);
  EXPECT_EQ(first, k::transfer_pattern_word(7, 0));
}

TEST(transfer_math, an_equal_copy_compares_equal) {
  std::vector<std::byte> a(10 * kib + 8), c;
  k::fill_transfer_pattern(a, 3, 0);
  c = a;
  const auto r = k::compare_bytes(c, a);
  EXPECT_EQ(r.compared, a.size());
  EXPECT_EQ(r.mismatched_bytes, 0u);
  EXPECT_EQ(r.unwritten_words, 0u);
  EXPECT_FALSE(r.first_mismatch);
}

TEST(transfer_math, mismatches_are_counted_and_the_first_named) {
  std::vector<std::byte> expected(3 * k::compare_block_bytes);
  k::fill_transfer_pattern(expected, 3, 0);
  std::vector<std::byte> got = expected;
  got[5000] ^= std::byte{0x01};
  got[9000] ^= std::byte{0x80};
  got[9001] ^= std::byte{0x80};
  const auto r = k::compare_bytes(got, expected, 1000);
  EXPECT_EQ(r.mismatched_bytes, 3u);
  ASSERT_TRUE(r.first_mismatch);
  EXPECT_EQ(*r.first_mismatch, 6000u); // offset + 5000
  EXPECT_EQ(r.first_got, static_cast<std::uint8_t>(expected[5000]) ^ 0x01);
  EXPECT_EQ(r.first_expected, static_cast<std::uint8_t>(expected[5000]));
  EXPECT_EQ(r.unwritten_words, 0u);
}

TEST(transfer_math, words_still_holding_the_poison_are_unwritten) {
  std::vector<std::byte> expected(2 * k::compare_block_bytes);
  k::fill_transfer_pattern(expected, 9, 0);
  std::vector<std::byte> got = expected;
  std::memset(got.data() + 4088, k::transfer_poison_byte, 24); // across the block boundary
  const auto r = k::compare_bytes(got, expected);
  EXPECT_EQ(r.unwritten_words, 3u);
  EXPECT_GE(r.mismatched_bytes, 20u); // a random byte is 0xFF one time in 256
  EXPECT_LE(r.mismatched_bytes, 24u);
  EXPECT_GE(*r.first_mismatch, 4088u);
}

TEST(transfer_math, comparisons_of_pieces_append) {
  k::byte_comparison all;
  k::byte_comparison clean;
  clean.compared = 100;
  k::byte_comparison bad;
  bad.compared = 50;
  bad.mismatched_bytes = 2;
  bad.unwritten_words = 1;
  bad.first_mismatch = 130;
  bad.first_got = 0xFF;
  bad.first_expected = 0x12;
  k::byte_comparison worse = bad;
  worse.first_mismatch = 170;
  all.append(clean);
  all.append(bad);
  all.append(worse);
  EXPECT_EQ(all.compared, 200u);
  EXPECT_EQ(all.mismatched_bytes, 4u);
  EXPECT_EQ(all.unwritten_words, 2u);
  EXPECT_EQ(all.first_mismatch, 130u); // the first piece's first
  EXPECT_EQ(all.first_got, 0xFF);
}

TEST(host_copy, grid_is_a_full_wave_or_what_the_vectors_need) {
  EXPECT_EQ(k::host_copy_grid_blocks(0, 528), 1u);
  EXPECT_EQ(k::host_copy_grid_blocks(256, 528), 1u); // 4 KiB
  EXPECT_EQ(k::host_copy_grid_blocks(513, 528), 2u);
  EXPECT_EQ(k::host_copy_grid_blocks(std::uint64_t{1} << 26, 528), 528u); // 1 GiB: one wave
  EXPECT_EQ(k::host_copy_grid_blocks(std::uint64_t{1} << 26, 0), 1u);
  EXPECT_EQ(k::host_copy_block_threads % 64, 0u); // an even number of warps (split-warp copy)
}

TEST(host_copy, launchers_refuse_bad_arguments_before_any_cuda_call) {
  alignas(16) static unsigned char host[256], device[256], other[256], more[256];
  const auto h2d = k::host_copy_direction::host_to_device;
  EXPECT_THROW(k::launch_host_copy(host + 1, device, 64, h2d, 1, nullptr), std::invalid_argument);
  EXPECT_THROW(k::launch_host_copy(host, device + 8, 64, h2d, 1, nullptr), std::invalid_argument);
  EXPECT_THROW(k::launch_host_copy(host, device, 60, h2d, 1, nullptr), std::invalid_argument);
  EXPECT_THROW(k::launch_host_copy(host, device, 64, h2d, 0, nullptr), std::invalid_argument);
  EXPECT_THROW(k::launch_host_copy(nullptr, device, 64, h2d, 1, nullptr), std::invalid_argument);
  EXPECT_THROW(k::launch_host_copy(host, host + 32, 64, h2d, 1, nullptr), std::invalid_argument);
  EXPECT_THROW(k::launch_host_copy_bidirectional(host, device, other + 4, more, 64, 1, nullptr),
               std::invalid_argument);
  EXPECT_THROW(k::launch_host_copy_bidirectional(host, device, other, device, 64, 1, nullptr),
               std::invalid_argument);
  EXPECT_THROW(k::launch_host_copy_bidirectional(host, device, other, more, 48 + 8, 1, nullptr),
               std::invalid_argument);
}

TEST(transfer_family, registered_with_its_axes_and_quick_runs_pinned_copy_engine_256mib) {
  const b::registry& r = b::benchmark_registry();
  for (const char* id : {"transfer.h2d", "transfer.d2h", "transfer.bidir"}) {
    SCOPED_TRACE(id);
    const b::benchmark_definition* def = r.find(id);
    ASSERT_NE(def, nullptr);
    ASSERT_EQ(def->axes().size(), 3u);
    EXPECT_EQ(def->axes()[0].name, "memory");
    EXPECT_EQ(def->axes()[0].values, (std::vector<std::string>{"pinned", "pageable"}));
    EXPECT_EQ(def->axes()[1].name, "engine");
    EXPECT_EQ(def->axes()[1].values, (std::vector<std::string>{"copy_engine", "sm"}));
    EXPECT_EQ(def->axes()[2].name, "size");
    EXPECT_EQ(def->axes()[2].values, k::transfer_size_texts());
    EXPECT_TRUE(def->runs_in("quick"));
    EXPECT_TRUE(def->runs_in("standard"));
    EXPECT_GE(def->setup_allowance_s(), 120.0);
  }
  const auto quick = b::select_cases(r, "quick", "^transfer\\.(h2d|d2h|bidir)$");
  ASSERT_EQ(quick.size(), 3u);
  for (const auto& c : quick) {
    EXPECT_EQ(c.value("memory"), "pinned");
    EXPECT_EQ(c.value("engine"), "copy_engine");
    EXPECT_EQ(c.value("size"), "256MiB");
  }
  EXPECT_EQ(b::select_cases(r, "standard", "^transfer\\.(h2d|d2h|bidir)$").size(), 3u * 2 * 2 * 10);
}
