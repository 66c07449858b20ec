/// libFuzzer target for the importers of foreign logs (reports/import): import_log on arbitrary
/// bytes read as GPUSPEC_FUZZ_TOOL's log ("nccl-tests", "gpu-burn", "dcgm"), compiled once per
/// tool (fuzz/CMakeLists.txt); once more with recognition (GPUSPEC_FUZZ_TOOL ""); and once with
/// the reader picked by the input's first byte (GPUSPEC_FUZZ_TOOL "*": byte % the number of
/// readers, in readers.hpp's order), which covers every other reader (nvbandwidth, the CUDA
/// samples, BabelStream, ...) in one target, so CI's fuzzing time does not grow per reader.
///
/// The contract under test (import.hpp): an unknown or mangled log never crashes and never
/// throws; it returns an input_error naming the file, and the line where there is one. A log
/// that imports is a report like ours: its text loads again through the report loader (so it
/// holds to the schema's rules the loader checks), and writing it again gives the same text.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "gpuspec/reports/import/import.hpp"
#include "gpuspec/reports/model/report_json.hpp"

namespace {

[[noreturn]] void fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "fuzz_import_log (%s): %s: %.*s\n", GPUSPEC_FUZZ_TOOL, what,
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

void check_log_text(std::string_view text) {
  namespace reports = gpuspec::reports;
  const std::string_view name = GPUSPEC_FUZZ_TOOL;
  std::optional<reports::foreign_tool> tool;
  if (name == "*") {
    if (text.empty())
      return;
    const auto names = reports::tool_names();
    tool = reports::tool_from_name(names[static_cast<unsigned char>(text[0]) % names.size()]);
    text.remove_prefix(1);
  } else if (!name.empty()) {
    tool = reports::tool_from_name(name);
    if (!tool)
      fail("no such tool", name);
  }
  const auto imported = reports::import_log(text, "fuzz.log", tool);
  if (!imported) {
    const auto& e = imported.error();
    if (e.file != "fuzz.log")
      fail("the error does not name the file", e.to_string());
    if (!e.field.empty() && !e.field.starts_with("line "))
      fail("the error names no line", e.to_string());
    return;
  }
  const std::string written = reports::to_json_text(imported.value());
  const auto reloaded = reports::parse_report(written, "imported.json");
  if (!reloaded)
    fail("an imported report, once written, does not load", reloaded.error().to_string());
  if (reports::to_json_text(reloaded.value()) != written)
    fail("writing an imported report loaded from its own text changes the text", written);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    check_log_text(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const std::exception& e) {
    fail("exception escaped (bad input must return an input_error)", e.what());
  } catch (...) {
    fail("exception escaped (bad input must return an input_error)", "not a std::exception");
  }
  return 0;
}
