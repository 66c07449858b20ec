#pragma once
/// The collectives gpuspec measures and the element types they move. CUDA-free: the table
/// renderer and the judge read these, as well as the benchmarks.
///
/// Names follow nccl-tests where an operator will look for them: the bench id's last part is
/// nccl-tests' binary name without "_perf" (all_reduce_perf -> collective.all_reduce), and the
/// type names in the table are nccl-tests' (src/common.cu, test_typenames: "float", "half",
/// "bfloat16").

#include <optional>
#include <string_view>

namespace gpuspec::collectives {

enum class collective_kind {
  all_reduce,
  all_gather,
  reduce_scatter,
  broadcast,
  reduce,
  alltoall,
  sendrecv,
};

/// Every kind, in the order `gpuspec list` and the table show them.
inline constexpr collective_kind all_collective_kinds[] = {
    collective_kind::all_reduce, collective_kind::all_gather, collective_kind::reduce_scatter,
    collective_kind::broadcast,  collective_kind::reduce,     collective_kind::alltoall,
    collective_kind::sendrecv};

/// "all_reduce", ... (the bench id's last part).
[[nodiscard]] std::string_view collective_name(collective_kind kind);
/// The inverse of collective_name; nullopt for any other text.
[[nodiscard]] std::optional<collective_kind> parse_collective(std::string_view name);

/// True for the collectives that combine values (all-reduce, reduce-scatter, reduce; and
/// sendrecv, which nccl-tests runs with a redop it never applies): they take a `redop`.
/// nccl-tests prints "none" for the others (all_gather.cu, alltoall.cu, broadcast.cu).
[[nodiscard]] bool has_reduction(collective_kind kind);
/// True for the rooted collectives (broadcast, reduce); nccl-tests prints root -1 for the
/// others and the root rank (0 by default, `-r`) for these.
[[nodiscard]] bool has_root(collective_kind kind);

/// The element types of the `dtype` axis: the sums are exact in each (expected_values.hpp).
enum class element_type { fp32, fp16, bf16 };

/// "fp32", "fp16", "bf16" (the axis values).
[[nodiscard]] std::string_view element_type_name(element_type type);
/// The inverse of element_type_name; nullopt for any other text.
[[nodiscard]] std::optional<element_type> parse_element_type(std::string_view name);
/// nccl-tests' name of the type ("float", "half", "bfloat16").
[[nodiscard]] std::string_view nccl_tests_type_name(element_type type);
/// Bytes per element: 4 or 2.
[[nodiscard]] int element_size(element_type type);

} // namespace gpuspec::collectives
