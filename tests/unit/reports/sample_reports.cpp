#include "sample_reports.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gpuspec/reports/model/statistics.hpp"
#include "test_text.hpp"

namespace gpuspec::reports::testing {
namespace {

using gpuspec::testing::gib;

host_info synthetic_host() {
  host_info host;
  host.hostname = "synthetic-host";
  host.os = "Synthetic OS 1.0";
  host.kernel = "0.0.0-synthetic";
  host.cpu_model = "Synthetic CPU";
  host.cpu_logical_cores = 8;
  host.cpu_sockets = 1;
  host.memory_bytes = 64 * gib;
  host.numa_nodes = 1;
  host.nouveau_loaded = false;
  host.driver_version = "000.00";
  host.cuda_driver_version = "0.0";
  host.gpu_status = "ok";
  return host;
}

device_info synthetic_device(int index) {
  device_info d;
  d.index = index;
  d.cuda_index = index;
  d.name = "Synthetic GPU";
  d.uuid = "GPU-00000000-0000-0000-0000-00000000000" + std::to_string(index);
  d.serial = "000000000000" + std::to_string(index);
  d.vbios = "00.00.00.00.00";
  d.pci_bus_id = "00000000:0" + std::to_string(index + 1) + ":00.0";
  d.pci_device_id = 0;
  d.cc_major = 1;
  d.cc_minor = 0;
  d.sm_count = 100;
  d.memory_bytes = 16 * gib;
  d.l2_bytes = 16 * (std::int64_t{1} << 20);
  d.sm_clock_mhz = 1000;
  d.sm_clock_max_mhz = 2000;
  d.mem_clock_mhz = 1000;
  d.mem_clock_max_mhz = 1000;
  d.memory_bus_width_bits = 1000;
  d.pcie = {4, 4, 16, 16, std::nullopt};
  d.power_limit_w = 100.0;
  d.power_limit_default_w = 100.0;
  d.power_limit_max_w = 200.0;
  d.temperature_c = 50;
  d.temperature_slowdown_c = 87;
  d.ecc_mode = "enabled";
  d.ecc_mode_pending = "enabled";
  d.mig_mode = "disabled";
  d.persistence_mode = "enabled";
  d.counters_before = {{"ecc.volatile.corrected", reading::of(0)},
                       {"ecc.volatile.uncorrected", reading::of(0)},
                       {"pcie.replay", reading::of(0)},
                       {"retired_pages.pending", reading::not_supported()}};
  d.counters_after = d.counters_before;
  d.counters_delta = d.counters_before;
  return d;
}

/// Two GPUs joined by two NVLinks, one GPU per NUMA node; every value synthetic.
topology_info synthetic_topology() {
  topology_info t;
  for (int i = 0; i < 2; ++i) {
    gpu_topology g;
    g.device = i;
    g.numa_node = i;
    g.cpu_list = i == 0 ? "0-3" : "4-7";
    g.nvlink_version = "1.0";
    g.nvlink_link_gbs = 10.0;
    g.nvlink_link_source = "synthetic";
    const std::string peer = "00000000:0" + std::to_string(2 - i) + ":00.0";
    g.nvlinks = {{0, true, "gpu", peer}, {1, true, "gpu", peer}, {2, false, "", ""}};
    t.gpus.push_back(g);
  }
  t.pairs = {{0, 1, "system", 2, "nvlink", "ok", "ok", "ok"},
             {1, 0, "system", 2, "nvlink", "ok", "ok", "ok"}};
  t.problems = {"nvmlDeviceGetNvLinkRemoteDeviceType(link 2): Not Supported"};
  return t;
}

/// A result with samples all equal to `value`, its stats computed by summarize().
result constant_result(std::string bench_id, int device, double value, int n) {
  result r;
  r.bench_id = std::move(bench_id);
  r.devices = {device};
  r.samples.assign(static_cast<std::size_t>(n), value);
  r.sample_seconds.assign(static_cast<std::size_t>(n), 0.001);
  r.stats = summarize(r.samples);
  r.host_seconds_median = 0.002;
  r.telemetry.samples = 10;
  r.telemetry.period_ms = 10.0;
  r.telemetry.sm_clock_mhz_min = 2000.0;
  r.telemetry.sm_clock_mhz_median = 2000.0;
  r.telemetry.sm_clock_mhz_max = 2000.0;
  r.telemetry.mem_clock_mhz_min = 1000.0;
  r.telemetry.mem_clock_mhz_median = 1000.0;
  r.telemetry.temperature_c_max = 60.0;
  r.telemetry.power_w_mean = 100.0;
  r.telemetry.power_w_max = 100.0;
  r.telemetry.low_clock_fraction = 0.0;
  return r;
}

run_info synthetic_run() {
  run_info run;
  run.tool_version = "0.0.0-synthetic";
  run.started_utc = "2000-01-01T00:00:00Z";
  run.finished_utc = "2000-01-01T00:01:00Z";
  run.suite = "quick";
  run.command_line = {"gpuspec", "run", "--suite", "quick"};
  return run;
}

} // namespace

report no_gpu_report() {
  report r;
  r.run = synthetic_run();
  r.run.finished_utc = r.run.started_utc;
  r.run.backend = "none";
  r.host = synthetic_host();
  r.host.driver_version = "";
  r.host.cuda_driver_version = "";
  r.host.gpu_status = "no NVIDIA driver (libnvidia-ml.so.1 not found)";
  r.host.checks = {
      {"host.nouveau", check_status::pass, "nouveau is not loaded", std::nullopt},
      {"host.memory", check_status::skipped, "no GPU memory to compare with", std::nullopt},
  };
  r.complete = true;
  return r;
}

report synthetic_report() {
  report r;
  r.run = synthetic_run();
  r.run.backend = "cuda";
  r.run.devices = {0, 1};
  r.run.concurrency = 2;
  r.host = synthetic_host();
  r.host.checks = {
      {"host.nouveau", check_status::pass, "nouveau is not loaded", std::nullopt},
      {"host.memory", check_status::pass, "host memory 64 GiB, twice the GPU memory 32 GiB",
       std::nullopt},
      {"gpu.pcie_link", check_status::warn, "PCIe link at gen 3 x16; the maximum is gen 4 x16", 1},
      {"gpu.persistence", check_status::fail, "persistence mode is disabled", 1},
      {"gpu.temperature", check_status::skipped, "temperature not read", 1},
  };
  r.host.topology = synthetic_topology();

  device_info second = synthetic_device(1);
  second.pcie.gen_current = 3; // below the maximum: a diagnosis case
  second.persistence_mode = "disabled";
  second.serial = "";
  second.problems = {"nvmlDeviceGetSerial: Not Supported"};
  second.counters_after["pcie.replay"] = reading::of(10);
  second.counters_delta["pcie.replay"] = reading::of(10);
  second.counters_after["row_remap.failure"] = reading::unavailable("query failed");
  second.counters_delta["row_remap.failure"] = reading::unavailable("query failed");
  r.devices = {synthetic_device(0), second};

  // ok, cold, converged.
  result triad = constant_result("memory.stream.triad", 0, 1000.0, 10);
  triad.axes = {{"dtype", "fp32"}};
  triad.observations = {{"bytes_per_array", 1000000000}};
  triad.metric = "bandwidth";
  triad.unit = metric_unit::gigabytes_per_second;
  triad.cache_state = "cold";
  triad.bytes_per_iteration = 3000000000.0;
  triad.stop_reason = "cv_target";
  triad.ceiling_value = {2000.0,
                         "synthetic datasheet",
                         2000.0,
                         "synthetic: memory clock at max",
                         reference_kind::datasheet,
                         "memory_bandwidth_gbs",
                         std::nullopt,
                         std::nullopt};
  triad.efficiency = 0.5;
  triad.efficiency_clock_adjusted = 0.5;
  triad.check = {verification_status::passed, 0.0, 0.000001, "analytic value"};
  triad.telemetry.window_start_s = 1.5;
  triad.telemetry.window_end_s = 3.25;
  triad.gpus_busy = 2;
  r.results.push_back(triad);

  // failed verification, hot, noisy, stalled, throttled.
  result gemm = constant_result("gemm.cublas.fp16_tc", 1, 100.0, 5);
  gemm.axes = {{"shape", "1000x1000x1000"}, {"layout", "NN"}};
  gemm.observations = {{"m", 1000},
                       {"n", 1000},
                       {"k", 1000},
                       {"ceiling_key", "fp16_tc"},
                       {"roofline_bytes", 6000000.0}};
  gemm.samples = {90.0, 100.0, 100.0, 100.0, 110.0};
  gemm.stats = summarize(gemm.samples);
  gemm.metric = "throughput";
  gemm.unit = metric_unit::teraflop_per_second;
  gemm.cache_state = "hot";
  gemm.flops_per_iteration = 2000000000.0;
  gemm.stop_reason = "stalled";
  gemm.ceiling_value = {200.0,
                        "synthetic datasheet",
                        100.0,
                        "synthetic: SM clock at half",
                        reference_kind::datasheet,
                        "peaks.fp16_tc",
                        6000000.0,
                        std::nullopt};
  gemm.efficiency = 0.5;                // against the datasheet, the reference
  gemm.efficiency_clock_adjusted = 1.0; // at the clock seen during the run
  gemm.check = {verification_status::failed, 0.5, 0.01, "host reference"};
  gemm.telemetry.low_clock_fraction = 0.5;
  gemm.telemetry.throttle_reasons = {"sw_power_cap"};
  gemm.telemetry.throttled = true;
  gemm.status = result_status::failed;
  gemm.failure = failure_kind::verification;
  gemm.reason = "verification failed: max relative error 0.5 above the tolerance 0.01";
  r.results.push_back(gemm);

  // skipped: nothing measured.
  result all_reduce;
  all_reduce.bench_id = "collective.all_reduce";
  all_reduce.devices = {0, 1};
  all_reduce.axes = {{"bytes", 1000000}};
  all_reduce.metric = "bus_bandwidth";
  all_reduce.unit = metric_unit::gigabytes_per_second;
  all_reduce.check.detail = "not run";
  all_reduce.telemetry.status = "not sampled: the benchmark was skipped";
  all_reduce.status = result_status::skipped;
  all_reduce.reason = "NCCL is not installed";
  r.results.push_back(all_reduce);

  // not supported on this device.
  result fp8;
  fp8.bench_id = "gemm.cublas.fp8_tc";
  fp8.devices = {0};
  fp8.metric = "throughput";
  fp8.unit = metric_unit::teraflop_per_second;
  fp8.check.detail = "not run";
  fp8.telemetry.status = "not sampled: the benchmark was not run";
  fp8.status = result_status::not_supported;
  fp8.reason = "FP8 Tensor Cores need compute capability 8.9";
  r.results.push_back(fp8);

  r.complete = true;
  return r;
}

report burnin_report() {
  report r = interrupted_report();
  r.run.suite = "burnin";
  // Measured with --allow-busy: another program held GPU 0 (the idle precondition's record).
  gpu_activity busy;
  busy.utilization_pct = 97;
  busy.processes = {{4242, "python3", std::int64_t{20} << 30, "compute"},
                    {4343, "", std::nullopt, "graphics"}};
  r.devices.at(0).activity = busy;
  // A GPU attached by NVLink-C2C (a Grace-based node), as NVML reads it.
  r.devices.at(0).c2c = c2c_link{"enabled", "ats"};
  r.complete = true;
  r.incomplete_reason = "";
  r.results.clear();
  // The burn-in GEMM: one mismatch at iteration 17, three intervals, two event samples.
  result gemm = constant_result("burnin.gemm", 0, 100.0, 3);
  gemm.axes = {{"dtype", "bf16"}};
  gemm.metric = "throughput";
  gemm.unit = metric_unit::teraflop_per_second;
  gemm.cache_state = "hot";
  gemm.flops_per_iteration = 2.0 * 8192 * 8192 * 8192;
  gemm.stop_reason = "time_cap";
  gemm.efficiency_clock_adjusted = 0.5; // the optional key, present
  gemm.check = {verification_status::failed, std::nullopt, std::nullopt,
                "checksum of iteration 17 differs from iteration 0's"};
  gemm.status = result_status::failed;
  gemm.reason = "checksum mismatch";
  gemm.failure = failure_kind::verification;
  burnin_record b;
  b.duration_s = 180;
  b.elapsed_s = 180.5;
  b.busy_s = 170.25;
  b.interval_s = 60;
  b.idle_power_w = 75.5;
  burnin_gemm g;
  g.dtype = "bf16";
  g.m = g.n = g.k = 8192;
  g.seed = 20261201;
  g.algorithm = "id=23 tile=256x128 stages=4 split_k=1";
  g.reduction = "none";
  g.deterministic = true;
  g.iterations = 40;
  g.reference_checksum = "0x0123456789abcdef";
  g.checksum_mismatches = 1;
  g.mismatches = {{17, 75.25, "0x0123456789abcdef", "0x0123456789abcdee"}};
  b.gemm = g;
  burnin_memtest m;
  m.bytes = std::int64_t{1} << 30;
  m.passes = 2;
  m.patterns = {"walking_ones", "random"};
  m.words_checked = std::int64_t{1} << 28;
  m.bad_words = 0;
  b.memtest = m;
  for (int i = 0; i < 3; ++i) {
    burnin_interval in;
    in.start_s = 60.0 * i;
    in.end_s = 60.0 * (i + 1);
    in.gemm_iterations = 13 + i;
    in.throughput = 100.0 - i;
    in.telemetry_samples = 60;
    in.sm_clock_mhz_median = 1980;
    in.mem_clock_mhz_median = 2619;
    in.temperature_c_max = 70.0 + i;
    in.power_w_mean = 690;
    in.power_w_max = 700;
    in.throttle_reasons =
        i == 2 ? std::vector<std::string>{"sw_power_cap"} : std::vector<std::string>{};
    in.checksum_mismatches = i == 1 ? 1 : 0;
    in.memtest_words = m.words_checked / 2;
    b.intervals.push_back(in);
  }
  b.event_samples = {{75.0, 1980.0, 2619.0, 71.0, 695.0, {}},
                     {75.5, std::nullopt, 2619.0, 71.0, 695.0, {"sw_power_cap"}}};
  gemm.burnin = b;
  // Two clock changes NVML delivered during the window (recorded, not judged).
  gemm.events = {
      {30.5, 0, gpu_event_type::clock_change, std::nullopt, "nvml", "NVML clock_change event"},
      {75.125, 0, gpu_event_type::clock_change, std::nullopt, "nvml", "NVML clock_change event"}};
  r.results.push_back(gemm);
  // The stand-alone memory test: a memtest part and no GEMM.
  result memory = constant_result("memory.test", 0, 1000.0, 3);
  memory.metric = "bandwidth";
  memory.unit = metric_unit::gigabytes_per_second;
  memory.cache_state = "cold";
  memory.stop_reason = "sample_cap";
  memory.check = {verification_status::passed, std::nullopt, std::nullopt, "every word read back"};
  burnin_record t;
  t.elapsed_s = 12;
  t.busy_s = 11.5;
  t.interval_s = 60;
  m.passes = 5;
  m.patterns = {"walking_ones", "walking_zeros", "moving_inversions", "address", "random"};
  m.bad_words = 2;
  // Read again after its pass: still wrong, a stuck bit.
  m.bad = {{"0x00007f0000001000", "address", "0x00007f0000001000", "0x00007f0000001004",
            "0x00007f0000001004", true}};
  t.memtest = m;
  memory.burnin = t;
  r.results.push_back(memory);
  return r;
}

report interrupted_report() {
  report r;
  r.run = synthetic_run();
  r.run.finished_utc = "";
  r.run.backend = "cuda";
  r.run.devices = {0};
  r.run.concurrency = 1;
  r.host = synthetic_host();
  r.devices = {synthetic_device(0)};
  result copy = constant_result("memory.stream.copy", 0, 1000.0, 20);
  copy.samples[19] = 500.0; // one slow sample, kept
  copy.sample_seconds.assign(copy.samples.size(), 0.75);
  copy.stats = summarize(copy.samples);
  copy.axes = {{"dtype", "fp32"}};
  copy.observations = {{"bytes_per_array", 1000000000}};
  copy.metric = "bandwidth";
  copy.unit = metric_unit::gigabytes_per_second;
  copy.cache_state = "cold";
  copy.bytes_per_iteration = 2000000000.0;
  copy.stop_reason = "time_cap";
  copy.check = {verification_status::passed, 0.0, 0.0, "exact copy"};
  r.results.push_back(copy);
  r.complete = false;
  r.incomplete_reason = "interrupted";
  return r;
}

namespace {

class random_source {
public:
  explicit random_source(std::uint64_t seed) : m_engine(seed) {}

