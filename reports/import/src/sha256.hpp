#pragma once
// SHA-256 (FIPS 180-4) of a log's bytes, for run.source.sha256: the hash names the exact file a
// report was imported from. A small local implementation: the host core links no crypto library.
#include <string>
#include <string_view>

namespace gpuspec::reports::inline import::detail {

/// Lowercase hex, 64 characters.
[[nodiscard]] std::string sha256_hex(std::string_view bytes);

} // namespace gpuspec::reports::import::detail
