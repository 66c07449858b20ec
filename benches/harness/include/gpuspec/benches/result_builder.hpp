#pragma once
/// The one result builder (issue 18): every harness path (bench_state's samples and sustained
/// runs, node_state's node-wide cases) ends a benchmark here, and no family or state class
/// derives a result's metric, statistics, reference, efficiency or status itself. The arithmetic
/// is CUDA-free and tested on the host (gpuspec/reports/result_builder.hpp); host types only.

#include <span>

#include "gpuspec/benches/registry.hpp"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/result_builder.hpp"

namespace gpuspec::benches {

/// Finishes `r` for case `c`: the case's values as its axes (the key that pairs results across
/// reports), then its stats, reference and efficiencies (reports::settle_measurement, with the
/// per-sample `host_seconds` where the harness has them) and its status from `ending`
/// (reports::settle_status). `r`'s metric, unit, samples, ceiling and verification must be set.
[[nodiscard]] reports::result build_result(reports::result r, const bench_case& c,
                                           const reports::run_ending& ending,
                                           std::span<const double> host_seconds = {});

/// Records what the harness chose or found under `key` in `r`'s observations. An axis of the
/// case is what was asked and stays what was asked: recording under an axis's name throws
/// std::logic_error naming the benchmark, the key and the asked value.
void add_observation(reports::result& r, const bench_case& c, const std::string& key,
                     nlohmann::ordered_json value);

} // namespace gpuspec::benches
