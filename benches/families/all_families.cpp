// The list of benchmark families: no static-initialiser registration, one call per family.

#include "gpuspec/benches/families.hpp"

namespace gpuspec::benches {

void register_all_families(registry& r) { register_stream_benchmarks(r); }

} // namespace gpuspec::benches
