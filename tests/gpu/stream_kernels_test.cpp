// Device tests of the STREAM kernels, the seeded fill, the poison and the L2 flush: every
// output element checked, fp32 and fp64, sizes that exercise the vector body and the scalar
// tail (counts that are not a multiple of the vector width), the dot against its error bound.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "gpu_test_support.hpp"
#include "gpuspec/kernels/cuda_check.cuh"
#include "gpuspec/kernels/cuda_handles.cuh"
#include "gpuspec/kernels/fill.hpp"
#include "gpuspec/kernels/l2_flush.hpp"
#include "gpuspec/kernels/seeded_values.hpp"
#include "gpuspec/kernels/stream.hpp"
#include "gpuspec/kernels/stream_math.hpp"

namespace k = gpuspec::kernels;

namespace {

constexpr std::uint64_t seed_a = 101, seed_b = 202, seed_c = 303;

/// Sizes around the vector width, around a block, and one large enough for many blocks.
const std::vector<std::size_t> sizes{
    1, 2, 3, 4, 5, 7, 8, 9, 255, 1000, 1023, 1024, 1025, (1u << 16) + 3, (1u << 20) + 1};

template <class T> std::vector<T> to_host(const k::device_buffer<T>& d) {
  std::vector<T> h(d.size());
  GPUSPEC_CUDA_CHECK(cudaMemcpy(h.data(), d.data(), d.bytes(), cudaMemcpyDeviceToHost));
  return h;
}

template <class T> struct stream_fixture : gpuspec::testing::gpu_test {
  // The stream is made in SetUp, after the GPU check: a fixture's constructor runs before
  // SetUp can skip.
  void SetUp() override {
    gpu_test::SetUp();
    if (this->IsSkipped() || this->HasFatalFailure())
      return;
    m_stream.emplace();
    s = m_stream->ref();
  }
  /// a, b, c seeded.
  void prepare(std::size_t n) {
    a = k::device_buffer<T>(n);
    b = k::device_buffer<T>(n);
    c = k::device_buffer<T>(n);
    k::launch_fill_seeded(a.data(), n, seed_a, s.handle());
    k::launch_fill_seeded(b.data(), n, seed_b, s.handle());
    k::launch_fill_seeded(c.data(), n, seed_c, s.handle());
    s.synchronize();
  }
  static T in_a(std::size_t i) { return k::seeded_value<T>(seed_a, i); }
  static T in_b(std::size_t i) { return k::seeded_value<T>(seed_b, i); }
  static T in_c(std::size_t i) { return k::seeded_value<T>(seed_c, i); }
  static T in(char array, std::size_t i) {
    return array == 'a' ? in_a(i) : array == 'b' ? in_b(i) : in_c(i);
  }

  std::optional<k::stream> m_stream;
  k::stream_ref s;
  k::device_buffer<T> a, b, c;
};

using float_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(stream_fixture, float_types);

} // namespace

TYPED_TEST(stream_fixture, fill_matches_the_host_bit_for_bit) {
  using T = TypeParam;
  this->prepare((1u << 16) + 5);
  const auto h = to_host(this->a);
  for (std::size_t i = 0; i < h.size(); ++i) {
    const T want = this->in_a(i);
    ASSERT_EQ(std::memcmp(&h[i], &want, sizeof(T)), 0) << i;
  }
}

TYPED_TEST(stream_fixture, poison_is_nan) {
  using T = TypeParam;
  k::device_buffer<T> p(1001);
  k::poison_with_nan(p.data(), p.bytes(), this->s.handle());
  this->s.synchronize();
  for (T v : to_host(p))
    ASSERT_TRUE(std::isnan(v));
}

/// Every element of every element-wise row against its expression on the host, the output
/// poisoned first and the kernel run twice (the harness repeats it: the output must not move).
/// A row of at most one operation is exact (one correctly rounded IEEE operation on both
/// sides); a row of two (triad) is within one fused multiply-add's rounding.
TYPED_TEST(stream_fixture, every_elementwise_row_is_right_for_every_element) {
  using T = TypeParam;
  const T scalar = static_cast<T>(0.4);
  const double tolerance = k::elementwise_relative_error_bound<T>();
  for (const auto& row : k::stream_ops) {
    if (!row.elementwise())
      continue;
    for (std::size_t n : sizes) {
      this->prepare(n);
      const k::stream_arrays<T> arrays{this->a.data(), this->b.data(), this->c.data()};
      k::poison_with_nan(arrays[row.writes], n * sizeof(T), this->s.handle());
      k::launch_stream(row.op, arrays, scalar, n, this->s.handle());
      k::launch_stream(row.op, arrays, scalar, n, this->s.handle());
      this->s.synchronize();
      const auto h = to_host(row.writes == 'a' ? this->a : row.writes == 'b' ? this->b : this->c);
      const char x = row.reads[0];
      const char y = row.reads.size() > 1 ? row.reads[1] : 0;
      k::visit_stream_elementwise(row.op, [&]<class Row>() {
        for (std::size_t i = 0; i < n; ++i) {
          const T want = Row::apply(this->in(x, i), y ? this->in(y, i) : T(0), scalar);
          if (row.flops_per_element <= 1) {
            ASSERT_EQ(h[i], want) << row.name << " n=" << n << " i=" << i;
          } else {
            ASSERT_LE(std::fabs(static_cast<double>(h[i]) - static_cast<double>(want)) /
                          static_cast<double>(want),
                      tolerance)
                << row.name << " n=" << n << " i=" << i;
          }
        }
      });
    }
  }
}

