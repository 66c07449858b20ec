#pragma once
/// What a run measures on a node with partitioned GPUs (docs/mig.md): every whole GPU, and every
/// MIG device of a GPU whose MIG mode is on, each in its own worker. gpuspec never changes a
/// GPU's MIG mode or its partitions: it measures the layout it finds.

#include <optional>
#include <string>
#include <vector>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::spine {

/// A GPU measured whole, or one MIG device of a partitioned GPU.
struct measured_unit {
  int device = 0; ///< NVML index of the GPU
  std::optional<reports::mig_instance> mig;
  friend bool operator==(const measured_unit&, const measured_unit&) = default;
};

/// A MIG device `--devices` names.
struct mig_choice {
  int device = 0;
  int mig_index = 0;
  friend bool operator==(const mig_choice&, const mig_choice&) = default;
};

/// True for a `--devices` item that names a MIG device: "0:mig3" (GPU 0's MIG device 3, as
/// `nvidia-smi -L` numbers them) or "MIG-<uuid>".
[[nodiscard]] bool names_a_mig_device(const std::string& item);

/// The MIG devices `items` name, found in the inventory; throws session_input_error naming the
/// item when it is not one ("--devices: GPU 0 has no MIG device 9 (it has 0-6)").
[[nodiscard]] std::vector<mig_choice>
resolve_mig_choices(const std::vector<std::string>& items,
                    const std::vector<reports::device_info>& devices);

/// True when the GPU is measured as its MIG devices: its MIG mode is on.
[[nodiscard]] bool is_partitioned(const reports::device_info& d);

/// The units of the GPUs `measured`, in their order: a whole GPU as itself, a partitioned one as
/// each of its MIG devices (only those of `chosen` when `chosen` names any of its devices). A
/// partitioned GPU without a MIG device gives none.
[[nodiscard]] std::vector<measured_unit>
measured_units(const std::vector<int>& measured, const std::vector<reports::device_info>& devices,
               const std::vector<mig_choice>& chosen);

/// Why a node-wide case does not run on partitioned GPUs, for its not_supported result.
[[nodiscard]] std::string mig_node_wide_reason(const std::vector<int>& partitioned);

} // namespace gpuspec::spine
