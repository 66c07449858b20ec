#pragma once
/// A partitioned GPU's MIG devices in a report (docs/mig.md, docs/report.md): each MIG device
/// (a compute instance inside a GPU instance) as NVML lists it under its GPU, and the reference
/// a result carries to the instance it measured. Plain structs; report.hpp holds them as
/// `device_info::mig_instances` and `result::mig` (optional keys of v1.2).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpuspec::reports::inline model {

/// One MIG device of a GPU whose MIG mode is on, from NVML's MIG device handle.
struct mig_instance {
  /// The index NVML gives it under its GPU (nvmlDeviceGetMigDeviceHandleByIndex), which is
  /// `nvidia-smi -L`'s "MIG ... Device N" and `--devices 0:migN`.
  int mig_index = 0;
  std::string uuid;            ///< "MIG-<uuid>" (nvmlDeviceGetUUID on the MIG handle)
  std::string profile;         ///< "1g.10gb", "1c.3g.40gb": from the slice counts and memory
  int gpu_instance_id = 0;     ///< nvmlDeviceGetGpuInstanceId
  int compute_instance_id = 0; ///< nvmlDeviceGetComputeInstanceId
  // nvmlDeviceGetAttributes (nvmlDeviceAttributes_t) of the MIG handle; null when not given.
  std::optional<int> sm_count;              ///< multiprocessorCount
  std::optional<std::int64_t> memory_bytes; ///< memorySizeMB, in bytes
  std::optional<int> copy_engines;          ///< sharedCopyEngineCount
  std::optional<int> gpu_slices;            ///< gpuInstanceSliceCount
  std::optional<int> compute_slices;        ///< computeInstanceSliceCount
  /// The GPU's memory slices this instance holds (of device_info::mig_memory_slices): its
  /// memory over one slice's share of the GPU's, rounded (docs/mig.md); null when unknown.
  std::optional<int> memory_slices;
  std::vector<std::string> problems; ///< queries on the MIG handle that failed
  friend bool operator==(const mig_instance&, const mig_instance&) = default;
};

/// The MIG device a result measured: its UUID and the names `check` and `compare` use for it.
struct mig_ref {
  std::string uuid;
  std::string profile;
  int gpu_instance_id = 0;
  int compute_instance_id = 0;
  friend bool operator==(const mig_ref&, const mig_ref&) = default;
};

/// The reference to an instance.
[[nodiscard]] inline mig_ref ref_of(const mig_instance& m) {
  return {m.uuid, m.profile, m.gpu_instance_id, m.compute_instance_id};
}

/// The instance of `instances` whose UUID is `uuid`; null when none.
[[nodiscard]] inline const mig_instance*
find_mig_instance(const std::vector<mig_instance>& instances, const std::string& uuid) {
  for (const auto& m : instances)
    if (m.uuid == uuid)
      return &m;
  return nullptr;
}

/// "MIG 1g.10gb, GI 3 CI 0": how messages name an instance of a GPU ("GPU 0 " before it).
[[nodiscard]] std::string mig_label(const mig_ref& m);

} // namespace gpuspec::reports::model
