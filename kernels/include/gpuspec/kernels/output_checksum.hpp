#pragma once
/// The burn-in GEMM's output checksum (docs/burnin.md): a 64-bit sum, modulo 2^64, of one mixed
/// term per element, each term a function of the element's raw 16-bit pattern and its index.
/// A sum is the same whatever order the device's threads add in (unsigned addition wraps and
/// commutes), so the checksum is bit-exact where the GEMM's output is; the index in each term
/// makes two swapped elements, or a value moved to another place, change it.

#include <cstddef>
#include <cstdint>

#include "gpuspec/kernels/host_device.hpp"
#include "gpuspec/kernels/seeded_values.hpp"
#include "gpuspec/kernels/stream_handle.hpp"

namespace gpuspec::kernels {

/// The term of element `index` whose raw bits are `bits` (a bf16 or fp16 value).
GPUSPEC_HOST_DEVICE constexpr std::uint64_t checksum_term(std::uint16_t bits, std::uint64_t index) {
  return splitmix64((index << 16) | bits);
}

/// The host reference: the checksum of `count` raw 16-bit elements.
constexpr std::uint64_t checksum_of(const std::uint16_t* bits, std::size_t count) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < count; ++i)
    sum += checksum_term(bits[i], i);
  return sum;
}

/// Launches the device checksum of `count` raw 16-bit elements at `bits` into `*sum` (device
/// memory, zeroed by the launcher first), on `stream`. Defined in
/// kernels/src/output_checksum.cu.
void launch_output_checksum(const std::uint16_t* bits, std::size_t count, std::uint64_t* sum,
                            stream_handle stream);

} // namespace gpuspec::kernels
