// Host inventory from the text files Linux exposes. Every reader tolerates a missing or odd
// file: the field stays empty and the rest is still read.

#include "gpuspec/host/host_probe.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <iterator>
#include <set>
#include <system_error>
#include <utility>

#include <fmt/format.h>

namespace gpuspec::host {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> read_text(const fs::path& path) { return read_system_file(path); }

/// `absolute` ("/proc/cpuinfo") under `root`.
fs::path under(const fs::path& root, std::string_view absolute) {
  return root / fs::path(absolute).relative_path();
}

/// Calls `fn(line)` for each line of `text`, without the newline.
template <class Fn> void for_each_line(std::string_view text, Fn&& fn) {
  while (!text.empty()) {
    const auto end = text.find('\n');
    fn(text.substr(0, end));
    if (end == std::string_view::npos)
      break;
    text.remove_prefix(end + 1);
  }
}

/// "key : value" as /proc/cpuinfo writes it (tabs before the colon); nullopt without a colon.
std::optional<std::pair<std::string_view, std::string_view>> split_key_value(std::string_view line,
                                                                             char separator) {
  const auto colon = line.find(separator);
  if (colon == std::string_view::npos)
    return std::nullopt;
  return std::pair{trim_space(line.substr(0, colon)), trim_space(line.substr(colon + 1))};
}

template <class Int> std::optional<Int> parse_int(std::string_view text, int base = 10) {
  text = trim_space(text);
  if (base == 16 && (text.starts_with("0x") || text.starts_with("0X")))
    text.remove_prefix(2);
  Int value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc{} || end == text.data())
    return std::nullopt;
  return value;
}

/// os-release values may be quoted with " or '; backslash escapes are rare and left as written.
std::string unquote(std::string_view value) {
  value = trim_space(value);
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
      value.back() == value.front())
    value = value.substr(1, value.size() - 2);
  return std::string(value);
}

/// Arm CPUs have no "model name" in /proc/cpuinfo: the core is named by implementer and part
/// number (the table lscpu uses, cut to the server cores a GPU node is likely to carry).
std::string arm_core_name(unsigned implementer, unsigned part) {
  struct core {
    unsigned implementer, part;
    const char* name;
  };
  static constexpr core cores[] = {
      {0x41, 0xd0c, "ARM Neoverse-N1"},       {0x41, 0xd40, "ARM Neoverse-V1"},
      {0x41, 0xd49, "ARM Neoverse-N2"},       {0x41, 0xd4f, "ARM Neoverse-V2"},
      {0x41, 0xd84, "ARM Neoverse-V3"},       {0x41, 0xd8e, "ARM Neoverse-N3"},
      {0x41, 0xd08, "ARM Cortex-A72"},        {0x41, 0xd0b, "ARM Cortex-A76"},
      {0x41, 0xd42, "ARM Cortex-A78AE"},      {0x41, 0xd81, "ARM Cortex-A720"},
      {0xc0, 0xac3, "Ampere AmpereOne"},      {0x46, 0x001, "Fujitsu A64FX"},
      {0x48, 0xd01, "HiSilicon Kunpeng-920"},
  };
  for (const auto& c : cores)
    if (c.implementer == implementer && c.part == part)
      return c.name;
  return fmt::format("Arm CPU (implementer {:#x}, part {:#x})", implementer, part);
}

/// Distinct physical_package_id values of /sys/devices/system/cpu/cpu*/topology: the socket
/// count where /proc/cpuinfo has no "physical id" (aarch64). -1 means "not known".
std::optional<int> sockets_from_sysfs(const fs::path& root) {
  std::error_code ec;
  fs::directory_iterator it(under(root, "/sys/devices/system/cpu"), ec);
  if (ec)
    return std::nullopt;
  std::set<long> packages;
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 4 || !name.starts_with("cpu") ||
        !std::all_of(name.begin() + 3, name.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }))
      continue;
    const auto text = read_text(entry.path() / "topology" / "physical_package_id");
    if (!text)
      continue;
    if (const auto id = parse_int<long>(*text); id && *id >= 0)
      packages.insert(*id);
  }
  if (packages.empty())
    return std::nullopt;
  return static_cast<int>(packages.size());
}

/// Count of /sys/devices/system/node/node<N> folders.
std::optional<int> numa_nodes(const fs::path& root) {
  std::error_code ec;
  fs::directory_iterator it(under(root, "/sys/devices/system/node"), ec);
  if (ec)
    return std::nullopt;
  int count = 0;
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 4 && name.starts_with("node") &&
        std::all_of(name.begin() + 4, name.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }) &&
        entry.is_directory(ec))
      ++count;
  }
  if (count == 0)
    return std::nullopt;
  return count;
}

} // namespace

