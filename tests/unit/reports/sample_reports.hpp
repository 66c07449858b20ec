#pragma once
/// Reports built in code for the reports tests. Every value is synthetic (round numbers,
/// "Synthetic GPU"): none of them is a measurement. The fixtures in tests/fixtures/reports are
/// these reports as save_report writes them, and a test keeps the two identical.

#include <cstdint>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::testing {

/// Host part only: no NVIDIA driver, so no devices and no results; complete.
[[nodiscard]] report no_gpu_report();

/// Two "Synthetic GPU" devices and results covering every result, verification and check
/// status, counters that are "not supported" and "unavailable: ...", cold and hot cache states.
[[nodiscard]] report synthetic_report();

/// One device, one result ended by the time cap, then interrupted: complete = false.
[[nodiscard]] report interrupted_report();

/// One device, a burn-in GEMM result (a checksum mismatch at iteration 17, three intervals,
/// event samples) and a memory-test result (two bad words): every burn-in object.
[[nodiscard]] report burnin_report();

/// synthetic_report() as a multi-node run's rank 0 writes it: the host's InfiniBand ports (one
/// active, one down) and a second node with one GPU and its port; and the build that wrote it
/// (run.build).
[[nodiscard]] report multi_node_report();

/// synthetic_report() with GPU 0 partitioned (v1.2): MIG on (off after the next reset), two
/// 1g.10gb instances (the second's attributes not given), and result 0 measured on the first.
[[nodiscard]] report mig_report();

/// `r` as a version 1 document holds it: the fields version 1.1 added at their defaults
/// (`failure` stays: version 1 readers derive it from the status and the verification).
[[nodiscard]] report without_version_1_1_fields(report r);

/// A report with random content (seeded): random finite doubles of any magnitude (including
/// subnormals and -0.0), full-range integers, Unicode and control characters in strings,
/// nested parameters. Always writable by to_json.
[[nodiscard]] report random_report(std::uint64_t seed);

} // namespace gpuspec::reports::testing