TYPED_TEST(stream_fixture, triad_is_within_one_fma_rounding_of_the_exact_value) {
  // Against the value in double (not the host's T), as the bound's derivation has it.
  using T = TypeParam;
  const T scalar = static_cast<T>(0.4);
  const double tolerance = k::elementwise_relative_error_bound<T>();
  for (std::size_t n : sizes) {
    this->prepare(n);
    k::poison_with_nan(this->a.data(), this->a.bytes(), this->s.handle());
    k::launch_stream<T>(k::stream_op::triad, {this->a.data(), this->b.data(), this->c.data()},
                        scalar, n, this->s.handle());
    this->s.synchronize();
    const auto h = to_host(this->a);
    for (std::size_t i = 0; i < n; ++i) {
      const double want = static_cast<double>(this->in_b(i)) +
                          static_cast<double>(scalar) * static_cast<double>(this->in_c(i));
      ASSERT_LE(std::fabs(static_cast<double>(h[i]) - want) / want, tolerance)
          << "n=" << n << " i=" << i;
    }
  }
}

TYPED_TEST(stream_fixture, zero_elements_launch_nothing) {
  using T = TypeParam;
  this->prepare(4);
  const k::stream_arrays<T> arrays{this->a.data(), this->b.data(), this->c.data()};
  for (const auto& row : k::stream_ops) {
    if (row.elementwise()) {
      EXPECT_NO_THROW(k::launch_stream(row.op, arrays, T(0.4), 0, this->s.handle())) << row.name;
    }
  }
  k::device_buffer<T> partials(1);
  k::device_buffer<double> result(1);
  k::launch_dot(this->a.data(), this->b.data(), partials.data(), 1, result.data(), 0,
                this->s.handle());
  this->s.synchronize();
  double got = -1;
  GPUSPEC_CUDA_CHECK(cudaMemcpy(&got, result.data(), sizeof got, cudaMemcpyDeviceToHost));
  EXPECT_EQ(got, 0.0);
}

TYPED_TEST(stream_fixture, dot_is_within_its_error_bound) {
  using T = TypeParam;
  const unsigned resident = k::dot_resident_blocks<T>();
  ASSERT_GT(resident, 0u);
  std::vector<std::size_t> dot_sizes = sizes;
  dot_sizes.push_back((std::size_t{1} << 24) + 3); // many vectors per thread
  for (std::size_t n : dot_sizes) {
    for (unsigned cap : {1u, 7u, resident}) { // one block, a few, a full wave
      this->prepare(n);
      const unsigned blocks = k::dot_grid_blocks(n, k::vector_width<T>, cap);
      k::device_buffer<T> partials(blocks);
      k::device_buffer<double> result(1);
      k::poison_with_nan(result.data(), result.bytes(), this->s.handle());
      k::launch_dot(this->a.data(), this->b.data(), partials.data(), blocks, result.data(), n,
                    this->s.handle());
      this->s.synchronize();
      double got = 0;
      GPUSPEC_CUDA_CHECK(cudaMemcpy(&got, result.data(), sizeof got, cudaMemcpyDeviceToHost));
      // Reference: Kahan-compensated double sum (a few ulps of double); the inputs are positive.
      double sum = 0, comp = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const double term = static_cast<double>(this->in_a(i)) * static_cast<double>(this->in_b(i));
        const double y = term - comp;
        const double t = sum + y;
        comp = (t - sum) - y;
        sum = t;
      }
      const double rel = std::fabs(got - sum) / sum;
      ASSERT_LE(rel, k::dot_relative_error_bound<T>(n, blocks))
          << "n=" << n << " blocks=" << blocks << " got=" << got << " want=" << sum;
    }
  }
}

using l2_flush_test = gpuspec::testing::gpu_test;

TEST_F(l2_flush_test, reads_without_writing_the_sink) {
  const k::stream s;
  int l2 = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0), cudaSuccess);
  const std::size_t bytes = (2 * static_cast<std::size_t>(l2) + 15) / 16 * 16;
  k::device_buffer<unsigned char> scratch(bytes);
  k::device_buffer<unsigned> sink(1);
  GPUSPEC_CUDA_CHECK(cudaMemset(scratch.data(), 0, bytes));
  GPUSPEC_CUDA_CHECK(cudaMemset(sink.data(), 0, sizeof(unsigned)));
  GPUSPEC_CUDA_CHECK(cudaDeviceSynchronize());
  k::launch_l2_flush(scratch.data(), bytes, sink.data(), s.handle());
  s.synchronize();
  unsigned got = 1;
  GPUSPEC_CUDA_CHECK(cudaMemcpy(&got, sink.data(), sizeof got, cudaMemcpyDeviceToHost));
  EXPECT_EQ(got, 0u);
}
