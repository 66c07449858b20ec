// The run's journal (journal.hpp): append-only JSON lines, and the report recovered from them.

#include "gpuspec/spine/journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuspec/reports/model/json_reader.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/spine/write_all.hpp"

namespace gpuspec::spine {
namespace {

using json = nlohmann::ordered_json;

json report_without_results(const reports::report& r) {
  reports::report head = r;
  head.results.clear();
  return reports::to_json(head);
}

std::string dump_line(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

} // namespace

std::filesystem::path journal_path_for(const std::filesystem::path& report) {
  std::filesystem::path p = report;
  p += ".journal";
  return p;
}

journal_writer::journal_writer(std::filesystem::path path, const reports::report& header)
    : m_path(std::move(path)) {
  m_fd = ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666);
  if (m_fd < 0)
    throw std::system_error(errno, std::generic_category(),
                            fmt::format("cannot create the journal {}", m_path.string()));
  write_line(
      dump_line(json{{"journal", journal_version}, {"report", report_without_results(header)}}));
}

journal_writer::~journal_writer() {
  if (m_fd >= 0)
    ::close(m_fd);
}

void journal_writer::write_line(const std::string& line) {
  // One write for the whole line where the kernel takes it (regular files: always, short of
  // a full disk), so a killed writer leaves at most the last line cut short.
  if (!write_all(m_fd, line))
    throw std::system_error(errno, std::generic_category(),
                            fmt::format("cannot write to the journal {}", m_path.string()));
}

void journal_writer::append(const journal_entry& entry) {
  json line{{"device", entry.device},
            {"case", entry.case_index},
            {"result", reports::result_to_json(entry.result)}};
  if (entry.node_wide)
    line["node_wide"] = true;
  write_line(dump_line(line));
}

void journal_writer::finish(const reports::report& finished) {
  write_line(dump_line(json{{"end", report_without_results(finished)}}));
}

void sort_into_report_order(std::vector<journal_entry>& entries, const std::vector<int>& devices) {
  const auto position = [&](int device) {
    const auto it = std::find(devices.begin(), devices.end(), device);
    return it == devices.end() ? devices.size() + static_cast<std::size_t>(device)
                               : static_cast<std::size_t>(it - devices.begin());
  };
  std::stable_sort(
      entries.begin(), entries.end(), [&](const journal_entry& a, const journal_entry& b) {
        if (a.node_wide != b.node_wide)
          return b.node_wide; // node-wide results after every one-GPU result
        const auto pa = position(a.device), pb = position(b.device);
        if (pa != pb)
          return pa < pb;
        // A partitioned GPU's instances one after the other, by their ids.
        const auto instance = [](const journal_entry& e) {
          return e.result.mig
                     ? std::pair{e.result.mig->gpu_instance_id, e.result.mig->compute_instance_id}
                     : std::pair{-1, -1};
        };
        const auto ia = instance(a), ib = instance(b);
        return ia != ib ? ia < ib : a.case_index < b.case_index;
      });
}

namespace {

// Every line is read with reports' one object reader (json_reader.hpp): an error names the
// line and the field path ("line 3: result.stats.median").
using reports::detail::element;
using reports::detail::fail;
using reports::detail::object_reader;
using reports::detail::presence;
using reports::detail::read_nested;
using reports::detail::to_json_value;

/// True when `text` is one JSON document with a gpuspec report's schema: the report given where
/// its journal was meant (`gpuspec run --recover report.json`).
bool is_a_report(const std::string& text) {
  const auto document = reports::detail::parse_json(text, "", "report");
  if (!document)
    return false;
  element schema;
  const element root = document.value().root();
  return root.is_object() && root.at_key("schema").get(schema) == simdjson::SUCCESS &&
         schema.is_string() && schema.get_string().value_unsafe().starts_with("gpuspec.report.");
}

/// The journal's lines (without their '\n'); `cut` when the last one has no '\n' (the writer
/// died inside it): it is dropped.
std::vector<std::string> split_lines(const std::string& text, bool& cut) {
  std::vector<std::string> lines;
  std::size_t begin = 0;
  cut = false;
  while (begin < text.size()) {
    const std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) {
      cut = true;
      break;
    }
    lines.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return lines;
}

constexpr std::array<std::string_view, 2> head_keys{"journal", "report"};
constexpr std::array<std::string_view, 1> end_keys{"end"};
constexpr std::array<std::string_view, 4> entry_keys{"device", "case", "result", "node_wide"};

/// A report without its results (the header's, the end line's), read by the report's own reader.
reports::report read_report_at(const object_reader& o, std::string_view key,
                               std::string_view name) {
  const std::string path = o.path_of(key);
  return read_nested(reports::report_from_json(to_json_value(o.at(key), path), name), path);
}

/// The header line: {"journal": version, "report": the report without its results}.
reports::report read_head(element root, std::string_view name) {
  element version;
  if (!root.is_object() || root.at_key("journal").get(version) != simdjson::SUCCESS ||
      !version.is_string() || version.get_string().value_unsafe() != journal_version)
    fail("",
         fmt::format("not a gpuspec journal (expected {{\"journal\": \"{}\", \"report\": ...}})",
                     journal_version));
  const object_reader o(root, "", head_keys, presence::optional_keys);
  return read_report_at(o, "report", name);
}

/// A line after the header: a result {"device", "case", "result"} and, for a node-wide case,
/// "node_wide": true; or the end line {"end": the finished report without its results}.
struct body_line {
  std::optional<journal_entry> entry;
  std::optional<reports::report> end;
};

body_line read_body(element root, std::string_view name) {
  body_line line;
  if (root.is_object() && root.at_key("end").error() == simdjson::SUCCESS) {
    const object_reader o(root, "", end_keys, presence::optional_keys);
    line.end = read_report_at(o, "end", name);
    return line;
  }
  const object_reader o(root, "", entry_keys, presence::optional_keys);
  journal_entry e;
  e.device = o.integer<int>("device");
  e.case_index = o.integer<int>("case");
  const std::string result = o.path_of("result");
  e.result = read_nested(reports::result_from_json(to_json_value(o.at("result"), result), name, ""),
                         result);
  if (o.find("node_wide")) {
    if (!o.boolean("node_wide"))
      fail(o.path_of("node_wide"), "expected true (a one-GPU result has no \"node_wide\")");
    e.node_wide = true;
  }
  line.entry = std::move(e);
  return line;
}

/// `error` of one line, its field under the line's name: "line 3: result.stats.median".
reports::input_error at_line(reports::input_error error, const std::string& where) {
  error.field = error.field.empty() ? where : where + ": " + error.field;
  return error;
}

/// The lines read in order: the header, results, and at most one end line, last.
std::optional<reports::input_error> read_lines(const std::vector<std::string>& lines,
                                               const std::string& name, journal_contents& out,
                                               std::vector<journal_entry>& entries) {
  std::optional<reports::report> end_report;
  std::set<std::string_view> seen; // result lines, byte for byte
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string where = fmt::format("line {}", i + 1);
    if (i > 0 && !seen.insert(lines[i]).second) {
      ++out.duplicate_lines; // the same line again: one result, kept once
      continue;
    }
    if (i == 0) {
      auto head = reports::detail::read_json_text(
          lines[i], name, "journal line", [&](element root) { return read_head(root, name); });
      if (!head)
        return at_line(head.error(), where);
      out.report = std::move(head).value();
      continue;
    }
    if (end_report)
      return reports::input_error{name, where, "a line after the end line"};
    auto line = reports::detail::read_json_text(
        lines[i], name, "journal line", [&](element root) { return read_body(root, name); });
    if (!line)
      return at_line(line.error(), where);
    if (line.value().end)
      end_report = std::move(line.value().end);
    else
      entries.push_back(std::move(*line.value().entry));
  }
  if (end_report) {
    out.report = std::move(*end_report);
    out.finished = true;
  }
  return std::nullopt;
}

} // namespace

