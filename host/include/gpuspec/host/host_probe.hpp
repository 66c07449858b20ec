#pragma once
/// Host inventory from /proc, /sys and /etc, readable under another root so tests can run on
/// fixture copies of those files (tests/fixtures/hosts/...).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::host {

/// Fills hostname, os, kernel, cpu_model, cpu_logical_cores, cpu_sockets, memory_bytes,
/// numa_nodes and nouveau_loaded from files under `root` ("/" on a real machine). Missing files
/// leave the field empty; nothing throws. Driver and CUDA versions are filled elsewhere.
/// Where /proc/cpuinfo has no "model name" or "physical id" (aarch64), the CPU is named from its
/// implementer and part numbers and the sockets are counted from sysfs physical_package_id.
[[nodiscard]] reports::host_info probe_host(const std::filesystem::path& root = "/");

/// The whole file, or nullopt when it cannot be read. /proc and /sys files report size 0, so
/// this reads to the end rather than trusting the size. The one reader of /proc, /sys and /etc.
[[nodiscard]] std::optional<std::string> read_system_file(const std::filesystem::path& path);

/// `s` without the white space (std::isspace) at either end: how system files' values are read.
[[nodiscard]] std::string_view trim_space(std::string_view s);

// The parsers, exposed for the tests.
[[nodiscard]] std::string parse_os_release_pretty_name(std::string_view os_release);
struct cpu_summary {
  std::string model;
  std::optional<int> logical_cores;
  std::optional<int> sockets;
};
[[nodiscard]] cpu_summary parse_cpuinfo(std::string_view cpuinfo);
/// MemTotal in bytes.
[[nodiscard]] std::optional<std::int64_t> parse_meminfo_total(std::string_view meminfo);
/// True if a module named exactly `module` is listed in /proc/modules text.
[[nodiscard]] bool modules_list_has(std::string_view proc_modules, std::string_view module);

} // namespace gpuspec::host
