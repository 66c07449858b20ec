// The host checks of DESIGN.md ("Host checks"), judged from the inventory alone. Each message
// names what was measured and what was expected, so it reads on its own in a table.

#include "gpuspec/benches/host_checks.hpp"

#include <cmath>
#include <string>

#include <fmt/format.h>

namespace gpuspec::benches {
namespace {

using reports::check_status;
using reports::device_info;
using reports::host_check;

constexpr double gib = 1024.0 * 1024.0 * 1024.0;
/// Within this many degrees of the limit the temperature check warns.
constexpr int temperature_margin_c = 5;
/// A GPU die reading this much is a sensor or driver fault, not a temperature.
constexpr int implausible_temperature_c = 255;

host_check make(std::string id, check_status status, std::string message,
                std::optional<int> device = std::nullopt) {
  return host_check{std::move(id), status, std::move(message), device};
}

host_check check_nouveau(const reports::host_info& host) {
  const char* id = "host.nouveau";
  if (!host.nouveau_loaded)
    return make(id, check_status::skipped, "loaded modules unknown (/proc/modules not readable)");
  if (*host.nouveau_loaded)
    return make(id, check_status::fail,
                "nouveau kernel module is loaded; expected not loaded (it conflicts with the "
                "NVIDIA driver: blacklist it and rebuild the initramfs)");
  return make(id, check_status::pass, "nouveau kernel module not loaded");
}

host_check check_memory_ratio(const reports::host_info& host,
                              const std::vector<device_info>& devices, double ratio) {
  const char* id = "host.memory_ratio";
  if (!host.memory_bytes)
    return make(id, check_status::skipped, "host memory unknown (/proc/meminfo not readable)");
  if (devices.empty())
    return make(id, check_status::skipped, "no GPU in the inventory");
  double gpu_total = 0;
  for (const device_info& d : devices) {
    if (!d.memory_bytes)
      return make(id, check_status::skipped, fmt::format("memory of GPU {} unknown", d.index));
    gpu_total += static_cast<double>(*d.memory_bytes);
  }
  const double host_bytes = static_cast<double>(*host.memory_bytes);
  const double wanted = ratio * gpu_total;
  const std::string figures =
      fmt::format("host RAM {:.1f} GiB, total GPU memory {:.1f} GiB ({} GPU{}); expected at least "
                  "{:g} x GPU memory = {:.1f} GiB",
                  host_bytes / gib, gpu_total / gib, devices.size(), devices.size() == 1 ? "" : "s",
                  ratio, wanted / gib);
  if (host_bytes < wanted)
    return make(id, check_status::warn, figures);
  return make(id, check_status::pass, figures);
}

host_check check_pcie_link(const device_info& d, bool under_load) {
  const char* id = "gpu.pcie_link";
  const auto& link = d.pcie;
  const bool width_known = link.width_current && link.width_max;
  const bool gen_known = link.gen_current && link.gen_max;
  if (!width_known && !gen_known)
    return make(id, check_status::skipped, "PCIe link unknown (NVML did not report it)", d.index);

  const std::string seen = fmt::format(
      "PCIe {}x{} (card maximum {}x{})",
      link.gen_current ? fmt::format("Gen{} ", *link.gen_current) : std::string("Gen? "),
      link.width_current ? std::to_string(*link.width_current) : std::string("?"),
      link.gen_max ? fmt::format("Gen{} ", *link.gen_max) : std::string("Gen? "),
      link.width_max ? std::to_string(*link.width_max) : std::string("?"));
  const bool narrow = width_known && *link.width_current < *link.width_max;
  const bool slow = gen_known && *link.gen_current < *link.gen_max;

  if (narrow)
    return make(id, check_status::warn,
                fmt::format("{}: link width x{} below the maximum x{} (reseat the card or check "
                            "the riser and slot)",
                            seen, *link.width_current, *link.width_max),
                d.index);
  if (slow && under_load)
    return make(id, check_status::warn,
                fmt::format("{}: Gen{} under load, below the maximum Gen{} (check the slot, "
                            "riser and BIOS PCIe settings)",
                            seen, *link.gen_current, *link.gen_max),
                d.index);
  if (slow)
    return make(id, check_status::pass,
                fmt::format("{}: a generation below the maximum at idle is normal power-saving "
                            "downtraining; the width is at its maximum",
                            seen),
                d.index);
  if (!width_known)
    return make(id, check_status::pass,
                fmt::format("{}: generation at its maximum; width unknown", seen), d.index);
  if (!gen_known)
    return make(id, check_status::pass,
                fmt::format("{}: width at its maximum; generation unknown", seen), d.index);
  return make(id, check_status::pass, fmt::format("{}: at its maximum", seen), d.index);
}

host_check check_persistence(const device_info& d) {
  const char* id = "gpu.persistence_mode";
  if (d.persistence_mode == "enabled")
    return make(id, check_status::pass, "persistence mode enabled", d.index);
  if (d.persistence_mode == "disabled")
    return make(id, check_status::warn,
                "persistence mode disabled; expected enabled (nvidia-persistenced, or "
                "nvidia-smi -pm 1), else the driver re-initialises the GPU for each program",
                d.index);
  if (d.persistence_mode == "not supported")
    return make(id, check_status::skipped, "persistence mode not supported on this GPU or OS",
                d.index);
  return make(id, check_status::skipped, "persistence mode unknown (NVML did not report it)",
              d.index);
}

host_check check_power_limit(const device_info& d) {
  const char* id = "gpu.power_limit";
  if (!d.power_limit_w || !d.power_limit_default_w)
    return make(id, check_status::skipped,
                d.power_limit_w
                    ? fmt::format("power limit {:g} W; default limit unknown", *d.power_limit_w)
                    : std::string("power limit unknown (NVML did not report it)"),
                d.index);
  const double current = *d.power_limit_w, standard = *d.power_limit_default_w;
  // NVML works in whole milliwatts: anything under half a watt is the same limit.
  if (current < standard - 0.5)
    return make(id, check_status::warn,
                fmt::format("power limit {:g} W below the default {:g} W (raise it with "
                            "nvidia-smi -pl, or find who capped it)",
                            current, standard),
                d.index);
  return make(id, check_status::pass,
              fmt::format("power limit {:g} W, default {:g} W", current, standard), d.index);
}

host_check check_temperature(const device_info& d, int limit) {
  const char* id = "gpu.temperature";
  if (!d.temperature_c)
    return make(id, check_status::skipped, "temperature unknown (NVML did not report it)", d.index);
  const int t = *d.temperature_c;
  if (t >= implausible_temperature_c || t < -40)
    return make(id, check_status::warn,
                fmt::format("temperature reads {} °C, which no working GPU sensor reports "
                            "(sensor or driver fault); limit {} °C",
                            t, limit),
                d.index);
  if (t >= limit)
    return make(id, check_status::fail,
                fmt::format("temperature {} °C at or above the {} °C limit (check cooling and "
                            "airflow)",
                            t, limit),
                d.index);
  if (t >= limit - temperature_margin_c)
    return make(id, check_status::warn,
                fmt::format("temperature {} °C within {} °C of the {} °C limit", t,
                            temperature_margin_c, limit),
                d.index);
  return make(id, check_status::pass,
              fmt::format("temperature {} °C, under the {} °C limit", t, limit), d.index);
}

} // namespace

std::vector<reports::host_check> evaluate_host_checks(const reports::host_info& host,
                                                      const std::vector<device_info>& devices,
                                                      const host_check_options& options) {
  std::vector<host_check> checks;
  checks.push_back(check_nouveau(host));
  checks.push_back(check_memory_ratio(host, devices, options.ram_to_gpu_memory_ratio));
  for (const device_info& d : devices)
    checks.push_back(check_pcie_link(d, options.pcie_under_load));
  for (const device_info& d : devices)
    checks.push_back(check_persistence(d));
  for (const device_info& d : devices)
    checks.push_back(check_power_limit(d));
  for (const device_info& d : devices)
    checks.push_back(check_temperature(d, options.temperature_limit_c));
  return checks;
}

} // namespace gpuspec::benches
