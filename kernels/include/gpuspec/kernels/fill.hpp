#pragma once
/// Input initialisation and output poisoning (DESIGN.md rule 6). CUDA-free launchers.

#include <cstddef>
#include <cstdint>

#include "gpuspec/kernels/stream_handle.hpp"

namespace gpuspec::kernels {

/// p[i] = seeded_value<T>(seed, i) for i < n (see seeded_values.hpp): random, seeded, in [1, 2).
/// Instantiated for float and double.
template <class T>
void launch_fill_seeded(T* p, std::size_t n, std::uint64_t seed, stream_handle stream);

/// Sets every byte of [p, p + bytes) to 0xFF. All-ones is a NaN in fp16, bf16, fp32 and fp64, so
/// an output the kernel under test fails to write is caught by the check.
void poison_with_nan(void* p, std::size_t bytes, stream_handle stream);

} // namespace gpuspec::kernels
