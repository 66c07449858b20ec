// Tests of the memory-hierarchy family: cache bandwidth (kernels/src/cache_bandwidth.cu,
// benches/families/cache_bandwidth.cpp), pointer-chase latency (kernels/src/pointer_chase.cu) and
// launch latency (kernels/src/empty_launch.cu), both in benches/families/latency.cpp.
//
// Host tests (run everywhere): Sattolo's permutation (one cycle through every slot,
// deterministic per seed), the host walk, size texts, the expected level of a working set, byte
// counts, checksums, the launch-length calibration, the launchers' argument checks.
// Device tests (skipped without a GPU): each kernel launched small and checked exactly (sums,
// the walk's end, the launch count); then the benchmarks through the runner, with physical
// sanity (L1 faster than L2 faster than DRAM).

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpu_test_support.hpp"
#include "gpuspec/host/device_probe.hpp"
#include "gpuspec/host/measurement_options.hpp"
#include "gpuspec/host/nvml_library.hpp"
#include "gpuspec/kernels/cache_bandwidth.hpp"
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/kernels/empty_launch.hpp"
#include "gpuspec/kernels/fill.hpp"
#include "gpuspec/kernels/pointer_chase.hpp"
#include "gpuspec/kernels/seeded_values.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/units.hpp"
#include "runner_support.hpp"

namespace k = gpuspec::kernels;
namespace b = gpuspec::benches;
namespace r = gpuspec::reports;

namespace {
constexpr std::uint64_t kib = 1024, mib = kib * 1024;
} // namespace

// --- host: the chain ----------------------------------------------------------------------------

TEST(sattolo_cycle, is_one_cycle_through_every_slot) {
  for (std::uint32_t n : {1u, 2u, 3u, 4u, 5u, 16u, 128u, 1000u, 4097u, 1u << 16}) {
    for (std::uint64_t seed : {1ull, 7ull, 0x6770757370656321ull}) {
      const auto next = k::sattolo_cycle(n, seed);
      ASSERT_EQ(next.size(), n);
      EXPECT_TRUE(k::is_single_cycle(next)) << "n=" << n << " seed=" << seed;
      if (n >= 2) {
        for (std::uint32_t i = 0; i < n; ++i) {
          ASSERT_NE(next[i], i) << "a fixed point would be a cycle of its own";
        }
      }
    }
  }
  EXPECT_TRUE(k::sattolo_cycle(0, 1).empty());
}

TEST(sattolo_cycle, is_deterministic_for_a_seed_and_differs_between_seeds) {
  EXPECT_EQ(k::sattolo_cycle(1000, 42), k::sattolo_cycle(1000, 42));
  EXPECT_NE(k::sattolo_cycle(1000, 42), k::sattolo_cycle(1000, 43));
  // Pinned: the permutation must not change from one build or machine to the next (seeded_bits,
  // not std:: distributions); the two-slot cycle is the only one there is.
  EXPECT_EQ(k::sattolo_cycle(2, 5), (std::vector<std::uint32_t>{1, 0}));
}

TEST(sattolo_cycle, is_not_a_stride) {
  // Consecutive slots of the chain are rarely neighbours in memory: a prefetcher has no stride.
  const auto next = k::sattolo_cycle(1u << 16, 3);
  std::size_t neighbours = 0;
  for (std::uint32_t i = 0; i < next.size(); ++i)
    if (next[i] == i + 1 || next[i] + 1 == i)
      ++neighbours;
  EXPECT_LT(neighbours, next.size() / 100);
}

TEST(is_single_cycle, rejects_other_permutations_and_non_permutations) {
  EXPECT_TRUE(k::is_single_cycle({0}));
  EXPECT_TRUE(k::is_single_cycle({1, 2, 0}));
  EXPECT_FALSE(k::is_single_cycle({}));
  EXPECT_FALSE(k::is_single_cycle({1, 0, 3, 2})); // two cycles
  EXPECT_FALSE(k::is_single_cycle({0, 1}));       // two fixed points
  EXPECT_FALSE(k::is_single_cycle({1, 1}));       // not a permutation
  EXPECT_FALSE(k::is_single_cycle({5, 0}));       // out of range
}

