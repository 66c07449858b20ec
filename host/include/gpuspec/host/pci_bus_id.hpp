#pragma once
/// PCI bus ids as NVML and the CUDA runtime write them, made comparable. Host only.

#include <string>
#include <string_view>

namespace gpuspec::host {

/// "domain:bus:device.function" in lower-case hex with a 4-digit domain: NVML's
/// "00000000:3B:00.0" and CUDA's "0000:3b:00.0" both give "0000:3b:00.0". "" for text that is
/// not a bus id.
[[nodiscard]] std::string normalize_pci_bus_id(std::string_view id);

} // namespace gpuspec::host