  bool coin() { return (m_engine() & 1U) != 0; }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(m_engine() % n); }

  /// Any finite double: random bit patterns (subnormals, -0.0, 1e308) mixed with plain values.
  double number() {
    if (coin()) {
      return std::uniform_real_distribution<double>(-1000.0, 1000.0)(m_engine);
    }
    for (;;) {
      const double d = std::bit_cast<double>(m_engine());
      if (std::isfinite(d)) {
        return d;
      }
    }
  }
  std::optional<double> maybe_number() {
    return coin() ? std::optional<double>(number()) : std::nullopt;
  }

  std::int64_t int64() { return static_cast<std::int64_t>(m_engine()); }
  std::int64_t count() { return static_cast<std::int64_t>(m_engine() >> 1U); }
  int int32() { return static_cast<int>(static_cast<std::uint32_t>(m_engine())); }
  std::optional<int> maybe_int() { return coin() ? std::optional<int>(int32()) : std::nullopt; }
  std::optional<std::int64_t> maybe_int64() {
    return coin() ? std::optional<std::int64_t>(int64()) : std::nullopt;
  }

  /// Valid UTF-8 with quotes, backslashes, control characters and multi-byte characters.
  std::string text(bool single_line = false) {
    static constexpr const char* pieces[] = {
        "a",  "Z",  "0",    " ",        ".",        "\"",           "\\",
        "/",  "\t", "\x01", "\xc3\xa9", "\xc2\xb5", "\xe4\xb8\xad", "\xf0\x9f\x98\x80",
        "\n", "\r"};
    const std::size_t count = std::size(pieces) - (single_line ? 2 : 0);
    std::string s;
    const std::size_t length = below(12);
    for (std::size_t i = 0; i < length; ++i) {
      s += pieces[below(count)];
    }
    return s;
  }

