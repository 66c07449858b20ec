// The CUDA samples' p2pBandwidthLatencyTest (NVIDIA/cuda-samples, Samples/5_Domain_Specific/
// p2pBandwidthLatencyTest): its device list and peer-access lines, then matrices titled
// "Unidirectional|Bidirectional P2P=Enabled|Disabled Bandwidth [(P2P Writes|Reads)] Matrix
// (GB/s)" and "P2P=... Latency ... Matrix (us)", rows the source GPU and columns the
// destination. The P2P=Enabled bandwidths are our peer copies (transfer.p2p per ordered pair,
// one_way or both_ways, both directions counted as the sample counts them); its copies are
// 40,000,000 bytes (10,000,000 ints), under the 64 MiB our peer-copy rule judges, so they are
// reported beside the path's ceiling as ours are at that size. The P2P=Disabled copies (staged
// through the host) and the latencies have no counterpart of ours: each matrix is one result,
// reported and not judged (docs/import.md, "CUDA samples").
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "imported_report.hpp"
#include "readers.hpp"

namespace gpuspec::reports::inline import::detail {
namespace {

/// p2pBandwidthLatencyTest's copy: numElems = 10000000 ints (p2pBandwidthLatencyTest.cu).
constexpr long long k_p2p_copy_bytes = 10000000LL * 4;

struct p2p_matrix {
  std::string title;
  std::size_t line = 0;
  std::vector<int> columns;
  std::map<int, std::vector<std::optional<double>>> rows;
  std::map<int, std::size_t> row_lines;
};

struct p2p_log {
  std::map<int, std::pair<std::string, std::string>> devices; ///< name, pci bus id (hex)
  struct peer_access {
    int a = 0, b = 0;
    bool can = false;
    std::size_t line = 0;
  };
  std::vector<peer_access> access; ///< "Device=a CAN|CANNOT Access Peer Device=b"
  std::vector<p2p_matrix> matrices;
  bool sm_copy = false, note_seen = false;
};

/// "Device: 0, NVIDIA A100-SXM-80GB, pciBusID: e, pciDeviceID: 0, pciDomainID:0".
void read_p2p_device(std::string_view text, p2p_log& p) {
  std::vector<std::string_view> parts;
  std::size_t start = 8;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    parts.push_back(trim_blanks(text.substr(start, comma - start)));
    if (comma == std::string_view::npos)
      break;
    start = comma + 1;
  }
  const auto index = parts.empty() ? std::nullopt : integer_of(parts[0]);
  if (!index || *index < 0 || *index > 4096 || parts.size() < 2)
    return;
  std::string bus;
  for (const auto part : parts)
    if (part.starts_with("pciBusID:"))
      bus = std::string(trim_blanks(part.substr(9)));
  p.devices[static_cast<int>(*index)] = {std::string(parts[1]), bus};
}

void read_p2p_row(const log_line& l, const std::vector<std::string_view>& f, p2p_matrix& m) {
  if (f.size() != m.columns.size() + 1)
    throw log_error(l.number, fmt::format("a row of '{}' with {} cells where its header names {}",
                                          m.title, f.size() - 1, m.columns.size()));
  std::vector<std::optional<double>> cells;
  for (std::size_t i = 1; i < f.size(); ++i) {
    const auto v = number_of(f[i]);
    if (!v)
      throw log_error(l.number, fmt::format("'{}' in '{}' is not a figure", f[i], m.title));
    cells.push_back(v);
  }
  const int row = static_cast<int>(*integer_of(f[0]));
  m.rows[row] = std::move(cells);
  m.row_lines[row] = l.number;
}

p2p_log parse_p2p(const std::vector<log_line>& lines) {
  p2p_log p;
  p2p_matrix* m = nullptr;
  for (const auto& l : lines) {
    const auto text = trim_blanks(l.text);
    const auto f = blank_fields(text);
    if (text.starts_with("Device: ")) {
      read_p2p_device(text, p);
    } else if (text.starts_with("Device=") &&
               text.find("Access Peer Device=") != std::string_view::npos) {
      const auto a = integer_of(text.substr(7, text.find(' ') - 7));
      const auto b = integer_of(text.substr(text.rfind('=') + 1));
      if (a && b)
        p.access.push_back({static_cast<int>(*a), static_cast<int>(*b),
                            text.find("CANNOT") == std::string_view::npos, l.number});
    } else if (text.find("--sm_copy") != std::string_view::npos && !text.starts_with("# Without")) {
      p.sm_copy = true;
    } else if (text.ends_with("Matrix") || text.ends_with("Matrix (GB/s)") ||
               text.ends_with("Matrix (us)")) {
      p.matrices.push_back({std::string(text), l.number, {}, {}, {}});
      m = &p.matrices.back();
    } else if (m != nullptr && !f.empty() && (f[0] == "D\\D" || f[0] == "GPU" || f[0] == "CPU")) {
      if (f[0] == "CPU") {
        // A latency matrix's second part: the CPU's latency to each GPU, its own matrix.
        p.matrices.push_back({m->title + " (CPU)", l.number, {}, {}, {}});
        m = &p.matrices.back();
      }
      m->columns.clear();
      for (std::size_t i = 1; i < f.size(); ++i) {
        const auto c = integer_of(f[i]);
        if (!c || *c < 0 || *c > 4096)
          throw log_error(l.number, fmt::format("'{}' in the header of '{}' is not a device index",
                                                f[i], m->title));
        m->columns.push_back(static_cast<int>(*c));
      }
    } else if (m != nullptr && !m->columns.empty() && !f.empty() && integer_of(f[0]) &&
               m->title.starts_with("P2P Connectivity")) {
      // 1/0 per pair: peer access, as the CAN / CANNOT lines say it.
    } else if (m != nullptr && !m->columns.empty() && !f.empty() && integer_of(f[0])) {
      read_p2p_row(l, f, *m);
    } else if (text.starts_with("NOTE: The CUDA Samples")) {
      p.note_seen = true;
    }
  }
  return p;
}

bool is_peer_bandwidth(const p2p_matrix& m) {
  return m.title.find("P2P=Enabled") != std::string::npos &&
         m.title.find("Bandwidth") != std::string::npos;
}

void add_peer_copies(report& r, const p2p_log& p, const p2p_matrix& m) {
  const bool both = m.title.starts_with("Bidirectional");
  const bool reads = m.title.find("P2P Reads") != std::string::npos;
  for (const auto& [src, cells] : m.rows)
    for (std::size_t i = 0; i < cells.size() && i < m.columns.size(); ++i) {
      const int dst = m.columns[i];
      if (!cells[i] || dst == src)
        continue; // the diagonal is a copy inside one GPU
      auto res = imported_result("transfer.p2p", "bandwidth", metric_unit::gigabytes_per_second,
                                 *cells[i], m.row_lines.at(src), "p2pBandwidthLatencyTest");
      res.axes["pair"] = fmt::format("{}->{}", src, dst);
      res.axes["engine"] = p.sm_copy ? "sm" : "ce";
      res.axes["direction"] = both ? "both_ways" : "one_way";
      res.axes["size"] = size_text(k_p2p_copy_bytes);
      if (reads)
        res.axes["access"] = "read"; // the same pair's writes are the plain result
      res.devices = {src, dst};
      res.cache_state = "hot";
      res.observations["p2p_matrix"] = m.title;
      res.observations["bytes_per_copy"] = k_p2p_copy_bytes;
      res.check.detail = "p2pBandwidthLatencyTest does not check the copies' contents";
      if (!both)
        infer_nvlink_path(res);
      r.results.push_back(std::move(res));
    }
}

/// A matrix with no counterpart of ours: one result holding it, reported.
void add_matrix_result(report& r, const p2p_matrix& m) {
  const bool latency = m.title.find("Latency") != std::string::npos;
  std::string slug;
  for (const char c : m.title)
    if (std::isalnum(static_cast<unsigned char>(c)) != 0)
      slug += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!slug.empty() && slug.back() != '_')
      slug += '_';
  while (!slug.empty() && slug.back() == '_')
    slug.pop_back();
  auto res =
      imported_result("p2pBandwidthLatencyTest." + slug, latency ? "latency" : "bandwidth",
                      latency ? metric_unit::microseconds : metric_unit::gigabytes_per_second, 0,
                      m.line, "p2pBandwidthLatencyTest");
  res.samples.clear();
  res.stats = {};
  res.higher_is_better = !latency;
  for (const auto& d : r.devices)
    res.devices.push_back(d.index);
  auto matrix = nlohmann::ordered_json::array();
  for (const auto& [row, cells] : m.rows) {
    auto out = nlohmann::ordered_json::array();
    for (const auto& v : cells)
      out.push_back(v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json());
    matrix.push_back(std::move(out));
  }
  res.observations["p2p_matrix"] = m.title;
  res.observations["matrix"] = std::move(matrix);
  res.status = result_status::skipped;
  res.reason = latency ? "a memcpy latency matrix: no gpuspec benchmark measures it (ours is a "
                         "load's latency, transfer.p2p_latency); reported, not judged"
                       : "copies staged through host memory (P2P disabled) are not peer "
                         "transfers: reported, not judged";
  r.results.push_back(std::move(res));
}

