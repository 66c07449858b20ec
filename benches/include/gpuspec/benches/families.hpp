#pragma once
/// Each benchmark family's register function, and the one place that calls them all
/// (all_families.cpp). A new family adds its function here and one line there.

#include "gpuspec/benches/registry.hpp"

namespace gpuspec::benches {

/// memory.stream.{copy,scale,add,triad,dot} (families/stream.cu)
void register_stream_benchmarks(registry& r);

/// Calls every family's register function, in the order `gpuspec list` shows them.
void register_all_families(registry& r);

} // namespace gpuspec::benches
