// The unit table (units.hpp): one entry per metric_unit, in the enum's order.

#include "gpuspec/reports/model/units.hpp"

#include <array>
#include <stdexcept>

namespace gpuspec::reports::inline model {
namespace {

using u = metric_unit;
using q = quantity;

constexpr std::array<unit_info, 17> units{{
    {u::none, "", q::none, 1},
    {u::bytes_per_second, "B/s", q::bytes_per_second, 1},
    {u::megabytes_per_second, "MB/s", q::bytes_per_second, 1e6},
    {u::gigabytes_per_second, "GB/s", q::bytes_per_second, 1e9},
    {u::terabytes_per_second, "TB/s", q::bytes_per_second, 1e12},
    {u::gibibytes_per_second, "GiB/s", q::bytes_per_second, 1073741824.0},
    {u::flop_per_second, "FLOP/s", q::flop_per_second, 1},
    {u::gigaflop_per_second, "GFLOP/s", q::flop_per_second, 1e9},
    {u::teraflop_per_second, "TFLOP/s", q::flop_per_second, 1e12},
    {u::petaflop_per_second, "PFLOP/s", q::flop_per_second, 1e15},
    {u::ops_per_second, "OP/s", q::ops_per_second, 1},
    {u::gigaops_per_second, "GOP/s", q::ops_per_second, 1e9},
    {u::teraops_per_second, "TOPS", q::ops_per_second, 1e12},
    {u::seconds, "s", q::seconds, 1},
    {u::milliseconds, "ms", q::seconds, 1e-3},
    {u::microseconds, "us", q::seconds, 1e-6},
    {u::nanoseconds, "ns", q::seconds, 1e-9},
}};

constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < units.size(); ++i)
    if (static_cast<std::size_t>(units[i].unit) != i)
      return false;
  return true;
}
static_assert(in_enum_order(), "the unit table follows metric_unit's order");

constexpr std::string_view symbols =
    "\"\", \"B/s\", \"MB/s\", \"GB/s\", \"TB/s\", \"GiB/s\", \"FLOP/s\", \"GFLOP/s\", \"TFLOP/s\", "
    "\"PFLOP/s\", \"OP/s\", \"GOP/s\", \"TOPS\", \"s\", \"ms\", \"us\", \"ns\"";

} // namespace

const unit_info& info_of(metric_unit unit) {
  const auto i = static_cast<std::size_t>(unit);
  if (i >= units.size())
    throw std::invalid_argument("metric_unit " + std::to_string(i) + " has no entry");
  return units[i];
}

std::string_view to_string(metric_unit unit) { return info_of(unit).symbol; }

std::optional<metric_unit> metric_unit_from_string(std::string_view symbol) {
  for (const auto& e : units)
    if (e.symbol == symbol)
      return e.unit;
  return std::nullopt;
}

std::string_view to_string(quantity measures) {
  switch (measures) {
  case quantity::bytes_per_second:
    return "bytes_per_second";
  case quantity::flop_per_second:
    return "flop_per_second";
  case quantity::ops_per_second:
    return "ops_per_second";
  case quantity::seconds:
    return "seconds";
  case quantity::none:
    break;
  }
  return "";
}

std::optional<double> conversion_factor(metric_unit from, metric_unit to) {
  const auto& a = info_of(from);
  const auto& b = info_of(to);
  const auto operations = [](quantity m) {
    return m == quantity::flop_per_second || m == quantity::ops_per_second;
  };
  if (a.measures == quantity::none || b.measures == quantity::none)
    return std::nullopt;
  if (a.measures != b.measures && !(operations(a.measures) && operations(b.measures)))
    return std::nullopt;
  return a.scale / b.scale;
}

std::string_view unit_symbols_text() { return symbols; }

} // namespace gpuspec::reports::model