bool looks_like_p2p_bandwidth_latency(const std::vector<log_line>& lines) {
  for (const auto& l : lines) {
    const auto text = trim_blanks(l.text);
    if (text.starts_with("[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]") ||
        text.starts_with("P2P Connectivity Matrix") ||
        (text.find("P2P=") != std::string_view::npos &&
         text.find("Matrix") != std::string_view::npos))
      return true;
  }
  return false;
}

report read_p2p_bandwidth_latency(const std::vector<log_line>& lines, run_source source) {
  const auto p = parse_p2p(lines);
  bool figures = false;
  for (const auto& m : p.matrices)
    figures = figures || !m.rows.empty();
  if (!figures && p.access.empty())
    throw log_error(lines.empty() ? 0 : lines.back().number,
                    "a p2pBandwidthLatencyTest log with no matrix and no peer-access line: "
                    "nothing to judge");
  source.notes.push_back("p2pBandwidthLatencyTest states no version and prints one figure per "
                         "pair: no spread");
  source.notes.push_back("the log has no telemetry and no topology: a pair faster than any PCIe "
                         "link is taken as NVLink, any other pair's path is not known");
  source.truncated = !p.note_seen;
  report r = imported_report(std::move(source));
  for (const auto& [index, device] : p.devices) {
    device_info d;
    d.index = index;
    d.name = device.first;
    r.devices.push_back(std::move(d));
    r.run.devices.push_back(index);
  }
  if (r.devices.empty())
    for (const auto& m : p.matrices)
      for (const int c : m.columns)
        if (std::none_of(r.devices.begin(), r.devices.end(),
                         [&](const device_info& d) { return d.index == c; })) {
          device_info d;
          d.index = c;
          r.devices.push_back(std::move(d));
          r.run.devices.push_back(c);
        }
  for (const auto& m : p.matrices) {
    if (m.rows.empty() || m.title.starts_with("P2P Connectivity"))
      continue;
    if (is_peer_bandwidth(m))
      add_peer_copies(r, p, m);
    else
      add_matrix_result(r, m);
  }
  // Peer access refused between two GPUs: said, as our transfer.p2p says it (not_supported).
  for (const auto& pa : p.access) {
    if (pa.can)
      continue;
    const std::pair pair{pa.a, pa.b};
    auto res = imported_result("transfer.p2p", "bandwidth", metric_unit::gigabytes_per_second, 0,
                               pa.line, "p2pBandwidthLatencyTest");
    res.samples.clear();
    res.stats = {};
    res.axes["pair"] = fmt::format("{}->{}", pair.first, pair.second);
    res.devices = {pair.first, pair.second};
    res.status = result_status::not_supported;
    res.reason = fmt::format("Device={} CANNOT Access Peer Device={}: no peer access between "
                             "them (cudaDeviceCanAccessPeer)",
                             pair.first, pair.second);
    r.results.push_back(std::move(res));
  }
  finish_report(r);
  return r;
}

} // namespace

const log_reader p2p_bandwidth_latency_reader{
    "p2pBandwidthLatencyTest", looks_like_p2p_bandwidth_latency, read_p2p_bandwidth_latency};

} // namespace gpuspec::reports::import::detail
