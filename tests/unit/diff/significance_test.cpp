// The Mann–Whitney U test against values computed with scipy 1.17.1:
// scipy.stats.mannwhitneyu(x, y, alternative="two-sided") (method "auto", continuity on).

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "gpuspec/reports/judge/significance.hpp"

namespace gr = gpuspec::reports;
using gr::mann_whitney_method;

namespace {
std::vector<double> ramp(int n, double scale, double offset) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i)
    v.push_back(static_cast<double>(i) * scale + offset);
  return v;
}
} // namespace

TEST(MannWhitney, ExactSeparatedSamplesMatchScipy) {
  const std::vector<double> x{1.1, 2.2, 3.3, 4.4, 5.5};
  const std::vector<double> y{6.6, 7.7, 8.8, 9.9, 10.1, 11.2};
  const auto r = gr::mann_whitney_u(x, y);
  EXPECT_EQ(r.method, mann_whitney_method::exact);
  EXPECT_DOUBLE_EQ(r.u1, 0.0);
  EXPECT_DOUBLE_EQ(r.u2, 30.0);
  EXPECT_NEAR(r.p_value, 0.004329004329004329, 1e-12); // 2 / C(11, 5)
}

TEST(MannWhitney, ExactOverlappingSamplesMatchScipy) {
  const std::vector<double> x{3.0, 1.0, 4.5, 1.5, 5.9};
  const std::vector<double> y{2.6, 5.3, 5.8, 9.7, 9.3, 2.4, 3.8};
  const auto r = gr::mann_whitney_u(x, y);
  EXPECT_EQ(r.method, mann_whitney_method::exact);
  EXPECT_DOUBLE_EQ(r.u1, 10.0);
  EXPECT_NEAR(r.p_value, 0.26767676767676774, 1e-12);
}

TEST(MannWhitney, ExactWithUnequalSizesMatchesScipy) {
  const std::vector<double> x{5, 7, 9};
  const std::vector<double> y{1,  2,  3,  4,  6,  8,  10, 11, 12, 13,
                              14, 15, 16, 17, 18, 19, 20, 21, 22, 23};
  const auto r = gr::mann_whitney_u(x, y);
  EXPECT_EQ(r.method, mann_whitney_method::exact);
  EXPECT_DOUBLE_EQ(r.u1, 15.0);
  EXPECT_NEAR(r.p_value, 0.19649915302089213, 1e-12);
  // The distribution is symmetric in the two sizes.
  EXPECT_NEAR(gr::mann_whitney_u(y, x).p_value, r.p_value, 1e-12);
}

TEST(MannWhitney, AsymptoticWithTiesMatchesScipy) {
  const std::vector<double> x{1, 2, 2, 3, 3, 3, 4, 5, 6, 7, 8, 9};
  const std::vector<double> y{2, 3, 4, 4, 5, 5, 6, 7, 8, 9, 10, 11, 12};
  const auto r = gr::mann_whitney_u(x, y);
  EXPECT_EQ(r.method, mann_whitney_method::asymptotic);
  EXPECT_DOUBLE_EQ(r.u1, 45.5);
  EXPECT_NEAR(r.p_value, 0.08023240185650951, 1e-12);
}

TEST(MannWhitney, AsymptoticWithoutTiesMatchesScipy) {
  const auto x = ramp(20, 1.01, 0.0);
  const auto y = ramp(25, 1.0, 3.5);
  const auto r = gr::mann_whitney_u(x, y);
  EXPECT_EQ(r.method, mann_whitney_method::asymptotic);
  EXPECT_DOUBLE_EQ(r.u1, 136.0);
  EXPECT_NEAR(r.p_value, 0.009527489556328561, 1e-12);
}

TEST(MannWhitney, ForcedMethodsMatchScipy) {
  const std::vector<double> x{1.1, 2.2, 3.3, 4.4, 5.5};
  const std::vector<double> y{6.6, 7.7, 8.8, 9.9, 10.1, 11.2};
  EXPECT_NEAR(gr::mann_whitney_u(x, y, mann_whitney_method::asymptotic).p_value,
              0.00811311726556578, 1e-12);
  // Exact for 20 x 25 (C(45, 20) ~ 3e12 arrangements) through the rescaled recurrence.
  EXPECT_NEAR(
      gr::mann_whitney_u(ramp(20, 1.01, 0.0), ramp(25, 1.0, 3.5), mann_whitney_method::exact)
          .p_value,
      0.008570229869246798, 1e-10);
}

TEST(MannWhitney, IdenticalSamplesAreNotSignificant) {
  const auto x = ramp(30, 0.5, 100.0);
  const auto r = gr::mann_whitney_u(x, x);
  EXPECT_EQ(r.method, mann_whitney_method::asymptotic); // every value tied across samples
  EXPECT_DOUBLE_EQ(r.p_value, 1.0);
  const std::vector<double> flat(10, 7.0);
  EXPECT_DOUBLE_EQ(gr::mann_whitney_u(flat, flat).p_value, 1.0);
}

TEST(MannWhitney, IsSymmetricInItsArguments) {
  const std::vector<double> x{1, 2, 2, 3, 3, 3, 4, 5, 6, 7, 8, 9};
  const std::vector<double> y{2, 3, 4, 4, 5, 5, 6, 7, 8, 9, 10, 11, 12};
  const auto a = gr::mann_whitney_u(x, y);
  const auto b = gr::mann_whitney_u(y, x);
  EXPECT_DOUBLE_EQ(a.p_value, b.p_value);
  EXPECT_DOUBLE_EQ(a.u1, b.u2);
}

TEST(MannWhitney, EmptyOrNonFiniteInput) {
  const std::vector<double> x{1, 2, 3};
  const std::vector<double> none;
  const auto r = gr::mann_whitney_u(x, none);
  EXPECT_EQ(r.method, mann_whitney_method::none);
  EXPECT_DOUBLE_EQ(r.p_value, 1.0);
  const std::vector<double> bad{1, std::numeric_limits<double>::quiet_NaN()};
  EXPECT_THROW((void)gr::mann_whitney_u(x, bad), std::invalid_argument);
  const std::vector<double> tied{1, 1, 2};
  EXPECT_THROW((void)gr::mann_whitney_u(x, tied, mann_whitney_method::exact),
               std::invalid_argument);
}
