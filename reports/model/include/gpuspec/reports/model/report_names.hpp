#pragma once
/// Internal: the names a report writes for its enums and closed sets of strings, shared by its
/// writer and reader (report_json.hpp's to_string and *_from_string read them too).

#include <array>
#include <string_view>

#include "gpuspec/reports/model/json_reader.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::inline model::detail {

inline constexpr name_table<result_status, 4> result_status_names{{
    {result_status::ok, "ok"},
    {result_status::failed, "failed"},
    {result_status::skipped, "skipped"},
    {result_status::not_supported, "not_supported"},
}};
inline constexpr name_table<verification_status, 3> verification_status_names{{
    {verification_status::passed, "passed"},
    {verification_status::failed, "failed"},
    {verification_status::skipped, "skipped"},
}};
inline constexpr name_table<check_status, 4> check_status_names{{
    {check_status::pass, "pass"},
    {check_status::warn, "warn"},
    {check_status::fail, "fail"},
    {check_status::skipped, "skipped"},
}};
inline constexpr name_table<failure_kind, 8> failure_kind_names{{
    {failure_kind::none, "none"},
    {failure_kind::benchmark, "benchmark"},
    {failure_kind::verification, "verification"},
    {failure_kind::gpu_start, "gpu_start"},
    {failure_kind::worker_timeout, "worker_timeout"},
    {failure_kind::worker_signal, "worker_signal"},
    {failure_kind::worker_exit, "worker_exit"},
    {failure_kind::worker_protocol, "worker_protocol"},
}};
inline constexpr name_table<reference_kind, 3> reference_kind_names{{
    {reference_kind::none, "none"},
    {reference_kind::datasheet, "datasheet"},
    {reference_kind::clock_adjusted, "clock_adjusted"},
}};

inline constexpr std::array<std::string_view, 5> backends{"cuda", "stand-in", "none", "imported",
                                                          ""};
inline constexpr std::array<std::string_view, 3> cache_states{"cold", "hot", ""};
inline constexpr std::array<std::string_view, 4> gpu_event_types{"xid", "ecc_single_bit",
                                                                 "ecc_double_bit", "clock_change"};
inline constexpr std::array<std::string_view, 2> gpu_event_sources{"nvml", "kernel_log"};
inline constexpr std::array<std::string_view, 5> stop_reasons{"cv_target", "stalled", "time_cap",
                                                              "sample_cap", ""};

inline constexpr std::array<std::string_view, 7> pcie_paths{
    "internal", "single_switch", "multiple_switches", "host_bridge", "numa_node", "system", ""};
inline constexpr std::array<std::string_view, 3> transports{"nvlink", "pcie", ""};
inline constexpr std::array<std::string_view, 5> nvlink_remote_types{"gpu", "switch", "ibmnpu",
                                                                     "unknown", ""};

inline constexpr std::string_view not_supported_text = "not supported";
inline constexpr std::string_view unavailable_prefix = "unavailable: ";

/// "not supported", or "unavailable: <why>" with a non-empty single-line why (the schema's
/// pattern ^(not supported|unavailable: [^\r\n]+)$).
[[nodiscard]] bool is_reading_status(std::string_view s);

/// "0x" and 16 lower-case hex digits: a burn-in checksum or memory word (the schema's pattern
/// ^0x[0-9a-f]{16}$).
[[nodiscard]] bool is_hex_word(std::string_view s);

/// The name of `value` in `table`; throws std::invalid_argument for a value it lacks (a bug).
template <class E, std::size_t N> std::string_view name_of(const name_table<E, N>& table, E value);

} // namespace gpuspec::reports::model::detail
