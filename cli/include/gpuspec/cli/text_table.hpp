#pragma once
/// The CLI's tables are the reports' one renderer (reports/text_table.hpp).

#include "gpuspec/reports/model/text_table.hpp"

namespace gpuspec::cli {

using text_table = reports::text_table;

} // namespace gpuspec::cli