TEST(walk_chain, goes_round_the_cycle) {
  const auto next = k::sattolo_cycle(100, 3);
  EXPECT_EQ(k::walk_chain(next, 0, 0), 0u);
  EXPECT_EQ(k::walk_chain(next, 0, 1), next[0]);
  EXPECT_EQ(k::walk_chain(next, 0, 100), 0u);
  EXPECT_EQ(k::walk_chain(next, 17, 1000000), 17u);
  EXPECT_EQ(k::walk_chain(next, 5, 250), k::walk_chain(next, 5, 50));
  std::uint32_t at = 9;
  for (int i = 0; i < 137; ++i)
    at = next[at];
  EXPECT_EQ(k::walk_chain(next, 9, 137), at);
  EXPECT_THROW((void)k::walk_chain({}, 0, 1), std::invalid_argument);
  EXPECT_THROW((void)k::walk_chain(next, 100, 1), std::invalid_argument);
}

TEST(chase_slot_of, finds_slot_starts_inside_the_chain_only) {
  const auto* chain = reinterpret_cast<const void*>(std::uintptr_t{0x7f0000000000});
  const std::uint64_t base = 0x7f0000000000;
  EXPECT_EQ(k::chase_start(chain).cursor, base);
  EXPECT_EQ(k::chase_start(chain).launches, 0u);
  EXPECT_EQ(k::chase_slot_of(base, chain, 10), std::optional<std::uint32_t>(0));
  EXPECT_EQ(k::chase_slot_of(base + 9 * k::chase_slot_bytes, chain, 10),
            std::optional<std::uint32_t>(9));
  EXPECT_FALSE(k::chase_slot_of(base + 10 * k::chase_slot_bytes, chain, 10));
  EXPECT_FALSE(k::chase_slot_of(base + 8, chain, 10));
  EXPECT_FALSE(k::chase_slot_of(base - k::chase_slot_bytes, chain, 10));
}

// --- host: sizes and levels -------------------------------------------------------------------

TEST(size_text, writes_the_largest_unit_and_parses_back) {
  EXPECT_EQ(k::size_text(4 * kib), "4KiB");
  EXPECT_EQ(k::size_text(3 * kib), "3KiB");
  EXPECT_EQ(k::size_text(512 * mib), "512MiB");
  EXPECT_EQ(k::size_text(1024 * mib), "1GiB");
  EXPECT_EQ(k::size_text(1536), "1536B");
  EXPECT_EQ(k::size_text(0), "0B");
  for (std::uint64_t bytes :
       {std::uint64_t{1}, std::uint64_t{1536}, 4 * kib, 96 * kib, 50 * mib, 4096 * mib})
    EXPECT_EQ(k::parse_size_text(k::size_text(bytes)), bytes) << bytes;
  for (const char* bad : {"", "4", "KiB", "4kb", "4 KiB", "4KB", "-4KiB", "4KiBs",
                          "99999999999999999999GiB", "17179869184GiB"})
    EXPECT_THROW((void)k::parse_size_text(bad), std::invalid_argument) << bad;
}

TEST(sweep_size_texts, are_powers_of_two_from_4KiB_to_1GiB) {
  const auto sizes = k::sweep_size_texts();
  ASSERT_EQ(sizes.size(), 19u);
  EXPECT_EQ(sizes.front(), "4KiB");
  EXPECT_EQ(sizes.back(), "1GiB");
  for (std::size_t i = 1; i < sizes.size(); ++i)
    EXPECT_EQ(k::parse_size_text(sizes[i]), 2 * k::parse_size_text(sizes[i - 1]));
  for (const auto& s : sizes)
    EXPECT_EQ(k::parse_size_text(s) % k::chase_slot_bytes, 0u) << s;
}

