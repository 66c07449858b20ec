// Host tests of the STREAM table (kernels/include/gpuspec/kernels/stream_math.hpp): each row
// against BabelStream's kernel, the rows' expressions on the host, the launch geometry, the
// error bounds, and docs/measurement.md's table against the rows. Counts come from the table.

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "gpuspec/kernels/stream_math.hpp"

namespace k = gpuspec::kernels;

namespace {

/// The value Row::apply gives for x, y and s, or NaN for a row with no expression (the dot).
template <class T> double apply_row(k::stream_op op, T x, T y, T s) {
  double value = std::nan("");
  k::visit_stream_elementwise(
      op, [&]<class Row>() { value = static_cast<double>(Row::apply(x, y, s)); });
  return value;
}

} // namespace

TEST(stream_table, bytes_moved_follow_babelstream) {
  EXPECT_EQ(k::stream_row(k::stream_op::copy).arrays_moved(), 2);
  EXPECT_EQ(k::stream_row(k::stream_op::scale).arrays_moved(), 2);
  EXPECT_EQ(k::stream_row(k::stream_op::add).arrays_moved(), 3);
  EXPECT_EQ(k::stream_row(k::stream_op::triad).arrays_moved(), 3);
  EXPECT_EQ(k::stream_row(k::stream_op::dot).arrays_moved(), 2);
  EXPECT_EQ(k::stream_bytes(k::stream_op::triad, 1000, 8), 24000u);
  EXPECT_EQ(k::stream_bytes(k::stream_op::copy, std::uint64_t{1} << 28, 4), std::uint64_t{2} << 30);
  EXPECT_EQ(k::stream_row(k::stream_op::copy).flops_per_element, 0);
  EXPECT_EQ(k::stream_row(k::stream_op::triad).flops_per_element, 2);
  EXPECT_EQ(k::stream_row(k::stream_op::dot).flops_per_element, 2);
}

TEST(stream_table, holds_babelstreams_kernels_under_gpuspec_ids) {
  // BabelStream's five kernels are rows; "scale" is BabelStream's Mul.
  std::set<std::string_view> babelstream;
  for (const auto& row : k::stream_ops)
    babelstream.insert(row.babelstream);
  for (std::string_view kernel : {"Copy", "Mul", "Add", "Triad", "Dot"})
    EXPECT_EQ(babelstream.count(kernel), 1u) << kernel;
  EXPECT_EQ(k::stream_row(k::stream_op::scale).babelstream, "Mul");
  // Arrays as BabelStream assigns them: copy c = a, mul b = s*c, add c = a + b, triad a = b + s*c.
  EXPECT_EQ(k::stream_row(k::stream_op::copy).reads, "a");
  EXPECT_EQ(k::stream_row(k::stream_op::copy).writes, 'c');
  EXPECT_EQ(k::stream_row(k::stream_op::scale).reads, "c");
  EXPECT_EQ(k::stream_row(k::stream_op::scale).writes, 'b');
  EXPECT_EQ(k::stream_row(k::stream_op::add).reads, "ab");
  EXPECT_EQ(k::stream_row(k::stream_op::add).writes, 'c');
  EXPECT_EQ(k::stream_row(k::stream_op::triad).reads, "bc");
  EXPECT_EQ(k::stream_row(k::stream_op::triad).writes, 'a');
  EXPECT_EQ(k::stream_row(k::stream_op::dot).reads, "ab");
  EXPECT_FALSE(k::stream_row(k::stream_op::dot).elementwise());
}

TEST(stream_table, names_are_unique_lower_case_ids) {
  std::set<std::string_view> names, babelstream;
  for (std::size_t i = 0; i < k::stream_ops.size(); ++i) {
    const auto& row = k::stream_ops[i];
    EXPECT_EQ(static_cast<std::size_t>(row.op), i) << row.name;
    EXPECT_EQ(&k::stream_row(row.op), &row) << row.name;
    EXPECT_TRUE(names.insert(row.name).second) << row.name;
    EXPECT_TRUE(babelstream.insert(row.babelstream).second) << row.babelstream;
    ASSERT_FALSE(row.name.empty());
    for (char ch : row.name)
      EXPECT_TRUE((ch >= 'a' && ch <= 'z') || ch == '_') << row.name;
    EXPECT_FALSE(row.formula.empty()) << row.name;
    EXPECT_FALSE(row.reference.empty()) << row.name;
  }
}

TEST(stream_table, every_elementwise_row_has_an_expression_and_writes_what_it_does_not_read) {
  for (const auto& row : k::stream_ops) {
    const bool has_expression = k::visit_stream_elementwise(row.op, []<class Row>() {});
    EXPECT_EQ(has_expression, row.elementwise()) << row.name;
    EXPECT_EQ(row.arrays_moved(), static_cast<int>(row.reads.size()) + (row.elementwise() ? 1 : 0))
        << row.name;
    if (row.elementwise()) {
      EXPECT_EQ(row.reads.find(row.writes), std::string_view::npos) << row.name;
      EXPECT_TRUE(row.touches(row.writes)) << row.name;
    }
    for (char array : row.reads)
      EXPECT_TRUE(row.touches(array)) << row.name;
  }
}

