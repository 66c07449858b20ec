// `gpuspec health`: the inventory (NVML only: no context is created and no kernel runs; a
// partitioned GPU's MIG devices are each asked of the CUDA runtime in a short child process, the
// worker's --probe-mig), the kernel log's Xids, and the health judge (reports/health.hpp),
// printed as text, JSON, Prometheus or the drain reason alone.

#include "gpuspec/cli/cmd_health.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "gpuspec/cli/backend.hpp"
#include "gpuspec/cli/cli_model.hpp"
#include "gpuspec/cli/device_dispatch.hpp"
#include "gpuspec/cli/device_libraries.hpp"
#include "gpuspec/cli/format.hpp"
#include "gpuspec/cli/output_file.hpp"
#include "gpuspec/cli/specs_location.hpp"
#include "gpuspec/host/fabric_services.hpp"
#include "gpuspec/host/host_checks.hpp"
#include "gpuspec/host/kernel_log.hpp"
#include "gpuspec/host/pci_gpus.hpp"
#include "gpuspec/reports/health/health.hpp"
#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/render/render.hpp"
#include "gpuspec/spine/cuda_probe.hpp"
#include "gpuspec/spine/inventory.hpp"

namespace gpuspec::cli {

void setup_health(CLI::App& app, health_options& o) {
  auto* cmd = app.add_subcommand(
      "health", "Passive node health check for a scheduler's hook: inventory, counters, Xids since "
                "boot, driver; no kernels");
  cmd->add_option("--format", o.format,
                  "Output: table (or text), json, prom (node_exporter textfile), reason (the "
                  "drain reason alone) or kube (the Kubernetes Node's labels, annotation and "
                  "taint: deploy/kubernetes)")
      ->check(CLI::IsMember({"table", "text", "json", "prom", "reason", "kube"}))
      ->capture_default_str();
  cmd->add_flag("--json", o.json, "Same as --format json");
  cmd->add_option("--specs", o.specs, "Spec table (default: $GPUSPEC_SPECS or specs/gpus.json)")
      ->type_name(value_name::file);
  cmd->add_option("-o,--output", o.output, "Write the output to this file (atomically)")
      ->type_name(value_name::file);
  cmd->add_flag("--no-kernel-log", o.no_kernel_log,
                "Do not read the kernel log (the Xid check is then skipped, and says so)");
  cmd->add_option("--rules", o.rules,
                  "Site rules merged over the expectation rules: their settings, and the MIG "
                  "layouts they declare (mig_layout)")
      ->type_name(value_name::file);
  cmd->add_flag("--no-mig-probe", o.no_mig_probe,
                "Do not ask the CUDA runtime whether it can open each MIG device (a child "
                "process per MIG device; the check is then skipped, and says so)");
  cmd->add_option("--mig-probe-timeout", o.mig_probe_timeout_s,
                  "Seconds the MIG devices' CUDA probe may take, all at once; one still running "
                  "then is killed and warns")
      ->check(CLI::Range(0.1, 50.0))
      ->capture_default_str();
  cmd->add_option("--root", o.root, "Read /proc, /sys and /etc under this folder (testing)")
      ->group(""); // hidden
}

namespace {

reports::kernel_log_reading read_log(bool skip) {
  reports::kernel_log_reading out;
  if (skip) {
    out.state = reports::kernel_log_state::skipped;
    out.why = "--no-kernel-log";
    return out;
  }
  // A saved log the site (or a test) names replaces this boot's.
  // NOLINTNEXTLINE(concurrency-mt-unsafe)
  const char* saved = std::getenv("GPUSPEC_KERNEL_LOG");
  const auto text = host::read_kernel_log(saved != nullptr ? saved : "");
  out.source = text.source;
  if (!text.read) {
    out.state = reports::kernel_log_state::not_read;
    out.why = text.why;
    return out;
  }
  return reports::kernel_log_from_text(text.source, text.text,
                                       text.one_boot ? reports::log_span::one_boot
                                                     : reports::log_span::saved);
}

/// The PCI bus under GPUSPEC_SYSFS_ROOT (a folder standing for /sys: tests, and sites that
/// read a saved tree), else `<root>/sys`.
reports::pci_bus_reading read_pci_bus(const std::string& root) {
  // NOLINTNEXTLINE(concurrency-mt-unsafe)
  const char* sysfs = std::getenv("GPUSPEC_SYSFS_ROOT");
  return host::read_pci_gpus(sysfs != nullptr && *sysfs != '\0'
                                 ? std::filesystem::path(sysfs)
                                 : std::filesystem::path(root.empty() ? "/" : root) / "sys");
}

/// The program that answers --probe-mig: $GPUSPEC_WORKER (the tests' stand-in), this executable
/// in a CUDA build, else the CUDA build installed beside it; empty with the reason when there is
/// none (the host package alone).
std::vector<std::string> probe_command(std::string& why) {
  // NOLINTNEXTLINE(concurrency-mt-unsafe)
  if (const char* w = std::getenv("GPUSPEC_WORKER"); w != nullptr && *w != '\0')
    return {w, "--probe-mig"};
  if (backend_can_run_benchmarks()) {
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return {ec ? std::string("gpuspec") : self.string(), "__worker", "--probe-mig"};
  }
  const auto device = device_build_path();
  if (device.empty() || ::access(device.c_str(), X_OK) != 0) {
    why = "no CUDA build of gpuspec is installed: the host package alone";
    return {};
  }
  if (const auto missing = missing_device_library()) {
    why = *missing;
    return {};
  }
  return {device.string(), "__worker", "--probe-mig"};
}

/// The CUDA probe of the inventory's MIG devices; not run, with why, where there are none, where
/// NVML did not start (no driver), on --no-mig-probe, or without a worker to ask.
reports::mig_cuda_probe_reading probe_mig(const reports::report& inventory, bool skip,
                                          double timeout_s) {
  reports::mig_cuda_probe_reading out;
  const bool partitioned =
      std::any_of(inventory.devices.begin(), inventory.devices.end(),
                  [](const reports::device_info& d) { return !d.mig_instances.empty(); });
  if (!partitioned)
    return out;
  if (skip) {
    out.why = "--no-mig-probe";
    return out;
  }
  if (inventory.host.gpu_status != "ok") {
    out.why = "NVML did not start: no driver to ask";
    return out;
  }
  const auto command = probe_command(out.why);
  if (command.empty())
    return out;
  return spine::probe_mig_devices(inventory.devices, command, timeout_s);
}

} // namespace

exit_code run_health(const health_options& o) {
  const auto started = std::chrono::steady_clock::now();
  // table (text), json, prom, reason or kube: the CLI accepts only those.
  const auto format = chosen_format("health", o.json, o.format);
  if (!format)
    return exit_code::unknown;

  const std::filesystem::path specs_path =
      o.specs.empty() ? reports::default_spec_table_path(specs_dir().string())
                      : std::filesystem::path(o.specs);
  auto specs = reports::load_spec_table(specs_path);
  if (!specs) {
    fmt::print(stderr, "gpuspec health: {}\n", specs.error().to_string());
    return exit_code::unknown;
  }
  auto rules = reports::load_expectations(specs_dir() / "expect.json");
  if (rules && !o.rules.empty())
    rules = reports::load_expectations(o.rules, rules.value());
  if (!rules) {
    fmt::print(stderr, "gpuspec health: {}\n", rules.error().to_string());
    return exit_code::unknown;
  }

  // NVML only: the CUDA runtime is never asked (no enrichment), so no context is created on a
  // GPU that may be running someone's job.
  reports::health_input in;
  {
    auto inv = spine::take_inventory(o.root, {});
    spine::match_spec_rows(specs.value(), inv.devices);
    inv.host.checks = host::evaluate_host_checks(inv.host, inv.devices, {}, &specs.value());
    in.inventory.host = std::move(inv.host);
    in.inventory.devices = std::move(inv.devices);
  }
  in.kernel_log = read_log(o.no_kernel_log);
  in.kernel_module_version = host::read_nvidia_module_version(o.root);
  in.pci_bus = read_pci_bus(o.root);
  in.fabric_services =
      host::read_fabric_services(o.root.empty() ? "/" : o.root, in.inventory.host.hostname);
  in.mig_layouts = rules.value().mig_layouts;
  in.mig_probe = probe_mig(in.inventory, o.no_mig_probe, o.mig_probe_timeout_s);

  const auto h = reports::judge_health(in, specs.value(), rules.value().settings);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  reports::render_options render;
  render.width = o.output.empty() ? stdout_table_width() : 0;
  const std::string text =
      reports::make_renderer(*format, render)
          ->render(reports::health_document{
              h, elapsed, fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)))});

  const auto code = static_cast<exit_code>(reports::exit_code_of(h.check.status));
  // A scheduler's hook reads the file: nothing more is said on stderr.
  if (!deliver_output("health", text, o.output, ""))
    return exit_code::unknown;
  return code;
}

} // namespace gpuspec::cli
