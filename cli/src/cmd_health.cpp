// `gpuspec health`: the inventory (NVML only: no CUDA runtime, so no context is created and no
// kernel runs), the kernel log's Xids, and the health judge (reports/health.hpp), printed as
// text, JSON, Prometheus or the drain reason alone.

#include "gpuspec/cli/cmd_health.hpp"

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <iostream>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "gpuspec/cli/cli_model.hpp"
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
