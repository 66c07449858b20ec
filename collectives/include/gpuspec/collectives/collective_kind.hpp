#pragma once
/// The collectives gpuspec measures, as one table: a row per collective holds everything the
/// code needs to know about it (its name, root, reduction, in-place rule, the NCCL call that runs
/// it, the counts of its buffers, nccl-tests' bus factor, the exact values its output must hold,
/// and how NCCL's log names it). Every place that treats collectives differently reads a column
/// of the row; nothing else switches on the collective. Adding a collective is adding an
/// enumerator and a row here (and a line of docs/collectives.md); a collective whose NCCL call,
/// counts or expected values are not one of the shapes below also adds that shape where it is
/// used (collective_driver.cpp's enqueue, collective_sizes.cpp, expected_values.hpp). CUDA-free:
/// the table renderer and the judge read these, as well as the benchmarks. Device code is given
/// the column it needs (a value_rule), never the table.
///
/// Names follow nccl-tests where an operator will look for them: the bench id's last part is
/// nccl-tests' binary name without "_perf" (all_reduce_perf -> collective.all_reduce), and the
/// type names in the table are nccl-tests' (src/common.cu, test_typenames: "float", "half",
/// "bfloat16").

#include <cstddef>
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

/// What the buffers of one call hold for a nccl-tests size of `count` elements over n ranks
/// (nccl-tests' GetCollByteCount; collective_sizes.cpp). `chunk` is count / n, rounded down to
/// 16 bytes.
enum class count_shape {
  whole,    ///< send = receive = the call's count = count
  gather,   ///< send one chunk, receive n chunks, count = chunk; in place at rank r's chunk
  scatter,  ///< send n chunks, receive one chunk, count = chunk; in place at rank r's chunk
  exchange, ///< send and receive n chunks, count = chunk
};

/// nccl-tests' busbw / algbw over n ranks (each collective's GetBw; bandwidth.cpp).
enum class bus_shape {
  twice_ring, ///< 2(n-1)/n
  ring,       ///< (n-1)/n
  one,        ///< 1
};

/// What element i of rank r's output must hold (expected_values.hpp).
enum class value_rule {
  sum_all,         ///< the sum of every rank's element i
  sum_at_root,     ///< that sum on the root; nothing defined elsewhere
  sum_own_chunk,   ///< the sum of every rank's element i of chunk r
  gather_chunks,   ///< chunk k is rank k's input
  exchange_chunks, ///< chunk k is chunk r of rank k's input
  from_root,       ///< the root's element i
  from_previous,   ///< rank r-1's element i (nccl-tests' sendrecv ring)
};

/// The NCCL calls one rank makes for one call of the collective (collective_driver.cpp's
/// enqueue; every entry point is in nccl_library.hpp's table).
enum class nccl_call {
  all_reduce,     ///< ncclAllReduce, sum
  all_gather,     ///< ncclAllGather
  reduce_scatter, ///< ncclReduceScatter, sum
  broadcast,      ///< ncclBroadcast from the root
  reduce,         ///< ncclReduce, sum, to the root
  /// ncclSend and ncclRecv of chunk p with every rank p, in one group (every NCCL since 2.7 has
  /// them; ncclAlltoAll is 2.28's)
  send_recv_each,
  send_recv_ring, ///< ncclSend to rank r+1, ncclRecv from rank r-1
};

/// One collective: everything about it that differs from another.
struct collective_row {
  collective_kind kind;
  std::string_view name;          ///< the bench id's last part ("all_reduce")
  std::string_view nccl_function; ///< NCCL's name of the call in its tuning log ("AllReduce")
  /// NCCL logs an algorithm and protocol for the call (point-to-point calls print none).
  bool logs_choice;
  /// Rooted (broadcast, reduce): nccl-tests prints the root rank (0 by default, `-r`), else -1.
  bool rooted;
  /// Takes a redop, printed "sum" (sendrecv too: nccl-tests runs it with a redop it never
  /// applies); nccl-tests prints "none" for the others (all_gather.cu, alltoall.cu, ...).
  bool takes_redop;
  /// In place over several ranks is defined (alltoall and sendrecv would read a buffer while it
  /// is overwritten).
  bool in_place_over_ranks;
  /// The switch's reduction (NVLink SHARP) can carry it, so its busbw may reach the bus factor
  /// x the link (collective_ceiling.hpp).
  bool switch_reduces;
  count_shape counts;
  bus_shape bus;
  value_rule values;
  nccl_call call;
};

