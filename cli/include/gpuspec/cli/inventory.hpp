#pragma once
/// The inventory `gpuspec info` prints: the spine's (gpuspec/spine/inventory.hpp) with this
/// build's runtime enrichment, the default spec table matched in, and the host checks.

#include <string>

#include "gpuspec/spine/inventory.hpp"

namespace gpuspec::cli {

using spine::inventory;

/// Probes the host (under `root`), NVML and the CUDA runtime; matches the default spec table
/// (a table that does not load is a warning on stderr); evaluates the host checks.
[[nodiscard]] inventory take_inventory(const std::string& root = "/");

/// True when NVML lists at least one GPU and nothing (NVML or CUDA) said the GPUs are unusable.
[[nodiscard]] bool has_gpus(const inventory& inv);

} // namespace gpuspec::cli
