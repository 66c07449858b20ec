// nvbandwidth's output (NVIDIA/nvbandwidth: its version and device list, then per testcase
// "Running <testcase>.", a matrix titled by engine and direction, and "SUM <testcase> <GB/s>")
// read into results shaped as our own transfers (benches/families/transfer.cpp, transfer_p2p.cpp):
// host <-> GPU copies as transfer.h2d / .d2h (pinned, copy_engine or sm) held to the GPU's PCIe
// link, peer copies as transfer.p2p per ordered pair, so the check's transfer rules judge them
// (docs/import.md, "nvbandwidth"). A testcase with no gpuspec counterpart keeps its SUM and
// matrix, reported and not judged.
#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "imported_report.hpp"
#include "readers.hpp"

namespace gpuspec::reports::inline import::detail {
namespace {

constexpr std::string_view k_nvbandwidth = "nvbandwidth";

/// One testcase as the log holds it: its matrix (rows of cells, nullopt for "N/A"), the line
/// of each row, its SUM, and the lines that say it did not finish (an ASSERT, a waiver).
struct nvb_testcase {
  std::string name, title;
  std::size_t line = 0;
  std::vector<int> columns;
  std::map<int, std::vector<std::optional<double>>> rows;
  std::map<int, std::size_t> row_lines;
  std::optional<double> sum;
  std::vector<std::string> trouble;
  bool header_seen = false;
};

struct nvb_log {
  std::string version, driver, cuda_runtime;
  std::map<int, std::pair<std::string, std::string>> devices; ///< index -> name, bus id
  std::optional<long long> buffer_mib;
  std::vector<nvb_testcase> testcases;
};

/// "Device 0: NVIDIA A100-SXM4-40GB (00000000:99:00)": the bus id is printed from v0.8 on.
void read_device(std::string_view text, nvb_log& p) {
  const auto colon = text.find(':');
  const auto index = integer_of(trim_blanks(text.substr(7, colon - 7)));
  if (colon == std::string_view::npos || !index || *index < 0 || *index > 4096)
    return;
  auto name = trim_blanks(text.substr(colon + 1));
  std::string bus;
  if (name.ends_with(')') && name.rfind(" (") != std::string_view::npos) {
    const auto open = name.rfind(" (");
    bus = std::string(name.substr(open + 2, name.size() - open - 3));
    name = trim_blanks(name.substr(0, open));
  }
  p.devices[static_cast<int>(*index)] = {std::string(name), bus};
}

/// The buffer size of an nvbandwidth command line in the log ("-b 512", "--bufferSize=1024").
void read_command(std::string_view text, nvb_log& p) {
  const auto f = blank_fields(text.substr(text.find("nvbandwidth")));
  for (std::size_t i = 0; i < f.size(); ++i) {
    std::string_view value;
    if ((f[i] == "-b" || f[i] == "--bufferSize") && i + 1 < f.size())
      value = f[i + 1];
    else if (f[i].starts_with("--bufferSize="))
      value = f[i].substr(13);
    if (const auto mib = integer_of(value); mib && *mib > 0 && *mib < (1LL << 30))
      p.buffer_mib = *mib;
  }
}

/// A matrix line of `t`: the column header first, then rows "r  v v N/A v".
bool read_matrix_line(const log_line& l, std::string_view text, nvb_testcase& t) {
  const auto f = blank_fields(text);
  if (f.empty() || !integer_of(f[0]))
    return false;
  if (!t.header_seen) {
    for (const auto c : f) {
      const auto v = integer_of(c);
      if (!v || *v < 0 || *v > 4096)
        throw log_error(l.number, fmt::format("the {} matrix's header holds '{}', not a device "
                                              "index",
                                              t.name, c));
      t.columns.push_back(static_cast<int>(*v));
    }
    t.header_seen = true;
    return true;
  }
  if (f.size() != t.columns.size() + 1)
    throw log_error(l.number, fmt::format("a row of the {} matrix with {} cells where its header "
                                          "names {} columns",
                                          t.name, f.size() - 1, t.columns.size()));
  const auto row = *integer_of(f[0]);
  if (row < 0 || row > 4096)
    throw log_error(l.number, fmt::format("row {} is not a device index", f[0]));
  std::vector<std::optional<double>> cells;
  for (std::size_t i = 1; i < f.size(); ++i) {
    const auto v = number_of(f[i]);
    if (!v && f[i] != "N/A")
      throw log_error(
          l.number, fmt::format("'{}' in the {} matrix is neither a figure nor N/A", f[i], t.name));
    cells.push_back(v);
  }
  t.rows[static_cast<int>(row)] = std::move(cells);
  t.row_lines[static_cast<int>(row)] = l.number;
  return true;
}

nvb_log parse_nvbandwidth(const std::vector<log_line>& lines) {
  nvb_log p;
  for (const auto& l : lines) {
    // Quoted posts carry markdown's "> " before a line; nvbandwidth writes none.
    auto text = trim_blanks(l.text);
    while (text.starts_with('>'))
      text = trim_blanks(text.substr(1));
    nvb_testcase* t = p.testcases.empty() ? nullptr : &p.testcases.back();
    if (text.starts_with("nvbandwidth Version:")) {
      p.version = std::string(trim_blanks(text.substr(20)));
    } else if (text.starts_with("Driver Version:")) {
      p.driver = std::string(trim_blanks(text.substr(15)));
    } else if (text.starts_with("CUDA Runtime Version:")) {
      p.cuda_runtime = std::string(trim_blanks(text.substr(21)));
    } else if (text.starts_with("Device ") && text.find(':') != std::string_view::npos &&
               p.testcases.empty()) {
      read_device(text, p);
    } else if (text.find("nvbandwidth") != std::string_view::npos &&
               (text.find(" -") != std::string_view::npos)) {
      read_command(text, p);
    } else if (text.starts_with("Running ") && text.ends_with('.')) {
      nvb_testcase next;
      next.name = std::string(trim_blanks(text.substr(8, text.size() - 9)));
      next.line = l.number;
      p.testcases.push_back(std::move(next));
    } else if (text.starts_with("SUM ")) {
      const auto f = blank_fields(text);
      if (f.size() != 3 || !number_of(f[2]))
        throw log_error(l.number, "a SUM line that is not \"SUM <testcase> <figure>\"");
      if (t != nullptr && t->name.empty())
        t->name = std::string(f[1]); // a matrix posted without its "Running" line
      if (t == nullptr || t->name != f[1])
        throw log_error(l.number,
                        fmt::format("SUM of {} where no \"Running {}.\" came before", f[1], f[1]));
      t->sum = number_of(f[2]);
    } else if (text.find("(GB/s)") != std::string_view::npos ||
               text.find("(ns)") != std::string_view::npos) {
      if (t == nullptr || t->sum || !t->title.empty()) {
        // A matrix whose "Running" line the post left out: named by its SUM line.
        p.testcases.emplace_back();
        t = &p.testcases.back();
        t->line = l.number;
      }
      t->title = std::string(text);
    } else if (t != nullptr && !t->sum && !t->title.empty() && read_matrix_line(l, text, *t)) {
    } else if (t != nullptr && !t->sum && !text.empty() && !text.starts_with("NOTE") &&
               (text.find("ASSERT") != std::string_view::npos ||
                text.find("Waived") != std::string_view::npos ||
                text.find("rror") != std::string_view::npos ||
                text.find("Invalid") != std::string_view::npos)) {
      t->trouble.emplace_back(text);
    }
  }
  return p;
}

/// How the title reads a cell: row to column ("->"), column to row ("<-"), both ("<->").
enum class nvb_arrow { row_to_column, column_to_row, both };

nvb_arrow arrow_of(const nvb_testcase& t) {
  if (t.title.find("<->") != std::string::npos)
    return nvb_arrow::both;
  if (t.title.find("<-") != std::string::npos)
    return nvb_arrow::column_to_row;
  return nvb_arrow::row_to_column;
}

/// Which of our benchmarks a testcase is: transfer.h2d/.d2h/.p2p with its engine and
/// direction, or nothing ("" bench id) for a testcase we have no counterpart of.
struct nvb_mapping {
  std::string bench_id, engine;
  bool both_ways = false;
};

nvb_mapping mapping_of(std::string_view name) {
  nvb_mapping m;
  const bool ce = name.ends_with("_ce");
  const bool sm = name.ends_with("_sm");
  if (!ce && !sm)
    return m;
  const bool both = name.find("bidirectional") != std::string_view::npos;
  if (name.starts_with("host_to_device_") || name.starts_with("device_to_host_")) {
    if (both)
      return m; // one direction while the other runs: summed into transfer.bidir below
    m.bench_id = name.starts_with("host_") ? "transfer.h2d" : "transfer.d2h";
    m.engine = ce ? "copy_engine" : "sm";
  } else if (name.starts_with("device_to_device_")) {
    m.bench_id = "transfer.p2p";
    m.engine = ce ? "ce" : "sm";
    m.both_ways = both;
  }
  return m;
}

struct nvb_context {
  const nvb_log& log;
  std::string size;
  report& r;
};

result transfer_result(const nvb_context& c, const nvb_testcase& t, const std::string& bench_id,
                       double figure, std::size_t line) {
  auto res = imported_result(bench_id, "bandwidth", metric_unit::gigabytes_per_second, figure, line,
                             std::string(k_nvbandwidth));
  res.axes["memory"] = "pinned";
  if (!c.size.empty())
    res.axes["size"] = c.size;
  res.cache_state = "hot";
  res.observations["nvbandwidth_testcase"] = t.name;
  res.check.detail = "nvbandwidth verified its copies (unless run with -s); the log does not say";
  return res;
}

/// A host testcase: one result per GPU column, held to that GPU's PCIe link per direction.
void add_host_results(const nvb_context& c, const nvb_testcase& t, const nvb_mapping& m) {
  for (const auto& [row, cells] : t.rows)
    for (std::size_t i = 0; i < cells.size() && i < t.columns.size(); ++i) {
      if (!cells[i])
        continue;
      auto res = transfer_result(c, t, m.bench_id, *cells[i], t.row_lines.at(row));
      res.axes["engine"] = m.engine;
      res.devices = {t.columns[i]};
      res.ceiling_value.reference = reference_kind::datasheet;
      res.ceiling_value.spec_figure = "pcie_gbs";
      res.ceiling_value.datasheet_source =
          "the spec table's PCIe generation and width for the model the log names, per "
          "direction (the log does not say how the link trained)";
      c.r.results.push_back(std::move(res));
    }
}

/// The cell of (src, dst) in `t`, whichever way its title reads.
std::optional<double> cell_of(const nvb_testcase& t, int src, int dst) {
  const bool by_row = arrow_of(t) != nvb_arrow::column_to_row;
  const int row = by_row ? src : dst, column = by_row ? dst : src;
  const auto it = t.rows.find(row);
  const auto col = std::find(t.columns.begin(), t.columns.end(), column);
  if (it == t.rows.end() || col == t.columns.end())
    return std::nullopt;
  const auto i = static_cast<std::size_t>(col - t.columns.begin());
  return i < it->second.size() ? it->second[i] : std::nullopt;
}

/// A peer testcase: one result per ordered pair. One way above any PCIe link is NVLink and held
/// to the spec row's NVLink figure; otherwise the log cannot tell the path, and the pair is
/// held to no ceiling. Both ways adds the pair's two cells (each measured while the other
/// direction ran), as our both_ways counts both.
void add_peer_results(const nvb_context& c, const nvb_testcase& t, const nvb_mapping& m) {
  for (const auto& [row, cells] : t.rows)
    for (std::size_t i = 0; i < cells.size() && i < t.columns.size(); ++i) {
      const int column = t.columns[i];
      if (!cells[i] || column == row)
        continue;
      const bool by_row = arrow_of(t) != nvb_arrow::column_to_row;
      const int src = by_row ? row : column, dst = by_row ? column : row;
      double figure = *cells[i];
      if (m.both_ways) {
        const auto back = cell_of(t, dst, src);
        if (!back)
          continue;
        figure += *back;
      }
      auto res = transfer_result(c, t, m.bench_id, figure, t.row_lines.at(row));
      res.axes.erase("memory");
      res.axes["pair"] = fmt::format("{}->{}", src, dst);
      res.axes["engine"] = m.engine;
      res.axes["direction"] = m.both_ways ? "both_ways" : "one_way";
      if (!c.size.empty()) {
        res.axes.erase("size");
        res.axes["size"] = c.size;
      }
      res.devices = {src, dst};
      if (m.both_ways)
        res.observations["nvbandwidth_cells_gbs"] = {*cells[i], figure - *cells[i]};
      if (!m.both_ways)
        infer_nvlink_path(res);
      c.r.results.push_back(std::move(res));
    }
}

/// host_to_device_ and device_to_host_bidirectional_memcpy_X: each reports one direction while
/// the other runs, so the two add up to our transfer.bidir (both directions counted), per GPU.
void add_bidirectional_host_results(const nvb_context& c) {
  for (const char* engine : {"ce", "sm"}) {
    const nvb_testcase *h2d = nullptr, *d2h = nullptr;
    for (const auto& t : c.log.testcases) {
      if (t.name == fmt::format("host_to_device_bidirectional_memcpy_{}", engine))
        h2d = &t;
      if (t.name == fmt::format("device_to_host_bidirectional_memcpy_{}", engine))
        d2h = &t;
    }
    if (h2d == nullptr || d2h == nullptr || h2d->rows.empty() || d2h->rows.empty())
      continue;
    for (const int gpu : h2d->columns) {
      const auto a =
          cell_of(*h2d, 0, gpu).has_value() ? cell_of(*h2d, 0, gpu) : cell_of(*h2d, gpu, 0);
      const auto b =
          cell_of(*d2h, gpu, 0).has_value() ? cell_of(*d2h, gpu, 0) : cell_of(*d2h, 0, gpu);
      if (!a || !b)
        continue;
      auto res =
          transfer_result(c, *h2d, "transfer.bidir", *a + *b, d2h->row_lines.begin()->second);
      res.axes["engine"] = std::string(engine) == "ce" ? "copy_engine" : "sm";
      res.devices = {gpu};
      res.observations["nvbandwidth_testcase"] = fmt::format("{} + {}", h2d->name, d2h->name);
      res.observations["nvbandwidth_cells_gbs"] = {*a, *b};
      c.r.results.push_back(std::move(res));
    }
  }
}

/// A testcase with no counterpart of ours, or one that did not finish: its SUM (and matrix) as
/// one result, skipped or failed, saying why.
void add_testcase_result(const nvb_context& c, const nvb_testcase& t, bool mapped) {
  if (mapped && t.trouble.empty())
    return;
  auto res =
      imported_result("nvbandwidth." + t.name, "bandwidth", metric_unit::gigabytes_per_second,
                      t.sum.value_or(0), t.line, std::string(k_nvbandwidth));
  for (const auto& [index, device] : c.log.devices)
    res.devices.push_back(index);
  if (!t.sum) {
    res.samples.clear();
    res.stats = {};
  }
  if (!t.title.empty())
    res.observations["nvbandwidth_title"] = t.title;
  auto matrix = nlohmann::ordered_json::array();
  for (const auto& [row, cells] : t.rows) {
    auto out = nlohmann::ordered_json::array();
    for (const auto& v : cells)
      out.push_back(v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json());
    matrix.push_back(std::move(out));
  }
  if (!matrix.empty())
    res.observations["nvbandwidth_matrix"] = std::move(matrix);
  const bool waived = std::any_of(t.trouble.begin(), t.trouble.end(), [](const std::string& s) {
    return s.find("Waived") != std::string::npos;
  });
  if (waived) {
    res.status = result_status::skipped;
    res.reason = fmt::format("nvbandwidth waived {}: {}", t.name, t.trouble.front());
  } else if (!t.trouble.empty()) {
    res.status = result_status::failed;
    res.failure = failure_kind::benchmark;
    res.reason =
        fmt::format("nvbandwidth's {} did not finish: {}", t.name, fmt::join(t.trouble, " | "));
  } else {
    res.status = result_status::skipped;
    res.reason = t.name.find("bidirectional") != std::string::npos
                     ? "one direction of a bidirectional copy: added to its partner testcase as "
                       "transfer.bidir where the log holds both, reported alone otherwise"
                     : "no gpuspec benchmark measures this testcase: reported, not judged";
  }
  c.r.results.push_back(std::move(res));
}

/// The buffer size: the command line's, else the version's default (64 MiB up to v0.2, 512
/// MiB in v0.8's README: NVIDIA/nvbandwidth), else not known.
std::string buffer_size(const nvb_log& p, run_source& source) {
  if (p.buffer_mib)
    return size_text(*p.buffer_mib * 1024 * 1024);
  if (p.version == "v0.1" || p.version == "v0.2") {
    source.notes.push_back("the log shows no -b: nvbandwidth " + p.version +
                           "'s default buffer, 64 MiB, is assumed");
    return "64MiB";
  }
  if (p.version.starts_with("v0.") && p.version.size() > 3 && p.version[3] >= '8') {
    source.notes.push_back("the log shows no -b: nvbandwidth " + p.version +
                           "'s default buffer, 512 MiB, is assumed");
    return "512MiB";
  }
  source.notes.push_back("the log shows no -b and no version whose default buffer is known: the "
                         "results have no size, so the size-bound transfer rules report them "
                         "without judging");
  return {};
}

bool looks_like_nvbandwidth(const std::vector<log_line>& lines) {
  for (const auto& l : lines) {
    const auto text = trim_blanks(l.text);
    if (text.starts_with("nvbandwidth Version:") ||
        (text.starts_with("SUM ") && text.find("_memcpy_") != std::string_view::npos) ||
        (text.find("Running ") != std::string_view::npos &&
         text.find("_memcpy_") != std::string_view::npos))
      return true;
  }
  return false;
}

report read_nvbandwidth(const std::vector<log_line>& lines, run_source source) {
  const auto p = parse_nvbandwidth(lines);
  if (p.testcases.empty())
    throw log_error(lines.empty() ? 0 : lines.back().number,
                    "an nvbandwidth log with no \"Running <testcase>.\": nothing to judge");
  source.version = p.version.empty() ? "" : "nvbandwidth " + p.version;
  if (p.version.empty())
    source.notes.push_back("the log does not state nvbandwidth's version");
  source.truncated = !p.testcases.back().sum && p.testcases.back().trouble.empty();
  source.notes.push_back("nvbandwidth prints one figure per copy (the median of its samples, or "
                         "the mean with --useMean), not the samples: no spread");
  source.notes.push_back("the log has no telemetry and no topology: whether the GPUs throttled, "
                         "how their PCIe links trained and which pairs have NVLink cannot be "
                         "told (a peer copy faster than any PCIe link is taken as NVLink)");
  const std::string size = buffer_size(p, source);
  report r = imported_report(std::move(source));
  r.host.driver_version = p.driver;
  for (const auto& [index, device] : p.devices) {
    device_info d;
    d.index = index;
    d.name = device.first;
    d.pci_bus_id = device.second;
    r.devices.push_back(std::move(d));
    r.run.devices.push_back(index);
  }
  // A log that names no device (cut, or quoted without its header): the GPUs its matrices name.
  if (r.devices.empty())
    for (const auto& t : p.testcases)
      for (const int column : t.columns)
        if (std::none_of(r.devices.begin(), r.devices.end(),
                         [&](const device_info& d) { return d.index == column; })) {
          device_info d;
          d.index = column;
          r.devices.push_back(std::move(d));
          r.run.devices.push_back(column);
        }
  const nvb_context c{p, size, r};
  for (const auto& t : p.testcases) {
    const auto m = mapping_of(t.name);
    if (!m.bench_id.empty() && t.trouble.empty()) {
      if (m.bench_id == "transfer.p2p")
        add_peer_results(c, t, m);
      else
        add_host_results(c, t, m);
    }
    add_testcase_result(c, t, !m.bench_id.empty());
  }
  add_bidirectional_host_results(c);
  finish_report(r);
  return r;
}

} // namespace

const log_reader nvbandwidth_reader{"nvbandwidth", looks_like_nvbandwidth, read_nvbandwidth};

} // namespace gpuspec::reports::import::detail
