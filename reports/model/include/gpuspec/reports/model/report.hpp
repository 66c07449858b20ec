#pragma once
/// The report model, `gpuspec.report.v1.1` (docs/design.md, "Report contract").
///
/// Plain structs, no behaviour: the JSON mapping lives in report_json.hpp and the schema in
/// reports/model/schema/report.v1.schema.json. An absent optional means "not known"; a value the
/// hardware does not provide is said explicitly (see `reading`).

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuspec/reports/model/burnin_record.hpp"
#include "gpuspec/reports/model/gpu_event.hpp"
#include "gpuspec/reports/model/mig.hpp"
#include "gpuspec/reports/model/topology.hpp"

namespace gpuspec::reports::inline model {

/// The versions this build writes: a report that holds a key v1.2 added (a partitioned GPU's MIG
/// devices, docs/mig.md) is written as `report_schema_version_mig`, every other as
/// `report_schema_version`, so that a reader of v1.1 keeps reading whole-GPU reports. Readers
/// accept every version of the same major listed in `readable_report_versions`: a minor version
/// only adds fields, and a document of an older minor version loads with the added fields at
/// their defaults.
inline constexpr const char* report_schema_version = "gpuspec.report.v1.1";
inline constexpr const char* report_schema_version_mig = "gpuspec.report.v1.2";
inline constexpr std::array<std::string_view, 3> readable_report_versions = {
    "gpuspec.report.v1", "gpuspec.report.v1.1", "gpuspec.report.v1.2"};

/// A counter or value that may be unsupported by the GPU. Serialised as the number, or as the
/// string in `status` ("not supported", or "unavailable: <why>") when there is no value:
/// an unsupported counter is never written as 0.
struct reading {
  std::optional<std::int64_t> value;
  std::string status; ///< empty when value is set

