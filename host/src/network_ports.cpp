// The host's InfiniBand and RoCE ports from sysfs (network_ports.hpp).

#include "gpuspec/host/network_ports.hpp"

#include <algorithm>
#include <charconv>
#include <string>
#include <system_error>

#include "gpuspec/host/host_probe.hpp"

namespace gpuspec::host {
namespace {

std::string trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos)
    return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(first, last - first + 1));
}

std::string read_trimmed(const std::filesystem::path& file) {
  const auto text = read_system_file(file);
  return text ? trimmed(*text) : std::string();
}

/// Directory entries sorted by name, numbers by value ("10" after "9"); none when unreadable.
std::vector<std::filesystem::path> entries_of(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    out.push_back(it->path());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    const auto x = a.filename().string(), y = b.filename().string();
    return x.size() != y.size() ? x.size() < y.size() : x < y;
  });
  return out;
}

} // namespace

std::string parse_port_state(std::string_view text) {
  const auto colon = text.find(':');
  return trimmed(colon == std::string_view::npos ? text : text.substr(colon + 1));
}

std::optional<double> parse_port_rate_gbps(std::string_view text) {
  const std::string t = trimmed(text);
  double value = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (ec != std::errc() || end == t.data() || value < 0)
    return std::nullopt;
  const std::string rest = trimmed(std::string_view(end, t.data() + t.size() - end));
  if (!rest.starts_with("Gb/sec"))
    return std::nullopt;
  return value;
}

std::vector<reports::network_port> read_network_ports(const std::filesystem::path& root) {
  std::vector<reports::network_port> out;
  for (const auto& device : entries_of(root / "sys" / "class" / "infiniband")) {
    for (const auto& port_dir : entries_of(device / "ports")) {
      int number = 0;
      const std::string name = port_dir.filename().string();
      const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), number);
      if (ec != std::errc() || end != name.data() + name.size())
        continue;
      reports::network_port p;
      p.device = device.filename().string();
      p.port = number;
      p.state = parse_port_state(read_trimmed(port_dir / "state"));
      p.rate = read_trimmed(port_dir / "rate");
      p.rate_gbps = parse_port_rate_gbps(p.rate);
      p.link_layer = read_trimmed(port_dir / "link_layer");
      out.push_back(std::move(p));
    }
  }
  return out;
}

} // namespace gpuspec::host
