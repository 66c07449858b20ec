// `dcgmi diag`'s text table (NVIDIA/DCGM, dcgmi/Diag.cpp's output) read into one result per test
// per GPU: DCGM's Pass, Fail, Skip or Warn with its own words (the Warning and Info rows under a
// test), and the NVLink states of `dcgmi nvlink --link-status` where the log holds them, so that
// the check's NVLink rule sees links DCGM's diag passed over (docs/import.md, "DCGM").
//
// The table is 80 columns: the test's name in the first cell, its result in the second, a long
// text wrapped over rows whose first cell is blank (cut mid-word at the cell's width).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>

#include <fmt/format.h>

#include "dcgm_diag.hpp"
#include "imported_report.hpp"
#include "readers.hpp"

namespace gpuspec::reports::inline import::detail {
namespace {

std::string slug(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0)
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!out.empty() && out.back() != '_')
      out += '_';
  }
  while (!out.empty() && out.back() == '_')
    out.pop_back();
  return out.empty() ? "unnamed" : out;
}

/// The two cells of a table row "| name | value |" (the closing '|' may be missing where a post
/// lost it); nullopt for a line that is not one.
std::optional<std::pair<std::string_view, std::string_view>> cells_of(std::string_view line) {
  if (!line.starts_with('|'))
    return std::nullopt;
  const auto bar = line.find('|', 1);
  if (bar == std::string_view::npos)
    return std::nullopt;
  auto value = line.substr(bar + 1);
  if (value.ends_with('|'))
    value.remove_suffix(1);
  return std::pair{line.substr(1, bar - 1), value};
}

/// "|-----  Deployment  ------+----|" or "+-----  Integration  ---+": the section's name.
std::optional<std::string> section_of(std::string_view line) {
  if (!(line.starts_with("|-----") || line.starts_with("+-----")))
    return std::nullopt;
  const auto body = trim_blanks(line.substr(1));
  const auto start = body.find_first_not_of('-');
  if (start == std::string_view::npos)
    return std::nullopt;
  const auto end = body.find('-', start);
  const auto name = trim_blanks(body.substr(start, end - start));
  if (name.empty() || name.find('+') != std::string_view::npos)
    return std::nullopt;
  return std::string(name);
}

const std::regex& status_word() {
  static const std::regex re(R"(^(?:GPU\s*(\d+)\s*:\s*)?(Pass|Fail|Skip|Warn)\b(.*)$)");
  return re;
}

/// "Pass", "Fail - All", "Pass - GPU: 1", "GPU0: Pass", "Fail - GPUs: 0, 1" into `t.result`;
/// false when the text holds no result.
int gpu_index(const std::string& text, std::size_t line) {
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0)
    throw log_error(line, fmt::format("GPU '{}' is not a GPU index", text));
  return v;
}

bool read_result(std::string_view text, dcgm_test& t, std::size_t line) {
  const std::string s(trim_blanks(text));
  std::smatch m;
  if (!std::regex_match(s, m, status_word()))
    return false;
  const std::string word = m[2].str();
  if (m[1].matched) {
    t.result[gpu_index(m[1].str(), line)] = word;
    return true;
  }
  static const std::regex gpus(R"(GPUs?\s*:\s*([0-9 ,]+))");
  std::smatch g;
  const std::string rest = m[3].str();
  if (std::regex_search(rest, g, gpus)) {
    static const std::regex index(R"(\d+)");
    const std::string list = g[1].str();
    for (auto it = std::sregex_iterator(list.begin(), list.end(), index);
         it != std::sregex_iterator(); ++it)
      t.result[gpu_index(it->str(), line)] = word;
  } else {
    t.result[-1] = word;
  }
  return true;
}

std::vector<std::uint32_t> device_ids_of(std::string_view text, std::size_t line) {
  std::vector<std::uint32_t> ids;
  std::string s(text);
  std::replace(s.begin(), s.end(), ',', ' ');
  for (const auto f : blank_fields(s)) {
    std::uint32_t v = 0;
    const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v, 16);
    if (ec != std::errc() || end != f.data() + f.size() || v > 0xffff)
      throw log_error(line, fmt::format("GPU Device IDs Detected holds '{}', not a PCI device id",
                                        std::string(f)));
    ids.push_back(v);
  }
  return ids;
}