  static reading of(std::int64_t v) { return {v, {}}; }
  static reading not_supported() { return {std::nullopt, "not supported"}; }
  static reading unavailable(const std::string& why) {
    return {std::nullopt, "unavailable: " + why};
  }
  friend bool operator==(const reading&, const reading&) = default;
};

/// Error counters by stable name, e.g. "ecc.volatile.uncorrected", "pcie.replay".
using counter_set = std::map<std::string, reading>;

/// pass / warn / fail / skipped: the outcome of one host check.
enum class check_status { pass, warn, fail, skipped };

struct host_check {
  std::string id; ///< stable, e.g. "host.nouveau", "gpu.pcie_link"
  check_status status = check_status::skipped;
  std::string message;       ///< what was seen and what was expected
  std::optional<int> device; ///< the GPU it concerns, if any
  friend bool operator==(const host_check&, const host_check&) = default;
};

/// One InfiniBand or RoCE port as the kernel lists it under
/// /sys/class/infiniband/<device>/ports/<port>/ (the kernel's sysfs-class-infiniband ABI): the
/// NICs that carry a multi-node job's traffic between nodes (host network_ports.hpp).
struct network_port {
  std::string device; ///< the RDMA device, "mlx5_0"
  int port = 1;
  /// The name in the `state` file ("4: ACTIVE" -> "ACTIVE"): DOWN, INIT, ARMED, ACTIVE,
  /// ACTIVE_DEFER; "" when the file could not be read.
  std::string state;
  std::string rate; ///< the `rate` file as written, "400 Gb/sec (4X NDR)"; "" when unread
  /// The rate file's figure in Gb/s (400 above); null when it holds none.
  std::optional<double> rate_gbps;
  std::string link_layer; ///< the `link_layer` file: "InfiniBand" | "Ethernet" (RoCE) | ""
  friend bool operator==(const network_port&, const network_port&) = default;
};

struct host_info {
  std::string hostname;
  std::string os;     ///< PRETTY_NAME of /etc/os-release
  std::string kernel; ///< uname release
  std::string cpu_model;
  std::optional<int> cpu_logical_cores;
  std::optional<int> cpu_sockets;
  std::optional<std::int64_t> memory_bytes;
  std::optional<int> numa_nodes;
  std::optional<bool> nouveau_loaded;
  std::string driver_version;      ///< NVIDIA driver, from NVML
  std::string cuda_driver_version; ///< e.g. "13.0"
  /// The CUDA runtime found at run time (cudaRuntimeGetVersion); "not built in (host-only build)"
  /// in a host-only build (older ones wrote "").
  std::string cuda_runtime_version;
  std::string cublas_version;
  std::string nccl_version;
  /// "ok", or why there is no GPU part: "no NVIDIA driver (libnvidia-ml.so.1 not found)", ...
  std::string gpu_status = "ok";
  std::vector<host_check> checks;
  /// The GPUs' NUMA nodes, NVLinks and the path between each pair (topology.hpp). v1.1, and
  /// optional: absent (not null) when the inventory did not probe it (no driver, an older
  /// writer), so v1.1 reports written before it still load.
  std::optional<topology_info> topology;
  /// The host's InfiniBand and RoCE ports (network_port). v1.1, optional: absent when the
  /// inventory did not read them (an older writer); an empty list is a host without RDMA ports.
  std::optional<std::vector<network_port>> network_ports;
  friend bool operator==(const host_info&, const host_info&) = default;
};

/// A GPU's PCIe link as NVML reads it (docs/report.md, "devices[].pcie"). NVML gives two maximum
/// generations: the GPU's own and the one "possible with this device and system", which a slot,
/// riser or BIOS setting can cap. It gives one maximum width, the device-and-system one: the
/// card's own width is the spec row's (gpu_spec::pcie_width), never a device field.
struct pcie_link {
  std::optional<int> gen_current;   ///< nvmlDeviceGetCurrPcieLinkGeneration (idle: power saving)
  std::optional<int> gen_max;       ///< nvmlDeviceGetGpuMaxPcieLinkGeneration: the GPU's own
  std::optional<int> width_current; ///< nvmlDeviceGetCurrPcieLinkWidth
  std::optional<int> width_max;     ///< nvmlDeviceGetMaxPcieLinkWidth: with this device and system
  /// nvmlDeviceGetMaxPcieLinkGeneration: the generation possible with this device and system.
  /// v1.1, and optional: absent (never null) when not read, so reports written before it load.
  std::optional<int> gen_max_system;
  friend bool operator==(const pcie_link&, const pcie_link&) = default;
};

/// A process NVML lists on a GPU: a compute or graphics context that is not the run's own.
struct gpu_process {
  std::int64_t pid = 0;
  std::string name; ///< /proc/<pid>/comm; "" when it cannot be read (another PID namespace)
  std::optional<std::int64_t> used_memory_bytes;
  std::string kind; ///< "compute" | "graphics"
  friend bool operator==(const gpu_process&, const gpu_process&) = default;
};

/// What was running on a GPU when the inventory was taken: the idle precondition of a run
/// (docs/design.md: foreign processes make the run refuse the GPU unless --allow-busy).
struct gpu_activity {
  std::optional<int> utilization_pct; ///< NVML's GPU utilisation, percent of the last period
  std::vector<gpu_process> processes;
  std::string status = "ok"; ///< or why the process list could not be read
  friend bool operator==(const gpu_activity&, const gpu_activity&) = default;
};

/// How a GPU attached by NVLink-C2C reaches its CPU (Grace-based nodes: GH200, GB200, GB300),
/// as NVML reads it (docs/report.md, "devices[].c2c"). Such a GPU's host transfers cross the C2C
/// link, not PCIe, and its host memory is coherent with the GPU's (ATS): the check judges the
/// transfers against the C2C link and knows the host-memory rule does not apply (is_c2c_attached).
struct c2c_link {
  /// nvmlDeviceGetC2cModeInfoV's isC2cEnabled: "enabled" | "disabled" | "not supported" | "".
  std::string mode;
  /// nvmlDeviceGetAddressingMode: "ats" (Address Translation Services: the GPU reads host memory
  /// through the CPU's page tables, coherently), "hmm" (Heterogeneous Memory Management), "none",
  /// or "" when not read.
  std::string addressing_mode;
  friend bool operator==(const c2c_link&, const c2c_link&) = default;
};

/// The GPU's place in an NVLink fabric (NVSwitch systems: HGX, and NVL72's multi-node NVLink
/// domain), as NVML reports it (nvmlDeviceGetGpuFabricInfoV, nvml.h "GPU Fabric information"):
/// whether the GPU has registered with the fabric (Fabric Manager on an HGX node, the NVLink
/// switch trays' on NVL72), and the domain it belongs to. GPUs with the same cluster UUID and
/// clique id share one NVLink domain, across trays on NVL72.
struct gpu_fabric {
  /// The registration's state: "not_started", "in_progress", "completed" (NVML_GPU_FABRIC_STATE_*).
  std::string state;
  /// The registration's result, meaningful once "completed": "success", or NVML's words for its
  /// error ("Timeout", ...); "" before completion.
  std::string status;
  /// The NVLink domain (cluster) UUID as 8-4-4-4-12 hex; "" while NVML gives all zeros.
  std::string cluster_uuid;
  std::int64_t clique_id = 0; ///< the fabric clique within the cluster
  /// nvmlGpuFabricInfo_v2's healthMask (NVML_GPU_FABRIC_HEALTH_MASK_*: degraded bandwidth,
  /// route recovery, route unhealthy, access-timeout recovery, incorrect configuration); null
  /// when the driver answered the version-less v1 query only.
  std::optional<std::int64_t> health_mask;
  /// v3's healthSummary: "healthy", "unhealthy", "limited_capacity"; "" when not given.
  std::string health_summary;
  friend bool operator==(const gpu_fabric&, const gpu_fabric&) = default;
};

struct device_info {
  int index = 0;                 ///< NVML index (the nvidia-smi numbering)
  std::optional<int> cuda_index; ///< the CUDA runtime's ordinal, joined by PCI bus id
  std::string name, uuid, serial, vbios, pci_bus_id;
  std::optional<std::uint32_t>
      pci_device_id; ///< PCI device id (upper 16 bits of NVML's pciDeviceId)
  std::optional<std::uint32_t> pci_subsystem_id;
  std::optional<int> cc_major, cc_minor;
  std::optional<int> sm_count;
  std::optional<std::int64_t> memory_bytes;
  std::optional<std::int64_t> l2_bytes;
  std::optional<int> sm_clock_mhz, sm_clock_max_mhz, mem_clock_mhz, mem_clock_max_mhz;
  std::optional<int> memory_bus_width_bits;
  pcie_link pcie;
  std::optional<double> power_limit_w, power_limit_default_w, power_limit_max_w;
  std::optional<int> temperature_c;
  /// NVML's slowdown temperature threshold of this GPU (NVML_TEMPERATURE_THRESHOLD_SLOWDOWN),
  /// above which the GPU slows its clocks. v1.1; null when not known.
  std::optional<int> temperature_slowdown_c;
  std::string ecc_mode, ecc_mode_pending; ///< "enabled" | "disabled" | "not supported" | ""
  std::string mig_mode;                   ///< "enabled" | "disabled" | "not supported" | ""
  std::string persistence_mode;           ///< "enabled" | "disabled" | "not supported" | ""
  std::string spec_id;                    ///< matched spec-table row; "" when none
  counter_set counters_before, counters_after, counters_delta;
  std::vector<std::string> problems; ///< queries that failed, with the library's words
  /// The processes on the GPU and its utilisation when the inventory was read. v1.1, an
  /// optional key: absent when not read (older reports, `gpuspec info`).
  std::optional<gpu_activity> activity;
  /// The GPU's NVLink-C2C link to its CPU (c2c_link). v1.1, an optional key: absent when not
  /// read (older reports, a driver without the queries).
  std::optional<c2c_link> c2c;
  /// The GPU's NVLink fabric registration and domain. v1.1, an optional key: absent when NVML
  /// says the GPU has no fabric (a PCIe card, NVLink bridges, a pre-Hopper GPU) or when it was
  /// not read (older reports).
  std::optional<gpu_fabric> fabric;
  /// MIG mode after the next reset, when it differs from `mig_mode` (a change waits for a GPU
  /// reset). v1.2, an optional key: absent when the same or not read.
  std::string mig_mode_pending;
  /// How many memory slices the GPU's memory is divided into under MIG (8 on A100, H100, H200,
  /// B200; 4 on A30: docs/mig.md). v1.2, an optional key: absent when MIG is off.
  std::optional<int> mig_memory_slices;
  /// The MIG devices of a GPU whose MIG mode is on, in NVML's order. v1.2, an optional key:
  /// absent when there are none (MIG off, or older reports).
  std::vector<mig_instance> mig_instances;
  friend bool operator==(const device_info&, const device_info&) = default;
};

enum class result_status { ok, failed, skipped, not_supported };

/// Why a failed result failed, for the judge's remedy: a wrong answer is not a benchmark that
/// could not run, and neither is a worker the watchdog had to stop. `none` unless status is
/// failed. v1.1; derived from status and verification when an older report is read.
enum class failure_kind {
  none,
  benchmark,       ///< the benchmark threw, or measured nothing
  verification,    ///< its output was wrong: a possible silent-data-corruption finding
  gpu_start,       ///< the GPU could not be started (CUDA context, device handles)
  worker_timeout,  ///< the GPU's worker missed the case's deadline and was killed
  worker_signal,   ///< the GPU's worker died on a signal (SIGSEGV, SIGABRT, ...)
  worker_exit,     ///< the GPU's worker exited before finishing its cases
  worker_protocol, ///< the GPU's worker sent something that is not a well-formed message
};
enum class verification_status { passed, failed, skipped };

/// Summary of a sample set (statistics.hpp computes it).
struct sample_stats {
  std::int64_t n = 0;
  double median = 0, mean = 0, min = 0, max = 0, stddev = 0, cv = 0, q1 = 0, q3 = 0;
  friend bool operator==(const sample_stats&, const sample_stats&) = default;
};

/// The unit of a result's metric, written in a report as its symbol ("GB/s"; units.hpp has
/// each one's quantity and scale). `none` ("") for a result that never measured anything (a
/// case that never started).
enum class metric_unit {
  none,
  bytes_per_second,     ///< "B/s"
  megabytes_per_second, ///< "MB/s", 1e6
  gigabytes_per_second, ///< "GB/s", 1e9
  terabytes_per_second, ///< "TB/s", 1e12
  gibibytes_per_second, ///< "GiB/s", 2^30
  flop_per_second,      ///< "FLOP/s"
  gigaflop_per_second,  ///< "GFLOP/s", 1e9
  teraflop_per_second,  ///< "TFLOP/s", 1e12
  petaflop_per_second,  ///< "PFLOP/s", 1e15
  ops_per_second,       ///< "OP/s" (integer operations)
  gigaops_per_second,   ///< "GOP/s", 1e9
  teraops_per_second,   ///< "TOPS", 1e12
  seconds,              ///< "s"
  milliseconds,         ///< "ms"
  microseconds,         ///< "us"
  nanoseconds,          ///< "ns"
};

/// Which of a result's ceilings judges it, in `check` and `compare` alike.
enum class reference_kind {
  none,           ///< nothing judges it against a ceiling (no vendor figure, no clock-based one)
  datasheet,      ///< the datasheet figure: what the card was sold as
  clock_adjusted, ///< the figure at the clock seen during the run
};

/// The theoretical figure a result is judged against, each value with its source.
struct ceiling {
  std::optional<double> datasheet;      ///< in the result's unit
  std::string datasheet_source;         ///< document and table, or "" when unknown
  std::optional<double> clock_adjusted; ///< at the clock seen during the measurement
  std::string clock_adjusted_source;    ///< how it was derived
  /// The one that judges the result (reference.hpp's choose_reference decides, once). v1.1;
  /// derived for older reports.
  reference_kind reference = reference_kind::none;
  /// The spec-table figure `datasheet` stands for, so that `check` can recompute it from its
  /// own table: "memory_bandwidth_gbs", "pcie_gbs", "nvlink_gbs", "peaks.<key>"; "" when there
  /// is none. v1.1; derived for older reports.
  std::string spec_figure;
  /// The least device-memory traffic of one iteration, when both values are capped by the
  /// memory roofline (bandwidth x flops / bytes): a GEMM shape too small to be compute-bound.
  /// v1.1; null when no roofline applies.
  std::optional<double> roofline_bytes;
  /// The share of the GPU a MIG device's ceiling was scaled by (its SMs or memory slices over
  /// the GPU's: docs/mig.md), which `check` applies to its own table's figure too. v1.2; absent
  /// for a whole GPU's result and a ceiling MIG does not divide.
  std::optional<double> mig_fraction;
  friend bool operator==(const ceiling&, const ceiling&) = default;
};

struct verification {
  verification_status status = verification_status::skipped;
  std::optional<double> max_rel_error;
  std::optional<double> tolerance;
  std::string detail; ///< reference used, or why it was skipped/failed
  friend bool operator==(const verification&, const verification&) = default;
};

/// What the NVML sampler saw during one result's measurement window.
struct telemetry_summary {
  std::int64_t samples = 0;
  double period_ms = 0;
  std::optional<double> sm_clock_mhz_min, sm_clock_mhz_median, sm_clock_mhz_max;
  std::optional<double> mem_clock_mhz_min, mem_clock_mhz_median;
  std::optional<double> temperature_c_max;
  std::optional<double> power_w_mean, power_w_max;
  /// fraction of samples whose SM clock was under 75% of the maximum (nvbench's rule)
  std::optional<double> low_clock_fraction;
  std::vector<std::string> throttle_reasons; ///< union seen, e.g. "sw_power_cap", "hw_thermal"
  bool throttled = false;                    ///< a performance-limiting reason was active
  std::string status = "ok";                 ///< or why telemetry is missing
  /// The measurement window, in seconds since the run started, on the one monotonic clock every
  /// process of the run shares (CLOCK_MONOTONIC): windows of different GPUs can be set side by
  /// side. v1.1; absent in older reports.
  std::optional<double> window_start_s, window_end_s;
  /// The lowest PCIe link generation and width sampled during the window, i.e. while the GPU
  /// was busy (a link downtrains at idle, so only these judge the generation). v1.1; null when
  /// not sampled.
  std::optional<int> pcie_gen_min, pcie_width_min;
  friend bool operator==(const telemetry_summary&, const telemetry_summary&) = default;
};

struct result {
  std::string bench_id;     ///< dotted, e.g. "memory.stream.triad"
  std::vector<int> devices; ///< NVML indices
  /// What was asked: the registry's case values (shape, dtype, layout, size). With the bench
  /// id, the key that pairs a result across reports, GPUs and nodes (identity.hpp). A report
  /// writes these and `observations` together as `parameters`, and `axes` apart (v1.1; derived
  /// for older reports: report_json.hpp).
  nlohmann::ordered_json axes = nlohmann::ordered_json::object();
  /// What the harness chose or found: library versions, algorithm ids, repetitions per sample,
  /// L2 size. Context, never part of the key.
  nlohmann::ordered_json observations = nlohmann::ordered_json::object();
  std::string metric; ///< e.g. "bandwidth"
  metric_unit unit = metric_unit::none;
  bool higher_is_better = true;
  std::string cache_state; ///< "cold" | "hot" | "" (not applicable)
  std::optional<double> bytes_per_iteration, flops_per_iteration;
  std::vector<double> samples;               ///< the metric, one value per timed sample
  std::vector<double> sample_seconds;        ///< device time per sample (CUDA events)
  sample_stats stats;                        ///< over `samples`
  std::optional<double> host_seconds_median; ///< host-side wall time per sample, second figure
  std::string stop_reason;                   ///< "cv_target", "stalled", "time_cap", "sample_cap"
  ceiling ceiling_value;
  /// The fraction of the result's reference achieved (ceiling.reference: the value that judges
  /// it): stats.median / that ceiling, or ceiling / median when lower is better. settle_
  /// efficiency (reference.hpp) sets it, with efficiency_clock_adjusted.
  std::optional<double> efficiency;
  /// v1.1, optional: the same fraction of the clock-adjusted ceiling, whatever the reference
  /// (how close the work came to what the clock seen during the run allows). Absent when there
  /// is no clock-adjusted ceiling, and in reports written before it (whose efficiency was this).
  std::optional<double> efficiency_clock_adjusted;
  verification check;
  telemetry_summary telemetry;
  result_status status = result_status::ok;
  std::string reason;                        ///< always set unless status is ok
  failure_kind failure = failure_kind::none; ///< set when status is failed
  /// How many GPUs of the run were busy with a case at some moment while this one ran (itself
  /// included): 1 when GPUs were measured one at a time. v1.1; null when not known.
  std::optional<int> gpus_busy;
  /// The burn-in's checksums, memory test and time series (burnin_record.hpp): set for
  /// `burnin.*` and `memory.test` results only, and written only then (an optional key of v1.1).
  std::optional<burnin_record> burnin;
  /// The events (gpu_event.hpp) of the result's GPUs during its window: Xids, ECC errors, clock
  /// changes. Written only when there are some (an optional key of v1.1).
  std::vector<gpu_event> events;
  /// The MIG device the result measured, when its GPU is partitioned (docs/mig.md): the result
  /// is the instance's, judged against the instance's share of the GPU. v1.2, an optional key:
  /// absent for a whole GPU.
  std::optional<mig_ref> mig;
  friend bool operator==(const result&, const result&) = default;
};

/// What a build of gpuspec was compiled against (cli/include/gpuspec/cli/build_info.hpp): each a
/// version
/// ("13.0", "13.1.0", "2.28.9"; NVML: the nvml.h API version, "13"), or "not built in
/// (host-only build)" for a part the build left out.
struct built_against_versions {
  std::string cuda;   ///< the CUDA toolkit's runtime header (CUDART_VERSION)
  std::string cublas; ///< CUBLAS_VER_MAJOR.MINOR.PATCH
  std::string nccl;   ///< NCCL_VERSION_CODE
  std::string nvml;   ///< NVML_API_VERSION of nvml.h (the library itself is opened at run time)
  friend bool operator==(const built_against_versions&, const built_against_versions&) = default;
};

/// The build of gpuspec that wrote a report, as `gpuspec --version` prints it. What it found at
/// run time (driver, runtime, libraries) is the host's (host_info's *_version fields).
struct build_info {
  std::string version;    ///< the project's version, "0.1.0" (= run_info::tool_version)
  std::string commit;     ///< `git describe --always --dirty`: "400c3a1f2b3c[-dirty]", "unknown"
  std::string build_date; ///< UTC, ISO 8601; SOURCE_DATE_EPOCH's when the build set it
  built_against_versions built_against;
  friend bool operator==(const build_info&, const build_info&) = default;
};

/// Where an imported report's figures came from (`gpuspec import`, docs/import.md): another
/// tool's log, named and hashed so the report can be traced back to the exact file. Each
/// result's `source_line` observation names the line of the log its figure was read from.
struct run_source {
  std::string tool;    ///< "nccl-tests", "gpu-burn", "dcgm"
  std::string version; ///< the tool's or its library's version as the log states it; "" if none
  std::string file;    ///< the log's file name as given
  std::string sha256;  ///< of the log's bytes, lowercase hex
  /// What the log cannot tell (no telemetry, no inventory, ...), one sentence each.
  std::vector<std::string> notes;
  bool truncated = false; ///< the log ends before the tool's own last line
  friend bool operator==(const run_source&, const run_source&) = default;
};

struct run_info {
  std::string tool_version;
  std::string started_utc, finished_utc; ///< ISO 8601, "2026-11-30T02:31:04Z"
  std::string suite;
  std::string filter;
  std::vector<std::string> command_line;
  /// What produced the results (v1.1): "cuda" (measured on the GPUs), "stand-in" (a scripted
  /// test backend: nothing was measured and the check never passes it), "imported" (read from
  /// another tool's log: run.source), "none" (nothing could
  /// run: no GPU, or a host-only build); "" in older reports.
  std::string backend;
  /// The GPUs the run was asked to measure (NVML indices, `--devices`, or every GPU of the
  /// inventory); a GPU of the inventory not listed here was deselected. v1.1.
  std::vector<int> devices;
  /// At most this many GPUs were measured at once (`--concurrency`); null when nothing ran.
  std::optional<int> concurrency;
  /// The build that wrote the report (build_info). v1.1, optional: absent (never null) in
  /// reports written before it, which still load.
  std::optional<build_info> build;
  /// The foreign log an imported report was read from (run_source); backend is then
  /// "imported". v1.1, optional: absent (never null) in every report gpuspec measured.
  std::optional<run_source> source;
  friend bool operator==(const run_info&, const run_info&) = default;
};

/// Another node of a multi-node run (gpuspec-mpi, docs/multi-node.md): its inventory as its own
/// ranks took it. Rank 0's node is the report's `host` and `devices`; `gpuspec check` judges each
/// node of the job on its own, with the results its ranks took part in.
struct node_inventory {
  host_info host;
  std::vector<device_info> devices;
  /// The GPUs of this node the job's ranks measured (NVML indices), as run.devices is rank 0's.
  std::vector<int> run_devices;
  friend bool operator==(const node_inventory&, const node_inventory&) = default;
};

struct report {
  std::string schema = report_schema_version;
  run_info run;
  host_info host;
  std::vector<device_info> devices;
  std::vector<result> results;
  bool complete = false;
  std::string incomplete_reason; ///< why complete is false ("interrupted", "no GPU", ...)
  /// The other nodes of a multi-node run (node_inventory). v1.1, optional: written only when
  /// there are some (a one-node report has none).
  std::vector<node_inventory> nodes;
  friend bool operator==(const report&, const report&) = default;
};

} // namespace gpuspec::reports::model