  std::vector<double> numbers() {
    std::vector<double> v(below(20));
    for (double& x : v) {
      x = number();
    }
    return v;
  }
  std::vector<std::string> texts() {
    std::vector<std::string> v(below(4));
    for (std::string& s : v) {
      s = text();
    }
    return v;
  }

  reading counter() {
    switch (below(3)) {
    case 0:
      return reading::of(int64());
    case 1:
      return reading::not_supported();
    default:
      return reading::unavailable("x" + text(true));
    }
  }
  counter_set counters() {
    counter_set c;
    const std::size_t n = below(5);
    for (std::size_t i = 0; i < n; ++i) {
      c[text()] = counter();
    }
    return c;
  }

  nlohmann::ordered_json value(int depth) {
    switch (below(depth > 0 ? 8 : 6)) {
    case 0:
      return nullptr;
    case 1:
      return coin();
    case 2:
      return int64();
    case 3:
      return static_cast<std::uint64_t>(m_engine());
    case 4:
      return number();
    case 5:
      return text();
    case 6: {
      nlohmann::ordered_json a = nlohmann::ordered_json::array();
      const std::size_t n = below(4);
      for (std::size_t i = 0; i < n; ++i) {
        a.push_back(value(depth - 1));
      }
      return a;
    }
    default:
      return object(depth - 1);
    }
  }
  nlohmann::ordered_json object(int depth) {
    nlohmann::ordered_json o = nlohmann::ordered_json::object();
    const std::size_t n = below(4);
    for (std::size_t i = 0; i < n; ++i) {
      o[text()] = value(depth);
    }
    return o;
  }

