#pragma once
/// Internal to the rules file's loader (expectations_file.cpp): the "mig_layout" key read with
/// the one object reader of every file gpuspec loads.

#include <string>
#include <vector>

#include "gpuspec/reports/judge/mig_layout.hpp"
#include "gpuspec/reports/model/json_reader.hpp"

namespace gpuspec::reports::inline judge::detail {

/// The declarations of a "mig_layout" array at `path`. Throws the reader's field error for an
/// entry that names no GPU, names them twice, gives both or neither of "profiles" and "whole",
/// a profile that is not a MIG profile name, or a GPU or spec row that an earlier entry names.
[[nodiscard]] std::vector<mig_layout_rule> read_mig_layouts(model::detail::element e,
                                                            const std::string& path);

} // namespace gpuspec::reports::judge::detail
