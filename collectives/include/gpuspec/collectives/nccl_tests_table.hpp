#pragma once
/// A report's collective results in nccl-tests' table layout, so that an operator can hold one
/// beside the other: for each collective and element type, a row per size with the
/// out-of-place then the in-place time (us), algbw and busbw (GB/s) and #wrong, in nccl-tests'
/// column widths and number formats (src/util.cu of NVIDIA/nccl-tests: writeResultHeader,
/// writeBenchmarkLinePreamble, writeBenchmarkLineBody, getFloatStr). CUDA-free.
///
/// A placement that did not run prints blank columns (as nccl-tests' null body); a failed or
/// skipped one is named in a comment line under the row, with its reason.

#include <string>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::collectives {

/// The tables of every collective.* result of `r`; a comment line when there is none.
[[nodiscard]] std::string render_nccl_tests_table(const reports::report& r);

/// nccl-tests' getFloatStr: `value` right-aligned in `width` columns with 2, 1 or 0 decimals,
/// whichever fits first, else in exponent form.
[[nodiscard]] std::string nccl_tests_number(double value, int width);

} // namespace gpuspec::collectives
