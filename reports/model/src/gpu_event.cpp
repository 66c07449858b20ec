// The event types' names (gpu_event.hpp), the words the report writes.

#include "gpuspec/reports/model/gpu_event.hpp"

#include <array>
#include <utility>

namespace gpuspec::reports::inline model {
namespace {

constexpr std::array<std::pair<gpu_event_type, std::string_view>, 4> names = {{
    {gpu_event_type::xid, "xid"},
    {gpu_event_type::ecc_single_bit, "ecc_single_bit"},
    {gpu_event_type::ecc_double_bit, "ecc_double_bit"},
    {gpu_event_type::clock_change, "clock_change"},
}};

} // namespace

std::string_view to_string(gpu_event_type t) {
  for (const auto& [type, name] : names)
    if (type == t)
      return name;
  return "unknown";
}

std::optional<gpu_event_type> gpu_event_type_from(std::string_view name) {
  for (const auto& [type, word] : names)
    if (word == name)
      return type;
  return std::nullopt;
}

} // namespace gpuspec::reports::model