  template <class T, std::size_t N> T pick(const T (&choices)[N]) { return choices[below(N)]; }

private:
  std::mt19937_64 m_engine;
};

} // namespace

report without_version_1_1_fields(report r) {
  r.run.backend.clear();
  r.run.devices.clear();
  r.run.concurrency.reset();
  r.host.topology.reset();
  r.host.network_ports.reset();
  r.nodes.clear();
  for (device_info& d : r.devices) {
    d.temperature_slowdown_c.reset();
    d.pcie.gen_max_system.reset();
    d.activity.reset();
    d.c2c.reset();
    d.fabric.reset();
  }
  for (result& x : r.results) {
    x.gpus_busy.reset();
    x.events.clear();
    x.efficiency_clock_adjusted.reset();
    x.telemetry.window_start_s.reset();
    x.telemetry.window_end_s.reset();
    x.telemetry.pcie_gen_min.reset();
    x.telemetry.pcie_width_min.reset();
  }
  return r;
}

report multi_node_report() {
  report r = synthetic_report();
  r.run.suite = "mpi";
  r.host.network_ports =
      std::vector<network_port>{{"mlx5_0", 1, "ACTIVE", "400 Gb/sec (4X NDR)", 400.0, "InfiniBand"},
                                {"mlx5_1", 1, "DOWN", "10 Gb/sec (4X SDR)", 10.0, "InfiniBand"}};
  node_inventory b;
  b.host = synthetic_host();
  b.host.hostname = "synthetic-host-b";
  b.host.network_ports = std::vector<network_port>{
      {"mlx5_0", 1, "ACTIVE", "400 Gb/sec (4X NDR)", 400.0, "InfiniBand"}};
  b.devices = {synthetic_device(0)};
  b.devices.front().serial = "SYNTHETIC-B-0";
  b.run_devices = {0};
  // Both nodes' GPUs registered in one NVLink domain (NVL72's trays): same cluster and clique.
  const gpu_fabric domain{"completed", "success", "5e7e71c0-0000-4000-8000-00000000feed",
                          32766,       0x1aa,     "healthy"};
  r.devices.at(0).fabric = domain;
  b.devices.front().fabric = domain;
  r.nodes.push_back(std::move(b));
  // The build that wrote it (run.build, v1.1): a CUDA build, as `gpuspec --version` prints it.
  r.run.build = build_info{"0.0.0-synthetic", "0123456789ab-dirty", "2000-01-01T00:00:00Z",
                           built_against_versions{"13.0", "13.1.0", "2.28.9", "13"}};
  return r;
}