TEST(expected_level, follows_the_l1_and_l2_sizes) {
  // H100-like: 228 KiB of shared memory at most, 256 KiB unified, 50 MiB L2.
  const k::cache_sizes h100 = k::cache_sizes_of(9, 228 * kib, 50 * mib);
  EXPECT_EQ(h100.l1_min, 28 * kib);
  EXPECT_EQ(h100.l1_max, 256 * kib);
  EXPECT_EQ(k::expected_level(16 * kib, h100), k::memory_level::l1);
  EXPECT_EQ(k::expected_level(28 * kib, h100), k::memory_level::l1);
  EXPECT_EQ(k::expected_level(64 * kib, h100), k::memory_level::l1_or_l2);
  EXPECT_EQ(k::expected_level(256 * kib, h100), k::memory_level::l1_or_l2);
  EXPECT_EQ(k::expected_level(512 * kib, h100), k::memory_level::l2);
  EXPECT_EQ(k::expected_level(50 * mib / 4, h100), k::memory_level::l2);
  EXPECT_EQ(k::expected_level(64 * mib, h100), k::memory_level::l2_or_dram);
  EXPECT_EQ(k::expected_level(512 * mib, h100), k::memory_level::dram);
  // Turing: 64 KiB of shared memory at most, 96 KiB unified, 32 KiB of L1 always.
  const k::cache_sizes t4 = k::cache_sizes_of(7, 64 * kib, 4 * mib);
  EXPECT_EQ(t4.l1_min, 32 * kib);
  EXPECT_EQ(t4.l1_max, 96 * kib);
  // No L2 size known: nothing past L1 is called L2 or DRAM for sure.
  const k::cache_sizes unknown = k::cache_sizes_of(8, 164 * kib, 0);
  EXPECT_EQ(k::expected_level(1024 * mib, unknown), k::memory_level::l2_or_dram);
  EXPECT_EQ(k::memory_level_name(k::memory_level::l2_or_dram), "l2_or_dram");
  EXPECT_EQ(k::chase_load_name(k::chase_load::ca), "ld.global.ca.u64");
  EXPECT_EQ(k::chase_load_name(k::chase_load::cg), "ld.global.cg.u64");
}

// --- host: byte counts, checksums, calibration --------------------------------------------------

TEST(cache_bandwidth_math, byte_counts) {
  EXPECT_EQ(k::cache_sum_count(5), 40u);
  EXPECT_EQ(k::l2_read_bytes(10, 3), 480u);
  EXPECT_EQ(k::l2_read_bytes((25 * mib) / 16, 1000), 25 * mib * 1000);
  EXPECT_EQ(k::shared_read_passes(0), 4u);
  EXPECT_EQ(k::shared_read_passes(1), 4u);
  EXPECT_EQ(k::shared_read_passes(4), 4u);
  EXPECT_EQ(k::shared_read_passes(5), 8u);
  EXPECT_EQ(k::shared_read_bytes(2, 8), 2u * 256 * 8 * 16);
  EXPECT_EQ(k::shared_read_word_repeats(3, 8), 6u);
  EXPECT_EQ(k::shared_read_vectors_per_thread, 4u);
  // The fill from global memory is what the byte count leaves out: under 0.1% from 4096 passes.
  EXPECT_LT(static_cast<double>(k::shared_read_vectors * k::cache_vector_bytes),
            1e-3 * static_cast<double>(k::shared_read_bytes(1, 4096)));
}

TEST(cache_bandwidth_math, sums_wrap_mod_2_to_the_32) {
  EXPECT_EQ(k::repeated_sum(3, 5), 15u);
  EXPECT_EQ(k::repeated_sum(0x80000000u, 2), 0u);
  EXPECT_EQ(k::repeated_sum(1, (std::uint64_t{1} << 32) + 3), 3u);
  EXPECT_EQ(k::repeated_sum(0xFFFFFFFFu, 0xFFFFFFFFull), 1u);
  std::uint32_t direct = 0;
  for (std::size_t i = 0; i < 1000; ++i)
    direct += std::bit_cast<std::uint32_t>(k::seeded_value<float>(99, i));
  EXPECT_EQ(k::seeded_word_sum(99, 1000), direct);
  EXPECT_EQ(k::seeded_word_sum(99, 0), 0u);
}

TEST(count_for_target, scales_rounds_up_and_clamps) {
  EXPECT_EQ(k::count_for_target(1e-3, 100, 2e-3, 1, 1000000), 200u);
  EXPECT_EQ(k::count_for_target(3e-3, 100, 2e-3, 1, 1000000), 67u);
  EXPECT_EQ(k::count_for_target(1e-3, 100, 2e-3, 500, 1000000), 500u);
  EXPECT_EQ(k::count_for_target(1e-9, 100, 2e-3, 1, 1000000), 1000000u);
  EXPECT_EQ(k::count_for_target(0.0, 100, 2e-3, 7, 1000000), 7u);
  EXPECT_EQ(k::count_for_target(-1.0, 100, 2e-3, 7, 1000000), 7u);
  EXPECT_EQ(k::count_for_target(1e-3, 0, 2e-3, 7, 1000000), 7u);
}