parsed_diag parse_diag(const std::vector<log_line>& lines) {
  parsed_diag p;
  std::string section;
  int link_gpu = -1; ///< the gpuId whose link letters the next line holds; -1 for none
  enum class into { none, test, warning, info, metadata } last = into::none;
  std::string_view previous_chunk;
  for (const auto& l : lines) {
    const auto raw = l.text;
    const auto text = trim_blanks(raw);
    // dcgmi nvlink --link-status: "gpuId 0:" then its links' letters on the next line.
    if (text.starts_with("gpuId ") && text.ends_with(':')) {
      const auto id = trim_blanks(text.substr(6, text.size() - 7));
      int v = 0;
      const auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), v);
      link_gpu = ec == std::errc() && end == id.data() + id.size() && v >= 0 ? v : -1;
      continue;
    }
    if (link_gpu >= 0 && !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
          return c == ' ' || c == 'U' || c == 'D' || c == 'X' || c == '_';
        })) {
      std::string states;
      for (const char c : text)
        if (c != ' ')
          states += c;
      p.link_states[link_gpu] = states;
      link_gpu = -1;
      continue;
    }
    link_gpu = -1;
    if (text.starts_with('|') || text.starts_with('+'))
      // The table ends with a plain border ("+-----+-----+"); a post cut inside it does not.
      p.closed = text.starts_with('+') && text.find_first_not_of("+-") == std::string_view::npos;
    if (auto name = section_of(text)) {
      section = *name;
      p.table = true;
      last = into::none;
      continue;
    }
    if (text.starts_with("+---") || text.starts_with("+===")) {
      p.table = true;
      continue;
    }
    const auto cells = cells_of(text);
    if (!cells)
      continue;
    p.table = true;
    const auto name = trim_blanks(cells->first);
    const auto value = trim_blanks(cells->second);
    if (name == "Diagnostic" && value == "Result")
      continue;
    if (name.empty()) {
      // A wrapped row: more of the text above, or another GPU's result.
      if (last == into::test && read_result(value, p.tests.back(), l.number))
        continue;
      auto* target = last == into::warning ? &p.tests.back().warnings.back()
                     : last == into::info  ? &p.tests.back().info.back()
                                           : nullptr;
      if (target != nullptr) {
        // Cut at the cell's width: glued back as it was, with the blank that a short chunk
        // (ended by padding) lost.
        const bool full = previous_chunk.size() >= 46;
        *target += (full ? "" : " ") + std::string(value);
      }
      previous_chunk = cells->second.substr(cells->second.empty() ? 0 : 1);
      while (!previous_chunk.empty() && previous_chunk.back() == ' ' && previous_chunk.size() < 46)
        previous_chunk.remove_suffix(1);
      continue;
    }
    previous_chunk = cells->second.substr(cells->second.empty() ? 0 : 1);
    while (!previous_chunk.empty() && previous_chunk.back() == ' ' && previous_chunk.size() < 46)
      previous_chunk.remove_suffix(1);
    if (section == "Metadata") {
      last = into::metadata;
      if (name == "DCGM Version")
        p.version = std::string(value);
      else if (name == "Driver Version Detected")
        p.driver = std::string(value);
      else if (name == "GPU Device IDs Detected")
        p.device_ids = device_ids_of(value, l.number);
      continue;
    }
    if ((name == "Warning" || name == "Info") && !p.tests.empty()) {
      auto& t = p.tests.back();
      (name == "Warning" ? t.warnings : t.info).emplace_back(value);
      last = name == "Warning" ? into::warning : into::info;
      continue;
    }
    if (name == "Warning" || name == "Info") {
      last = into::none; // the fragment starts below the test it belongs to
      continue;
    }
    dcgm_test t;
    t.section = section;
    t.name = std::string(name);
    t.line = l.number;
    if (!read_result(value, t, l.number) && !value.empty())
      throw log_error(l.number, fmt::format("DCGM test '{}' has the result '{}', not Pass, Fail, "
                                            "Skip or Warn",
                                            t.name, std::string(value)));
    p.tests.push_back(std::move(t));
    last = into::test;
  }
  return p;
}