std::string parse_os_release_pretty_name(std::string_view os_release) {
  std::string pretty, name, version;
  for_each_line(os_release, [&](std::string_view line) {
    const auto kv = split_key_value(trim_space(line), '=');
    if (!kv)
      return;
    if (kv->first == "PRETTY_NAME")
      pretty = unquote(kv->second);
    else if (kv->first == "NAME")
      name = unquote(kv->second);
    else if (kv->first == "VERSION")
      version = unquote(kv->second);
    else if (kv->first == "VERSION_ID" && version.empty())
      version = unquote(kv->second);
  });
  if (!pretty.empty())
    return pretty;
  if (name.empty())
    return version;
  return version.empty() ? name : name + " " + version;
}

cpu_summary parse_cpuinfo(std::string_view cpuinfo) {
  cpu_summary cpu;
  int processors = 0;
  std::set<std::string, std::less<>> physical_ids;
  std::string other_model; // "Processor", "cpu model", "cpu" (POWER), "Hardware"
  std::optional<unsigned> implementer, part;
  for_each_line(cpuinfo, [&](std::string_view line) {
    const auto kv = split_key_value(line, ':');
    if (!kv)
      return;
    const auto [key, value] = *kv;
    if (key == "processor") {
      ++processors;
    } else if (key == "model name") {
      if (cpu.model.empty())
        cpu.model = std::string(value);
    } else if (key == "physical id") {
      physical_ids.emplace(value);
    } else if (key == "CPU implementer") {
      if (!implementer)
        implementer = parse_int<unsigned>(value, 16);
    } else if (key == "CPU part") {
      if (!part)
        part = parse_int<unsigned>(value, 16);
    } else if (key == "Processor" || key == "cpu model" || key == "cpu" || key == "Hardware") {
      if (other_model.empty())
        other_model = std::string(value);
    }
  });
  if (cpu.model.empty()) {
    if (implementer && part)
      cpu.model = arm_core_name(*implementer, *part);
    else
      cpu.model = other_model;
  }
  if (processors > 0)
    cpu.logical_cores = processors;
  if (!physical_ids.empty())
    cpu.sockets = static_cast<int>(physical_ids.size());
  return cpu;
}

std::optional<std::int64_t> parse_meminfo_total(std::string_view meminfo) {
  std::optional<std::int64_t> bytes;
  for_each_line(meminfo, [&](std::string_view line) {
    const auto kv = split_key_value(line, ':');
    if (bytes || !kv || kv->first != "MemTotal")
      return;
    std::string_view value = kv->second; // "263842304 kB"
    const auto space = value.find(' ');
    const std::string_view unit =
        space == std::string_view::npos ? "" : trim_space(value.substr(space));
    const auto number = parse_int<std::int64_t>(value.substr(0, space));
    if (!number)
      return;
    if (unit == "kB" || unit == "KB" || unit == "kiB")
      bytes = *number * 1024;
    else if (unit.empty() || unit == "B")
      bytes = *number;
  });
  return bytes;
}

bool modules_list_has(std::string_view proc_modules, std::string_view module) {
  bool found = false;
  for_each_line(proc_modules, [&](std::string_view line) {
    line = trim_space(line);
    if (line.substr(0, line.find(' ')) == module)
      found = true;
  });
  return found;
}

std::string_view trim_space(std::string_view s) {
  const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!s.empty() && is_space(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && is_space(s.back()))
    s.remove_suffix(1);
  return s;
}

std::optional<std::string> read_system_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad())
    return std::nullopt;
  return text;
}

reports::host_info probe_host(const std::filesystem::path& root) {
  reports::host_info host;

  auto os_release = read_text(under(root, "/etc/os-release"));
  if (!os_release)
    os_release = read_text(under(root, "/usr/lib/os-release"));
  if (os_release)
    host.os = parse_os_release_pretty_name(*os_release);
  if (const auto text = read_text(under(root, "/proc/sys/kernel/hostname")))
    host.hostname = std::string(trim_space(*text));
  if (const auto text = read_text(under(root, "/proc/sys/kernel/osrelease")))
    host.kernel = std::string(trim_space(*text));

  if (const auto text = read_text(under(root, "/proc/cpuinfo"))) {
    cpu_summary cpu = parse_cpuinfo(*text);
    host.cpu_model = std::move(cpu.model);
    host.cpu_logical_cores = cpu.logical_cores;
    host.cpu_sockets = cpu.sockets;
  }
  if (!host.cpu_sockets)
    host.cpu_sockets = sockets_from_sysfs(root);

  if (const auto text = read_text(under(root, "/proc/meminfo")))
    host.memory_bytes = parse_meminfo_total(*text);
  host.numa_nodes = numa_nodes(root);

  // A nouveau built into the kernel is not in /proc/modules but has /sys/module/nouveau.
  std::error_code ec;
  const bool in_sys_module = fs::is_directory(under(root, "/sys/module/nouveau"), ec);
  if (const auto text = read_text(under(root, "/proc/modules")))
    host.nouveau_loaded = modules_list_has(*text, "nouveau") || in_sys_module;
  else if (in_sys_module)
    host.nouveau_loaded = true;
  else if (fs::is_directory(under(root, "/sys/module"), ec))
    host.nouveau_loaded = false;
  return host;
}

} // namespace gpuspec::host