TEST(calibrate_count, gets_past_a_fixed_launch_cost) {
  // 10 us of fixed cost per launch and 1 us per repetition: the ideal count for 2 ms is 1990;
  // scaling from the trial alone would give 182.
  int calls = 0;
  auto time_count = [&](std::uint64_t n) {
    ++calls;
    return 1e-5 + static_cast<double>(n) * 1e-6;
  };
  const std::uint64_t n = k::calibrate_count(time_count, 10, 2e-3, 1, 1u << 20);
  EXPECT_EQ(calls, 2);
  EXPECT_GE(n, 1800u);
  EXPECT_LE(n, 2000u);
}

TEST(launchers, reject_bad_arguments_before_touching_the_device) {
  alignas(16) static const std::uint32_t words[8] = {};
  std::uint32_t sums[8] = {};
  EXPECT_THROW(k::launch_l2_read(nullptr, 1, 1, 1, sums, nullptr), std::invalid_argument);
  EXPECT_THROW(k::launch_l2_read(words + 1, 1, 1, 1, sums, nullptr), std::invalid_argument);
  EXPECT_THROW(k::launch_l2_read(words, 1, 0, 1, sums, nullptr), std::invalid_argument);
  EXPECT_THROW(k::launch_l2_read(words, 1, 1, 0, sums, nullptr), std::invalid_argument);
  EXPECT_THROW(k::launch_l2_read(words, 1, 1, 1, nullptr, nullptr), std::invalid_argument);
  EXPECT_THROW(k::launch_shared_read(words, 6, 1, sums, nullptr), std::invalid_argument);
  EXPECT_THROW(k::launch_shared_read(words, 0, 1, sums, nullptr), std::invalid_argument);
  EXPECT_THROW(k::launch_shared_read(words, 4, 0, sums, nullptr), std::invalid_argument);
  EXPECT_THROW(k::launch_shared_read(words + 2, 4, 1, sums, nullptr), std::invalid_argument);
  EXPECT_THROW(k::launch_pointer_chase(nullptr, k::chase_load::ca, 0, 1, nullptr),
               std::invalid_argument);
  k::chase_state state;
  EXPECT_THROW(k::launch_pointer_chase(&state, k::chase_load::cg, 0, 0, nullptr),
               std::invalid_argument);
  alignas(128) static std::uint64_t chain[32] = {};
  EXPECT_THROW(k::launch_build_chain(chain, nullptr, 2, nullptr), std::invalid_argument);
  EXPECT_THROW(k::launch_build_chain(chain + 1, words, 2, nullptr), std::invalid_argument);
  EXPECT_THROW(k::launch_build_chain(chain, words, 0, nullptr), std::invalid_argument);
  EXPECT_THROW(k::empty_launch_graph(0, nullptr), std::invalid_argument);
  EXPECT_GT(k::empty_launches_per_iteration, 0u);
  EXPECT_LE(k::empty_launches_per_iteration, 512u); // well under a stream's queue depth
}

// --- device: the kernels --------------------------------------------------------------------

namespace {

struct memory_hierarchy_gpu : gpuspec::testing::gpu_test {
  void SetUp() override {
    gpu_test::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    m_stream.emplace();
    s = m_stream->ref();
  }

  std::uint32_t total_of(const k::device_buffer<std::uint32_t>& sums) {
    std::vector<std::uint32_t> host(sums.size());
    GPUSPEC_CUDA_CHECK(cudaMemcpy(host.data(), sums.data(), sums.bytes(), cudaMemcpyDeviceToHost));
    std::uint32_t total = 0;
    for (std::uint32_t v : host)
      total += v;
    return total;
  }

  template <class T> T from_device(const T* p) {
    T value{};
    GPUSPEC_CUDA_CHECK(cudaMemcpy(&value, p, sizeof value, cudaMemcpyDeviceToHost));
    return value;
  }

