#include "check_fixtures.hpp"

#include <cmath>

#include "gpuspec/reports/host_rules.hpp"
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
  r.gpus_busy = gpus;
  return r;
}

std::vector<result*> results_of(report& r, int dev) {
  std::vector<result*> out;
  for (auto& res : r.results)
    if (res.devices == std::vector<int>{dev})
      out.push_back(&res);
  return out;
}

void fail_result(result& res, failure_kind failure, std::string reason) {
  res.status = result_status::failed;
  res.failure = failure;
  res.reason = std::move(reason);
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
  r.run.backend = "cuda";
  r.run.concurrency = gpus;
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
  for (int i = 0; i < gpus; ++i) {
    r.devices.push_back(device(i));
    r.run.devices.push_back(i);
  }
  // As the run records them: the one implementation of the rules.
  h.checks = evaluate_host_checks(h, r.devices);
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
       [](report& r) { r.devices[2].pcie.width_current = 8; }},
      // An x16 card in an x8 slot: NVML's maximum is the slot's, so the link reads "at
      // maximum"; the spec row says the card is x16.
      {"pcie-link-degraded--slot-narrower-than-card", "GPUSPEC-PCIE-LINK-DEGRADED", 2, vs::warn,
       [](report& r) {
         r.devices[2].pcie = {4, 4, 8, 8};
       }},
      // Gen4 at idle is read as power saving; under load the link stayed at Gen3.
      {"pcie-link-degraded--gen3-under-load", "GPUSPEC-PCIE-LINK-DEGRADED", 2, vs::warn,
       [](report& r) {
         r.devices[2].pcie.gen_current = 1;
         for (auto* res : results_of(r, 2)) {
           res->telemetry.pcie_gen_min = 3;
           res->telemetry.pcie_width_min = 16;
         }
       }},
      {"pcie-replays", "GPUSPEC-PCIE-REPLAYS", 2, vs::warn,
       [](report& r) {
         r.devices[2].counters_after["pcie.replay"] = reading::of(120);
         r.devices[2].counters_delta["pcie.replay"] = reading::of(120);
       }},
      {"power-limit-low", "GPUSPEC-POWER-LIMIT-LOW", 2, vs::warn,
       [](report& r) { r.devices[2].power_limit_w = 200; }},
      {"persistence-off", "GPUSPEC-PERSISTENCE-OFF", 2, vs::warn,
       [](report& r) { r.devices[2].persistence_mode = "disabled"; }},
      {"gpu-temperature-high", "GPUSPEC-GPU-TEMPERATURE-HIGH", 2, vs::warn,
       [](report& r) { r.devices[2].temperature_c = 83; }},
      // Throughput passes; the telemetry peaked within 5 °C of the GPU's own slowdown threshold.
      {"gpu-temperature-high--near-slowdown-threshold", "GPUSPEC-GPU-TEMPERATURE-HIGH", 2, vs::warn,
       [](report& r) {
         r.devices[2].temperature_slowdown_c = 87;
         for (auto* res : results_of(r, 2))
           res->telemetry.temperature_c_max = 84;
       }},
      {"ecc-disabled", "GPUSPEC-ECC-DISABLED", 2, vs::warn,
       [](report& r) {
         r.devices[2].ecc_mode = "disabled";
         r.devices[2].ecc_mode_pending = "disabled";
       }},
      {"ecc-corrected-storm", "GPUSPEC-ECC-CORRECTED-STORM", 2, vs::warn,
       [](report& r) {
         r.devices[2].counters_after["ecc.volatile.corrected"] = reading::of(5000);
         r.devices[2].counters_delta["ecc.volatile.corrected"] = reading::of(5000);
         r.devices[2].counters_after["ecc.aggregate.corrected"] = reading::of(5000);
         r.devices[2].counters_delta["ecc.aggregate.corrected"] = reading::of(5000);
       }},
      {"thermal-throttle", "GPUSPEC-THERMAL-THROTTLE", 2, vs::warn,
       [](report& r) {
         throttle(r, 2, {"hw_thermal", "sw_thermal"}, 0.8);
         for (auto* res : results_of(r, 2))
           res->telemetry.temperature_c_max = 92;
       }},
      // A whole node at 92 °C with HW thermal slowdown on every result, throughput still above
      // the pass line: a finding all the same.
      {"thermal-throttle--passing-node-at-92c", "GPUSPEC-THERMAL-THROTTLE", 0, vs::warn,
       [](report& r) {
         for (int i = 0; i < gpus; ++i)
           for (auto* res : results_of(r, i)) {
             res->telemetry.throttle_reasons = {"hw_thermal"};
             res->telemetry.throttled = true;
             res->telemetry.temperature_c_max = 92;
           }
       }},
      {"hw-slowdown", "GPUSPEC-HW-SLOWDOWN", 2, vs::warn,
       [](report& r) {
         for (auto* res : results_of(r, 2)) {
           res->telemetry.throttle_reasons = {"hw_slowdown"};
           res->telemetry.throttled = true;
         }
       }},
      {"power-throttle", "GPUSPEC-POWER-THROTTLE", 2, vs::warn,
       [](report& r) {
         throttle(r, 2, {"sw_power_cap", "hw_power_brake"}, 0.8);
       }},
      // SW power capping is named only where it is not the normal state: here the draw peaked
      // at 150 W of a 300 W limit.
      {"power-throttle--capped-short-of-the-limit", "GPUSPEC-POWER-THROTTLE", 2, vs::warn,
       [](report& r) {
         throttle(r, 2, {"sw_power_cap"}, 0.8);
         for (auto* res : results_of(r, 2)) {
           res->telemetry.power_w_max = 150;
           res->telemetry.power_w_mean = 140;
         }
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
      // The throughput passes (a memory-bound result), but the SM clock sits at a quarter of
      // its siblings'.
      {"sm-clock-below-siblings", "GPUSPEC-SM-CLOCK-BELOW-SIBLINGS", 2, vs::warn,
       [](report& r) {
         for (auto* res : results_of(r, 2)) {
           res->telemetry.sm_clock_mhz_min = 480;
           res->telemetry.sm_clock_mhz_median = 490;
           res->telemetry.sm_clock_mhz_max = 500;
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
       [](report& r) { r.host.nouveau_loaded = true; }},
      // 64 GiB of host RAM for 64 GiB of GPU memory: below the 1.36 x vendors ship.
      {"host-memory-low", "GPUSPEC-HOST-MEMORY-LOW", std::nullopt, vs::warn,
       [](report& r) { r.host.memory_bytes = 64 * gib; }},
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
         fail_result(*results_of(r, 2).front(), failure_kind::benchmark,
                     "synthetic: the kernel launch failed");
       }},
      // As the harness writes a wrong answer: status failed, failure verification.
      {"verification-failed", "GPUSPEC-VERIFICATION-FAILED", 2, vs::fail,
       [](report& r) {
         auto& res = *results_of(r, 2).front();
         res.check.status = verification_status::failed;
         res.check.max_rel_error = 0.5;
         res.check.detail = "synthetic: element 7 differs from the host reference";
         fail_result(res, failure_kind::verification, "verification failed: " + res.check.detail);
       }},
      {"gpu-start-failed", "GPUSPEC-GPU-START-FAILED", 2, vs::fail,
       [](report& r) {
         for (auto* res : results_of(r, 2))
           fail_result(*res, failure_kind::gpu_start,
                       "synthetic: cudaSetDevice: CUDA-capable device is busy or unavailable");
       }},
      {"worker-hung", "GPUSPEC-WORKER-HUNG", 2, vs::fail,
       [](report& r) {
         for (auto* res : results_of(r, 2))
           fail_result(*res, failure_kind::worker_timeout,
                       "GPU 2: no answer for 45 s in " + res->bench_id + "; worker killed");
       }},
      {"worker-crashed", "GPUSPEC-WORKER-CRASHED", 2, vs::fail,
       [](report& r) {
         for (auto* res : results_of(r, 2))
           fail_result(*res, failure_kind::worker_signal,
                       "GPU 2: worker killed by SIGSEGV in " + res->bench_id);
       }},
      {"worker-exited", "GPUSPEC-WORKER-EXITED", 2, vs::fail,
       [](report& r) {
         for (auto* res : results_of(r, 2))
           fail_result(*res, failure_kind::worker_exit,
                       "GPU 2: worker exited with status 1 before " + res->bench_id);
       }},
      {"worker-protocol", "GPUSPEC-WORKER-PROTOCOL", 2, vs::fail,
       [](report& r) {
         for (auto* res : results_of(r, 2))
           fail_result(*res, failure_kind::worker_protocol,
                       "GPU 2: the worker wrote a line that is not a result message");
       }},
      // Fell off the bus: every query answers "GPU is lost", and no result came back.
      {"gpu-lost", "GPUSPEC-GPU-LOST", 2, vs::fail,
       [](report& r) {
         auto& d = r.devices[2];
         d.problems = {"nvmlDeviceGetName: GPU is lost (further queries skipped)"};
         for (auto* set : {&d.counters_after, &d.counters_delta})
           for (auto& [name, value] : *set)
             value = reading::unavailable("GPU is lost");
         std::erase_if(r.results, [](const result& x) { return x.devices.front() == 2; });
       }},
  };
  return variants;
}

