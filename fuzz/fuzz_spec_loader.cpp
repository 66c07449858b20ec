/// libFuzzer target for the spec-table loader: reports::parse_spec_table_text on arbitrary
/// bytes (load_spec_table after reading the file: JSON, duplicate keys, then parse_spec_table).
///
/// The contract under test (spec_table.hpp): bad input never crashes and never throws; it
/// returns an input_error naming the file. An exception escaping the loader is a bug, so it
/// aborts here and libFuzzer records the input as a crash. A table that loads must be usable:
/// every row is found by its id (ids are unique).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

#include "gpuspec/reports/model/spec_table.hpp"

namespace {

[[noreturn]] void fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "fuzz_spec_loader: %s: %.*s\n", what, static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

void check_spec_text(std::string_view text) {
  namespace reports = gpuspec::reports;
  const auto loaded = reports::parse_spec_table_text(text, "gpus.json");
  if (!loaded) {
    if (loaded.error().file != "gpus.json") {
      fail("the error does not name the file", loaded.error().to_string());
    }
    return;
  }
  for (const auto& row : loaded.value().rows) {
    if (loaded.value().find(row.id) != &row) {
      fail("a loaded row is not found by its id", row.id);
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    check_spec_text(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const std::exception& e) {
    fail("exception escaped (bad input must return an input_error)", e.what());
  } catch (...) {
    fail("exception escaped (bad input must return an input_error)", "not a std::exception");
  }
  return 0;
}
