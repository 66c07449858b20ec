#pragma once
/// The yardstick of the performance programs: how long Python's json.load takes on the same
/// files (issue 10: the report tools are to be no slower), timed by python3 itself.

#include <filesystem>
#include <optional>
#include <vector>

namespace gpuspec::perf {

/// The best of `repeats` runs of json.load over every file in `files`, in seconds, timed inside
/// one python3 process (its start-up not counted); nullopt when python3 cannot be run.
[[nodiscard]] std::optional<double>
python_json_load_seconds(const std::vector<std::filesystem::path>& files, int repeats = 5);

} // namespace gpuspec::perf