const std::vector<inconclusive_variant>& inconclusive_variants() {
  static const std::vector<inconclusive_variant> variants = {
      {"no-samples", "GPUSPEC-NO-WORK", 1,
       [](report& r) {
         auto& res = *results_of(r, 1).front();
         res.samples.clear();
         res.sample_seconds.clear();
         res.stats = summarize(res.samples);
         res.efficiency = std::nullopt;
       }},
      {"zero-rate", "GPUSPEC-NO-WORK", 1,
       [](report& r) {
         auto& res = *results_of(r, 1).front();
         for (auto& s : res.samples)
           s = 0;
         res.stats = summarize(res.samples);
         res.efficiency = 0.0;
       }},
      {"zero-watts", "GPUSPEC-TELEMETRY-IMPOSSIBLE", 1,
       [](report& r) {
         auto& t = results_of(r, 1).front()->telemetry;
         t.power_w_mean = 0;
         t.power_w_max = 0;
       }},
      {"temperature-255", "GPUSPEC-TELEMETRY-IMPOSSIBLE", 1,
       [](report& r) { results_of(r, 1).front()->telemetry.temperature_c_max = 255; }},
      {"telemetry-missing", "GPUSPEC-TELEMETRY-MISSING", 1,
       [](report& r) {
         auto& t = results_of(r, 1).front()->telemetry;
         t = telemetry_summary{};
         t.status = "unavailable: NVML not loaded";
       }},
      // A timer that saw nearly nothing: 1.5 x the ceiling at the clock seen.
      {"impossible-result", "GPUSPEC-IMPOSSIBLE-RESULT", 1,
       [](report& r) {
         auto& res = *results_of(r, 1).front();
         for (auto& s : res.samples)
           s *= 1.5 / 0.9;
         res.stats = summarize(res.samples);
         res.efficiency = res.stats.median / *res.ceiling_value.clock_adjusted;
       }},
      {"report-inconsistent--median-outside-min-max", "GPUSPEC-REPORT-INCONSISTENT", 1,
       [](report& r) {
         auto& res = *results_of(r, 1).front();
         res.stats.median = 2 * res.stats.max;
         res.efficiency = res.stats.median / *res.ceiling_value.clock_adjusted;
       }},
      {"report-inconsistent--n-not-the-sample-count", "GPUSPEC-REPORT-INCONSISTENT", 1,
       [](report& r) { results_of(r, 1).front()->stats.n = 50; }},
      {"report-inconsistent--negative-time", "GPUSPEC-REPORT-INCONSISTENT", 1,
       [](report& r) { results_of(r, 1).front()->sample_seconds[3] = -0.01; }},
      {"report-inconsistent--passed-beyond-tolerance", "GPUSPEC-REPORT-INCONSISTENT", 1,
       [](report& r) { results_of(r, 1).front()->check.max_rel_error = 1e-3; }},
      {"report-inconsistent--edited-median", "GPUSPEC-REPORT-INCONSISTENT", 1,
       [](report& r) {
         auto& res = *results_of(r, 1).front();
         res.stats.median = res.stats.min;
         res.efficiency = res.stats.median / *res.ceiling_value.clock_adjusted;
       }},
      {"report-inconsistent--counter-delta", "GPUSPEC-REPORT-INCONSISTENT", 1,
       [](report& r) {
         auto& d = r.devices[1];
         d.counters_after["pcie.replay"] = reading::of(7);
         d.counters_delta["pcie.replay"] = reading::of(2);
       }},
      {"stand-in", "GPUSPEC-STAND-IN", std::nullopt, [](report& r) { r.run.backend = "stand-in"; }},
      {"gpu-not-measured", "GPUSPEC-GPU-NOT-MEASURED", 1,
       [](report& r) {
         for (auto* res : results_of(r, 1)) {
           res->status = result_status::not_supported;
           res->reason = "synthetic: the GPU lacks this unit";
         }
       }},
      {"gpu-not-measured--no-results", "GPUSPEC-GPU-NOT-MEASURED", 1,
       [](report& r) {
         std::erase_if(r.results, [](const result& x) { return x.devices.front() == 1; });
       }},
      {"run-incomplete", "GPUSPEC-RUN-INCOMPLETE", std::nullopt,
       [](report& r) {
         r.complete = false;
         r.incomplete_reason = "interrupted";
       }},
  };
  return variants;
}

} // namespace gpuspec::reports::testing
