#include "gpuspec/cli/cmd_info.hpp"

#include <iostream>

#include <fmt/format.h>

#include "gpuspec/cli/backend.hpp"
#include "gpuspec/cli/build_info.hpp"
#include "gpuspec/cli/format.hpp"
#include "gpuspec/cli/inventory.hpp"
#include "gpuspec/cli/text_table.hpp"
#include "gpuspec/reports/model/report_json.hpp"

namespace gpuspec::cli {

void setup_info(CLI::App& app, info_options& options) {
  auto* cmd = app.add_subcommand("info", "Show the host, its GPUs and the host checks");
  cmd->add_flag("--json", options.json, "Print JSON for programs instead of tables");
  cmd->add_option("--root", options.root, "Read /proc, /sys and /etc under this folder (testing)")
      ->group(""); // hidden
}

std::string check_table(const std::vector<reports::host_check>& checks) {
  text_table table({"check", "gpu", "status", "detail"});
  for (const auto& c : checks)
    table.add_row({c.id, c.device ? std::to_string(*c.device) : "",
                   std::string(reports::to_string(c.status)), c.message});
  return table.render();
}

namespace {

void print_host(const reports::host_info& h) {
  auto line = [](const char* key, const std::string& value) {
    fmt::print("  {:<28}{}\n", key, value);
  };
  fmt::print("Host\n");
  line("hostname", or_unknown(h.hostname));
  line("os", or_unknown(h.os));
  line("kernel", or_unknown(h.kernel));
  line("cpu", fmt::format("{} ({} logical cores, {} sockets)", or_unknown(h.cpu_model),
                          or_unknown(h.cpu_logical_cores), or_unknown(h.cpu_sockets)));
  line("memory", format_bytes(h.memory_bytes));
  line("numa nodes", or_unknown(h.numa_nodes));
  line("nouveau loaded", h.nouveau_loaded ? (*h.nouveau_loaded ? "yes" : "no") : unknown_text);
  line("driver", or_unknown(h.driver_version));
  line("cuda driver", or_unknown(h.cuda_driver_version));
  line("cuda runtime", or_unknown(h.cuda_runtime_version));
  line("cublas", or_unknown(h.cublas_version));
  line("nccl", or_unknown(h.nccl_version));
  line("build", backend_description());
  const reports::build_info b = this_build();
  line("gpuspec", fmt::format("{} (commit {}, built {})", b.version, b.commit, b.build_date));
}

void print_device(const reports::device_info& d) {
  auto line = [](const char* key, const std::string& value) {
    fmt::print("  {:<28}{}\n", key, value);
  };
  fmt::print("\nGPU {}: {}\n", d.index, or_unknown(d.name));
  line("uuid", or_unknown(d.uuid));
  line("serial", or_unknown(d.serial));
  line("vbios", or_unknown(d.vbios));
  line("pci bus id", or_unknown(d.pci_bus_id));
  line("pci device id", d.pci_device_id ? fmt::format("0x{:04x}", *d.pci_device_id) : unknown_text);
  line("cuda ordinal", or_unknown(d.cuda_index));
  line("compute capability",
       d.cc_major ? fmt::format("{}.{}", *d.cc_major, d.cc_minor.value_or(0)) : unknown_text);
  line("SMs", or_unknown(d.sm_count));
  line("memory", format_bytes(d.memory_bytes));
  line("L2 cache", format_bytes(d.l2_bytes));
  line("memory bus",
       d.memory_bus_width_bits ? fmt::format("{} bit", *d.memory_bus_width_bits) : unknown_text);
  line("SM clock", fmt::format("{} MHz (max {} MHz)", or_unknown(d.sm_clock_mhz),
                               or_unknown(d.sm_clock_max_mhz)));
  line("memory clock", fmt::format("{} MHz (max {} MHz)", or_unknown(d.mem_clock_mhz),
                                   or_unknown(d.mem_clock_max_mhz)));
  line("pcie link", format_pcie(d.pcie));
  line("power limit",
       fmt::format("{} W (default {} W, max {} W)", or_unknown(d.power_limit_w, "{:.0f}"),
                   or_unknown(d.power_limit_default_w, "{:.0f}"),
                   or_unknown(d.power_limit_max_w, "{:.0f}")));
  line("temperature", d.temperature_c ? fmt::format("{} °C", *d.temperature_c) : unknown_text);
  line("ecc mode",
       fmt::format("{} (pending {})", or_unknown(d.ecc_mode), or_unknown(d.ecc_mode_pending)));
  line("mig mode", d.mig_mode_pending.empty()
                       ? or_unknown(d.mig_mode)
                       : fmt::format("{} (pending {}: after a GPU reset)", or_unknown(d.mig_mode),
                                     d.mig_mode_pending));
  // Each MIG device under its GPU, as `nvidia-smi -L` numbers them (docs/mig.md).
  for (const auto& m : d.mig_instances) {
    line(fmt::format("MIG device {}", m.mig_index).c_str(),
         fmt::format("{}: GI {} CI {}, {} SMs, {}", or_unknown(m.profile), m.gpu_instance_id,
                     m.compute_instance_id, or_unknown(m.sm_count), format_bytes(m.memory_bytes)));
    line("", or_unknown(m.uuid));
    for (const auto& problem : m.problems)
      line("problem", problem);
  }
  line("persistence mode", or_unknown(d.persistence_mode));
  for (const auto& [name, value] : d.counters_before)
    line(name.c_str(), format_reading(value));
  for (const auto& problem : d.problems)
    line("problem", problem);
}

} // namespace

exit_code host_check_verdict(const std::vector<reports::host_check>& checks) {
  exit_code code = exit_code::pass;
  for (const auto& c : checks) {
    if (c.status == reports::check_status::fail)
      code = worst(code, exit_code::fail);
    else if (c.status == reports::check_status::warn)
      code = worst(code, exit_code::warn);
  }
  return code;
}

exit_code run_info(const info_options& options) {
  const inventory inv = take_inventory(options.root);
  const bool gpus = has_gpus(inv);
  // No GPU part: unknown, whatever the host checks say. Else the host checks' verdict, so
  // `gpuspec info` doubles as a quick health check in scripts.
  const exit_code code = gpus ? host_check_verdict(inv.host.checks) : exit_code::unknown;

  if (options.json) {
    reports::report r;
    r.run.build = this_build();
    r.host = inv.host;
    r.devices = inv.devices;
    const auto j = reports::to_json(r);
    nlohmann::ordered_json out;
    out["build"] = j.at("run").at("build"); // a report's run.build: what --version prints
    out["host"] = j.at("host");
    out["devices"] = j.at("devices");
    std::cout << out.dump(2) << '\n';
    return code;
  }

  print_host(inv.host);
  for (const auto& d : inv.devices)
    print_device(d);
  if (inv.host.topology && !inv.host.topology->gpus.empty())
    fmt::print("\nTopology\n{}", reports::topology_matrix_text(*inv.host.topology));
  fmt::print("\nChecks\n{}", check_table(inv.host.checks));
  if (!gpus)
    fmt::print("\n{}: {}\n", inv.devices.empty() ? "No GPU part" : "The GPUs cannot be used",
               inv.host.gpu_status);
  return code;
}

} // namespace gpuspec::cli
