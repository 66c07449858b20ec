#include "gpuspec/collectives/mpi/pairing.hpp"

#include "gpuspec/reports/model/statistics.hpp"

namespace gpuspec::collectives::mpi {

pairing_rounds all_pairs(int nodes) {
  pairing_rounds out;
  if (nodes < 2)
    return out;
  // The circle method: fix the last seat, rotate the others; an odd n gets a bye seat (-1).
  const int n = nodes % 2 == 0 ? nodes : nodes + 1;
  std::vector<int> seat(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    seat[static_cast<std::size_t>(i)] = i < nodes ? i : -1;
  for (int round = 0; round < n - 1; ++round) {
    std::vector<std::pair<int, int>> pairs;
    for (int i = 0; i < n / 2; ++i) {
      const int a = seat[static_cast<std::size_t>(i)];
      const int b = seat[static_cast<std::size_t>(n - 1 - i)];
      if (a >= 0 && b >= 0)
        pairs.emplace_back(std::min(a, b), std::max(a, b));
    }
    out.push_back(std::move(pairs));
    // Rotate every seat but the first by one.
    const int last = seat.back();
    for (int i = n - 1; i > 1; --i)
      seat[static_cast<std::size_t>(i)] = seat[static_cast<std::size_t>(i - 1)];
    seat[1] = last;
  }
  return out;
}

pairing_rounds bisection(int nodes) {
  pairing_rounds out;
  if (nodes < 2)
    return out;
  const int half = nodes / 2;
  std::vector<std::pair<int, int>> first;
  for (int i = 0; i < half; ++i)
    first.emplace_back(i, i + half);
  out.push_back(std::move(first));
  if (nodes % 2 == 1)
    out.push_back({{0, nodes - 1}});
  return out;
}

pairing_rounds pairing_schedule(int nodes, int max_all_pairs_nodes) {
  return nodes <= max_all_pairs_nodes ? all_pairs(nodes) : bisection(nodes);
}

std::optional<slow_node> find_slow_node(std::span<const pair_figure> figures, int nodes,
                                        double threshold) {
  if (nodes < 3)
    return std::nullopt;
  std::optional<slow_node> worst;
  for (int n = 0; n < nodes; ++n) {
    // Its pairs against the pairs it is not in: a slow node drags every pair it is in.
    std::vector<double> with, without;
    for (const auto& f : figures)
      (f.a == n || f.b == n ? with : without).push_back(f.value);
    if (with.size() < 2 || without.empty())
      continue;
    const double reference = reports::median_of(without);
    if (!(reference > 0))
      continue;
    const double behind = (reference - reports::median_of(with)) / reference;
    if (!worst || behind > worst->behind)
      worst = slow_node{n, behind};
  }
  if (worst && worst->behind > threshold)
    return worst;
  return std::nullopt;
}

} // namespace gpuspec::collectives::mpi
