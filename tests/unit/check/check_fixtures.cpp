#include "check_fixtures.hpp"

#include <cmath>

#include "gpuspec/reports/statistics.hpp"

namespace gpuspec::reports::testing {
namespace {

constexpr std::int64_t gib = std::int64_t{1} << 30;
constexpr int gpus = 4;

counter_set clean_counters(std::int64_t links) {
  counter_set c;
  for (const char* name :
       {"ecc.volatile.corrected", "ecc.volatile.uncorrected", "ecc.aggregate.corrected",
        "ecc.aggregate.uncorrected", "retired_pages.single_bit", "retired_pages.double_bit",
        "retired_pages.pending", "remapped_rows.correctable", "remapped_rows.uncorrectable",
        "remapped_rows.pending", "remapped_rows.failure", "pcie.replay", "nvlink.crc_flit",
        "nvlink.crc_data", "nvlink.replay", "nvlink.recovery"})
    c[name] = reading::of(0);
  c["nvlink.links_active"] = reading::of(links);
  return c;
}

device_info device(int index) {
  device_info d;
  d.index = index;
  d.cuda_index = index;
  d.name = "Synthetic GPU A";
  d.uuid = "GPU-5e5e5e5e-0000-0000-0000-00000000000" + std::to_string(index);
  d.serial = "SYNTHETIC-000" + std::to_string(index);
  d.vbios = "00.00.00.00.01";
  d.pci_bus_id = "00000000:0" + std::to_string(index + 1) + ":00.0";
  d.pci_device_id = 0x0FFF;
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 100;
  d.memory_bytes = 16 * gib;
  d.l2_bytes = 32 * (std::int64_t{1} << 20);
  d.sm_clock_mhz = 1000;
  d.sm_clock_max_mhz = 2000;
  d.mem_clock_mhz = 1000;
  d.mem_clock_max_mhz = 1000;
  d.memory_bus_width_bits = 4096;
  d.pcie = {4, 4, 16, 16};
  d.power_limit_w = 300.0;
  d.power_limit_default_w = 300.0;
  d.power_limit_max_w = 350.0;
  d.temperature_c = 40;
  d.ecc_mode = "enabled";
  d.ecc_mode_pending = "enabled";
  d.mig_mode = "disabled";
  d.persistence_mode = "enabled";
  d.spec_id = "synthetic-gpu-a";
  d.counters_before = clean_counters(4);
  d.counters_after = clean_counters(4);
  d.counters_delta = clean_counters(0);
  return d;
}

result make_result(const std::string& bench_id, int dev, double value, double ceiling,
                   const std::string& unit, nlohmann::ordered_json params) {
  result r;
  r.bench_id = bench_id;
  r.devices = {dev};
  r.parameters = std::move(params);
  r.metric = unit == "GB/s" ? "bandwidth" : "throughput";
  r.unit = unit;
  r.cache_state = unit == "GB/s" ? "cold" : "hot";
  if (unit == "GB/s")
    r.bytes_per_iteration = 3.0 * gib;
  else
    r.flops_per_iteration = 2.0 * 8192.0 * 8192.0 * 8192.0;
  for (int k = 0; k < 10; ++k) {
    r.samples.push_back(value * (1.0 + 0.001 * (k - 5)));
    r.sample_seconds.push_back(0.01);
  }
  r.stats = summarize(r.samples);
  r.host_seconds_median = 0.0101;
  r.stop_reason = "cv_target";
  r.ceiling_value.datasheet = ceiling;
  r.ceiling_value.datasheet_source = "synthetic spec row";
  r.ceiling_value.clock_adjusted = ceiling;
  r.ceiling_value.clock_adjusted_source = "synthetic: equal to the datasheet";
  r.efficiency = r.stats.median / ceiling;
  r.check.status = verification_status::passed;
  r.check.max_rel_error = 0.0;
  r.check.tolerance = 1e-6;
  r.check.detail = "synthetic";
  auto& t = r.telemetry;
  t.samples = 50;
  t.period_ms = 20;
  t.sm_clock_mhz_min = 1900;
  t.sm_clock_mhz_median = 1950;
  t.sm_clock_mhz_max = 1980;
  t.mem_clock_mhz_min = 1000;
  t.mem_clock_mhz_median = 1000;
  t.temperature_c_max = 65;
  t.power_w_mean = 250;
  t.power_w_max = 280;
  t.low_clock_fraction = 0.0;
  t.throttled = false;
  t.status = "ok";
  return r;
}

std::vector<result*> results_of(report& r, int dev) {
  std::vector<result*> out;
  for (auto& res : r.results)
    if (res.devices == std::vector<int>{dev})
      out.push_back(&res);
  return out;
}

void set_check(report& r, const std::string& id, std::optional<int> dev, check_status s,
               const std::string& message) {
  for (auto& c : r.host.checks)
    if (c.id == id && c.device == dev) {
      c.status = s;
      c.message = message;
      return;
    }
}

void throttle(report& r, int dev, std::vector<std::string> reasons, double factor) {
  scale_device_results(r, dev, factor);
  for (auto* res : results_of(r, dev)) {
    res->telemetry.throttle_reasons = reasons;
    res->telemetry.throttled = true;
  }
}

} // namespace

spec_table synthetic_specs() {
  gpu_spec s;
  s.id = "synthetic-gpu-a";
  s.name = "Synthetic GPU A";
  s.match_names = {"Synthetic GPU A"};
  s.pci_device_ids = {0x0FFF};
  s.architecture = "hopper";
  s.cc_major = 9;
  s.cc_minor = 0;
  s.sm_count = 100;
  s.base_clock_mhz = 1000;
  s.boost_clock_mhz = 2000;
  s.memory_gib = 16;
  s.memory_type = "HBM3";
  s.memory_bus_width_bits = 4096;
  s.memory_bandwidth_gbs = 1000;
  s.peaks = {{"fp32", 10.0}, {"fp16_tc", 100.0}};
  s.tdp_w = 300;
  s.pcie_gen = 4;
  s.pcie_width = 16;
  s.nvlink_gbs = 400;
  return spec_table{{s}};
}

report healthy_report(const std::string& hostname, double scale) {
  report r;
  r.run.tool_version = "0.0.0-synthetic";
  r.run.started_utc = "2000-01-01T00:00:00Z";
  r.run.finished_utc = "2000-01-01T00:01:00Z";
  r.run.suite = "quick";
  r.run.command_line = {"gpuspec", "run"};
  auto& h = r.host;
  h.hostname = hostname;
  h.os = "Synthetic OS 1.0";
  h.kernel = "0.0.0-synthetic";
  h.cpu_model = "Synthetic CPU";
  h.cpu_logical_cores = 64;
  h.cpu_sockets = 2;
  h.memory_bytes = 256 * gib;
  h.numa_nodes = 2;
  h.nouveau_loaded = false;
  h.driver_version = "000.00.00";
  h.cuda_driver_version = "0.0";
  h.gpu_status = "ok";
  h.checks.push_back({"host.nouveau", check_status::pass, "nouveau kernel module not loaded", {}});
  h.checks.push_back({"host.memory_ratio",
                      check_status::pass,
                      "host memory 256.0 GiB >= 2 x GPU memory 64.0 GiB",
                      {}});
  for (int i = 0; i < gpus; ++i) {
    r.devices.push_back(device(i));
    h.checks.push_back({"gpu.pcie_link", check_status::pass, "PCIe Gen4 x16 (max Gen4 x16)", i});
    h.checks.push_back({"gpu.persistence_mode", check_status::pass, "persistence mode on", i});
    h.checks.push_back(
        {"gpu.power_limit", check_status::pass, "power limit 300 W (default 300 W)", i});
    h.checks.push_back({"gpu.temperature", check_status::pass, "40 °C (limit 85 °C)", i});
  }
  const nlohmann::ordered_json stream = {{"dtype", "fp32"}, {"bytes_per_array", 1073741824}};
  for (int i = 0; i < gpus; ++i) {
    r.results.push_back(make_result("memory.stream.copy", i, 900 * scale, 1000, "GB/s", stream));
    r.results.push_back(make_result("memory.stream.triad", i, 905 * scale, 1000, "GB/s", stream));
    r.results.push_back(make_result("gemm.cublas.fp32", i, 8.5 * scale, 10, "TFLOP/s",
                                    {{"m", 8192}, {"n", 8192}, {"k", 8192}}));
  }
  r.complete = true;
  return r;
}

void scale_device_results(report& r, int dev, double factor) {
  for (auto* res : results_of(r, dev)) {
    for (auto& s : res->samples)
      s *= factor;
    res->stats = summarize(res->samples);
    res->efficiency = res->stats.median / *res->ceiling_value.clock_adjusted;
  }
}

report build(const std::function<void(report&)>& degrade) {
  report r = healthy_report();
  degrade(r);
  return r;
}

const std::vector<degraded_variant>& degraded_variants() {
  using vs = verdict_status;
  static const std::vector<degraded_variant> variants = {
      {"pcie-link-degraded", "GPUSPEC-PCIE-LINK-DEGRADED", 2, vs::warn,
       [](report& r) {
         r.devices[2].pcie.width_current = 8;
         set_check(r, "gpu.pcie_link", 2, check_status::warn,
                   "PCIe link x8, the card's maximum is x16");
       }},
      {"pcie-replays", "GPUSPEC-PCIE-REPLAYS", 2, vs::warn,
       [](report& r) {
         r.devices[2].counters_after["pcie.replay"] = reading::of(120);
         r.devices[2].counters_delta["pcie.replay"] = reading::of(120);
       }},
      {"power-limit-low", "GPUSPEC-POWER-LIMIT-LOW", 2, vs::warn,
       [](report& r) {
         r.devices[2].power_limit_w = 200;
         set_check(r, "gpu.power_limit", 2, check_status::warn,
                   "power limit 200 W, below the default 300 W");
       }},
      {"persistence-off", "GPUSPEC-PERSISTENCE-OFF", 2, vs::warn,
       [](report& r) {
         r.devices[2].persistence_mode = "disabled";
         set_check(r, "gpu.persistence_mode", 2, check_status::warn, "persistence mode off");
       }},
      {"gpu-temperature-high", "GPUSPEC-GPU-TEMPERATURE-HIGH", 2, vs::warn,
       [](report& r) {
         r.devices[2].temperature_c = 83;
         set_check(r, "gpu.temperature", 2, check_status::warn, "83 °C (limit 85 °C)");
       }},
      {"thermal-throttle", "GPUSPEC-THERMAL-THROTTLE", 2, vs::warn,
       [](report& r) {
         throttle(r, 2, {"hw_thermal", "sw_thermal"}, 0.8);
         for (auto* res : results_of(r, 2))
           res->telemetry.temperature_c_max = 92;
       }},
      {"power-throttle", "GPUSPEC-POWER-THROTTLE", 2, vs::warn,
       [](report& r) {
         throttle(r, 2, {"sw_power_cap", "hw_power_brake"}, 0.8);
       }},
      {"sm-clock-low", "GPUSPEC-SM-CLOCK-LOW", 2, vs::warn,
       [](report& r) {
         scale_device_results(r, 2, 0.8);
         for (auto* res : results_of(r, 2)) {
           res->telemetry.low_clock_fraction = 0.6;
           res->telemetry.sm_clock_mhz_min = 900;
           res->telemetry.sm_clock_mhz_median = 1200;
         }
       }},
      {"memory-clock-low", "GPUSPEC-MEMORY-CLOCK-LOW", 2, vs::warn,
       [](report& r) {
         scale_device_results(r, 2, 0.8);
         for (auto* res : results_of(r, 2)) {
           res->telemetry.mem_clock_mhz_min = 800;
           res->telemetry.mem_clock_mhz_median = 800;
         }
       }},
      {"ecc-uncorrected", "GPUSPEC-ECC-UNCORRECTED", 2, vs::fail,
       [](report& r) {
         r.devices[2].counters_after["ecc.volatile.uncorrected"] = reading::of(3);
         r.devices[2].counters_delta["ecc.volatile.uncorrected"] = reading::of(3);
       }},
      {"row-remap-pending", "GPUSPEC-ROW-REMAP-PENDING", 2, vs::warn,
       [](report& r) {
         r.devices[2].counters_after["remapped_rows.pending"] = reading::of(1);
         r.devices[2].counters_delta["remapped_rows.pending"] = reading::of(1);
       }},
      {"row-remap-failure", "GPUSPEC-ROW-REMAP-FAILURE", 2, vs::fail,
       [](report& r) {
         r.devices[2].counters_before["remapped_rows.failure"] = reading::of(1);
         r.devices[2].counters_after["remapped_rows.failure"] = reading::of(1);
       }},
      {"page-retirement-pending", "GPUSPEC-PAGE-RETIREMENT-PENDING", 2, vs::warn,
       [](report& r) {
         r.devices[2].counters_after["retired_pages.pending"] = reading::of(1);
         r.devices[2].counters_delta["retired_pages.pending"] = reading::of(1);
       }},
      {"nvlink-down", "GPUSPEC-NVLINK-DOWN", 2, vs::fail,
       [](report& r) {
         r.devices[2].counters_after["nvlink.links_active"] = reading::of(2);
         r.devices[2].counters_delta["nvlink.links_active"] = reading::of(-2);
       }},
      {"nvlink-errors", "GPUSPEC-NVLINK-ERRORS", 2, vs::warn,
       [](report& r) {
         r.devices[2].counters_after["nvlink.crc_flit"] = reading::of(40);
         r.devices[2].counters_delta["nvlink.crc_flit"] = reading::of(40);
       }},
      {"nouveau-loaded", "GPUSPEC-NOUVEAU-LOADED", std::nullopt, vs::fail,
       [](report& r) {
         r.host.nouveau_loaded = true;
         set_check(r, "host.nouveau", std::nullopt, check_status::fail,
                   "nouveau kernel module is loaded");
       }},
      {"host-memory-low", "GPUSPEC-HOST-MEMORY-LOW", std::nullopt, vs::warn,
       [](report& r) {
         r.host.memory_bytes = 96 * gib;
         set_check(r, "host.memory_ratio", std::nullopt, check_status::warn,
                   "host memory 96.0 GiB < 2 x GPU memory 64.0 GiB");
       }},
      {"sibling-outlier", "GPUSPEC-SIBLING-OUTLIER", 2, vs::warn,
       [](report& r) { scale_device_results(r, 2, 0.92); }},
      {"below-spec", "GPUSPEC-BELOW-SPEC", 0, vs::fail,
       [](report& r) {
         for (int i = 0; i < gpus; ++i)
           scale_device_results(r, i, 0.6);
       }},
      {"no-spec-row", "GPUSPEC-NO-SPEC-ROW", 0, vs::warn,
       [](report& r) {
         for (auto& d : r.devices) {
           d.name = "Synthetic GPU Unknown";
           d.spec_id = "";
           d.pci_device_id = 0x0FFE;
         }
       }},
      {"result-failed", "GPUSPEC-RESULT-FAILED", 2, vs::fail,
       [](report& r) {
         auto& res = *results_of(r, 2).front();
         res.status = result_status::failed;
         res.failure = failure_kind::benchmark;
         res.reason = "synthetic: the kernel launch failed";
       }},
      {"verification-failed", "GPUSPEC-VERIFICATION-FAILED", 2, vs::fail,
       [](report& r) {
         auto& res = *results_of(r, 2).front();
         res.check.status = verification_status::failed;
         res.check.max_rel_error = 0.5;
         res.check.detail = "synthetic: element 7 differs from the host reference";
       }},
  };
  return variants;
}

const std::vector<inconclusive_variant>& inconclusive_variants() {
  static const std::vector<inconclusive_variant> variants = {
      {"no-samples",
       [](report& r) {
         auto& res = *results_of(r, 1).front();
         res.samples.clear();
         res.sample_seconds.clear();
         res.stats = summarize(res.samples);
         res.efficiency = std::nullopt;
       }},
      {"zero-rate",
       [](report& r) {
         auto& res = *results_of(r, 1).front();
         for (auto& s : res.samples)
           s = 0;
         res.stats = summarize(res.samples);
         res.efficiency = 0.0;
       }},
      {"zero-watts",
       [](report& r) {
         auto& t = results_of(r, 1).front()->telemetry;
         t.power_w_mean = 0;
         t.power_w_max = 0;
       }},
      {"temperature-255",
       [](report& r) { results_of(r, 1).front()->telemetry.temperature_c_max = 255; }},
      {"telemetry-missing",
       [](report& r) {
         auto& t = results_of(r, 1).front()->telemetry;
         t = telemetry_summary{};
         t.status = "unavailable: NVML not loaded";
       }},
  };
  return variants;
}

} // namespace gpuspec::reports::testing
