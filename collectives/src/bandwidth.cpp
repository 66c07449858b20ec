// nccl-tests' GetBw of each collective (src/<collective>.cu), restated.

#include "gpuspec/collectives/bandwidth.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gpuspec::collectives {

namespace {

void check_ranks(int nranks) {
  if (nranks < 1)
    throw std::invalid_argument("bandwidth: nranks " + std::to_string(nranks) + " is under 1");
}

/// The collectives whose count is a per-rank chunk: algbw counts the chunks of every rank.
bool chunked(collective_kind kind) { return collective_of(kind).counts != count_shape::whole; }

} // namespace

double bus_factor(collective_kind kind, int nranks) {
  check_ranks(nranks);
  const double n = nranks;
  switch (collective_of(kind).bus) {
  case bus_shape::twice_ring:
    return 2.0 * (n - 1.0) / n;
  case bus_shape::ring:
    return (n - 1.0) / n;
  case bus_shape::one:
    return 1.0;
  }
  return 1.0;
}

double in_switch_factor(collective_kind kind, int nranks) {
  return collective_of(kind).switch_reduces ? std::max(1.0, bus_factor(kind, nranks)) : 1.0;
}

double algbw_bytes(collective_kind kind, std::uint64_t param_count, int element_bytes, int nranks) {
  check_ranks(nranks);
  const double bytes = static_cast<double>(param_count) * element_bytes;
  return chunked(kind) ? bytes * nranks : bytes;
}

bandwidth_figures bandwidth(collective_kind kind, std::uint64_t param_count, int element_bytes,
                            int nranks, double seconds) {
  if (!(seconds > 0.0) || !std::isfinite(seconds))
    throw std::invalid_argument("bandwidth: the time of a call must be positive and finite");
  bandwidth_figures f;
  f.algbw_gbs = algbw_bytes(kind, param_count, element_bytes, nranks) / 1.0e9 / seconds;
  f.busbw_gbs = f.algbw_gbs * bus_factor(kind, nranks);
  return f;
}

} // namespace gpuspec::collectives
