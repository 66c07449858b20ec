// nccl-tests' *_perf output (NVIDIA/nccl-tests, src/common.cu's printing) read into collective
// results shaped as our own (benches/families/collective.cpp): bench id "collective.<name>",
// axes dtype, size and placement, the metric busbw in GB/s, and #wrong as verification, so the
// check's collective rules apply unchanged (docs/import.md, "nccl-tests").
//
// The table's columns are taken from its own header line, since they changed across versions
// (before 2.x-era redop/root/#wrong, an `error` column of the largest relative error).
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "imported_report.hpp"
#include "readers.hpp"

namespace gpuspec::reports::inline import::detail {
namespace {

constexpr std::string_view k_tool = "nccl-tests";

/// nccl-tests' type names as our dtype axis (collective_kind.hpp's names).
std::string dtype_of(std::string_view type) {
  static const std::map<std::string_view, std::string_view> names{
      {"float", "fp32"},  {"half", "fp16"},    {"bfloat16", "bf16"}, {"double", "fp64"},
      {"int8", "int8"},   {"uint8", "uint8"},  {"int32", "int32"},   {"uint32", "uint32"},
      {"int64", "int64"}, {"uint64", "uint64"}};
  const auto it = names.find(type);
  return it == names.end() ? std::string(type) : std::string(it->second);
}

/// One rank of "# Using devices": "#  Rank  0 Group  0 Pid 6899 on HOST device  0 [BUS] NAME".
struct rank_line {
  std::string host, bus, name;
  int device = 0;
};

std::optional<rank_line> rank_of(std::string_view body) {
  const auto f = blank_fields(body);
  if (f.size() < 11 || f[0] != "Rank" || f[6] != "on" || f[8] != "device")
    return std::nullopt;
  rank_line r;
  r.host = std::string(f[7]);
  r.device = static_cast<int>(integer_of(f[9]).value_or(-1));
  r.bus = std::string(f[10]);
  if (r.bus.size() > 1 && r.bus.front() == '[')
    r.bus = r.bus.substr(1, r.bus.size() - 2);
  const auto at = body.find(f[10]) + f[10].size();
  r.name = std::string(trim_blanks(body.substr(at)));
  return r;
}

/// The table's columns as its header names them ("size count type redop root time algbw busbw
/// #wrong time algbw busbw #wrong"), or the current layout when the log starts below it.
std::vector<std::string> current_columns() {
  return {"size",  "count",  "type", "redop", "root",  "time",  "algbw",
          "busbw", "#wrong", "time", "algbw", "busbw", "#wrong"};
}

struct table_row {
  std::size_t line = 0;
  std::map<std::string, std::string_view> out_of_place, in_place, common;
};

/// The collective's name from a command line in the log ("all_reduce_perf -b 8 ..."): the log
/// states it nowhere else.
std::string collective_named(std::string_view line) {
  static constexpr std::array<std::string_view, 10> known{
      "reduce_scatter", "all_reduce", "all_gather", "alltoall", "sendrecv",
      "broadcast",      "reduce",     "scatter",    "gather",   "hypercube"};
  const auto at = line.find("_perf");
  if (at == std::string_view::npos)
    return {};
  for (auto name : known)
    if (at >= name.size() && line.substr(at - name.size(), name.size()) == name)
      return std::string(name);
  return {};
}

struct parsed_log {
  std::string collective, nccl_version;
  std::vector<rank_line> ranks;
  std::vector<table_row> rows;
  std::optional<std::pair<long long, bool>> out_of_bounds; ///< count, "OK"
  std::optional<std::size_t> out_of_bounds_line;
  std::optional<double> avg_busbw;
  std::optional<long long> iterations;
  bool header_seen = false;
  /// What NCCL's INFO lines say of its algorithms (docs/import.md): the largest "N nvls
  /// channels", "NVLS multicast support is (not) available", and each tuning line's choice
  /// ("AllReduce: 1073741824 Bytes -> Algo NVLS proto SIMPLE ...", NCCL 2.19 and later) by
  /// function and bytes.
  std::optional<long long> nvls_channels;
  std::optional<bool> nvls_multicast;
  std::map<std::pair<std::string, long long>, std::string> algorithm_of;
  /// The network between nodes NCCL chose, from its INFO lines: "InfiniBand", "RoCE", "EFA",
  /// "TCPX" (GPUDirect-TCPX and TCPXO), or "" when no line names one.
  std::string network_transport;
};

/// The network NCCL's INFO lines name: "NET/IB : Using [0]mlx5_0:1/IB" (or "/RoCE"), aws-ofi-nccl's
/// "NET/OFI Selected Provider is efa", Google's GPUDirect-TCPX and TCPXO (FasTrak) plugins.
void read_network_transport(std::string_view message, parsed_log& p) {
  if (message.starts_with("NET/IB") && message.find("Using [") != std::string_view::npos)
    p.network_transport = message.find("/RoCE") != std::string_view::npos ? "RoCE" : "InfiniBand";
  else if (message.starts_with("NET/OFI Selected Provider is efa"))
    p.network_transport = "EFA";
  else if (message.find("GPUDirectTCPX") != std::string_view::npos ||
           message.find("FasTrak") != std::string_view::npos)
    p.network_transport = "TCPX";
}

/// One "NCCL INFO" message: the facts of its algorithms, the rest left alone.
void read_nccl_info(std::string_view message, parsed_log& p) {
  if (message.starts_with("NCCL version ") && p.nccl_version.empty())
    if (const auto f = blank_fields(message.substr(13)); !f.empty())
      p.nccl_version = std::string(f.front());
  if (const auto at = message.find(" nvls channels"); at != std::string_view::npos) {
    const auto f = blank_fields(message.substr(0, at));
    if (!f.empty())
      if (const auto n = integer_of(f.back()))
        p.nvls_channels = std::max(p.nvls_channels.value_or(0), *n);
  }
  read_network_transport(message, p);
  if (message.starts_with("NVLS multicast support is not available"))
    p.nvls_multicast = p.nvls_multicast.value_or(false);
  else if (message.starts_with("NVLS multicast support is available"))
    p.nvls_multicast = true;
  const auto algo = message.find(" Bytes -> Algo ");
  const auto colon = message.find(": ");
  if (algo == std::string_view::npos || colon == std::string_view::npos || colon > algo)
    return;
  const auto bytes = integer_of(trim_blanks(message.substr(colon + 2, algo - colon - 2)));
  const auto f = blank_fields(message.substr(algo + 15));
  if (bytes && !f.empty() && !integer_of(f.front())) // 2.18 and earlier print a number
    p.algorithm_of[{std::string(message.substr(0, colon)), *bytes}] = std::string(f.front());
}

/// NCCL's name of a collective ("AllReduce") for nccl-tests' ("all_reduce").
std::string nccl_function(std::string_view collective) {
  static const std::map<std::string_view, std::string_view> names{
      {"all_reduce", "AllReduce"},
      {"all_gather", "AllGather"},
      {"reduce_scatter", "ReduceScatter"},
      {"broadcast", "Broadcast"},
      {"reduce", "Reduce"}};
  const auto it = names.find(collective);
  return it == names.end() ? std::string() : std::string(it->second);
}

void read_row(const log_line& l, const std::vector<std::string>& columns, parsed_log& p) {
  const auto f = blank_fields(l.text);
  if (f.size() != columns.size())
    throw log_error(l.number, fmt::format("a row of the nccl-tests table with {} columns where "
                                          "its header names {}",
                                          f.size(), columns.size()));
  table_row row;
  row.line = l.number;
  bool second = false;
  for (std::size_t i = 0; i < f.size(); ++i) {
    const auto& c = columns[i];
    if (c == "time" && !row.out_of_place.empty())
      second = true;
    auto& into = c == "time" || c == "algbw" || c == "busbw" || c == "#wrong" || c == "error"
                     ? (second ? row.in_place : row.out_of_place)
                     : row.common;
    into[c] = f[i];
  }
  for (const auto* name : {"size", "count"})
    if (!integer_of(row.common[name]))
      throw log_error(l.number, fmt::format("the {} column holds '{}', not a whole number", name,
                                            row.common[name]));
  p.rows.push_back(std::move(row));
}

/// The lines nccl-tests writes, each read where it is; anything else (NCCL INFO, shell, MPI)
/// is left alone.
parsed_log parse(const std::vector<log_line>& lines) {
  parsed_log p;
  std::vector<std::string> columns = current_columns();
  for (const auto& l : lines) {
    const auto text = trim_blanks(l.text);
    if (p.collective.empty())
      p.collective = collective_named(text);
    if (const auto info = text.find("NCCL INFO "); info != std::string_view::npos) {
      read_nccl_info(text.substr(info + 10), p);
      continue;
    }
    if (text.starts_with("NCCL version ")) {
      if (const auto f = blank_fields(text.substr(13)); !f.empty())
        p.nccl_version = std::string(f.front());
      continue;
    }
    if (!text.starts_with('#')) {
      const auto f = blank_fields(text);
      if (!f.empty() && integer_of(f[0]) && f.size() > 3 && !number_of(f[2])) {
        read_row(l, columns, p);
        continue;
      }
    }
    // Older nccl-tests printed the header and the summary without the leading '#'.
    const auto body = trim_blanks(text.starts_with('#') ? text.substr(1) : text);
    const auto f = blank_fields(body);
    if (auto rank = rank_of(body)) {
      p.ranks.push_back(std::move(*rank));
    } else if (body.starts_with("nThread")) {
      const auto it = std::find(f.begin(), f.end(), "iters:");
      // "warmup iters: 5 iters: 20": the second "iters:" is the timed count.
      const auto timed = std::find(it + (it != f.end()), f.end(), "iters:");
      if (timed != f.end() && timed + 1 != f.end())
        p.iterations = integer_of(*(timed + 1));
    } else if (!f.empty() && f[0] == "size" && std::find(f.begin(), f.end(), "busbw") != f.end()) {
      columns.assign(f.begin(), f.end());
      p.header_seen = true;
    } else if (body.starts_with("Out of bounds values")) {
      const auto colon = blank_fields(body.substr(body.find(':') + 1));
      if (colon.size() >= 2 && integer_of(colon[0]))
        p.out_of_bounds = {{*integer_of(colon[0]), colon[1] == "OK"}};
      p.out_of_bounds_line = l.number;
    } else if (body.starts_with("Avg bus bandwidth")) {
      p.avg_busbw = number_of(trim_blanks(body.substr(body.find(':') + 1)));
    }
  }
  return p;
}

/// A row's out-of-place algbw and busbw, where it has both as numbers.
std::optional<std::pair<double, double>> alg_and_bus(const table_row& row) {
  const auto a = row.out_of_place.find("algbw");
  const auto b = row.out_of_place.find("busbw");
  if (a == row.out_of_place.end() || b == row.out_of_place.end())
    return std::nullopt;
  const auto alg = number_of(a->second);
  const auto bus = number_of(b->second);
  if (!alg || !bus)
    return std::nullopt;
  return std::pair{*alg, *bus};
}

/// The collective from its figures where the log does not name it: busbw / algbw is the
/// collective's bus factor (nccl-tests doc/PERFORMANCE.md), 2(n-1)/n for all-reduce.
std::string collective_by_factor(const parsed_log& p) {
  const auto n = static_cast<double>(p.ranks.size());
  for (const auto& row : p.rows) {
    const auto figures = alg_and_bus(row);
    if (!figures || figures->first < 1)
      continue;
    const double factor = figures->second / figures->first;
    const bool reduces = row.common.contains("redop") && row.common.at("redop") != "none";
    // Only all-reduce's factor exceeds 1 (2(n-1)/n); reduce-scatter's and all-gather's are
    // (n-1)/n and alltoall's the same, so those stay unknown.
    if (reduces && (n >= 2 ? std::abs(factor - 2 * (n - 1) / n) < 0.02 : factor > 1.05))
      return "all_reduce";
  }
  return {};
}

/// The rank count from the figures where the log has no "# Using devices" lines: busbw / algbw
/// is the collective's bus factor (nccl-tests doc/PERFORMANCE.md), 2(n-1)/n for all-reduce and
/// (n-1)/n for reduce-scatter, all-gather and alltoall, read at the row with the largest algbw
/// (the most digits). Broadcast's, reduce's and sendrecv's factor is 1 and tells nothing.
std::optional<long long> ranks_by_factor(const parsed_log& p, const std::string& collective) {
  const bool all_reduce = collective == "all_reduce";
  if (!all_reduce && collective != "reduce_scatter" && collective != "all_gather" &&
      collective != "alltoall")
    return std::nullopt;
  double best_alg = 0, factor = 0;
  for (const auto& row : p.rows)
    if (const auto figures = alg_and_bus(row); figures && figures->first > best_alg) {
      best_alg = figures->first;
      factor = figures->second / figures->first;
    }
  // Two decimals of a figure of 1 GB/s or more keep the factor within 1%: n within 0.15 of a
  // whole number up to 16 ranks (all-reduce) is read, anything else is not.
  const double room = all_reduce ? 2 - factor : 1 - factor;
  if (best_alg < 1 || room <= 0.01)
    return std::nullopt;
  const double n = (all_reduce ? 2 : 1) / room;
  const double whole = std::round(n);
  if (whole < 2 || std::abs(n - whole) > 0.15)
    return std::nullopt;
  return static_cast<long long>(whole);
}

std::string collective_of(const parsed_log& p, run_source& source) {
  if (!p.collective.empty())
    return p.collective;
  if (auto by_factor = collective_by_factor(p); !by_factor.empty()) {
    source.notes.push_back("the log does not name the collective; busbw / algbw is all-reduce's "
                           "factor 2(n-1)/n over its ranks, so it is read as all_reduce");
    return by_factor;
  }
  source.notes.push_back("the log does not name the collective (no *_perf command line) and its "
                         "figures do not tell it: bench id collective.unknown");
  return "unknown";
}

void add_devices(const parsed_log& p, report& r) {
  // The first host's ranks are the report's GPUs; the other hosts' are nodes, as a multi-node
  // report of ours holds them (docs/multi-node.md).
  std::map<std::string, std::size_t> node_of;
  for (const auto& rank : p.ranks) {
    device_info d;
    d.index = rank.device;
    d.name = rank.name;
    d.pci_bus_id = rank.bus;
    const bool first_host = rank.host == p.ranks.front().host;
    if (first_host) {
      r.host.hostname = rank.host;
      r.devices.push_back(std::move(d));
      r.run.devices.push_back(rank.device);
      continue;
    }
    auto [it, added] = node_of.try_emplace(rank.host, r.nodes.size());
    if (added) {
      r.nodes.emplace_back();
      r.nodes.back().host.hostname = rank.host;
    }
    r.nodes[it->second].devices.push_back(std::move(d));
    r.nodes[it->second].run_devices.push_back(rank.device);
  }
}

/// #wrong (or the old `error` column) as verification; a wrong element is a failed result.
void verify(result& res, const std::map<std::string, std::string_view>& half, const parsed_log& p) {
  if (const auto it = half.find("#wrong"); it != half.end()) {
    const auto wrong = integer_of(it->second);
    res.observations["wrong"] = wrong ? nlohmann::ordered_json(*wrong) : nullptr;
    if (!wrong) {
      res.check.detail = "#wrong " + std::string(it->second) +
                         ": nccl-tests did not check this (in-place alltoall, or -c 0)";
      return;
    }
    res.check.status = *wrong == 0 ? verification_status::passed : verification_status::failed;
    res.check.detail = fmt::format("#wrong {} (nccl-tests' own check of the output)", *wrong);
  } else if (const auto e = half.find("error"); e != half.end()) {
    const auto error = number_of(e->second);
    res.check.max_rel_error = error;
    const bool failed = p.out_of_bounds && !p.out_of_bounds->second && error && *error > 0;
    res.check.status = failed ? verification_status::failed : verification_status::passed;
    res.check.detail =
        fmt::format("error {} (nccl-tests' largest error); Out of bounds values: {}", e->second,
                    p.out_of_bounds ? fmt::format("{} {}", p.out_of_bounds->first,
                                                  p.out_of_bounds->second ? "OK" : "FAILED")
                                    : std::string("not in the log"));
  }
  if (res.check.status == verification_status::failed) {
    res.status = result_status::failed;
    res.failure = failure_kind::verification;
    res.reason = "nccl-tests found wrong output: " + res.check.detail;
  }
}

/// The row's cell of column `name`: a log_error naming the row's line when its header has none.
std::string_view cell(const table_row& row, const std::map<std::string, std::string_view>& half,
                      const char* name) {
  const auto it = half.find(name);
  if (it == half.end())
    throw log_error(row.line, fmt::format("the table's header names no {} column{}", name,
                                          &half == &row.in_place ? " in place" : ""));
  return it->second;
}

result row_result(const table_row& row, bool in_place, const std::string& collective,
                  const parsed_log& p, const report& r, long long nranks) {
  const auto& half = in_place ? row.in_place : row.out_of_place;
  const auto busbw = number_of(cell(row, half, "busbw"));
  if (!busbw)
    throw log_error(row.line, fmt::format("busbw '{}' is not a number", cell(row, half, "busbw")));
  auto res = imported_result("collective." + collective, "busbw", metric_unit::gigabytes_per_second,
                             *busbw, row.line, std::string(k_tool));
  const long long bytes = *integer_of(row.common.at("size"));
  const auto type = row.common.contains("type") ? row.common.at("type") : "";
  res.axes["dtype"] = dtype_of(type);
  res.axes["size"] = size_text(bytes);
  res.axes["placement"] = in_place ? "in_place" : "out_of_place";
  res.bytes_per_iteration = static_cast<double>(bytes);
  for (const auto& d : r.devices)
    res.devices.push_back(d.index);
  auto& o = res.observations;
  o["nranks"] = nranks;
  o["size_bytes"] = bytes;
  o["count"] = *integer_of(row.common.at("count"));
  o["nccl_tests_type"] = std::string(type);
  if (row.common.contains("redop"))
    o["redop"] = std::string(row.common.at("redop"));
  if (row.common.contains("root"))
    o["root"] = integer_of(row.common.at("root")).value_or(-1);
  if (p.iterations)
    o["iterations_per_sample"] = *p.iterations;
  if (!p.nccl_version.empty())
    o["nccl_version"] = p.nccl_version;
  o["time_us"] = number_of(cell(row, half, "time")).value_or(0);
  o["algbw_gbs"] = number_of(cell(row, half, "algbw")).value_or(0);
  if (p.nvls_channels)
    o["nccl_nvls_channels"] = *p.nvls_channels;
  if (p.nvls_multicast)
    o["nccl_nvls_multicast"] = *p.nvls_multicast;
  if (const auto it = p.algorithm_of.find({nccl_function(collective), bytes});
      it != p.algorithm_of.end())
    o["nccl_algorithm"] = it->second;
  if (!p.network_transport.empty())
    o["network_transport"] = p.network_transport;
  res.check.detail = "no #wrong column";
  verify(res, half, p);
  if (*busbw <= 0 && p.ranks.size() != 1 && res.status == result_status::ok) {
    // nccl-tests prints two decimals: at a few bytes busbw rounds to 0.00 although the
    // collective ran (its time is in the row). Not "no work": a figure below the log's precision.
    res.status = result_status::skipped;
    res.reason = fmt::format("busbw prints as {} at {} bytes: below the two decimals nccl-tests "
                             "prints, not a figure to judge",
                             cell(row, half, "busbw"), bytes);
  }
  if (p.ranks.size() == 1 && res.status == result_status::ok) {
    // busbw is algbw x the collective's bus factor, (n-1)/n or 2(n-1)/n: 0 with one rank.
    res.status = result_status::skipped;
    res.reason = "a one-rank run measures no link: nccl-tests' bus factor is 0 for one rank, so "
                 "busbw is 0 by its formula";
  }
  // Which link bounds busbw: on one node with NVLink the spec row's NVLink figure, which the
  // check takes from its own table for the GPU the log (or, without rank lines, the inventory)
  // names; across nodes, the network, whose rate the log does not state.
  if (r.nodes.empty() && nranks > 1) {
    res.ceiling_value.reference = reference_kind::datasheet;
    res.ceiling_value.spec_figure = "nvlink_gbs";
    res.ceiling_value.datasheet_source =
        p.ranks.empty() ? "the spec table's NVLink figure per direction for the GPU the "
                          "inventory names (the log names none)"
                        : "the spec table's NVLink figure per direction for the GPU the log "
                          "names (no inventory: whether the links were up is not known)";
  }
  return res;
}

} // namespace

bool looks_like_nccl_tests(const std::vector<log_line>& lines) {
  for (const auto& l : lines) {
    const auto text = trim_blanks(l.text);
    if (text.starts_with("# nThread ") ||
        (text.find("busbw") != std::string_view::npos &&
         text.find("algbw") != std::string_view::npos) ||
        text.starts_with("# Avg bus bandwidth") || text.starts_with("Avg bus bandwidth"))
      return true;
  }
  return false;
}

report read_nccl_tests(const std::vector<log_line>& lines, run_source source) {
  const auto p = parse(lines);
  if (p.rows.empty())
    throw log_error(lines.empty() ? 0 : lines.back().number,
                    "an nccl-tests log with no row of figures: nothing to judge");
  source.version = p.nccl_version.empty() ? "" : "NCCL " + p.nccl_version;
  if (p.nccl_version.empty())
    source.notes.push_back("the log does not state NCCL's version (no \"NCCL version\" line)");
  if (!p.header_seen)
    source.notes.push_back("the log starts below the table's header: the columns are read as "
                           "the current nccl-tests layout (size count type redop root, then "
                           "time algbw busbw #wrong out of place and in place)");

  source.truncated = !p.avg_busbw;
  source.notes.push_back("nccl-tests prints one average per size, not samples: each result has "
                         "one figure, and no spread");
  source.notes.push_back("the log has no telemetry (clocks, temperature, throttling): whether "
                         "the GPUs throttled cannot be ruled out");
  std::string collective = collective_of(p, source);
  auto nranks = static_cast<long long>(p.ranks.size());
  if (p.ranks.empty()) {
    // No "# Using devices" lines: the GPUs, their model and their hosts are not in the log.
    // The figures still are, and #wrong needs no model; the rank count is read from the bus
    // factor where the collective has one, and the model comes from --inventory.
    const auto by_factor = ranks_by_factor(p, collective);
    nranks = by_factor.value_or(0);
    source.notes.push_back(
        by_factor ? fmt::format("no \"# Using devices\" lines: the GPUs, their model and their "
                                "hosts are not in the log; {} ranks, read from busbw / algbw (the "
                                "bus factor of {}); without --inventory, busbw is held to no link",
                                *by_factor, collective)
                  : "no \"# Using devices\" lines: the GPUs, their number, their model and "
                    "their hosts are not in the log; without --inventory, busbw is held to no "
                    "link");
  }
  report r = imported_report(std::move(source));
  add_devices(p, r);
  if (!r.nodes.empty())
    r.run.source->notes.push_back(
        "the ranks span several hosts: busbw is bounded by the network, whose rate the log does "
        "not state, so it is held to no ceiling");
  if (!p.nccl_version.empty())
    r.host.nccl_version = p.nccl_version;
  for (const auto& row : p.rows) {
    r.results.push_back(row_result(row, false, collective, p, r, nranks));
    if (!row.in_place.empty())
      r.results.push_back(row_result(row, true, collective, p, r, nranks));
  }
  if (p.out_of_bounds && !p.out_of_bounds->second &&
      std::none_of(r.results.begin(), r.results.end(),
                   [](const result& res) { return res.failure == failure_kind::verification; }))
    // The run's output was wrong somewhere, and the log does not say where: every size fails.
    for (auto& res : r.results) {
      res.check.status = verification_status::failed;
      res.check.detail = fmt::format("Out of bounds values: {} FAILED (line {}); the log does "
                                     "not say which size",
                                     p.out_of_bounds->first, *p.out_of_bounds_line);
      res.status = result_status::failed;
      res.failure = failure_kind::verification;
      res.reason = "nccl-tests found wrong output: " + res.check.detail;
    }
  if (!r.nodes.empty())
    // Across hosts, each result names its ranks as our multi-node collectives do
    // (docs/multi-node.md), so the check judges every node with the results it took part in.
    for (auto& res : r.results) {
      auto ranks = nlohmann::ordered_json::array();
      for (std::size_t i = 0; i < p.ranks.size(); ++i) {
        const auto& rank = p.ranks[i];
        nlohmann::ordered_json e;
        e["rank"] = i;
        e["host"] = rank.host;
        e["gpu"] = rank.device;
        e["pci_bus_id"] = rank.bus;
        e["status"] = res.status == result_status::failed ? "failed" : "ok";
        if (res.status == result_status::failed) {
          e["failure"] = "verification";
          e["reason"] = res.reason;
        }
        ranks.push_back(std::move(e));
      }
      res.observations["ranks"] = std::move(ranks);
    }
  finish_report(r);
  return r;
}

const log_reader nccl_tests_reader{"nccl-tests", looks_like_nccl_tests, read_nccl_tests};

} // namespace gpuspec::reports::import::detail