/// Whether `text` names "GPU <gpu>" as a whole index: "GPU 1" is not in "GPU 10" (a node of
/// more than ten GPUs would otherwise give GPU 1 the words DCGM gave GPU 10 to 19).
bool names_gpu(std::string_view text, int gpu) {
  const std::string tag = fmt::format("GPU {}", gpu);
  for (auto at = text.find(tag); at != std::string_view::npos; at = text.find(tag, at + 1)) {
    const auto after = at + tag.size();
    if (after == text.size() || std::isdigit(static_cast<unsigned char>(text[after])) == 0)
      return true;
  }
  return false;
}

/// The words DCGM gave this GPU: its lines naming "GPU <index>", else all of them.
std::string words_for(const std::vector<std::string>& texts, int gpu) {
  std::vector<std::string> mine;
  for (const auto& t : texts)
    if (names_gpu(t, gpu) || !names_a_gpu(t))
      mine.push_back(t);
  return fmt::format("{}", fmt::join(mine.empty() ? texts : mine, " | "));
}

} // namespace

bool names_a_gpu(std::string_view text) {
  for (auto at = text.find("GPU "); at != std::string_view::npos; at = text.find("GPU ", at + 1))
    if (at + 4 < text.size() && std::isdigit(static_cast<unsigned char>(text[at + 4])) != 0)
      return true;
  return false;
}

bool looks_like_dcgm_diag(const std::vector<log_line>& lines) {
  for (const auto& l : lines) {
    const auto text = trim_blanks(l.text);
    if (text.starts_with("dcgmi ") ||
        text.find("Successfully ran diagnostic") != std::string_view::npos ||
        (text.starts_with("|-----") && text.find("Deployment") != std::string_view::npos) ||
        (text.starts_with('+') && text.find("-----  Integration") != std::string_view::npos) ||
        (text.starts_with('+') && text.find("-----  Hardware") != std::string_view::npos) ||
        text.starts_with("| DCGM Version"))
      return true;
  }
  return false;
}