  std::optional<k::stream> m_stream;
  k::stream_ref s;
};

} // namespace

TEST_F(memory_hierarchy_gpu, l2_read_sums_every_word_passes_times) {
  constexpr std::uint64_t seed = 11;
  const unsigned resident = k::l2_read_resident_blocks();
  ASSERT_GT(resident, 0u);
  for (std::size_t vectors : {std::size_t{1}, std::size_t{37}, std::size_t{1000},
                              std::size_t{65536 + 5}, std::size_t{1} << 20}) {
    const std::size_t words = vectors * 4;
    k::device_buffer<float> data(words);
    k::launch_fill_seeded(data.data(), words, seed, s.handle());
    const std::uint32_t word_sum = k::seeded_word_sum(seed, words);
    for (unsigned blocks : {1u, 3u, resident}) {
      for (unsigned passes : {1u, 3u}) {
        k::device_buffer<std::uint32_t> sums(k::cache_sum_count(blocks));
        k::poison_with_nan(sums.data(), sums.bytes(), s.handle());
        k::launch_l2_read(data.data(), vectors, passes, blocks, sums.data(), s.handle());
        // Idempotent: a second launch writes the same sums.
        k::launch_l2_read(data.data(), vectors, passes, blocks, sums.data(), s.handle());
        s.synchronize();
        EXPECT_EQ(total_of(sums), k::repeated_sum(word_sum, passes))
            << "vectors=" << vectors << " blocks=" << blocks << " passes=" << passes;
      }
    }
  }
}

TEST_F(memory_hierarchy_gpu, shared_read_sums_every_word_once_per_round_and_block) {
  constexpr std::uint64_t seed = 12;
  const std::size_t words = std::size_t{k::shared_read_vectors} * 4;
  k::device_buffer<float> source(words);
  k::launch_fill_seeded(source.data(), words, seed, s.handle());
  const std::uint32_t word_sum = k::seeded_word_sum(seed, words);
  const unsigned resident = k::shared_read_resident_blocks();
  ASSERT_GT(resident, 0u);
  for (unsigned blocks : {1u, 5u, resident}) {
    for (unsigned passes : {4u, 8u, 1028u}) {
      k::device_buffer<std::uint32_t> sums(k::cache_sum_count(blocks));
      k::poison_with_nan(sums.data(), sums.bytes(), s.handle());
      k::launch_shared_read(source.data(), passes, blocks, sums.data(), s.handle());
      s.synchronize();
      EXPECT_EQ(total_of(sums),
                k::repeated_sum(word_sum, k::shared_read_word_repeats(blocks, passes)))
          << "blocks=" << blocks << " passes=" << passes;
    }
  }
}

TEST_F(memory_hierarchy_gpu, pointer_chase_ends_where_the_host_walk_does) {
  for (std::uint32_t slots : {2u, 3u, 64u, 1000u, 1u << 16}) {
    const auto next = k::sattolo_cycle(slots, 21);
    k::device_buffer<std::uint64_t> chain(std::size_t{slots} * k::chase_slot_bytes / 8);
    k::device_buffer<std::uint32_t> next_device(slots);
    GPUSPEC_CUDA_CHECK(
        cudaMemcpy(next_device.data(), next.data(), next_device.bytes(), cudaMemcpyHostToDevice));
    // The fixture stream is non-blocking: it does not wait for the legacy stream's copies.
    GPUSPEC_CUDA_CHECK(cudaDeviceSynchronize());
    k::launch_build_chain(chain.data(), next_device.data(), slots, s.handle());
    s.synchronize();
    for (k::chase_load load : {k::chase_load::ca, k::chase_load::cg}) {
      k::device_buffer<k::chase_state> state(1);
      const k::chase_state start = k::chase_start(chain.data());
      GPUSPEC_CUDA_CHECK(cudaMemcpy(state.data(), &start, sizeof start, cudaMemcpyHostToDevice));
      GPUSPEC_CUDA_CHECK(cudaDeviceSynchronize());
      k::launch_pointer_chase(state.data(), load, 5, 333, s.handle());
      k::launch_pointer_chase(state.data(), load, 0, 1001, s.handle());
      s.synchronize();
      const k::chase_state end = from_device(state.data());
      EXPECT_EQ(end.launches, 2u);
      EXPECT_EQ(end.steps, 5u + 333u + 1001u);
      EXPECT_GT(end.cycles, 0);
      const auto at = k::chase_slot_of(end.cursor, chain.data(), slots);
      ASSERT_TRUE(at.has_value()) << "slots=" << slots;
      EXPECT_EQ(*at, k::walk_chain(next, 0, end.steps))
          << "slots=" << slots << " load=" << k::chase_load_name(load);
    }
  }
}

