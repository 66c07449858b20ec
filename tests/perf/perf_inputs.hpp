#pragma once
/// The inputs of the performance programs, built in code and written to a folder as save_report
/// writes them: the check tests' healthy DGX H200 report (tests/unit/check/check_fixtures.hpp,
/// built the way the harness writes reports), grown to 10,000 results, and 1,000 such nodes.

#include <filesystem>
#include <string>
#include <vector>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::perf {

struct inputs {
  std::filesystem::path folder;
  std::filesystem::path big;                ///< one report of 10,000 results
  std::filesystem::path big_slower;         ///< the same, every value 3% lower (for diff)
  std::vector<std::filesystem::path> fleet; ///< 1,000 reports of one 8-GPU node each
};

/// Writes the inputs into a new folder under the system's temporary folder (once per process;
/// they take a few seconds to build) and returns where they are.
[[nodiscard]] const inputs& perf_inputs();

/// The 10,000-result report, as built (before it is written).
[[nodiscard]] reports::report big_report(double scale = 1.0);

} // namespace gpuspec::perf
