#pragma once
/// Host-side checks of benchmark outputs (docs/design.md rule 6). Host only: the benchmark copies
/// its output back and checks every element against an analytic value, on all CPU cores (a
/// 1 GiB array takes a fraction of a second).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::benches {

/// Threads for a host check of `n` items: 1 for small inputs, else the cores, at most 32.
[[nodiscard]] unsigned verification_threads(std::size_t n);

/// Calls f(begin, end, part) on `parts` contiguous slices of [0, n) in parallel; part < parts.
template <class F> void for_each_slice(std::size_t n, unsigned parts, const F& f) {
  if (parts <= 1 || n < parts) {
    f(std::size_t{0}, n, 0u);
    return;
  }
  const std::size_t slice = n / parts + (n % parts != 0 ? 1 : 0);
  std::vector<std::jthread> threads;
  threads.reserve(parts);
  for (unsigned p = 0; p < parts; ++p) {
    const std::size_t begin = std::min(n, static_cast<std::size_t>(p) * slice);
    const std::size_t end = std::min(n, begin + slice);
    threads.emplace_back([&f, begin, end, p] { f(begin, end, p); });
  }
}

/// What an element-wise check found.
struct elementwise_report {
  std::size_t checked = 0;
  std::size_t failures = 0;   ///< out of tolerance, non-finite and unwritten ones included
  std::size_t non_finite = 0; ///< NaN or infinite outputs (a NaN poison never written, or overflow)
  std::size_t not_written = 0; ///< still holding the poison (only where the check was told it)
  double max_rel_error = 0;    ///< over the finite outputs
  std::size_t worst_index = 0;
  std::optional<std::size_t> first_failure;
  double first_got = 0, first_expected = 0;
  bool first_not_written = false; ///< the first failure still holds the poison
};

/// Relative error of `got` against `expected`: |got - expected| / |expected|, or the absolute
/// error where expected is 0. NaN if got is not finite.
[[nodiscard]] inline double relative_error(double got, double expected) {
  const double diff = std::fabs(got - expected);
  return expected != 0.0 ? diff / std::fabs(expected) : diff;
}

/// Checks got[i] against expected(i) (a double) for every i < n; an element fails unless its
/// relative error is <= tolerance (so a NaN fails). An element for which is_poison(i) holds
/// still has the value the output was poisoned with, one no result can take: it fails as not
/// written (counted in not_written, not in non_finite).
template <class T, class Expected, class IsPoison>
[[nodiscard]] elementwise_report check_elementwise(const T* got, std::size_t n,
                                                   const Expected& expected, double tolerance,
                                                   const IsPoison& is_poison) {
  const unsigned parts = verification_threads(n);
  std::vector<elementwise_report> partial(std::max(1u, parts));
  for_each_slice(n, parts, [&](std::size_t begin, std::size_t end, unsigned part) {
    elementwise_report r;
    for (std::size_t i = begin; i < end; ++i) {
      if (is_poison(i)) {
        ++r.not_written;
        ++r.failures;
        if (!r.first_failure) {
          r.first_failure = i;
          r.first_got = static_cast<double>(got[i]);
          r.first_expected = static_cast<double>(expected(i));
          r.first_not_written = true;
        }
        continue;
      }
      const double g = static_cast<double>(got[i]);
      const double e = static_cast<double>(expected(i));
      const double err = relative_error(g, e);
      const bool finite = std::isfinite(g);
      if (!finite)
        ++r.non_finite;
      else if (err > r.max_rel_error) {
        r.max_rel_error = err;
        r.worst_index = i;
      }
      if (!(err <= tolerance)) {
        ++r.failures;
        if (!r.first_failure) {
          r.first_failure = i;
          r.first_got = g;
          r.first_expected = e;
        }
      }
    }
    r.checked = end - begin;
    partial[part] = r;
  });
  elementwise_report total;
  for (const auto& r : partial) { // slices in index order, so the first failure is the lowest
    total.checked += r.checked;
    total.failures += r.failures;
    total.non_finite += r.non_finite;
    total.not_written += r.not_written;
    if (r.max_rel_error > total.max_rel_error) {
      total.max_rel_error = r.max_rel_error;
      total.worst_index = r.worst_index;
    }
    if (!total.first_failure && r.first_failure) {
      total.first_failure = r.first_failure;
      total.first_got = r.first_got;
      total.first_expected = r.first_expected;
      total.first_not_written = r.first_not_written;
    }
  }
  return total;
}

/// The same, for an output whose poison no check was told of: NaN poisons show as non_finite.
template <class T, class Expected>
[[nodiscard]] elementwise_report check_elementwise(const T* got, std::size_t n,
                                                   const Expected& expected, double tolerance) {
  return check_elementwise(got, n, expected, tolerance, [](std::size_t) { return false; });
}

/// Sum and sum of magnitudes of term(i) for i < n, in double with Neumaier's compensated
/// summation in each slice and across slices: a reference accurate to a few ulps of double,
/// whatever n.
struct compensated_total {
  double sum = 0;
  double sum_abs = 0;
};

class neumaier_accumulator {
public:
  void add(double x) {
    const double t = m_sum + x;
    if (std::fabs(m_sum) >= std::fabs(x))
      m_compensation += (m_sum - t) + x;
    else
      m_compensation += (x - t) + m_sum;
    m_sum = t;
  }
  [[nodiscard]] double value() const { return m_sum + m_compensation; }

private:
  double m_sum = 0, m_compensation = 0;
};

template <class Term>
[[nodiscard]] compensated_total compensated_sum(std::size_t n, const Term& term) {
  const unsigned parts = verification_threads(n);
  std::vector<compensated_total> partial(std::max(1u, parts));
  for_each_slice(n, parts, [&](std::size_t begin, std::size_t end, unsigned part) {
    neumaier_accumulator sum, sum_abs;
    for (std::size_t i = begin; i < end; ++i) {
      const double x = term(i);
      sum.add(x);
      sum_abs.add(std::fabs(x));
    }
    partial[part] = {sum.value(), sum_abs.value()};
  });
  neumaier_accumulator sum, sum_abs;
  for (const auto& p : partial) {
    sum.add(p.sum);
    sum_abs.add(p.sum_abs);
  }
  return {sum.value(), sum_abs.value()};
}

/// The report's verification for an element-wise check: passed when no element failed.
/// `what` says what was compared, e.g. "c against a (copy), seeded inputs".
[[nodiscard]] reports::verification to_verification(const elementwise_report& r, double tolerance,
                                                    const std::string& what);

/// The report's verification for a scalar result (a reduction) against a host reference.
[[nodiscard]] reports::verification scalar_verification(double got, double expected,
                                                        double tolerance, const std::string& what);

} // namespace gpuspec::benches
