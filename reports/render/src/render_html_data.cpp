// The HTML page's plots of one node: each plot's inputs gathered from the verdicts and the
// report (render_html_plots.hpp draws them). Nothing is computed that the model does not hold:
// fractions are the results' own (efficiency, efficiency_clock_adjusted, or fraction_of the
// carried datasheet ceiling), sizes the `size` axis or the bytes a result declared.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "gpuspec/reports/model/fraction.hpp"
#include "gpuspec/reports/model/text_format.hpp"
#include "gpuspec/reports/model/topology.hpp"
#include "gpuspec/reports/model/units.hpp"
#include "render_detail.hpp"
#include "render_html_detail.hpp"
#include "render_html_plots.hpp"

namespace gpuspec::reports::inline render::html {

namespace {

/// At most this many cases in the measured-against-ceiling plot, and series in a size plot:
/// the rest are in the results table (the plot says how many it leaves out).
constexpr std::size_t max_cases = 80;
constexpr std::size_t max_series = 12;

std::string devices_text(const std::vector<int>& devices) {
  if (devices.size() == 1)
    return fmt::format("GPU {}", devices.front());
  return fmt::format("{} GPUs", devices.size());
}

const result* result_of(const report* r, const result_verdict& v) {
  return r != nullptr && v.result_index < r->results.size() ? &r->results[v.result_index] : nullptr;
}

std::string efficiency_section(const node_verdict& n, const report* r) {
  std::vector<efficiency_case> cases;
  std::map<std::string, std::size_t> at;
  std::size_t left_out = 0;
  for (const auto& v : n.results) {
    const result* res = result_of(r, v);
    efficiency_point p{devices_text(v.devices), {}, {}, std::string(to_string(v.status))};
    if (res != nullptr) {
      p.datasheet =
          fraction_of(res->stats.median, res->ceiling_value.datasheet, res->higher_is_better);
      p.clock_adjusted = res->efficiency_clock_adjusted;
    } else if (v.frame == "spec") {
      p.datasheet = v.efficiency;
    } else if (v.frame == "clock_adjusted") {
      p.clock_adjusted = v.efficiency;
    }
    if (!p.datasheet && !p.clock_adjusted)
      continue;
    const std::string label = v.axes.empty() ? v.bench_id : v.bench_id + " " + v.axes;
    auto [it, fresh] = at.try_emplace(label, cases.size());
    if (fresh) {
      if (cases.size() == max_cases) {
        ++left_out;
        continue;
      }
      cases.push_back({label, v.pass_fraction, v.warn_fraction, {}});
    }
    if (it->second < cases.size())
      cases[it->second].points.push_back(std::move(p));
  }
  if (cases.empty())
    return "";
  const std::string more =
      left_out == 0 ? "" : fmt::format(" ({} more cases in the results table)", left_out);
  return figure(efficiency_plot(cases),
                "Measured against ceiling: each GPU's fraction of its datasheet ceiling (dot) and "
                "of its clock-adjusted ceiling (square), with the pass and warn lines." +
                    more);
}

/// "256MiB", "1GiB", "8B", "4KiB", "1.5MB" as bytes; nullopt for other text.
std::optional<double> size_bytes(const nlohmann::ordered_json& axes) {
  const auto it = axes.find("size");
  if (it == axes.end())
    return std::nullopt;
  if (it->is_number())
    return it->get<double>();
  if (!it->is_string())
    return std::nullopt;
  const std::string s = it->get<std::string>();
  std::size_t end = 0;
  while (end < s.size() && (std::isdigit(static_cast<unsigned char>(s[end])) != 0 || s[end] == '.'))
    ++end;
  if (end == 0)
    return std::nullopt;
  const double v = std::stod(s.substr(0, end));
  static const std::map<std::string, double> units = {{"", 1},
                                                      {"B", 1},
                                                      {"KiB", 1024.0},
                                                      {"MiB", 1048576.0},
                                                      {"GiB", 1073741824.0},
                                                      {"KB", 1e3},
                                                      {"MB", 1e6},
                                                      {"GB", 1e9},
                                                      {"K", 1024.0},
                                                      {"M", 1048576.0},
                                                      {"G", 1073741824.0}};
  const auto u = units.find(s.substr(end));
  return u == units.end() ? std::nullopt : std::optional<double>(v * u->second);
}

std::string without_size(const nlohmann::ordered_json& axes) {
  auto copy = axes;
  copy.erase("size");
  copy.erase("pair");
  return format_parameters(copy);
}

std::string size_section(const report& r) {
  // bench id -> series label -> series
  std::map<std::string, std::map<std::string, size_series>> plots;
  std::map<std::string, std::string> unit_of;
  for (const auto& res : r.results) {
    if (res.status != result_status::ok || info_of(res.unit).measures != quantity::bytes_per_second)
      continue;
    const auto bytes = size_bytes(res.axes).value_or(res.bytes_per_iteration.value_or(0));
    if (bytes <= 0)
      continue;
    const std::string label = without_size(res.axes) + " " + devices_text(res.devices);
    auto& series = plots[res.bench_id];
    if (series.size() >= max_series && series.find(label) == series.end())
      continue;
    auto& s = series[label];
    s.label = label;
    s.points.emplace_back(bytes, res.stats.median);
    if (const auto c = res.ceiling_value.datasheet)
      s.ceiling = std::max(s.ceiling.value_or(0), *c);
    unit_of.try_emplace(res.bench_id, to_string(res.unit));
  }
  std::string out;
  for (auto& [bench, series] : plots) {
    std::vector<size_series> list;
    std::set<double> sizes;
    for (auto& [label, s] : series) {
      std::sort(s.points.begin(), s.points.end());
      for (const auto& pt : s.points)
        sizes.insert(pt.first);
      list.push_back(std::move(s));
    }
    if (sizes.size() < 2) // one size: the measured-against-ceiling plot says it all
      continue;
    out += figure(size_plot(bench, unit_of[bench], list),
                  fmt::format("{}: bandwidth against size, {} series, each with its datasheet "
                              "ceiling dashed.",
                              bench, list.size()));
  }
  return out;
}

std::string p2p_section(const report& r) {
  std::vector<p2p_cell> cells;
  std::vector<int> gpus;
  std::map<std::pair<int, int>, double> best_size;
  std::string unit;
  for (const auto& res : r.results) {
    if (res.bench_id != "transfer.p2p" || res.status != result_status::ok ||
        res.devices.size() != 2 || res.axes.value("engine", "ce") != "ce" ||
        res.axes.value("direction", "one_way") != "one_way")
      continue;
    const int src = res.devices[0], dst = res.devices[1];
    const double bytes = size_bytes(res.axes).value_or(0);
    auto [it, fresh] = best_size.try_emplace({src, dst}, bytes);
    if (!fresh && bytes < it->second)
      continue;
    it->second = bytes;
    std::erase_if(cells, [&](const p2p_cell& c) { return c.src == src && c.dst == dst; });
    p2p_cell c{src, dst, res.stats.median, res.efficiency, ""};
    if (r.host.topology)
      if (const gpu_pair* p = find_pair(*r.host.topology, src, dst))
        c.path = topology_matrix_cell(*p);
    cells.push_back(std::move(c));
    for (const int g : {src, dst})
      if (std::find(gpus.begin(), gpus.end(), g) == gpus.end())
        gpus.push_back(g);
    unit = to_string(res.unit);
  }
  if (cells.empty())
    return "";
  std::sort(gpus.begin(), gpus.end());
  return figure(p2p_heatmap(gpus, cells, unit),
                "Peer-to-peer bandwidth (copy engines, one way, the largest size measured): "
                "colour is the fraction of the pair's path ceiling on the fixed scale shown.");
}

void add_result_windows(telemetry_series& s, const result& res, int device) {
  if (res.burnin && !res.burnin->intervals.empty()) {
    for (const auto& i : res.burnin->intervals)
      s.windows.push_back({i.start_s, i.end_s, i.sm_clock_mhz_median, i.temperature_c_max,
                           i.power_w_mean, i.throttle_reasons, res.bench_id});
    if (res.burnin->gemm)
      for (const auto& m : res.burnin->gemm->mismatches)
        s.marks.push_back(
            {m.time_s, fmt::format("checksum mismatch at iteration {}", m.iteration)});
  } else if (res.telemetry.window_start_s && res.telemetry.window_end_s) {
    const auto& t = res.telemetry;
    s.windows.push_back({*t.window_start_s, *t.window_end_s, t.sm_clock_mhz_median,
                         t.temperature_c_max, t.power_w_mean,
                         t.throttled ? t.throttle_reasons : std::vector<std::string>{},
                         res.bench_id});
  }
  for (const auto& e : res.events)
    if (e.device == device)
      s.marks.push_back(
          {e.time_s, e.xid ? fmt::format("xid {}", *e.xid) : std::string(to_string(e.type))});
}

/// The GPUs of the node with a finding (or not passing): the only ones whose telemetry is drawn
/// (issue 31: eight plots of healthy GPUs hid the one that mattered).
std::set<int> gpus_with_findings(const node_verdict& n) {
  std::set<int> out;
  for (const auto& g : detail::grouped_diagnoses(n))
    out.insert(g.devices.begin(), g.devices.end());
  for (const auto& g : n.gpus)
    if (g.status != verdict_status::pass && g.status != verdict_status::skipped)
      out.insert(g.index);
  return out;
}

std::string telemetry_section(const node_verdict& n, const report& r,
                              std::optional<double> site_temperature_limit_c) {
  std::string out;
  const auto wanted = gpus_with_findings(n);
  for (const auto& d : r.devices) {
    if (!wanted.contains(d.index))
      continue;
    telemetry_series s{fmt::format("GPU {}", d.index), {}, d.power_limit_w, {}, {}, {}, {}};
    if (d.sm_clock_max_mhz)
      s.sm_clock_max_mhz = *d.sm_clock_max_mhz;
    if (d.temperature_slowdown_c)
      s.temperature_slowdown_c = *d.temperature_slowdown_c;
    s.site_temperature_limit_c = site_temperature_limit_c;
    for (const auto& res : r.results)
      if (std::find(res.devices.begin(), res.devices.end(), d.index) != res.devices.end())
        add_result_windows(s, res, d.index);
    if (s.windows.empty())
      continue;
    std::sort(s.windows.begin(), s.windows.end(),
              [](const auto& a, const auto& b) { return a.start_s < b.start_s; });
    out += figure(telemetry_plot(s),
                  fmt::format("Telemetry of GPU {} (it has a finding) over the run: each "
                              "result's (or burn-in interval's) median SM clock, highest "
                              "temperature and mean power, with the GPU's limits dashed; slowed "
                              "windows shaded, a power cap marked grey, events marked.",
                              d.index));
  }
  return out;
}

std::string roofline_section(const report& r) {
  std::map<std::string, roofline_input> models;
  for (const auto& res : r.results) {
    if (res.status != result_status::ok || res.devices.size() != 1)
      continue;
    const auto dev = std::find_if(r.devices.begin(), r.devices.end(),
                                  [&](const auto& d) { return d.index == res.devices[0]; });
    const std::string model =
        dev == r.devices.end() ? "unknown" : (dev->spec_id.empty() ? dev->name : dev->spec_id);
    auto& m = models[model];
    m.model = model;
    const auto& u = info_of(res.unit);
    const double base = res.stats.median * u.scale;
    if (!std::isfinite(base))
      continue; // a figure past the largest double draws no roof (and prints no "inf")
    if (u.measures == quantity::bytes_per_second && res.bench_id.starts_with("memory.stream"))
      m.bandwidth = std::max(m.bandwidth, base);
    if (u.measures == quantity::flop_per_second) {
      m.peak = std::max(m.peak, base);
      if (res.flops_per_iteration && res.bytes_per_iteration && *res.bytes_per_iteration > 0 &&
          m.points.size() < max_series)
        m.points.push_back({res.bench_id + " " + devices_text(res.devices),
                            *res.flops_per_iteration / *res.bytes_per_iteration, base});
    }
  }
  std::string out;
  for (const auto& [name, m] : models)
    // A roof without points says nothing about this run's results: drawn only with points.
    if (!m.points.empty() && m.bandwidth > 0 && m.peak > 0 && std::isfinite(m.peak / m.bandwidth))
      out += figure(roofline_plot(m),
                    fmt::format("Roofline of {} from its measured ceilings: the best STREAM "
                                "bandwidth and the best measured throughput; results with FLOP "
                                "and byte counts as points.",
                                name));
  return out;
}

} // namespace

std::string node_plots(const node_verdict& n, const report* r,
                       std::optional<double> site_temperature_limit_c) {
  std::string out = efficiency_section(n, r);
  if (r != nullptr)
    out += size_section(*r) + p2p_section(*r) + telemetry_section(n, *r, site_temperature_limit_c) +
           roofline_section(*r);
  return out;
}

} // namespace gpuspec::reports::render::html