namespace {
reports::outcome<journal_contents> read_journal_text(const std::filesystem::path& file,
                                                     std::ifstream& in, std::uintmax_t size);
} // namespace

reports::outcome<journal_contents> read_journal(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::ifstream in(file, std::ios::binary);
  if (!in)
    return reports::input_error{name, "", "cannot open the journal"};
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  try {
    return read_journal_text(file, in, ec ? 0 : size);
  } catch (const std::bad_alloc&) {
    // Said here, with the file and its size: out of memory inside the readers unwinds through
    // destructors that allocate (nlohmann's), which ends the process.
    return reports::input_error{
        name, "",
        fmt::format("too large to read in the memory this process may use ({:.1f} MiB)",
                    static_cast<double>(size) / (1 << 20))};
  }
}

namespace {

/// read_journal's work, on the journal opened as `in`, `size` bytes long when it was opened.
reports::outcome<journal_contents> read_journal_text(const std::filesystem::path& file,
                                                     std::ifstream& in, std::uintmax_t size) {
  const std::string name = file.string();
  std::string text;
  text.resize(size); // one allocation, and a bad_alloc now rather than deep in a copy
  in.read(text.data(), static_cast<std::streamsize>(size));
  text.resize(static_cast<std::size_t>(in.gcount()));
  std::ostringstream rest; // what was appended since the size was read
  if (in.good() || in.eof()) {
    in.clear();
    rest << in.rdbuf();
    text += rest.str();
  }
  if (text.empty())
    return reports::input_error{name, "", "empty: not a gpuspec journal"};
  if (is_a_report(text))
    return reports::input_error{
        name, "",
        fmt::format("not a gpuspec journal (this is a report: `gpuspec check` reads it; "
                    "--recover reads the journal a run leaves beside its report, {})",
                    journal_path_for(file.filename()).string())};

  journal_contents out;
  const std::vector<std::string> lines = split_lines(text, out.last_line_cut);
  std::vector<journal_entry> entries;
  if (auto bad = read_lines(lines, name, out, entries))
    return *bad;
  if (lines.empty())
    return reports::input_error{name, "line 1", "cut short: not a gpuspec journal"};
  sort_into_report_order(entries, out.report.run.devices);
  out.results = entries.size();
  out.report.results.clear();
  for (auto& e : entries)
    out.report.results.push_back(std::move(e.result));
  return out;
}

} // namespace

reports::outcome<reports::report> recover_report(const std::filesystem::path& journal,
                                                 std::size_t* duplicate_lines) {
  auto contents = read_journal(journal);
  if (!contents)
    return contents.error();
  journal_contents& c = contents.value();
  if (duplicate_lines != nullptr)
    *duplicate_lines = c.duplicate_lines;
  if (!c.finished) {
    c.report.complete = false;
    c.report.incomplete_reason = fmt::format(
        "recovered from the journal {}: the run stopped before it finished (the coordinator was "
        "killed or crashed); {} result(s) were journalled{}{}",
        journal.string(), c.results,
        c.last_line_cut ? ", and a last line cut short was dropped" : "",
        c.duplicate_lines > 0
            ? fmt::format(" ({} line(s) found twice were kept once)", c.duplicate_lines)
            : std::string());
  }
  return std::move(c.report);
}

} // namespace gpuspec::spine
