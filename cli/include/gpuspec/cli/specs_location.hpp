#pragma once
/// Where the spec table (gpus.json) and the expectation rules (expect.json) are found.

#include <filesystem>

namespace gpuspec::cli {

/// The folder holding gpus.json and expect.json, first that applies:
///   $GPUSPEC_SPECS_DIR;
///   <folder of this executable>/<GPUSPEC_SPECS_RELATIVE_DIRS>: paths relative to the binary,
///   the same for an installed tree (bin/ -> ../share/gpuspec/specs, libexec/gpuspec/ ->
///   ../../share/gpuspec/specs) and the build tree (cli/ -> ../share/gpuspec/specs, a link to the
///   source's specs/ made at configure time), so no build or source path is compiled in and an
///   installed tree moved to another prefix still finds its table;
///   else the first candidate, so that the error names the place that was expected.
/// $GPUSPEC_SPECS still names gpus.json alone (reports::default_spec_table_path).
[[nodiscard]] std::filesystem::path specs_dir();

} // namespace gpuspec::cli
