#include "gpuspec/collectives/collective_kind.hpp"

namespace gpuspec::collectives {

std::string_view collective_name(collective_kind kind) {
  switch (kind) {
  case collective_kind::all_reduce:
    return "all_reduce";
  case collective_kind::all_gather:
    return "all_gather";
  case collective_kind::reduce_scatter:
    return "reduce_scatter";
  case collective_kind::broadcast:
    return "broadcast";
  case collective_kind::reduce:
    return "reduce";
  case collective_kind::alltoall:
    return "alltoall";
  case collective_kind::sendrecv:
    return "sendrecv";
  }
  return "unknown";
}

std::optional<collective_kind> parse_collective(std::string_view name) {
  for (collective_kind kind : all_collective_kinds)
    if (collective_name(kind) == name)
      return kind;
  return std::nullopt;
}

bool has_reduction(collective_kind kind) {
  return kind == collective_kind::all_reduce || kind == collective_kind::reduce_scatter ||
         kind == collective_kind::reduce || kind == collective_kind::sendrecv;
}

bool has_root(collective_kind kind) {
  return kind == collective_kind::broadcast || kind == collective_kind::reduce;
}

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
