#pragma once
/// Where the spec table (gpus.json) and the expectation rules (expect.json) are found.

#include <filesystem>

namespace gpuspec::cli {

/// The folder holding gpus.json and expect.json, first that applies:
///   $GPUSPEC_SPECS_DIR;
///   the source tree's specs/ this binary was built from, if it is still there;
///   <executable>/../share/gpuspec/specs (an installed gpuspec);
///   else the source tree's path, so the error names the place that was expected.
/// $GPUSPEC_SPECS still names gpus.json alone (reports::default_spec_table_path).
[[nodiscard]] std::filesystem::path specs_dir();

} // namespace gpuspec::cli
