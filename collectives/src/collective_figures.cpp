#include "gpuspec/collectives/collective_figures.hpp"

#include <algorithm>
#include <stdexcept>

namespace gpuspec::collectives {

collective_figures figures_of(collective_kind kind, std::uint64_t param_count, int element_bytes,
                              int nranks, std::span<const double> seconds_per_call,
                              std::span<const std::int64_t> wrong_per_rank) {
  if (seconds_per_call.empty())
    throw std::invalid_argument("a collective's figures need at least one sample");
  collective_figures f;
  for (double s : seconds_per_call) {
    const auto b = bandwidth(kind, param_count, element_bytes, nranks, s);
    f.busbw_gbs.push_back(b.busbw_gbs);
    f.algbw_gbs.push_back(b.algbw_gbs);
  }
  std::vector<double> sorted(seconds_per_call.begin(), seconds_per_call.end());
  std::sort(sorted.begin(), sorted.end());
  f.median_seconds = sorted[sorted.size() / 2];
  f.median = bandwidth(kind, param_count, element_bytes, nranks, f.median_seconds);
  f.bus_factor = bus_factor(kind, nranks);
  f.algbw_bytes = algbw_bytes(kind, param_count, element_bytes, nranks);
  for (auto w : wrong_per_rank)
    f.wrong += w;
  return f;
}

} // namespace gpuspec::collectives
