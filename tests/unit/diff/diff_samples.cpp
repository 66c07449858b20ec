#include "diff_samples.hpp"

#include <random>
#include <utility>

#include "gpuspec/reports/model/reference.hpp"
#include "gpuspec/reports/model/statistics.hpp"

namespace gpuspec::reports::testing {

std::vector<double> noisy_samples(double median, double cv, int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, cv);
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    out.push_back(median * (1.0 + noise(rng)));
  return out;
}

device_info synthetic_gpu(int index, const std::string& serial, const std::string& uuid,
                          const std::string& name) {
  device_info d;
  d.index = index;
  d.cuda_index = index;
  d.name = name;
  d.uuid = uuid;
  d.serial = serial;
  d.vbios = "00.00.00.00.01";
  d.pci_bus_id = "00000000:0" + std::to_string(index + 1) + ":00.0";
  d.sm_clock_max_mhz = 2000;
  d.mem_clock_max_mhz = 1000;
  d.pcie = {4, 4, 16, 16, std::nullopt};
  d.power_limit_w = 300.0;
  d.power_limit_default_w = 300.0;
  d.ecc_mode = "enabled";
  d.ecc_mode_pending = "enabled";
  d.mig_mode = "disabled";
  d.persistence_mode = "enabled";
  return d;
}

result synthetic_result(const std::string& bench_id, int device, std::vector<double> samples,
                        bool higher_is_better, metric_unit unit) {
  result r;
  r.bench_id = bench_id;
  r.devices = {device};
  r.axes = {{"dtype", "fp32"}};
  r.observations = {{"array_bytes", 1073741824}};
  r.metric = higher_is_better ? "bandwidth" : "latency";
  r.unit = unit;
  if (unit == metric_unit::gigabytes_per_second) {
    r.ceiling_value.spec_figure = "memory_bandwidth_gbs";
    r.ceiling_value.reference = reference_kind::datasheet;
  } else if (unit == metric_unit::teraflop_per_second) {
    r.ceiling_value.spec_figure = peak_figure(bench_id.substr(bench_id.rfind('.') + 1));
    r.ceiling_value.reference = reference_kind::datasheet;
  }
  r.higher_is_better = higher_is_better;
  r.cache_state = "cold";
  r.stats = summarize(samples);
  r.sample_seconds.assign(samples.size(), 0.01);
  r.samples = std::move(samples);
  r.stop_reason = "cv_target";
  r.check.status = verification_status::passed;
  return r;
}

report synthetic_node(const std::string& hostname, std::vector<device_info> gpus,
                      std::vector<result> results) {
  report r;
  r.run.tool_version = "0.0.0-synthetic";
  r.run.started_utc = "2000-01-01T00:00:00Z";
  r.run.finished_utc = "2000-01-01T00:01:00Z";
  r.run.suite = "quick";
  r.host.hostname = hostname;
  r.host.driver_version = "000.01";
  r.host.cuda_driver_version = "0.1";
  r.devices = std::move(gpus);
  r.results = std::move(results);
  r.complete = true;
  return r;
}

namespace {
report fixture_with(double gpu0_triad, double gpu1_triad, std::uint64_t seed) {
  return synthetic_node(
      "synthetic-node",
      {synthetic_gpu(0, "SYN0000000001", "GPU-synthetic-0001"),
       synthetic_gpu(1, "SYN0000000002", "GPU-synthetic-0002")},
      {synthetic_result("memory.stream.triad", 0, noisy_samples(gpu0_triad, 0.002, 30, seed)),
       synthetic_result("memory.stream.triad", 1, noisy_samples(gpu1_triad, 0.002, 30, seed + 1)),
       synthetic_result("memory.stream.copy", 0, noisy_samples(1000.0, 0.002, 30, seed + 2)),
       synthetic_result("memory.stream.copy", 1, noisy_samples(1000.0, 0.002, 30, seed + 3))});
}
} // namespace

report fixture_baseline() { return fixture_with(1000.0, 1000.0, 1); }
report fixture_regressed() { return fixture_with(1000.0, 900.0, 11); }
report fixture_slightly() { return fixture_with(1000.0, 970.0, 21); }
report fixture_improved() { return fixture_with(1100.0, 1100.0, 31); }

} // namespace gpuspec::reports::testing
