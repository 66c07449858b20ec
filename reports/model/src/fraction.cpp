// The one fraction (fraction.hpp).

#include "gpuspec/reports/model/fraction.hpp"

#include <cmath>

namespace gpuspec::reports::inline model {

std::optional<double> fraction_of(double achieved, std::optional<double> bound,
                                  bool higher_is_better) {
  if (!bound || !(*bound > 0) || !std::isfinite(*bound) || !std::isfinite(achieved) || achieved < 0)
    return std::nullopt;
  if (higher_is_better)
    return achieved / *bound; // nothing achieved is 0% of the bound, a figure to judge
  if (!(achieved > 0))
    return std::nullopt; // a zero time or latency is no fraction of a floor
  return *bound / achieved;
}

} // namespace gpuspec::reports::model