TEST_F(memory_hierarchy_gpu, a_bad_permutation_entry_becomes_a_self_loop) {
  const std::vector<std::uint32_t> next{7, 0}; // 7 is outside a 2-slot chain
  k::device_buffer<std::uint64_t> chain(2 * k::chase_slot_bytes / 8);
  k::device_buffer<std::uint32_t> next_device(2);
  GPUSPEC_CUDA_CHECK(
      cudaMemcpy(next_device.data(), next.data(), next_device.bytes(), cudaMemcpyHostToDevice));
  GPUSPEC_CUDA_CHECK(cudaDeviceSynchronize()); // the fixture stream does not wait for it
  k::launch_build_chain(chain.data(), next_device.data(), 2, s.handle());
  k::device_buffer<k::chase_state> state(1);
  const k::chase_state start = k::chase_start(chain.data());
  GPUSPEC_CUDA_CHECK(cudaMemcpy(state.data(), &start, sizeof start, cudaMemcpyHostToDevice));
  GPUSPEC_CUDA_CHECK(cudaDeviceSynchronize());
  k::launch_pointer_chase(state.data(), k::chase_load::cg, 0, 3, s.handle());
  s.synchronize();
  EXPECT_EQ(from_device(state.data()).cursor, start.cursor);
}

TEST_F(memory_hierarchy_gpu, every_empty_launch_runs_once) {
  k::device_buffer<unsigned long long> counter(1);
  GPUSPEC_CUDA_CHECK(cudaMemset(counter.data(), 0, counter.bytes()));
  GPUSPEC_CUDA_CHECK(cudaDeviceSynchronize()); // the fixture stream does not wait for it
  for (int i = 0; i < 100; ++i)
    k::launch_empty_counted(counter.data(), s.handle());
  k::launch_empty_counted(nullptr, s.handle()); // counts nothing
  s.synchronize();
  EXPECT_EQ(from_device(counter.data()), 100u);

  k::empty_launch_graph graph(50, counter.data());
  EXPECT_EQ(graph.nodes(), 50u);
  for (int i = 0; i < 3; ++i)
    graph.launch(s.handle());
  s.synchronize();
  EXPECT_EQ(from_device(counter.data()), 250u);

  k::empty_launch_graph moved(std::move(graph));
  moved.launch(s.handle());
  s.synchronize();
  EXPECT_EQ(from_device(counter.data()), 300u);
  EXPECT_THROW(graph.launch(s.handle()), std::logic_error); // NOLINT(bugprone-use-after-move)
}

// --- device: the benchmarks through the runner ----------------------------------------------

namespace {

struct memory_hierarchy_runner : gpuspec::testing::gpu_test {
  void SetUp() override {
    gpu_test::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    gpuspec::testing::take_runner_inventory(inv);
  }

  gpuspec::spine::session_options options(std::string suite, std::string filter) const {
    return gpuspec::testing::short_run_options(inv, std::move(suite), std::move(filter), 5, 30,
                                               2.0);
  }

  void run(const gpuspec::spine::session_options& o) { gpuspec::testing::run_quietly(o, inv); }

  gpuspec::testing::runner_inventory inv;
  r::report& report = inv.report;
};

} // namespace