report dcgm_report(const parsed_diag& p, const std::vector<log_line>& lines, run_source source) {
  if (p.tests.empty() && p.link_states.empty())
    throw log_error(lines.empty() ? 0 : lines.back().number,
                    "a dcgmi diag log with no test result: nothing to judge");
  source.version = p.version.empty() ? "" : "DCGM " + p.version;
  if (p.version.empty())
    source.notes.push_back(p.json ? "the log does not state DCGM's version (no \"version\" key)"
                                  : "the log does not state DCGM's version (no Metadata section)");
  source.notes.push_back(fmt::format(
      "dcgmi diag's {} gives each test's Pass, Fail, Skip or Warn and its words, no figure: a "
      "test DCGM passed is a pass of DCGM's own test, a skipped one is inconclusive for that "
      "test",
      p.json ? "JSON (-j)" : "table"));
  source.notes.push_back("the log has no telemetry, no GPU names, serials or UUIDs: the GPUs "
                         "are known by index and PCI device id (Metadata) only");
  // A table without its closing border, or a JSON document not closed, was cut: the tests after
  // the cut are not known.
  source.truncated = p.json ? !p.closed : p.table && !p.closed;
  report r = imported_report(std::move(source));
  if (!p.driver.empty())
    r.host.driver_version = p.driver;
  // The GPUs: as many as the Metadata lists, else as the results and link states name.
  std::set<int> gpus;
  for (std::size_t i = 0; i < p.device_ids.size(); ++i)
    gpus.insert(static_cast<int>(i));
  for (const auto& t : p.tests)
    for (const auto& [gpu, word] : t.result)
      if (gpu >= 0)
        gpus.insert(gpu);
  for (const auto& [gpu, states] : p.link_states)
    gpus.insert(gpu);
  for (const int gpu : gpus) {
    device_info d;
    d.index = gpu;
    if (static_cast<std::size_t>(gpu) < p.device_ids.size())
      d.pci_device_id = p.device_ids[static_cast<std::size_t>(gpu)];
    if (const auto it = p.link_states.find(gpu); it != p.link_states.end()) {
      const auto& states = it->second;
      d.counters_after["nvlink.links_active"] =
          reading::of(static_cast<std::int64_t>(std::count(states.begin(), states.end(), 'U')));
      d.counters_after["nvlink.links_down"] =
          reading::of(static_cast<std::int64_t>(std::count(states.begin(), states.end(), 'D')));
    }
    r.devices.push_back(std::move(d));
    r.run.devices.push_back(gpu);
  }
  if (!p.link_states.empty())
    r.run.source->notes.push_back("dcgmi nvlink --link-status is in the log: each GPU's links "
                                  "marked U are its active NVLink links");
  for (const auto& t : p.tests) {
    std::vector<int> targets;
    if (t.result.contains(-1) || gpus.empty()) {
      targets.assign(gpus.begin(), gpus.end());
      if (targets.empty())
        targets.push_back(-1);
    }
    for (const auto& [gpu, word] : t.result)
      if (gpu >= 0 && std::find(targets.begin(), targets.end(), gpu) == targets.end())
        targets.push_back(gpu);
    for (const int gpu : targets) {
      const auto it = t.result.find(gpu);
      const std::string word =
          it != t.result.end() ? it->second
                               : (t.result.contains(-1) ? t.result.at(-1) : std::string("Skip"));
      auto res = imported_result("dcgm." + slug(t.section) + "." + slug(t.name), "result",
                                 metric_unit::none, 0, t.line, "DCGM");
      res.samples.clear();
      res.stats = {};
      if (gpu >= 0)
        res.devices = {gpu};
      auto& o = res.observations;
      o["dcgm_test"] = t.name;
      o["dcgm_section"] = t.section;
      o["dcgm_result"] = word;
      const std::string warnings = words_for(t.warnings, gpu);
      const std::string info = words_for(t.info, gpu);
      if (!warnings.empty())
        o["dcgm_warning"] = warnings;
      if (!info.empty())
        o["dcgm_info"] = info;
      if (const auto codes = t.error_ids.find(gpu); codes != t.error_ids.end())
        o["dcgm_error_codes"] = codes->second;
      const std::string said = warnings.empty() ? info : warnings;
      if (word == "Fail") {
        res.status = result_status::failed;
        res.failure = failure_kind::benchmark;
        res.reason = fmt::format("DCGM's {} test failed{}", t.name,
                                 said.empty() ? std::string() : ": " + said);
        res.check.detail = "DCGM: Fail";
      } else if (word == "Skip") {
        // Neither a pass nor a failure of that test: the check makes it inconclusive
        // (GPUSPEC-TOOL-TEST-SKIPPED), never a pass.
        res.status = result_status::skipped;
        res.reason = fmt::format("DCGM skipped its {} test{}: inconclusive for it", t.name,
                                 said.empty() ? std::string() : " (" + said + ")");
        o["tool_test_skipped"] = true;
      } else {
        res.check.status = verification_status::passed;
        res.check.detail = fmt::format("DCGM: {}{}", word, said.empty() ? "" : " (" + said + ")");
      }
      r.results.push_back(std::move(res));
    }
  }
  finish_report(r);
  return r;
}

namespace {

bool recognises_dcgm(const std::vector<log_line>& lines) {
  return looks_like_dcgm_json(lines) || looks_like_dcgm_diag(lines);
}

/// The table or, where the log holds dcgmi diag -j's document, the JSON.
report read_dcgm(const std::vector<log_line>& lines, run_source source) {
  return dcgm_report(looks_like_dcgm_json(lines) ? parse_dcgm_json(lines) : parse_diag(lines),
                     lines, std::move(source));
}

} // namespace

const log_reader dcgm_reader{"dcgm", recognises_dcgm, read_dcgm, true};

} // namespace gpuspec::reports::import::detail
