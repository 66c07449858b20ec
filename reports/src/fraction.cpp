// The one fraction (fraction.hpp).

#include "gpuspec/reports/fraction.hpp"

#include <cmath>

namespace gpuspec::reports {

std::optional<double> fraction_of(double achieved, std::optional<double> bound,
                                  bool higher_is_better) {
  if (!bound || !(*bound > 0) || !std::isfinite(*bound) || !(achieved > 0) ||
      !std::isfinite(achieved))
    return std::nullopt;
  return higher_is_better ? achieved / *bound : *bound / achieved;
}

} // namespace gpuspec::reports
