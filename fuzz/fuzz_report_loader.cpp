/// libFuzzer target for the report loader: reports::parse_report on arbitrary bytes.
///
/// The contract under test (report_json.hpp): bad input never crashes and never throws; it
/// returns an input_error naming the file. An exception escaping the loader is a bug, so it
/// aborts here and libFuzzer records the input as a crash. A report that loads must also
/// survive the writer: to_json_text never throws for it, its text loads again, and writing that
/// second load gives the same text (the writer's rules are a subset of the loader's).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "gpuspec/reports/model/report_json.hpp"

namespace {

[[noreturn]] void fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "fuzz_report_loader: %s: %.*s\n", what, static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

void check_report_text(std::string_view text) {
  namespace reports = gpuspec::reports;
  const auto loaded = reports::parse_report(text, "fuzz.json");
  if (!loaded) {
    if (loaded.error().file != "fuzz.json") {
      fail("the error does not name the file", loaded.error().to_string());
    }
    return;
  }
  const std::string written = reports::to_json_text(loaded.value());
  const auto reloaded = reports::parse_report(written, "written.json");
  if (!reloaded) {
    fail("a loaded report, once written, does not load again", reloaded.error().to_string());
  }
  if (reports::to_json_text(reloaded.value()) != written) {
    fail("writing a report loaded from its own text changes the text", written);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    check_report_text(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const std::exception& e) {
    fail("exception escaped (bad input must return an input_error)", e.what());
  } catch (...) {
    fail("exception escaped (bad input must return an input_error)", "not a std::exception");
  }
  return 0;
}
