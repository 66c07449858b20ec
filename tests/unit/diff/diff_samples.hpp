#pragma once
/// Reports built in code for the diff/compare tests. Every value is synthetic (round numbers,
/// seeded noise, made-up serials): none of them is a measurement. tests/fixtures/diff holds some
/// of them as save_report writes them; DiffFixtures.MatchTheCode keeps the two identical.

#include <cstdint>
#include <string>
#include <vector>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::testing {

/// `n` samples around `median` with a relative spread `cv` (seeded, so reproducible).
[[nodiscard]] std::vector<double> noisy_samples(double median, double cv, int n,
                                                std::uint64_t seed);

/// A synthetic GPU at NVML index `index` with the given serial and UUID ("" allowed).
[[nodiscard]] device_info synthetic_gpu(int index, const std::string& serial,
                                        const std::string& uuid,
                                        const std::string& name = "Synthetic GPU");

/// An ok result on GPU `device` with the given samples (stats computed from them), axis dtype
/// fp32, observation array_bytes. A bandwidth is judged by the datasheet's memory bandwidth,
/// a TFLOP/s rate by the datasheet peak named by the bench id's last part (as a library GEMM);
/// no ceiling value is carried, so the spec table's judges.
[[nodiscard]] result synthetic_result(const std::string& bench_id, int device,
                                      std::vector<double> samples, bool higher_is_better = true,
                                      metric_unit unit = metric_unit::gigabytes_per_second);

/// A complete report of `hostname` with the given GPUs and results.
[[nodiscard]] report synthetic_node(const std::string& hostname, std::vector<device_info> gpus,
                                    std::vector<result> results);

/// The fixtures in tests/fixtures/diff: a baseline node with two GPUs, and variants of it.
[[nodiscard]] report fixture_baseline();  ///< two GPUs, triad and copy around 1000 GB/s
[[nodiscard]] report fixture_regressed(); ///< GPU 1's triad 10% lower: diff fails
[[nodiscard]] report fixture_slightly();  ///< GPU 1's triad 3% lower: diff warns
[[nodiscard]] report fixture_improved();  ///< both triads 10% higher: diff passes

} // namespace gpuspec::reports::testing
