// nccl-tests' GetCollByteCount of each collective, by the row's count_shape (src/all_reduce.cu,
// all_gather.cu, reduce_scatter.cu, broadcast.cu, reduce.cu, alltoall.cu, sendrecv.cu), restated.

#include "gpuspec/collectives/collective_sizes.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gpuspec::collectives {

collective_counts counts_for_size(collective_kind kind, std::uint64_t size_bytes, int element_bytes,
                                  int nranks) {
  if (nranks < 1)
    throw std::invalid_argument("counts_for_size: nranks " + std::to_string(nranks) +
                                " is under 1");
  if (element_bytes != 1 && element_bytes != 2 && element_bytes != 4 && element_bytes != 8)
    throw std::invalid_argument("counts_for_size: element size " + std::to_string(element_bytes) +
                                " is not 1, 2, 4 or 8 bytes");
  const auto eb = static_cast<std::uint64_t>(element_bytes);
  const auto n = static_cast<std::uint64_t>(nranks);
  const std::uint64_t count = size_bytes / eb;
  // A per-rank chunk, rounded down to whole 16-byte units ((count/nranks) & ~(16/eltSize - 1)).
  const std::uint64_t chunk = (count / n) & ~(16 / eb - 1);

  collective_counts c;
  switch (collective_of(kind).counts) {
  case count_shape::whole:
    c.send_count = c.recv_count = c.param_count = count;
    break;
  case count_shape::gather:
    c.send_count = chunk;
    c.recv_count = chunk * n;
    c.param_count = chunk;
    c.send_inplace_offset = chunk;
    break;
  case count_shape::scatter:
    c.send_count = chunk * n;
    c.recv_count = chunk;
    c.param_count = chunk;
    c.recv_inplace_offset = chunk;
    break;
  case count_shape::exchange:
    c.param_count = chunk;
    c.send_count = c.recv_count = chunk * n;
    break;
  }
  c.table_bytes = std::max(c.send_count, c.recv_count) * eb;
  return c;
}

} // namespace gpuspec::collectives
