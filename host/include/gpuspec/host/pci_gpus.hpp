#pragma once
/// The NVIDIA GPUs on the PCI bus, read from sysfs apart from NVML, so that `gpuspec health` sees
/// a GPU the driver never brought up (one that fell off the bus before the driver bound it, or
/// whose RmInitAdapter failed): NVML does not list it, the bus still has it.

#include <filesystem>

#include "gpuspec/reports/health/health.hpp"

namespace gpuspec::host {

/// The functions of `<sys_root>/bus/pci/devices/*` whose `vendor` is 0x10de and whose `class` is
/// a display controller of subclass VGA (0x0300) or 3D (0x0302), the classes the NVIDIA driver
/// binds as GPUs; NVSwitches (bridge, 0x0680), audio functions (0x0403) and the rest are not
/// GPUs. A GPU whose `driver` link names a driver other than nvidia (vfio-pci for a VM) is
/// listed apart. NVIDIA functions of class 0x0680 are the NVSwitches (`nvswitches`), which tell
/// an HGX/DGX node (the host runs nvidia-fabricmanager) from an NVL72 tray. `sys_root` is /sys on a
/// host; GPUSPEC_SYSFS_ROOT or --root/sys in tests.
[[nodiscard]] reports::pci_bus_reading read_pci_gpus(const std::filesystem::path& sys_root);

} // namespace gpuspec::host
