#include "gpuspec/collectives/collective_kind.hpp"

#include <stdexcept>
#include <string>

namespace gpuspec::collectives {

const collective_row& collective_of(collective_kind kind) {
  for (const collective_row& row : collective_table)
    if (row.kind == kind)
      return row;
  throw std::invalid_argument("collective kind " + std::to_string(static_cast<int>(kind)) +
                              " has no row in collective_table");
}

std::string_view collective_name(collective_kind kind) { return collective_of(kind).name; }

std::optional<collective_kind> parse_collective(std::string_view name) {
  for (const collective_row& row : collective_table)
    if (row.name == name)
      return row.kind;
  return std::nullopt;
}

bool has_reduction(collective_kind kind) { return collective_of(kind).takes_redop; }

bool has_root(collective_kind kind) { return collective_of(kind).rooted; }

std::string_view element_type_name(element_type type) {
  switch (type) {
  case element_type::fp32:
    return "fp32";
  case element_type::fp16:
    return "fp16";
  case element_type::bf16:
    return "bf16";
  }
  return "unknown";
}

std::optional<element_type> parse_element_type(std::string_view name) {
  for (element_type t : {element_type::fp32, element_type::fp16, element_type::bf16})
    if (element_type_name(t) == name)
      return t;
  return std::nullopt;
}

std::string_view nccl_tests_type_name(element_type type) {
  switch (type) {
  case element_type::fp32:
    return "float";
  case element_type::fp16:
    return "half";
  case element_type::bf16:
    return "bfloat16";
  }
  return "unknown";
}

int element_size(element_type type) { return type == element_type::fp32 ? 4 : 2; }

} // namespace gpuspec::collectives