report random_report(std::uint64_t seed) {
  random_source rnd(seed);
  report r;
  r.run.tool_version = rnd.text();
  r.run.started_utc = rnd.text();
  r.run.finished_utc = rnd.text();
  r.run.suite = rnd.text();
  r.run.filter = rnd.text();
  r.run.command_line = rnd.texts();
  r.run.backend = rnd.pick({"cuda", "stand-in", "none", ""});
  r.run.devices = {static_cast<int>(rnd.below(8)), static_cast<int>(rnd.below(8))};
  if (rnd.coin()) {
    r.run.concurrency = 1 + static_cast<int>(rnd.below(8));
  }
  if (rnd.coin()) {
    r.run.build =
        build_info{rnd.text(), rnd.text(), rnd.text(),
                   built_against_versions{rnd.text(), rnd.text(), rnd.text(), rnd.text()}};
  }

  host_info& h = r.host;
  h.hostname = rnd.text();
  h.os = rnd.text();
  h.kernel = rnd.text();
  h.cpu_model = rnd.text();
  h.cpu_logical_cores = rnd.maybe_int();
  h.cpu_sockets = rnd.maybe_int();
  h.memory_bytes = rnd.maybe_int64();
  h.numa_nodes = rnd.maybe_int();
  h.nouveau_loaded = rnd.coin() ? std::optional<bool>(rnd.coin()) : std::nullopt;
  h.driver_version = rnd.text();
  h.cuda_driver_version = rnd.text();
  h.cuda_runtime_version = rnd.text();
  h.cublas_version = rnd.text();
  h.nccl_version = rnd.text();
  h.gpu_status = rnd.text();
  const std::size_t checks = rnd.below(4);
  for (std::size_t i = 0; i < checks; ++i) {
    h.checks.push_back({rnd.text(),
                        rnd.pick({check_status::pass, check_status::warn, check_status::fail,
                                  check_status::skipped}),
                        rnd.text(), rnd.maybe_int()});
  }

  const std::size_t devices = rnd.below(4);
  for (std::size_t i = 0; i < devices; ++i) {
    device_info d;
    d.index = rnd.int32();
    d.cuda_index = rnd.maybe_int();
    d.name = rnd.text();
    d.uuid = rnd.text();
    d.serial = rnd.text();
    d.vbios = rnd.text();
    d.pci_bus_id = rnd.text();
    d.pci_device_id = rnd.coin()
                          ? std::optional<std::uint32_t>(static_cast<std::uint32_t>(rnd.int64()))
                          : std::nullopt;
    d.pci_subsystem_id =
        rnd.coin() ? std::optional<std::uint32_t>(std::numeric_limits<std::uint32_t>::max())
                   : std::nullopt;
    d.cc_major = rnd.maybe_int();
    d.cc_minor = rnd.maybe_int();
    d.sm_count = rnd.maybe_int();
    d.memory_bytes = rnd.maybe_int64();
    d.l2_bytes = rnd.maybe_int64();
    d.sm_clock_mhz = rnd.maybe_int();
    d.sm_clock_max_mhz = rnd.maybe_int();
    d.mem_clock_mhz = rnd.maybe_int();
    d.mem_clock_max_mhz = rnd.maybe_int();
    d.memory_bus_width_bits = rnd.maybe_int();
    d.pcie = {rnd.maybe_int(), rnd.maybe_int(), rnd.maybe_int(), rnd.maybe_int(), rnd.maybe_int()};
    d.power_limit_w = rnd.maybe_number();
    d.power_limit_default_w = rnd.maybe_number();
    d.power_limit_max_w = rnd.maybe_number();
    d.temperature_c = rnd.maybe_int();
    d.temperature_slowdown_c = rnd.maybe_int();
    d.ecc_mode = rnd.text();
    d.ecc_mode_pending = rnd.text();
    d.mig_mode = rnd.text();
    d.persistence_mode = rnd.text();
    d.spec_id = rnd.text();
    d.counters_before = rnd.counters();
    d.counters_after = rnd.counters();
    d.counters_delta = rnd.counters();
    d.problems = rnd.texts();
    r.devices.push_back(std::move(d));
  }

  const std::size_t results = rnd.below(5);
  for (std::size_t i = 0; i < results; ++i) {
    result x;
    x.bench_id = rnd.text();
    x.devices.resize(rnd.below(4));
    for (int& device : x.devices) {
      device = rnd.int32();
    }
    x.axes = rnd.object(3);
    x.observations = rnd.object(3);
    for (auto it = x.axes.begin(); it != x.axes.end(); ++it)
      x.observations.erase(it.key()); // a key is an axis or an observation, not both
    x.metric = rnd.text();
    x.unit = static_cast<metric_unit>(rnd.below(17));
    x.higher_is_better = rnd.coin();
    x.cache_state = rnd.pick({"cold", "hot", ""});
    x.bytes_per_iteration = rnd.maybe_number();
    x.flops_per_iteration = rnd.maybe_number();
    x.samples = rnd.numbers();
    x.sample_seconds = rnd.numbers();
    x.stats = {rnd.count(),  rnd.number(), rnd.number(), rnd.number(), rnd.number(),
               rnd.number(), rnd.number(), rnd.number(), rnd.number()};
    x.host_seconds_median = rnd.maybe_number();
    x.stop_reason = rnd.pick({"cv_target", "stalled", "time_cap", "sample_cap", ""});
    x.ceiling_value = {
        rnd.maybe_number(),
        rnd.text(),
        rnd.maybe_number(),
        rnd.text(),
        rnd.pick({reference_kind::none, reference_kind::datasheet, reference_kind::clock_adjusted}),
        rnd.pick({"", "memory_bandwidth_gbs", "peaks.fp16_tc", "pcie_gbs"}),
        rnd.maybe_number(),
        std::nullopt}; // v1.2's MIG share: mig_report() has one
    x.efficiency = rnd.maybe_number();
    x.efficiency_clock_adjusted = rnd.maybe_number();
    x.check = {rnd.pick({verification_status::passed, verification_status::failed,
                         verification_status::skipped}),
               rnd.maybe_number(), rnd.maybe_number(), rnd.text()};
    telemetry_summary& t = x.telemetry;
    t.samples = rnd.count();
    t.period_ms = rnd.number();
    t.sm_clock_mhz_min = rnd.maybe_number();
    t.sm_clock_mhz_median = rnd.maybe_number();
    t.sm_clock_mhz_max = rnd.maybe_number();
    t.mem_clock_mhz_min = rnd.maybe_number();
    t.mem_clock_mhz_median = rnd.maybe_number();
    t.temperature_c_max = rnd.maybe_number();
    t.power_w_mean = rnd.maybe_number();
    t.power_w_max = rnd.maybe_number();
    t.low_clock_fraction = rnd.maybe_number();
    t.throttle_reasons = rnd.texts();
    t.throttled = rnd.coin();
    t.status = rnd.text();
    t.window_start_s = rnd.maybe_number();
    t.window_end_s = rnd.maybe_number();
    t.pcie_gen_min = rnd.maybe_int();
    t.pcie_width_min = rnd.maybe_int();
    x.status = rnd.pick({result_status::ok, result_status::failed, result_status::skipped,
                         result_status::not_supported});
    x.reason = rnd.text();
    if (x.status != result_status::ok) {
      x.reason = "why " + x.reason;
    }
    if (x.status == result_status::failed) {
      x.failure =
          rnd.pick({failure_kind::benchmark, failure_kind::verification, failure_kind::gpu_start,
                    failure_kind::worker_timeout, failure_kind::worker_signal,
                    failure_kind::worker_exit, failure_kind::worker_protocol});
    }
    if (rnd.coin()) {
      x.gpus_busy = 1 + static_cast<int>(rnd.below(8));
    }
    for (std::size_t e = rnd.coin() ? 1 + rnd.below(3) : 0; e > 0; --e) {
      gpu_event g;
      g.time_s = rnd.number();
      g.device = static_cast<int>(rnd.below(8));
      g.type = rnd.pick({gpu_event_type::xid, gpu_event_type::ecc_single_bit,
                         gpu_event_type::ecc_double_bit, gpu_event_type::clock_change});
      if (g.type == gpu_event_type::xid)
        g.xid = static_cast<int>(rnd.below(1000));
      g.source = rnd.coin() ? "nvml" : "kernel_log";
      g.detail = rnd.text();
      x.events.push_back(std::move(g));
    }
    r.results.push_back(std::move(x));
  }
  r.complete = rnd.coin();
  r.incomplete_reason = rnd.text();
  return r;
}

} // namespace gpuspec::reports::testing

