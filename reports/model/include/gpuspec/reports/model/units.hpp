#pragma once
/// The units of results (report.hpp's metric_unit): each one's symbol, as reports write it, its
/// quantity and its scale to the quantity's base unit. One table, read by the report's reader
/// and writer, the check, diff, compare and the printers.

#include <optional>
#include <string_view>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::inline model {

/// What a unit measures; the name is the base unit, as Prometheus spells it.
enum class quantity { none, bytes_per_second, flop_per_second, ops_per_second, seconds };

struct unit_info {
  metric_unit unit = metric_unit::none;
  std::string_view symbol; ///< as written in a report: "GB/s"
  quantity measures = quantity::none;
  double scale = 1; ///< to the base unit: 1e9 for GB/s
};

[[nodiscard]] const unit_info& info_of(metric_unit u);
/// "GB/s"; "" for none.
[[nodiscard]] std::string_view to_string(metric_unit u);
/// The unit whose symbol is `symbol`; nullopt for any other text.
[[nodiscard]] std::optional<metric_unit> metric_unit_from_string(std::string_view symbol);
/// "bytes_per_second", "flop_per_second", "ops_per_second", "seconds"; "" for none.
[[nodiscard]] std::string_view to_string(quantity q);

/// The factor that turns a value in `from` into one in `to`; nullopt when they measure different
/// things. Integer operations and floating-point operations convert into each other (an int8
/// Tensor Core rate is sometimes written in FLOP/s-style units).
[[nodiscard]] std::optional<double> conversion_factor(metric_unit from, metric_unit to);

/// The symbols of every unit, in the enum's order, for messages and the schema.
[[nodiscard]] std::string_view unit_symbols_text();

} // namespace gpuspec::reports::model
