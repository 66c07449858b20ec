#pragma once
/// Host names as an operator reads a fleet: in natural order ("node-2" before "node-10", as
/// Slurm's hostlists and `sort -V` put them), and a run of numbered hosts as one group
/// ("node-[0-6,8-49]", Slurm's hostlist form), so a page of 50 nodes names them in one line.

#include <string>
#include <string_view>
#include <vector>

namespace gpuspec::reports::inline model {

/// True when `a` comes before `b` in natural order: digit runs compare as numbers (leading
/// zeros ignored, then the shorter run first), everything else byte by byte.
[[nodiscard]] bool natural_less(std::string_view a, std::string_view b);

/// The names grouped as Slurm writes a hostlist: names that differ only in a trailing number
/// share a prefix, "node-[0-6,8-49]" (a width kept: "gpu[007-009]"); a lone name stays as it
/// is. Groups in natural order of their first name; duplicates once.
[[nodiscard]] std::vector<std::string> host_groups(std::vector<std::string> names);

} // namespace gpuspec::reports::model