namespace gpuspec::reports::testing {

report mig_report() {
  report r = synthetic_report();
  r.schema = report_schema_version_mig; // as it is read back
  device_info& d = r.devices.at(0);
  d.mig_mode = "enabled";
  d.mig_mode_pending = "disabled";
  d.mig_memory_slices = 8;
  mig_instance a;
  a.mig_index = 0;
  a.uuid = "MIG-5e7e71c0-0000-4000-8000-000000000001";
  a.profile = "1g.10gb";
  a.gpu_instance_id = 7;
  a.compute_instance_id = 0;
  a.sm_count = 14;
  a.memory_bytes = std::int64_t{9728} << 20;
  a.copy_engines = 1;
  a.gpu_slices = 1;
  a.compute_slices = 1;
  a.memory_slices = 1;
  mig_instance b = a;
  b.mig_index = 1;
  b.uuid = "MIG-5e7e71c0-0000-4000-8000-000000000002";
  b.gpu_instance_id = 8;
  b.memory_slices.reset();
  b.problems = {"nvmlDeviceGetAttributes: Not Supported"};
  d.mig_instances = {a, b};
  r.results.at(0).mig = ref_of(a);
  r.results.at(0).ceiling_value.mig_fraction = 0.125;
  return r;
}

} // namespace gpuspec::reports::testing
