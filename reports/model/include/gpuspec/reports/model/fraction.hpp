#pragma once
/// The one place an achieved figure is held against a bound (CONTRIBUTING.md, "one concept, one
/// place"): a result's efficiency, check's fraction of the reference or the baseline, compare's
/// cell, the transfers' share of the PCIe link in the diagnosis. Pure arithmetic, no report.

#include <optional>

namespace gpuspec::reports::inline model {

/// The fraction of `bound` that `achieved` reached: achieved / bound, or bound / achieved for a
/// figure where lower is better (a latency, whose bound is a floor). nullopt when the bound is
/// absent, zero, negative or not finite, or `achieved` is negative or not finite (NaN
/// included), or zero where lower is better: no fraction is better than one that divides by
/// nothing. Zero achieved where higher is better is 0: nothing of the bound was reached.
[[nodiscard]] std::optional<double> fraction_of(double achieved, std::optional<double> bound,
                                                bool higher_is_better = true);

} // namespace gpuspec::reports::model
