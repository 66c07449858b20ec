#pragma once
/// Two-sample significance for `gpuspec diff`: the two-sided Mann–Whitney U test (Wilcoxon
/// rank-sum). Rank-based, so it needs no assumption about the shape of the noise (timing noise
/// is skewed, with a long tail of slow samples), and one outlier sample cannot decide it.

#include <span>
#include <string_view>

namespace gpuspec::reports::inline judge {

/// How the p-value was computed.
enum class mann_whitney_method {
  exact,      ///< the exact null distribution of U (no ties, min(n1, n2) <= 8)
  asymptotic, ///< normal approximation with tie correction and continuity correction
  none,       ///< a sample is empty: no test (p = 1)
};

struct mann_whitney_result {
  double u1 = 0;      ///< U of the first sample: pairs (x, y) with x > y, ties counting 1/2
  double u2 = 0;      ///< n1 * n2 - u1
  double p_value = 1; ///< two-sided
  mann_whitney_method method = mann_whitney_method::none;
};

/// The two-sided Mann–Whitney U test of `x` against `y`, as scipy.stats.mannwhitneyu(x, y,
/// alternative="two-sided", method="auto", use_continuity=True) computes it: the exact
/// distribution when there are no ties and the smaller sample has at most 8 values; otherwise
/// the normal approximation, z = (max(U1, U2) - n1 n2 / 2 - 1/2) / sigma with the tie-corrected
/// sigma^2 = n1 n2 / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1))). p is capped at 1; all values
/// tied gives p = 1. Samples must be finite (std::invalid_argument otherwise).
[[nodiscard]] mann_whitney_result mann_whitney_u(std::span<const double> x,
                                                 std::span<const double> y);

/// As mann_whitney_u, with the method forced (`exact` throws std::invalid_argument when the
/// samples have ties; `none` is not accepted). For tests and for callers that want one method.
[[nodiscard]] mann_whitney_result
mann_whitney_u(std::span<const double> x, std::span<const double> y, mann_whitney_method method);

[[nodiscard]] std::string_view to_string(mann_whitney_method m);

} // namespace gpuspec::reports::judge
