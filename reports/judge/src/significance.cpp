#include "gpuspec/reports/judge/significance.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gpuspec::reports::inline judge {

namespace {

struct ranked {
  double r1 = 0;       ///< rank sum of x (mid-ranks for ties)
  double tie_term = 0; ///< sum over tie groups of t^3 - t
  bool ties = false;
};

ranked rank_sum(std::span<const double> x, std::span<const double> y) {
  std::vector<std::pair<double, bool>> all; // value, belongs to x
  all.reserve(x.size() + y.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i]))
      throw std::invalid_argument("mann_whitney_u: x[" + std::to_string(i) + "] is not finite");
    all.emplace_back(x[i], true);
  }
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (!std::isfinite(y[i]))
      throw std::invalid_argument("mann_whitney_u: y[" + std::to_string(i) + "] is not finite");
    all.emplace_back(y[i], false);
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  ranked out;
  std::size_t i = 0;
  while (i < all.size()) {
    std::size_t j = i + 1;
    while (j < all.size() && all[j].first == all[i].first)
      ++j;
    const auto t = static_cast<double>(j - i);
    const double mid_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (std::size_t k = i; k < j; ++k)
      if (all[k].second)
        out.r1 += mid_rank;
    if (j - i > 1) {
      out.ties = true;
      out.tie_term += t * t * t - t;
    }
    i = j;
  }
  return out;
}

/// P(U >= u) under the null, for sample sizes m and n without ties: the counts of U are the
/// coefficients of the Gaussian binomial [m + n choose m]_q, built as the product over
/// i = 1..m of (1 - q^(n+i)) / (1 - q^i). Each step leaves the coefficients of [n + i choose
/// i]_q, non-negative integers; they are kept as probabilities (divided by C(n + i, i)) so that
/// large samples do not overflow.
double exact_upper_tail(std::size_t m, std::size_t n, double u) {
  if (m > n)
    std::swap(m, n); // the distribution of U is symmetric in the two sizes
  const std::size_t max_u = m * n;
  std::vector<double> c(max_u + 1, 0.0);
  c[0] = 1.0; // [n choose 0]_q = 1
  for (std::size_t i = 1; i <= m; ++i) {
    const std::size_t deg = i * n;
    const std::size_t shift = n + i;
    for (std::size_t k = deg + 1; k-- > shift;) // multiply by (1 - q^(n+i))
      c[k] -= c[k - shift];
    for (std::size_t k = i; k <= deg; ++k) // divide by (1 - q^i)
      c[k] += c[k - i];
    // C(n+i, i) = C(n+i-1, i-1) * (n+i) / i: rescale so the coefficients stay probabilities
    const double scale = static_cast<double>(n + i) / static_cast<double>(i);
    for (std::size_t k = 0; k <= deg; ++k)
      c[k] /= scale;
  }
  // U takes integer values without ties.
  const auto first = static_cast<std::size_t>(std::ceil(u - 1e-9));
  double tail = 0;
  for (std::size_t k = std::min(first, max_u + 1); k <= max_u; ++k)
    tail += c[k];
  return tail;
}

} // namespace

std::string_view to_string(mann_whitney_method m) {
  switch (m) {
  case mann_whitney_method::exact:
    return "exact";
  case mann_whitney_method::asymptotic:
    return "asymptotic";
  case mann_whitney_method::none:
    return "none";
  }
  return "none";
}

namespace {

mann_whitney_result test(std::span<const double> x, std::span<const double> y,
                         const mann_whitney_method* forced) {
  mann_whitney_result r;
  const ranked rk = rank_sum(x, y); // validates finiteness
  if (x.empty() || y.empty()) {
    if (forced != nullptr)
      throw std::invalid_argument("mann_whitney_u: an empty sample cannot be tested");
    return r;
  }
  const auto n1 = static_cast<double>(x.size());
  const auto n2 = static_cast<double>(y.size());
  r.u1 = rk.r1 - n1 * (n1 + 1) / 2.0;
  r.u2 = n1 * n2 - r.u1;
  const double u_max = std::max(r.u1, r.u2);

  mann_whitney_method method = mann_whitney_method::asymptotic;
  if (forced != nullptr) {
    method = *forced;
    if (method == mann_whitney_method::none)
      throw std::invalid_argument("mann_whitney_u: method none cannot be forced");
    if (method == mann_whitney_method::exact && rk.ties)
      throw std::invalid_argument("mann_whitney_u: the exact method needs samples without ties");
  } else if (!rk.ties && std::min(x.size(), y.size()) <= 8) {
    method = mann_whitney_method::exact;
  }
  r.method = method;

  if (method == mann_whitney_method::exact) {
    r.p_value = std::min(1.0, 2.0 * exact_upper_tail(x.size(), y.size(), u_max));
    return r;
  }
  const double n = n1 + n2;
  const double mu = n1 * n2 / 2.0;
  const double var = n1 * n2 / 12.0 * ((n + 1.0) - rk.tie_term / (n * (n - 1.0)));
  if (!(var > 0)) {
    r.p_value = 1.0; // every value tied: no evidence of a difference
    return r;
  }
  const double z = (u_max - mu - 0.5) / std::sqrt(var);
  // two-sided: 2 * P(Z >= z) = erfc(z / sqrt(2))
  r.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return r;
}

} // namespace

mann_whitney_result mann_whitney_u(std::span<const double> x, std::span<const double> y) {
  return test(x, y, nullptr);
}

mann_whitney_result mann_whitney_u(std::span<const double> x, std::span<const double> y,
                                   mann_whitney_method method) {
  return test(x, y, &method);
}

} // namespace gpuspec::reports::judge
