#include "gpuspec/host/pci_bus_id.hpp"

#include <charconv>
#include <cstdint>

#include <fmt/format.h>

namespace gpuspec::host {

namespace {

/// Parses hex digits up to `stop` (or the end); advances `text`. False if none or on overflow.
bool take_hex(std::string_view& text, char stop, std::uint64_t max, std::uint64_t& value) {
  const std::size_t end = stop == '\0' ? text.size() : text.find(stop);
  if (end == std::string_view::npos || end == 0)
    return false;
  const std::string_view digits = text.substr(0, end);
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
  if (ec != std::errc() || ptr != digits.data() + digits.size() || value > max)
    return false;
  text.remove_prefix(stop == '\0' ? end : end + 1);
  return true;
}

} // namespace

std::string normalize_pci_bus_id(std::string_view id) {
  while (!id.empty() && (id.front() == ' ' || id.front() == '\t'))
    id.remove_prefix(1);
  while (!id.empty() &&
         (id.back() == ' ' || id.back() == '\t' || id.back() == '\n' || id.back() == '\0'))
    id.remove_suffix(1);
  std::uint64_t domain = 0, bus = 0, device = 0, function = 0;
  if (!take_hex(id, ':', 0xFFFFFFFFu, domain) || !take_hex(id, ':', 0xFF, bus) ||
      !take_hex(id, '.', 0x1F, device) || !take_hex(id, '\0', 0x7, function))
    return {};
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, bus, device, function);
}

} // namespace gpuspec::host
