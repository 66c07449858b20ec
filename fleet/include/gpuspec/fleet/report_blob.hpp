#pragma once
/// The report a run keeps (`runs.report`, docs/fleet.md, "Schema"): its compact JSON as one zstd
/// frame (since schema version 2), about a twentieth of the text, which was four fifths of the
/// file. Every reader goes through stored_report, which also reads a version-1 row's plain text.
///
/// A frame is read as untrusted input: it must state its decompressed size, that size must be
/// at most max_report_bytes (a forged frame cannot make us allocate more), and it must decompress
/// to exactly that size; anything else is a db_error naming the database and the run.

#include <cstddef>
#include <string>
#include <string_view>

#include "gpuspec/fleet/sqlite.hpp"

namespace gpuspec::fleet {

/// The largest report a database stores or reads back (256 MiB of JSON: a report of the shipped
/// healthy 8-GPU node is 81 kB, so thousands of times that). Ingest refuses a larger report.
inline constexpr std::size_t max_report_bytes = std::size_t{256} << 20;

/// `json` as one zstd frame that records its size. Throws db_error only on a zstd failure.
[[nodiscard]] std::string compress_report(std::string_view json);

/// The text of a frame compress_report wrote; throws db_error "<where>: ..." for a frame that
/// is corrupt, does not state its size, or states more than max_report_bytes.
[[nodiscard]] std::string decompress_report(std::string_view frame, std::string_view where);

/// The stored report of run `run_id` as JSON text (a version-2 row's frame decompressed, a
/// version-1 row's text as it is). Throws db_error naming the file and the run when there is
/// no such run or its report cannot be read back.
[[nodiscard]] std::string stored_report(const connection& db, std::string_view run_id);

} // namespace gpuspec::fleet
