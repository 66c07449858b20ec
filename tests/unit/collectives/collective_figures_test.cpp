// nccl-tests' definitions of size, count, algbw and busbw, checked against the source of
// NVIDIA/nccl-tests at commit a0b82b2260cf5152b9f8c061bbf7eaf0ba096432 (read for this test):
//  - setupArgs, src/common.cu:901: count = size / wordSize; GetCollByteCount gives send, receive
//    and param counts; the table prints max(sendBytes, expectedBytes) and nbytes / wordSize
//    (TimeTest, src/common.cu:938);
//  - GetCollByteCount: all_reduce.cu:34, all_gather.cu:10, reduce_scatter.cu:10,
//    broadcast.cu:10, reduce.cu:10, alltoall.cu:18, sendrecv.cu:10;
//  - GetBw: all_reduce.cu:59, all_gather.cu:38, reduce_scatter.cu:37, broadcast.cu:34,
//    reduce.cu:36, alltoall.cu:48, sendrecv.cu:38.
// The expected numbers below are worked out by hand from those lines, not by calling our code.

#include <cstdint>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "gpuspec/collectives/bandwidth.hpp"
#include "gpuspec/collectives/collective_figures.hpp"
#include "gpuspec/collectives/collective_kind.hpp"
#include "gpuspec/collectives/collective_sizes.hpp"

