#include "gpuspec/cli/format.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace gpuspec::cli {

std::string format_bytes(std::optional<std::int64_t> bytes) {
  if (!bytes)
    return unknown_text;
  const double gib = static_cast<double>(*bytes) / (1024.0 * 1024.0 * 1024.0);
  if (gib >= 1.0)
    return fmt::format("{:.1f} GiB", gib);
  return fmt::format("{:.1f} MiB", static_cast<double>(*bytes) / (1024.0 * 1024.0));
}

std::string format_pcie(const reports::pcie_link& link) {
  auto part = [](std::optional<int> gen, std::optional<int> width) {
    return fmt::format("Gen{} x{}", or_unknown(gen), or_unknown(width));
  };
  // NVML's two maximum generations, the GPU's own and the one with this system, where both were
  // read (the width's maximum is the system's alone: NVML has no GPU-only width).
  if (link.gen_max_system)
    return fmt::format("{} (max: GPU Gen{}, with this system {})",
                       part(link.gen_current, link.width_current), or_unknown(link.gen_max),
                       part(link.gen_max_system, link.width_max));
  return fmt::format("{} (max {})", part(link.gen_current, link.width_current),
                     part(link.gen_max, link.width_max));
}

std::string format_reading(const reports::reading& r) {
  return r.value ? std::to_string(*r.value) : r.status;
}

std::string format_value(double v) {
  const double a = std::fabs(v);
  if (a >= 100.0)
    return fmt::format("{:.1f}", v);
  if (a >= 1.0)
    return fmt::format("{:.2f}", v);
  return fmt::format("{:.4g}", v);
}

std::size_t stdout_table_width() {
  winsize size{};
  if (isatty(STDOUT_FILENO) == 1 && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
    return size.ws_col;
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr && *columns != '\0') {
    const long n = std::strtol(columns, nullptr, 10);
    if (n > 0)
      return static_cast<std::size_t>(n);
  }
  return 0;
}

std::optional<reports::output_format> chosen_format(const char* command, bool json,
                                                    const std::string& format) {
  const auto chosen = reports::output_format_from_string(json ? "json" : format);
  if (!chosen)
    fmt::print(stderr, "gpuspec {}: --format {}: unknown format\n", command, format);
  return chosen;
}

} // namespace gpuspec::cli