TEST(stream_table, expressions_compute_what_the_rows_say) {
  // x and y are the arrays of `reads`, in order; s the scalar.
  const double x = 1.5, y = 1.25, s = 0.4;
  EXPECT_EQ(apply_row(k::stream_op::copy, x, y, s), x);
  EXPECT_EQ(apply_row(k::stream_op::scale, x, y, s), s * x);
  EXPECT_EQ(apply_row(k::stream_op::add, x, y, s), x + y);
  EXPECT_EQ(apply_row(k::stream_op::triad, x, y, s), x + s * y);
  EXPECT_TRUE(std::isnan(apply_row(k::stream_op::dot, x, y, s)));
  // The scalar is used by the rows that say so, and only those.
  for (const auto& row : k::stream_ops) {
    if (!row.elementwise())
      continue;
    const double with_s = apply_row(row.op, x, y, s);
    const double other_s = apply_row(row.op, x, y, 0.8);
    EXPECT_EQ(with_s != other_s, row.uses_scalar) << row.name;
  }
}

TEST(stream_math, vector_widths_are_16_bytes) {
  EXPECT_EQ(k::vector_width<float>, 4u);
  EXPECT_EQ(k::vector_width<double>, 2u);
}

TEST(stream_math, grid_gives_one_vector_per_thread_including_the_tail) {
  // 1 GiB of floats: 2^26 float4 vectors, 2^18 blocks of 256.
  EXPECT_EQ(k::stream_grid_blocks(std::uint64_t{1} << 28, 4), 1u << 18);
  // A tail needs its own thread when the count is not a multiple of the width.
  EXPECT_EQ(k::stream_grid_blocks(1024, 4), 1u);
  EXPECT_EQ(k::stream_grid_blocks(1025, 4), 2u);
  EXPECT_EQ(k::stream_grid_blocks(3, 4), 1u);
  EXPECT_EQ(k::stream_grid_blocks(0, 4), 1u);
}

TEST(stream_math, dot_grid_is_one_wave_at_most) {
  EXPECT_EQ(k::dot_grid_blocks(std::uint64_t{1} << 28, 4, 1056), 1056u);
  EXPECT_EQ(k::dot_grid_blocks(100, 4, 1056), 1u);
  EXPECT_EQ(k::dot_grid_blocks(100, 4, 0), 1u);
}

TEST(stream_math, dot_bound_scales_with_elements_per_thread_not_n) {
  const double small = k::dot_relative_error_bound<float>(1000, 1);
  const double big = k::dot_relative_error_bound<float>(std::uint64_t{1} << 28, 1056);
  // 2^28 floats over 1056*256 threads: about 1000 terms per thread.
  EXPECT_GT(big, 900 * 1.19e-7);
  EXPECT_LT(big, 1200 * 1.19e-7);
  EXPECT_LT(big, 1e-3 * (std::uint64_t{1} << 28) * 1.19e-7); // far tighter than n*eps
  EXPECT_GT(small, 0.0);
  // fp64 bound is in double's epsilon.
  EXPECT_LT(k::dot_relative_error_bound<double>(std::uint64_t{1} << 27, 1056), 1e-12);
}

TEST(stream_math, elementwise_bound_is_a_few_eps) {
  EXPECT_DOUBLE_EQ(k::elementwise_relative_error_bound<float>(),
                   4.0 * std::numeric_limits<float>::epsilon());
  EXPECT_DOUBLE_EQ(k::elementwise_relative_error_bound<double>(),
                   4.0 * std::numeric_limits<double>::epsilon());
}

TEST(stream_table, docs_measurement_lists_every_row_as_the_table_has_it) {
  std::ifstream in(std::filesystem::path(GPUSPEC_SOURCE_DIR) / "docs" / "measurement.md");
  ASSERT_TRUE(in) << "docs/measurement.md";
  std::stringstream text;
  text << in.rdbuf();
  std::size_t listed = 0;
  std::string line;
  while (std::getline(text, line))
    if (line.rfind("| `memory.stream.", 0) == 0)
      ++listed;
  EXPECT_EQ(listed, k::stream_ops.size()) << "one line per row in the STREAM table";
  for (const auto& row : k::stream_ops) {
    const std::string want = "| `memory.stream." + std::string(row.name) + "` | " +
                             std::string(row.babelstream) + " | `" + std::string(row.formula) +
                             "` | " + std::to_string(row.arrays_moved()) + " |";
    EXPECT_NE(text.str().find(want), std::string::npos) << want;
  }
}
