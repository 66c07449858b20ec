// The NVIDIA GPUs on the PCI bus, from sysfs (pci_gpus.hpp). The vendor and class tests are the
// driver's own: NVIDIA's open kernel modules take a device as a GPU when its class is 0x03
// (display) with subclass 0x00 (VGA) or 0x02 (3D) and its vendor 0x10de
// (rm_is_supported_pci_device in NVIDIA/open-gpu-kernel-modules).

#include "gpuspec/host/pci_gpus.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <system_error>

#include <fmt/format.h>

#include "gpuspec/host/host_probe.hpp"

namespace gpuspec::host {

namespace {

constexpr unsigned nvidia_vendor = 0x10de;
constexpr unsigned class_vga = 0x0300, class_3d = 0x0302;
/// An NVIDIA function of class "bridge, other" is an NVSwitch (HGX/DGX baseboards).
constexpr unsigned class_bridge_other = 0x0680;

/// "0x030200\n" (sysfs's form for `class` and `vendor`) as a number.
std::optional<unsigned> hex_file(const std::filesystem::path& path) {
  const auto text = read_system_file(path);
  if (!text)
    return std::nullopt;
  std::string_view s = *text;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r'))
    s.remove_suffix(1);
  if (s.substr(0, 2) == "0x" || s.substr(0, 2) == "0X")
    s.remove_prefix(2);
  unsigned v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (s.empty() || ec != std::errc{} || end != s.data() + s.size())
    return std::nullopt;
  return v;
}

} // namespace

reports::pci_bus_reading read_pci_gpus(const std::filesystem::path& sys_root) {
  reports::pci_bus_reading out;
  const auto devices = sys_root / "bus/pci/devices";
  out.source = devices.string();
  std::error_code ec;
  std::filesystem::directory_iterator it(devices, ec);
  if (ec) {
    out.why = fmt::format("{}: {}", out.source, ec.message());
    return out;
  }
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec)
      break;
    const auto& dir = it->path();
    const auto vendor = hex_file(dir / "vendor");
    const auto cls = hex_file(dir / "class");
    if (!vendor || !cls || *vendor != nvidia_vendor)
      continue;
    const unsigned class_subclass = *cls >> 8; // the low byte is the programming interface
    const std::string id = dir.filename().string();
    if (class_subclass == class_bridge_other) {
      out.nvswitches.push_back(id);
      continue;
    }
    if (class_subclass != class_vga && class_subclass != class_3d)
      continue;
    std::error_code link_ec;
    const auto driver = std::filesystem::read_symlink(dir / "driver", link_ec);
    if (!link_ec && driver.filename() != "nvidia")
      out.other_driver.push_back(fmt::format("{} ({})", id, driver.filename().string()));
    else
      out.gpus.push_back(id);
  }
  if (ec) {
    out.why = fmt::format("{}: {}", out.source, ec.message());
    out.gpus.clear();
    out.other_driver.clear();
    out.nvswitches.clear();
    return out;
  }
  std::sort(out.gpus.begin(), out.gpus.end());
  std::sort(out.nvswitches.begin(), out.nvswitches.end());
  std::sort(out.other_driver.begin(), out.other_driver.end());
  out.read = true;
  return out;
}

} // namespace gpuspec::host