/// Every collective, in the order `gpuspec list` and the table show them.
inline constexpr collective_row collective_table[] = {
    {.kind = collective_kind::all_reduce,
     .name = "all_reduce",
     .nccl_function = "AllReduce",
     .logs_choice = true,
     .rooted = false,
     .takes_redop = true,
     .in_place_over_ranks = true,
     .switch_reduces = true,
     .counts = count_shape::whole,
     .bus = bus_shape::twice_ring,
     .values = value_rule::sum_all,
     .call = nccl_call::all_reduce},
    {.kind = collective_kind::all_gather,
     .name = "all_gather",
     .nccl_function = "AllGather",
     .logs_choice = true,
     .rooted = false,
     .takes_redop = false,
     .in_place_over_ranks = true,
     .switch_reduces = false,
     .counts = count_shape::gather,
     .bus = bus_shape::ring,
     .values = value_rule::gather_chunks,
     .call = nccl_call::all_gather},
    {.kind = collective_kind::reduce_scatter,
     .name = "reduce_scatter",
     .nccl_function = "ReduceScatter",
     .logs_choice = true,
     .rooted = false,
     .takes_redop = true,
     .in_place_over_ranks = true,
     .switch_reduces = false,
     .counts = count_shape::scatter,
     .bus = bus_shape::ring,
     .values = value_rule::sum_own_chunk,
     .call = nccl_call::reduce_scatter},
    {.kind = collective_kind::broadcast,
     .name = "broadcast",
     .nccl_function = "Broadcast",
     .logs_choice = true,
     .rooted = true,
     .takes_redop = false,
     .in_place_over_ranks = true,
     .switch_reduces = false,
     .counts = count_shape::whole,
     .bus = bus_shape::one,
     .values = value_rule::from_root,
     .call = nccl_call::broadcast},
    {.kind = collective_kind::reduce,
     .name = "reduce",
     .nccl_function = "Reduce",
     .logs_choice = true,
     .rooted = true,
     .takes_redop = true,
     .in_place_over_ranks = true,
     .switch_reduces = false,
     .counts = count_shape::whole,
     .bus = bus_shape::one,
     .values = value_rule::sum_at_root,
     .call = nccl_call::reduce},
    {.kind = collective_kind::alltoall,
     .name = "alltoall",
     .nccl_function = "SendRecv",
     .logs_choice = false,
     .rooted = false,
     .takes_redop = false,
     .in_place_over_ranks = false,
     .switch_reduces = false,
     .counts = count_shape::exchange,
     .bus = bus_shape::ring,
     .values = value_rule::exchange_chunks,
     .call = nccl_call::send_recv_each},
    {.kind = collective_kind::sendrecv,
     .name = "sendrecv",
     .nccl_function = "SendRecv",
     .logs_choice = false,
     .rooted = false,
     .takes_redop = true,
     .in_place_over_ranks = false,
     .switch_reduces = false,
     .counts = count_shape::whole,
     .bus = bus_shape::one,
     .values = value_rule::from_previous,
     .call = nccl_call::send_recv_ring},
};

/// The number of collectives.
inline constexpr std::size_t collective_count = std::size(collective_table);

/// The row of `kind`. Every kind has one (a test holds the table to the enumeration).
[[nodiscard]] const collective_row& collective_of(collective_kind kind);

/// Every kind, in the table's order.
struct collective_kinds {
  struct iterator {
    const collective_row* row;
    collective_kind operator*() const { return row->kind; }
    iterator& operator++() {
      ++row;
      return *this;
    }
    bool operator!=(const iterator& o) const { return row != o.row; }
  };
  [[nodiscard]] iterator begin() const { return {collective_table}; }
  [[nodiscard]] iterator end() const { return {collective_table + collective_count}; }
};
inline constexpr collective_kinds all_collective_kinds{};

/// "all_reduce", ... (the bench id's last part).
[[nodiscard]] std::string_view collective_name(collective_kind kind);
/// The inverse of collective_name; nullopt for any other text.
[[nodiscard]] std::optional<collective_kind> parse_collective(std::string_view name);

/// The row's takes_redop: the collective takes a `redop` (nccl-tests prints "sum").
[[nodiscard]] bool has_reduction(collective_kind kind);
/// The row's rooted: nccl-tests prints the root rank for it, -1 for the others.
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
