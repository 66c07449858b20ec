#pragma once
/// The two identities every comparison uses (docs/design.md, CONTRIBUTING.md, "One concept, one
/// place"): "the same result" is the bench id and the axes, what was asked (never the observations:
/// a cuBLAS upgrade that picks another algorithm is the same case); "the same GPU" is its serial,
/// else its UUID, else its NVML index.

#include <string>
#include <string_view>
#include <vector>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::inline model {

/// The key that pairs a result across reports, GPUs and nodes: bench id and axes, the axes
/// compared by key whatever their order.
[[nodiscard]] std::string case_key(const result& r);

/// What a MIG device's result adds to its pairing key (docs/mig.md): its profile and instance
/// ids ("\x1dMIG 1g.10gb, GI 7 CI 0"), so that it pairs with the same instance of the same
/// profile only, never with a whole GPU's result or another profile's; "" for a whole GPU.
[[nodiscard]] std::string mig_key(const result& r);

/// How GPUs of two reports are paired: the first key that every GPU of both reports has,
/// non-empty and unique within its report.
enum class device_key { serial, uuid, index };
[[nodiscard]] std::string_view to_string(device_key k);

/// The key two reports share (serial, else UUID, else index).
[[nodiscard]] device_key common_device_key(const report& a, const report& b);

/// "serial 1324…", "uuid GPU-…", "index 3".
[[nodiscard]] std::string identity_of(const device_info& d, device_key key);

/// The identities of the GPUs a result ran on (NVML indices of `r`), joined by ","; an index
/// the report does not list is "index N".
[[nodiscard]] std::string devices_identity(const report& r, const std::vector<int>& indices,
                                           device_key key);

/// The GPU of `r` with NVML index `index`, or nullptr when the report does not list it.
[[nodiscard]] const device_info* device_of(const report& r, int index);

} // namespace gpuspec::reports::model
