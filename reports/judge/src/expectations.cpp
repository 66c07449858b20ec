// The expectation rules (expectations.hpp): which rule judges a result, by its bench id, axes,
// shape class, path and accumulation, the most specific first. Loading the rules file is
// expectations_file.cpp.

#include "gpuspec/reports/judge/expectations.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <span>

#include <fmt/format.h>

#include "gpuspec/reports/judge/host_rules.hpp"
#include "gpuspec/reports/model/arch_rates.hpp"
#include "gpuspec/reports/model/json_reader.hpp"

namespace gpuspec::reports::inline judge {

bool pattern_matches(std::string_view pattern, std::string_view id) {
  // Iterative glob with '*' only; backtracks to the last star.
  std::size_t p = 0, s = 0, star = std::string_view::npos, mark = 0;
  while (s < id.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = s;
    } else if (p < pattern.size() && pattern[p] == id[s]) {
      ++p;
      ++s;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      s = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

std::string_view gemm_shape_class(std::int64_t m, std::int64_t n, std::int64_t k) {
  if (m <= gemm_skinny_max || n <= gemm_skinny_max)
    return "skinny";
  const double mnk = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  return mnk < gemm_large_min_mnk ? "small" : "large";
}

std::optional<std::uint64_t> size_in_bytes(std::string_view text) {
  std::size_t i = 0;
  std::uint64_t n = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    if (n > (std::uint64_t{1} << 50))
      return std::nullopt; // past any size a tool runs: refuse rather than overflow
    n = n * 10 + static_cast<std::uint64_t>(text[i++] - '0');
  }
  if (i == 0)
    return std::nullopt;
  while (i < text.size() && text[i] == ' ')
    ++i;
  static constexpr std::pair<std::string_view, std::uint64_t> units[] = {
      {"B", 1},
      {"KiB", std::uint64_t{1} << 10},
      {"MiB", std::uint64_t{1} << 20},
      {"GiB", std::uint64_t{1} << 30},
      {"KB", 1000},
      {"MB", 1000 * 1000},
      {"GB", 1000 * 1000 * 1000}};
  for (const auto& [unit, factor] : units)
    if (text.substr(i) == unit)
      return n * factor;
  return std::nullopt;
}

namespace {

bool selector_holds(const std::vector<std::string>& accepted, const std::string& value) {
  return accepted.empty() ||
         (!value.empty() && std::find(accepted.begin(), accepted.end(), value) != accepted.end());
}

std::size_t conditions(const expectation_rule& r) {
  return r.axes.size() + (r.shape_class.empty() ? 0 : 1) + (r.path.empty() ? 0 : 1) +
         (r.accumulation.empty() ? 0 : 1) + (r.min_bytes ? 1 : 0);
}

/// True when every axis condition of `rule` holds in `axes` (a result's axes object).
bool axes_match(const expectation_rule& rule, const nlohmann::ordered_json& axes) {
  for (const auto& [name, allowed] : rule.axes) {
    if (!axes.is_object())
      return false;
    const auto it = axes.find(name);
    if (it == axes.end() || !it->is_string())
      return false;
    if (std::find(allowed.begin(), allowed.end(), it->get<std::string>()) == allowed.end())
      return false;
  }
  return true;
}

} // namespace

namespace {

/// The rule of the highest layer, then with the most conditions, then with the most literal
/// characters in its pattern, among those `matches` accepts.
template <class Matches>
const expectation_rule* most_specific(const std::vector<expectation_rule>& rules, Matches matches) {
  const expectation_rule* best = nullptr;
  auto literal = [](const std::string& p) {
    return std::count_if(p.begin(), p.end(), [](char c) { return c != '*'; });
  };
  const auto more_specific = [&](const expectation_rule& a, const expectation_rule& b) {
    if (a.layer != b.layer)
      return a.layer > b.layer;
    if (conditions(a) != conditions(b))
      return conditions(a) > conditions(b);
    return literal(a.pattern) > literal(b.pattern);
  };
  for (const auto& rule : rules) {
    if (!matches(rule))
      continue;
    if (best == nullptr || more_specific(rule, *best))
      best = &rule;
  }
  return best;
}

} // namespace

const expectation_rule* expectations::find(std::string_view bench_id,
                                           const nlohmann::ordered_json& axes) const {
  rule_subject s;
  s.bench_id = std::string(bench_id);
  s.axes = axes;
  if (const auto size = axes.is_object() ? axes.find("size") : axes.end();
      axes.is_object() && size != axes.end() && size->is_string())
    s.size_bytes = size_in_bytes(size->get<std::string>());
  const auto c = choose(s);
  return c ? c->rule : nullptr;
}

std::optional<rule_choice> expectations::choose(const rule_subject& s) const {
  const expectation_rule* rule = most_specific(rules, [&](const expectation_rule& r) {
    return pattern_matches(r.pattern, s.bench_id) && axes_match(r, s.axes) &&
           selector_holds(r.shape_class, s.shape_class) && selector_holds(r.path, s.path) &&
           selector_holds(r.accumulation, s.accumulation) &&
           (!r.min_bytes || (s.size_bytes && *s.size_bytes >= *r.min_bytes));
  });
  if (rule == nullptr)
    return std::nullopt;
  rule_choice c{rule, nullptr, rule->pass, rule->warn, rule->informational, rule->why};
  const auto names = [](const std::vector<std::string>& list, const std::string& value) {
    return !value.empty() && std::find(list.begin(), list.end(), value) != list.end();
  };
  for (const auto& o : rule->overrides)
    if (names(o.spec, s.spec_id)) {
      c.applied = &o;
      break;
    }
  if (c.applied == nullptr)
    for (const auto& o : rule->overrides)
      if (names(o.arch, s.arch)) {
        c.applied = &o;
        break;
      }
  if (c.applied != nullptr) {
    c.pass = c.applied->pass;
    c.warn = c.applied->warn;
    c.informational = c.applied->informational;
    c.why = c.applied->why;
  }
  return c;
}

namespace {

/// The path a peer copy or collective crossed, from the node's topology.
std::string pair_path(const gpu_pair& p) {
  if (p.nvlink_links > 0)
    return "nvlink";
  if (p.pcie_path == "system")
    return "cross_socket";
  return p.pcie_path.empty() ? std::string() : std::string("pcie");
}

std::string observed_string(const result& res, const char* key) {
  const auto it = res.observations.find(key);
  return it != res.observations.end() && it->is_string() ? it->get<std::string>() : std::string();
}

/// Ranks on more than one host (the `ranks` observation our multi-node runs and imported logs
/// carry): a collective across nodes.
bool ranks_span_hosts(const result& res) {
  const auto it = res.observations.find("ranks");
  if (it == res.observations.end() || !it->is_array())
    return false;
  std::string first;
  for (const auto& rank : *it)
    if (const auto h = rank.is_object() ? rank.find("host") : rank.end();
        rank.is_object() && h != rank.end() && h->is_string()) {
      if (first.empty())
        first = h->get<std::string>();
      else if (h->get<std::string>() != first)
        return true;
    }
  return false;
}

/// A collective across nodes by the NICs between them (expect.json's network paths): the pass and
/// warn lines differ by NIC type; "network" when no record names it.
std::string network_path(const std::string& transport) {
  if (transport == "InfiniBand")
    return "network_infiniband";
  if (transport == "RoCE")
    return "network_roce";
  if (transport == "EFA")
    return "network_efa";
  if (transport == "TCPX")
    return "network_tcpx";
  return "network";
}

std::string path_of(const report& r, const result& res, const gpu_spec* spec) {
  const std::string& id = res.bench_id;
  const topology_info* t = r.host.topology ? &*r.host.topology : nullptr;
  if (id.starts_with("transfer.p2p")) {
    if (t != nullptr && res.devices.size() == 2)
      if (const gpu_pair* p = find_pair(*t, res.devices[0], res.devices[1]))
        if (auto path = pair_path(*p); !path.empty())
          return path;
    const std::string text = observed_string(res, "path");
    if (text.starts_with("NVLink"))
      return "nvlink";
    if (text.find("(SYS)") != std::string::npos)
      return "cross_socket";
    return text.starts_with("PCIe") ? "pcie" : "";
  }
  if (id.starts_with("transfer.")) {
    // host <-> GPU: the GPU's PCIe link, host memory on its own NUMA node; NVLink-C2C on a
    // Grace-based GPU (host_rules.hpp is_c2c_attached, NVML's answer or the GPU's spec row).
    for (const auto& d : r.devices)
      if (res.devices.size() == 1 && d.index == res.devices.front() && is_c2c_attached(d, spec))
        return "c2c";
    return "pcie";
  }
  if (id.starts_with("collective.")) {
    const std::string link = observed_string(res, "ceiling_link");
    if (link == "NVLink")
      return "nvlink";
    if (link == "network" || (link.empty() && ranks_span_hosts(res)))
      return network_path(observed_string(res, "network_transport"));
    if (link != "PCIe")
      return "";
    if (t != nullptr)
      for (int a : res.devices)
        for (int b : res.devices)
          if (const gpu_pair* p = a != b ? find_pair(*t, a, b) : nullptr)
            if (p->pcie_path == "system")
              return "cross_socket";
    return "pcie";
  }
  return "";
}

std::string accumulation_of(const result& res) {
  const auto fast = res.observations.find("fast_accum");
  if (fast != res.observations.end() && fast->is_boolean() && fast->get<bool>())
    return "fast";
  const std::string compute = observed_string(res, "compute_type");
  if (compute.starts_with("CUBLAS_COMPUTE_32F"))
    return "fp32";
  if (compute.starts_with("CUBLAS_COMPUTE_16F"))
    return "fp16";
  if (compute.starts_with("CUBLAS_COMPUTE_64F"))
    return "fp64";
  if (compute.starts_with("CUBLAS_COMPUTE_32I"))
    return "int32";
  return "";
}

std::string shape_class_of(const result& res) {
  std::int64_t dims[3] = {0, 0, 0};
  const char* keys[3] = {"m", "n", "k"};
  for (int i = 0; i < 3; ++i) {
    const auto it = res.observations.find(keys[i]);
    if (it == res.observations.end() || !it->is_number_integer())
      return "";
    dims[i] = it->get<std::int64_t>();
    if (dims[i] < 1)
      return "";
  }
  return std::string(gemm_shape_class(dims[0], dims[1], dims[2]));
}

/// The axis `size` as bytes ("1GiB", "40MB"), else the observation size_bytes (a log's row).
std::optional<std::uint64_t> size_of(const result& res) {
  if (const auto it = res.axes.find("size"); it != res.axes.end() && it->is_string())
    if (auto bytes = size_in_bytes(it->get<std::string>()))
      return bytes;
  const auto it = res.observations.find("size_bytes");
  if (it != res.observations.end() && it->is_number_integer() && it->get<std::int64_t>() >= 0)
    return static_cast<std::uint64_t>(it->get<std::int64_t>());
  return std::nullopt;
}

} // namespace

rule_subject subject_of(const report& r, const result& res, const device_info* device,
                        const gpu_spec* spec) {
  rule_subject s;
  s.bench_id = res.bench_id;
  s.axes = res.axes;
  s.shape_class = shape_class_of(res);
  s.path = path_of(r, res, spec);
  s.accumulation = accumulation_of(res);
  s.size_bytes = size_of(res);
  if (device != nullptr && device->cc_major && device->cc_minor)
    if (const auto* row = find_arch_rates(*device->cc_major, *device->cc_minor))
      s.arch = std::string(row->name);
  // A report without compute capabilities (one imported from a log): the spec row's.
  if (s.arch.empty() && spec != nullptr)
    s.arch = spec->architecture;
  if (spec != nullptr)
    s.spec_id = spec->id;
  return s;
}

} // namespace gpuspec::reports::judge
