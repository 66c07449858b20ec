#pragma once
// Each tool's recogniser and reader (one file each: nccl_tests.cpp, gpu_burn.cpp, dcgm_diag.cpp). A
// reader throws log_error naming the line it cannot read; import.cpp adds the file name.
#include <vector>

#include "gpuspec/reports/import/log_lines.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::inline import::detail {

[[nodiscard]] bool looks_like_nccl_tests(const std::vector<log_line>& lines);
[[nodiscard]] report read_nccl_tests(const std::vector<log_line>& lines, run_source source);

[[nodiscard]] bool looks_like_gpu_burn(const std::vector<log_line>& lines);
[[nodiscard]] report read_gpu_burn(const std::vector<log_line>& lines, run_source source);

[[nodiscard]] bool looks_like_dcgm_diag(const std::vector<log_line>& lines);
[[nodiscard]] report read_dcgm_diag(const std::vector<log_line>& lines, run_source source);

} // namespace gpuspec::reports::import::detail
