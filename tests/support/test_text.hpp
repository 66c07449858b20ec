#pragma once
// Small helpers many host tests share: one definition each, so that a unity batch of test
// files (cmake/GpuspecWarnings.cmake) never sees two.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace gpuspec::testing {

/// Whether `text` holds `part`.
inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// A whole file as bytes ("" when it cannot be read).
inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline constexpr std::int64_t gib = std::int64_t{1} << 30;

} // namespace gpuspec::testing
