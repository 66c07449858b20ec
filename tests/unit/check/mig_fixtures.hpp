#pragma once
// The 8x A100 SXM4 80 GB stock node with GPUs 0-3 partitioned as 7 x 1g.10gb each and 4-7 whole,
// built the way the harness and the MIG worker write it (docs/mig.md): each MIG device's results
// carry it, their ceilings and medians are the instance's share of the GPU's (1 of 8 memory
// slices, 14 of 108 SMs), and the node-wide cases are not run on the partitioned GPUs. Shared by
// the check, compare and db tests.

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::testing {

inline constexpr int partitioned_gpus = 4;
inline constexpr int instances_per_gpu = 7;

/// GPU `g`'s 1g.10gb MIG device `k` as NVML lists it (GPU instances 7-13, as on an A100).
[[nodiscard]] mig_instance one_g(int g, int k);

/// The healthy partitioned node.
[[nodiscard]] report partitioned_node();

} // namespace gpuspec::reports::testing