namespace gpuspec::collectives {
namespace {

using k = collective_kind;

TEST(CollectiveKind, NamesRoundTripAndUnknownNamesAreRejected) {
  for (collective_kind kind : all_collective_kinds)
    EXPECT_EQ(parse_collective(collective_name(kind)), kind);
  EXPECT_FALSE(parse_collective("allreduce").has_value());
  EXPECT_FALSE(parse_collective("").has_value());
  EXPECT_EQ(parse_element_type("bf16"), element_type::bf16);
  EXPECT_FALSE(parse_element_type("fp64").has_value());
  EXPECT_EQ(nccl_tests_type_name(element_type::fp32), "float");
  EXPECT_EQ(nccl_tests_type_name(element_type::fp16), "half");
  EXPECT_EQ(nccl_tests_type_name(element_type::bf16), "bfloat16");
  EXPECT_EQ(element_size(element_type::fp32), 4);
  EXPECT_EQ(element_size(element_type::bf16), 2);
}

TEST(CollectiveTable, EveryKindHasOneRowAndEveryNameIsItsOwn) {
  // The table is the enumeration: rows in enumerator order, each kind once, names unique.
  ASSERT_GT(collective_count, 0u);
  for (std::size_t i = 0; i < collective_count; ++i) {
    const collective_row& row = collective_table[i];
    EXPECT_EQ(static_cast<std::size_t>(row.kind), i) << row.name;
    EXPECT_EQ(&collective_of(row.kind), &row) << row.name;
    EXPECT_FALSE(row.name.empty());
    EXPECT_FALSE(row.nccl_function.empty()) << row.name;
    for (std::size_t j = 0; j < i; ++j)
      EXPECT_NE(collective_table[j].name, row.name);
  }
  std::size_t kinds = 0;
  for ([[maybe_unused]] collective_kind kind : all_collective_kinds)
    ++kinds;
  EXPECT_EQ(kinds, collective_count);
}

TEST(CollectiveTable, TheColumnsAgreeWithEachOther) {
  for (const collective_row& row : collective_table) {
    // A rooted collective's values come from or go to the root; the others name none.
    const bool root_rule =
        row.values == value_rule::from_root || row.values == value_rule::sum_at_root;
    EXPECT_EQ(row.rooted, root_rule) << row.name;
    // What is summed takes a redop (sendrecv takes one it never applies, as nccl-tests).
    const bool sums = row.values == value_rule::sum_all || row.values == value_rule::sum_at_root ||
                      row.values == value_rule::sum_own_chunk;
    if (sums) {
      EXPECT_TRUE(row.takes_redop) << row.name;
    }
    // The chunked counts go with the (n-1)/n-type factors; the whole buffer with 1 or 2(n-1)/n.
    if (row.counts != count_shape::whole) {
      EXPECT_EQ(row.bus, bus_shape::ring) << row.name;
    }
    // Only a reduction over every rank's whole buffer is carried by the switch's reduction.
    if (row.switch_reduces) {
      EXPECT_EQ(row.values, value_rule::sum_all) << row.name;
    }
  }
}

TEST(CollectiveKind, ReductionAndRootAsNcclTestsPrintsThem) {
  EXPECT_TRUE(has_reduction(k::all_reduce));
  EXPECT_TRUE(has_reduction(k::reduce_scatter));
  EXPECT_TRUE(has_reduction(k::reduce));
  EXPECT_TRUE(has_reduction(k::sendrecv)); // sendrecv.cu passes run_opnames to TimeTest
  EXPECT_FALSE(has_reduction(k::all_gather));
  EXPECT_FALSE(has_reduction(k::alltoall));
  EXPECT_FALSE(has_reduction(k::broadcast));
  EXPECT_TRUE(has_root(k::broadcast));
  EXPECT_TRUE(has_root(k::reduce));
  EXPECT_FALSE(has_root(k::all_reduce));
}

TEST(CollectiveSizes, AllReduceCountsTheWholeBuffer) {
  // 1 MiB of float over 8 ranks: count 262144 on both sides, nothing rounded.
  const auto c = counts_for_size(k::all_reduce, 1 << 20, 4, 8);
  EXPECT_EQ(c.send_count, 262144u);
  EXPECT_EQ(c.recv_count, 262144u);
  EXPECT_EQ(c.param_count, 262144u);
  EXPECT_EQ(c.table_bytes, 1u << 20);
  EXPECT_EQ(c.send_inplace_offset, 0u);
  EXPECT_EQ(c.recv_inplace_offset, 0u);
}

TEST(CollectiveSizes, AllGatherChunkIsPerRankAndRoundedToSixteenBytes) {
  // 1 MiB float, 8 ranks: base = 262144 / 8 = 32768 (already a multiple of 4 elements).
  auto c = counts_for_size(k::all_gather, 1 << 20, 4, 8);
  EXPECT_EQ(c.send_count, 32768u);
  EXPECT_EQ(c.recv_count, 262144u);
  EXPECT_EQ(c.param_count, 32768u);
  EXPECT_EQ(c.send_inplace_offset, 32768u);
  EXPECT_EQ(c.recv_inplace_offset, 0u);
  EXPECT_EQ(c.table_bytes, 1u << 20);
  // 1000 B of half over 3 ranks: count 500, 500/3 = 166, & ~7 -> 160; the table shows 960 B.
  c = counts_for_size(k::all_gather, 1000, 2, 3);
  EXPECT_EQ(c.param_count, 160u);
  EXPECT_EQ(c.recv_count, 480u);
  EXPECT_EQ(c.table_bytes, 960u);
  // 8 B of float over 8 ranks: count 2, chunk 0: nccl-tests prints size 0, count 0.
  c = counts_for_size(k::all_gather, 8, 4, 8);
  EXPECT_EQ(c.param_count, 0u);
  EXPECT_EQ(c.table_bytes, 0u);
}

TEST(CollectiveSizes, ReduceScatterMirrorsAllGather) {
  const auto c = counts_for_size(k::reduce_scatter, 1 << 20, 2, 4);
  // count 524288, base 131072.
  EXPECT_EQ(c.send_count, 524288u);
  EXPECT_EQ(c.recv_count, 131072u);
  EXPECT_EQ(c.param_count, 131072u);
  EXPECT_EQ(c.send_inplace_offset, 0u);
  EXPECT_EQ(c.recv_inplace_offset, 131072u);
  EXPECT_EQ(c.table_bytes, 1u << 20);
}

TEST(CollectiveSizes, AlltoallSendsOneChunkToEachRank) {
  const auto c = counts_for_size(k::alltoall, 1000, 4, 3);
  // count 250, 250/3 = 83, & ~3 -> 80 per peer; 240 on each side.
  EXPECT_EQ(c.param_count, 80u);
  EXPECT_EQ(c.send_count, 240u);
  EXPECT_EQ(c.recv_count, 240u);
  EXPECT_EQ(c.table_bytes, 960u);
}

TEST(CollectiveSizes, RootedAndPointToPointCountTheWholeBuffer) {
  for (collective_kind kind : {k::broadcast, k::reduce, k::sendrecv}) {
    const auto c = counts_for_size(kind, 4096, 2, 8);
    EXPECT_EQ(c.param_count, 2048u) << collective_name(kind);
    EXPECT_EQ(c.table_bytes, 4096u) << collective_name(kind);
  }
}

TEST(CollectiveSizes, OneRankKeepsEveryElement) {
  const auto c = counts_for_size(k::all_gather, 64, 4, 1);
  EXPECT_EQ(c.param_count, 16u);
  EXPECT_EQ(c.recv_count, 16u);
}

TEST(CollectiveSizes, BadRanksOrElementSizesThrow) {
  EXPECT_THROW((void)counts_for_size(k::all_reduce, 64, 4, 0), std::invalid_argument);
  EXPECT_THROW((void)counts_for_size(k::all_reduce, 64, 3, 2), std::invalid_argument);
}

TEST(Bandwidth, BusFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(bus_factor(k::all_reduce, 8), 2.0 * 7 / 8); // 1.75
  EXPECT_DOUBLE_EQ(bus_factor(k::all_reduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(k::all_gather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(k::reduce_scatter, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(bus_factor(k::alltoall, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(k::broadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(k::reduce, 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(k::sendrecv, 8), 1.0);
}

TEST(Bandwidth, OneRankHasNoBusTrafficForTheSymmetricCollectives) {
  EXPECT_DOUBLE_EQ(bus_factor(k::all_reduce, 1), 0.0);
  EXPECT_DOUBLE_EQ(bus_factor(k::all_gather, 1), 0.0);
  EXPECT_DOUBLE_EQ(bus_factor(k::reduce_scatter, 1), 0.0);
  EXPECT_DOUBLE_EQ(bus_factor(k::alltoall, 1), 0.0);
  EXPECT_DOUBLE_EQ(bus_factor(k::broadcast, 1), 1.0);
  EXPECT_THROW((void)bus_factor(k::all_reduce, 0), std::invalid_argument);
}

TEST(Bandwidth, AlgbwCountsTheCallsDataAndBusbwScalesIt) {
  // All-reduce of 1 GiB float (count 268435456) in 5 ms on 8 ranks:
  // algbw = 1073741824 / 1e9 / 0.005 = 214.7483648 GB/s; busbw = x 1.75 = 375.8096384.
  auto f = bandwidth(k::all_reduce, 268435456, 4, 8, 0.005);
  EXPECT_DOUBLE_EQ(f.algbw_gbs, 214.7483648);
  EXPECT_DOUBLE_EQ(f.busbw_gbs, 375.8096384);
  // All-gather: paramcount is the per-rank chunk; algbw counts count * typesize * nranks.
  // chunk 32768 float, 8 ranks, 10 us: 1048576 / 1e9 / 1e-5 = 104.8576; busbw x 7/8 = 91.7504.
  f = bandwidth(k::all_gather, 32768, 4, 8, 1e-5);
  EXPECT_DOUBLE_EQ(f.algbw_gbs, 104.8576);
  EXPECT_DOUBLE_EQ(f.busbw_gbs, 91.7504);
  // Alltoall counts like all-gather (alltoall.cu:49: count * nranks * typesize).
  EXPECT_DOUBLE_EQ(algbw_bytes(k::alltoall, 80, 4, 3), 960.0);
  // Broadcast, reduce, sendrecv: the buffer once, factor 1.
  f = bandwidth(k::sendrecv, 1000, 2, 8, 1e-6);
  EXPECT_DOUBLE_EQ(f.algbw_gbs, 2.0);
  EXPECT_DOUBLE_EQ(f.busbw_gbs, 2.0);
  EXPECT_DOUBLE_EQ(algbw_bytes(k::reduce, 1000, 2, 8), 2000.0);
}

TEST(Bandwidth, ATimeThatIsNotPositiveThrows) {
  EXPECT_THROW((void)bandwidth(k::all_reduce, 1, 4, 2, 0.0), std::invalid_argument);
  EXPECT_THROW((void)bandwidth(k::all_reduce, 1, 4, 2, -1.0), std::invalid_argument);
}

} // namespace
} // namespace gpuspec::collectives

namespace gpuspec::collectives {
namespace {

TEST(CollectiveFigures, PerSampleBandwidthTheMiddleSampleAndWrongSummed) {
  // 2 ranks, all-reduce of 1 MiB fp32: algbw = 1 MiB / t, busbw = algbw x 2(n-1)/n = algbw.
  const std::uint64_t count = (std::uint64_t{1} << 20) / 4;
  const std::vector<double> seconds{4e-3, 1e-3, 2e-3};
  const std::vector<std::int64_t> wrong{0, 3};
  const auto f = figures_of(collective_kind::all_reduce, count, 4, 2, seconds, wrong);
  ASSERT_EQ(f.busbw_gbs.size(), 3U);
  EXPECT_DOUBLE_EQ(f.algbw_gbs[1], 1048576.0 / 1e-3 / 1e9);
  EXPECT_DOUBLE_EQ(f.busbw_gbs[1], f.algbw_gbs[1]);
  EXPECT_DOUBLE_EQ(f.median_seconds, 2e-3);
  EXPECT_DOUBLE_EQ(f.median.algbw_gbs, 1048576.0 / 2e-3 / 1e9);
  EXPECT_DOUBLE_EQ(f.bus_factor, 1.0);
  EXPECT_DOUBLE_EQ(f.algbw_bytes, 1048576.0);
  EXPECT_EQ(f.wrong, 3);
  // An even count takes the upper middle sample.
  const std::vector<double> four{1e-3, 2e-3, 3e-3, 4e-3};
  EXPECT_DOUBLE_EQ(figures_of(collective_kind::all_reduce, count, 4, 2, four, {}).median_seconds,
                   3e-3);
}

TEST(CollectiveFigures, NoSampleOrABadTimeThrows) {
  EXPECT_THROW((void)figures_of(collective_kind::all_reduce, 1, 4, 2, {}, {}),
               std::invalid_argument);
  const std::vector<double> zero{0.0};
  EXPECT_THROW((void)figures_of(collective_kind::all_reduce, 1, 4, 2, zero, {}),
               std::invalid_argument);
}

} // namespace
} // namespace gpuspec::collectives