TEST_F(memory_hierarchy_runner, quick_cases_are_ok_verified_and_plausible) {
  run(options("quick", "^(cache|latency)\\."));
  std::map<std::string, const r::result*> by_case;
  for (const auto& res : report.results) {
    SCOPED_TRACE(res.bench_id + " " + r::parameters_of(res).dump());
    EXPECT_EQ(res.status, r::result_status::ok) << res.reason;
    EXPECT_EQ(res.check.status, r::verification_status::passed) << res.check.detail;
    EXPECT_EQ(res.cache_state, "hot");
    EXPECT_GE(res.stats.n, 5);
    std::string key = res.bench_id;
    if (r::parameters_of(res).contains("mode"))
      key += "." + r::parameters_of(res).at("mode").get<std::string>();
    by_case[key] = &res;
    if (res.bench_id.starts_with("cache.")) {
      EXPECT_EQ(res.metric, "bandwidth");
      EXPECT_EQ(r::to_string(res.unit), "GB/s");
      EXPECT_GT(res.stats.median, 10.0);  // GB/s: any GPU's L2 and shared memory beat 10 GB/s
      EXPECT_LT(res.stats.median, 1.0e6); // and stay under 1 PB/s
    } else {
      EXPECT_EQ(res.metric, "latency");
      EXPECT_EQ(r::to_string(res.unit), "ns");
      EXPECT_FALSE(res.higher_is_better);
      EXPECT_GT(res.stats.median, 0.1);   // ns per load or launch
      EXPECT_LT(res.stats.median, 1.0e5); // under 100 us
    }
  }
  for (const char* id : {"cache.l2.read", "cache.shared", "latency.l1", "latency.l2",
                         "latency.dram", "latency.launch.stream", "latency.launch.graph"})
    ASSERT_TRUE(by_case.count(id)) << id << " did not run in quick";
  EXPECT_FALSE(by_case.at("cache.l2.read")->ceiling_value.clock_adjusted.has_value());
  EXPECT_EQ(r::parameters_of(*by_case.at("cache.l2.read")).at("l2_fraction"), "0.25");
  for (const char* id : {"latency.l1", "latency.l2", "latency.dram"}) {
    const auto p = r::parameters_of(*by_case.at(id));
    EXPECT_GT(p.at("cycles_per_load").get<double>(), 1.0) << id;
  }
  EXPECT_EQ(r::parameters_of(*by_case.at("latency.l1")).at("expected_level"), "l1");
  EXPECT_EQ(r::parameters_of(*by_case.at("latency.l2")).at("expected_level"), "l2");
  EXPECT_EQ(r::parameters_of(*by_case.at("latency.dram")).at("expected_level"), "dram");
  // Physics: L1 is faster than L2, which is faster than device memory.
  EXPECT_LT(by_case.at("latency.l1")->stats.median, by_case.at("latency.l2")->stats.median);
  EXPECT_LT(by_case.at("latency.l2")->stats.median, by_case.at("latency.dram")->stats.median);
  EXPECT_LT(r::parameters_of(*by_case.at("latency.l1")).at("cycles_per_load").get<double>(),
            r::parameters_of(*by_case.at("latency.l2")).at("cycles_per_load").get<double>());
  for (const char* id : {"latency.launch.stream", "latency.launch.graph"})
    EXPECT_GT(r::parameters_of(*by_case.at(id)).at("host_enqueue_ns_per_launch").get<double>(),
              0.0);
  EXPECT_NO_THROW((void)r::to_json(report));
}

TEST_F(memory_hierarchy_runner, the_sweep_climbs_from_l1_to_device_memory) {
  run(options("standard", "^latency\\.sweep$"));
  ASSERT_EQ(report.results.size(), k::sweep_size_texts().size());
  const r::result* smallest = &report.results.front();
  const r::result* largest = &report.results.back();
  for (const auto& res : report.results) {
    SCOPED_TRACE(r::parameters_of(res).dump());
    if (res.status == r::result_status::skipped) // a chain the free memory could not hold
      continue;
    EXPECT_EQ(res.status, r::result_status::ok) << res.reason;
    EXPECT_EQ(res.check.status, r::verification_status::passed) << res.check.detail;
    EXPECT_EQ(r::parameters_of(res).at("load"), "ld.global.ca.u64");
  }
  EXPECT_EQ(r::parameters_of(*smallest).at("bytes"), "4KiB");
  EXPECT_EQ(r::parameters_of(*smallest).at("expected_level"), "l1");
  if (largest->status == r::result_status::ok) {
    EXPECT_EQ(r::parameters_of(*largest).at("bytes"), "1GiB");
    EXPECT_LT(smallest->stats.median, largest->stats.median);
  }
}
