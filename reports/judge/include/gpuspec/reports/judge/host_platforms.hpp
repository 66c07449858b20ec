#pragma once
/// The PCIe generation of a host CPU's root ports, by CPU family, for the reports that do not
/// carry the root port's own link: a GPU behind a PCIe switch (a B300 behind the ConnectX-8
/// switch of an HGX B300 board) trains its link to the switch, and NVML's maxima describe that
/// link, not the host's. A host transfer crosses both, so the slower hop sets its ceiling. Each
/// family with the vendor document that gives its generation (docs/check.md, "PCIe").

#include <optional>
#include <string_view>

namespace gpuspec::reports::inline judge {

/// One CPU family and the PCIe generation of its root ports.
struct host_pcie_platform {
  std::string_view family; ///< "Intel Xeon 6"
  int pcie_gen = 0;
  std::string_view source; ///< the vendor document
};

/// The family of `cpu_model` as lscpu and /proc/cpuinfo name it ("Intel(R) Xeon(R) 6776P"),
/// case-insensitively; nullopt for a CPU the table does not hold (then no host hop is assumed).
[[nodiscard]] std::optional<host_pcie_platform> host_pcie_platform_of(std::string_view cpu_model);

} // namespace gpuspec::reports::inline judge
