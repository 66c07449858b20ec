#include "gpuspec/reports/judge/diff.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/text_format.hpp"
#include "gpuspec/reports/model/units.hpp"

namespace gpuspec::reports::inline judge {

std::string_view to_string(change_kind k) {
  switch (k) {
  case change_kind::unchanged:
    return "unchanged";
  case change_kind::improved:
    return "improved";
  case change_kind::regression:
    return "regression";
  case change_kind::noisy_regression:
    return "noisy_regression";
  case change_kind::failed:
    return "failed";
  case change_kind::recovered:
    return "recovered";
  case change_kind::not_compared:
    return "not_compared";
  case change_kind::missing_in_new:
    return "missing_in_new";
  case change_kind::new_in_new:
    return "new_in_new";
  }
  return "unchanged";
}

namespace {

check_status worse(check_status a, check_status b) {
  auto rank = [](check_status s) {
    switch (s) {
    case check_status::skipped:
    case check_status::pass:
      return 0;
    case check_status::warn:
      return 1;
    case check_status::fail:
      return 2;
    }
    return 2;
  };
  return rank(b) > rank(a) ? b : a;
}

/// The pair key: the same result on the same GPU (and the same MIG device of it).
std::string result_key(const result& res, const std::string& device) {
  return case_key(res) + mig_key(res) + '\x1e' + device;
}

std::string value_text(const nlohmann::ordered_json& j) {
  return j.is_string() ? j.get<std::string>() : j.dump();
}

/// Observations that differ, in OLD's order, then those only NEW has.
std::vector<observation_change> changed_observations(const result& a, const result& b) {
  std::vector<observation_change> out;
  for (auto it = a.observations.begin(); it != a.observations.end(); ++it) {
    const auto other = b.observations.find(it.key());
    if (other == b.observations.end())
      out.push_back({it.key(), value_text(it.value()), ""});
    else if (*other != it.value())
      out.push_back({it.key(), value_text(it.value()), value_text(*other)});
  }
  for (auto it = b.observations.begin(); it != b.observations.end(); ++it)
    if (!a.observations.contains(it.key()))
      out.push_back({it.key(), "", value_text(it.value())});
  return out;
}

/// "cuBLAS chose another algorithm (algo_id 21 -> 6); gemms_per_sample 40 -> 42".
std::string observations_note(const std::vector<observation_change>& changes) {
  std::string out;
  bool algorithm = false;
  for (const auto& c : changes) {
    if (c.key.find("algo") != std::string::npos)
      algorithm = true;
    out += out.empty() ? "" : ", ";
    out += fmt::format("{} {} -> {}", c.key, c.old_value.empty() ? "(none)" : c.old_value,
                       c.new_value.empty() ? "(none)" : c.new_value);
  }
  if (out.empty())
    return out;
  return (algorithm ? "the library chose another algorithm; " : "") + std::string("observed: ") +
         out;
}

std::string opt_text(const std::optional<int>& v) { return v ? std::to_string(*v) : ""; }
std::string opt_text(const std::optional<double>& v) { return v ? fmt::format("{}", *v) : ""; }

void compare_field(std::vector<inventory_change>& out, const std::string& scope, const char* field,
                   const std::string& a, const std::string& b) {
  if (a != b)
    out.push_back({scope, field, a, b});
}

void compare_devices(std::vector<inventory_change>& out, const std::string& scope,
                     const device_info& a, const device_info& b) {
  compare_field(out, scope, "index", std::to_string(a.index), std::to_string(b.index));
  compare_field(out, scope, "name", a.name, b.name);
  compare_field(out, scope, "serial", a.serial, b.serial);
  compare_field(out, scope, "uuid", a.uuid, b.uuid);
  compare_field(out, scope, "pci_bus_id", a.pci_bus_id, b.pci_bus_id);
  compare_field(out, scope, "vbios", a.vbios, b.vbios);
  compare_field(out, scope, "sm_clock_max_mhz", opt_text(a.sm_clock_max_mhz),
                opt_text(b.sm_clock_max_mhz));
  compare_field(out, scope, "mem_clock_max_mhz", opt_text(a.mem_clock_max_mhz),
                opt_text(b.mem_clock_max_mhz));
  compare_field(out, scope, "power_limit_w", opt_text(a.power_limit_w), opt_text(b.power_limit_w));
  compare_field(out, scope, "power_limit_default_w", opt_text(a.power_limit_default_w),
                opt_text(b.power_limit_default_w));
  compare_field(out, scope, "pcie.gen_max", opt_text(a.pcie.gen_max), opt_text(b.pcie.gen_max));
  compare_field(out, scope, "pcie.width_max", opt_text(a.pcie.width_max),
                opt_text(b.pcie.width_max));
  compare_field(out, scope, "ecc_mode", a.ecc_mode, b.ecc_mode);
  compare_field(out, scope, "mig_mode", a.mig_mode, b.mig_mode);
  compare_field(out, scope, "persistence_mode", a.persistence_mode, b.persistence_mode);
}

/// A pair's p-value (the test), before the correction over the whole comparison.
void test_pair(metric_diff& m, const result& a, const result& b, double factor) {
  if (a.samples.size() >= 2 && b.samples.size() >= 2) {
    std::vector<double> converted(b.samples);
    for (auto& x : converted)
      x *= factor;
    const auto t = mann_whitney_u(a.samples, converted);
    m.p_value = t.p_value;
    m.method = t.method;
  }
}

void judge(metric_diff& m, const result& a, const result& b, const diff_options& o) {
  const bool a_ok = a.status == result_status::ok;
  const bool b_ok = b.status == result_status::ok;
  if (!a_ok || !b_ok) {
    if (a_ok) {
      m.kind = change_kind::failed;
      m.verdict = check_status::fail;
      m.note = fmt::format("ok before, {} now: {}", to_string(b.status), b.reason);
    } else if (b_ok) {
      m.kind = change_kind::recovered;
      m.verdict = check_status::pass;
      m.note = fmt::format("{} before ({}), ok now", to_string(a.status), a.reason);
    } else {
      m.kind = change_kind::not_compared;
      m.verdict = check_status::skipped;
      m.note = fmt::format("{} before, {} now", to_string(a.status), to_string(b.status));
    }
    return;
  }
  const auto factor = conversion_factor(b.unit, a.unit);
  if (!factor) {
    m.kind = change_kind::not_compared;
    m.verdict = check_status::warn;
    m.note = fmt::format("{} before, {} now: not the same quantity", to_string(a.unit),
                         to_string(b.unit));
    return;
  }
  const double old_median = a.stats.median;
  const double new_median = b.stats.median * *factor;
  m.new_median = new_median;
  if (old_median != 0)
    m.relative_change = (new_median - old_median) / std::fabs(old_median);
  else if (new_median == 0)
    m.relative_change = 0.0;
  if (!m.relative_change) {
    m.kind = change_kind::not_compared;
    m.verdict = check_status::warn;
    m.note = "the old median is 0: no relative change to judge";
    return;
  }
  const double r = *m.relative_change;
  const double g = m.higher_is_better ? -r : r;
  const bool significant = m.q_value && *m.q_value < o.alpha && std::fabs(r) >= o.min_effect;
  const std::string p_text =
      m.p_value ? fmt::format("p = {:.2g}, q = {:.2g}", *m.p_value, m.q_value.value_or(*m.p_value))
                : std::string("no test (under 2 samples)");
  if (significant) {
    if (g >= o.fail_threshold) {
      m.kind = change_kind::regression;
      m.verdict = check_status::fail;
      m.note = fmt::format("{:.1f}% worse, {}; fails at {:.1f}%", 100 * g, p_text,
                           100 * o.fail_threshold);
    } else if (g > 0) {
      m.kind = change_kind::regression;
      m.verdict = check_status::warn;
      m.note = fmt::format("{:.1f}% worse, {}; under the {:.1f}% fail threshold", 100 * g, p_text,
                           100 * o.fail_threshold);
    } else {
      m.kind = change_kind::improved;
      m.verdict = check_status::pass;
      m.note = fmt::format("{:.1f}% better, {}", -100 * g, p_text);
    }
    return;
  }
  if (g >= o.fail_threshold) {
    m.kind = change_kind::noisy_regression;
    m.verdict = check_status::warn;
    m.note =
        fmt::format("{:.1f}% worse but not significant ({}): too noisy to judge", 100 * g, p_text);
    return;
  }
  m.kind = change_kind::unchanged;
  m.verdict = check_status::pass;
  m.note = fmt::format("{:+.1f}%, {}", 100 * r, p_text);
}

metric_diff base(const result& r, const std::string& device) {
  metric_diff m;
  m.bench_id = r.bench_id;
  m.axes = r.axes;
  m.metric = r.metric;
  m.unit = r.unit;
  m.higher_is_better = r.higher_is_better;
  m.device = device;
  return m;
}

std::string label(const report& r) {
  std::string out = r.host.hostname.empty() ? "unknown host" : r.host.hostname;
  if (!r.run.started_utc.empty())
    out += " at " + r.run.started_utc;
  return out;
}

} // namespace

std::vector<double> benjamini_hochberg(const std::vector<double>& p) {
  const std::size_t m = p.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  std::vector<double> q(m, 1.0);
  double running = 1.0;
  for (std::size_t k = m; k-- > 0;) {
    const double adjusted = p[order[k]] * static_cast<double>(m) / static_cast<double>(k + 1);
    running = std::min(running, adjusted);
    q[order[k]] = std::min(running, 1.0);
  }
  return q;
}

namespace {

using result_pairs = std::vector<std::pair<std::size_t, std::pair<const result*, const result*>>>;

/// The host's inventory fields that changed, and the GPU count.
void diff_host(diff_output& out, const report& old_report, const report& new_report) {
  const auto& ho = old_report.host;
  const auto& hn = new_report.host;
  compare_field(out.inventory, "host", "hostname", ho.hostname, hn.hostname);
  compare_field(out.inventory, "host", "driver_version", ho.driver_version, hn.driver_version);
  compare_field(out.inventory, "host", "cuda_driver_version", ho.cuda_driver_version,
                hn.cuda_driver_version);
  compare_field(out.inventory, "host", "cuda_runtime_version", ho.cuda_runtime_version,
                hn.cuda_runtime_version);
  compare_field(out.inventory, "host", "cublas_version", ho.cublas_version, hn.cublas_version);
  compare_field(out.inventory, "host", "nccl_version", ho.nccl_version, hn.nccl_version);
  compare_field(out.inventory, "host", "kernel", ho.kernel, hn.kernel);
  compare_field(out.inventory, "host", "gpu_count", std::to_string(old_report.devices.size()),
                std::to_string(new_report.devices.size()));
}

/// Each GPU paired by the common identity key (a GPU gone is a warning), then the new ones.
void pair_devices(diff_output& out, const report& old_report, const report& new_report) {
  std::map<std::string, const device_info*> new_by_id;
  for (const auto& d : new_report.devices)
    new_by_id[identity_of(d, out.key)] = &d;
  std::set<std::string> paired;
  for (const auto& d : old_report.devices) {
    const std::string id = identity_of(d, out.key);
    device_match m{id, d.name, d.index, std::nullopt};
    if (const auto it = new_by_id.find(id); it != new_by_id.end()) {
      m.new_index = it->second->index;
      m.name = it->second->name;
      paired.insert(id);
      compare_devices(out.inventory, id, d, *it->second);
    } else {
      out.verdict = worse(out.verdict, check_status::warn);
    }
    out.devices.push_back(std::move(m));
  }
  for (const auto& d : new_report.devices) {
    const std::string id = identity_of(d, out.key);
    if (!paired.contains(id))
      out.devices.push_back({id, d.name, std::nullopt, d.index});
  }
}

/// Each old result paired with the new one of the same key and tested; `matched` gets the keys
/// paired, and the pairs are returned by metric index for judging once q-values are known.
result_pairs pair_results(diff_output& out, const report& old_report, const report& new_report,
                          std::set<std::string>& matched) {
  // Results: pair, test each pair, then correct over the whole comparison and judge.
  std::unordered_map<std::string, const result*> new_results;
  for (const auto& r : new_report.results)
    new_results.emplace(result_key(r, devices_identity(new_report, r.devices, out.key)), &r);
  result_pairs pairs;
  for (const auto& a : old_report.results) {
    const std::string device = devices_identity(old_report, a.devices, out.key);
    const std::string key = result_key(a, device);
    metric_diff m = base(a, device);
    m.old_devices = a.devices;
    m.old_n = a.stats.n;
    if (a.status == result_status::ok)
      m.old_median = a.stats.median;
    const auto it = new_results.find(key);
    if (it == new_results.end() || matched.contains(key)) {
      m.kind = change_kind::missing_in_new;
      m.verdict = check_status::warn;
      m.note = "not in the new report";
    } else {
      matched.insert(key);
      const result& b = *it->second;
      m.new_devices = b.devices;
      m.new_n = b.stats.n;
      if (b.status == result_status::ok)
        m.new_median = b.stats.median;
      m.observations_changed = changed_observations(a, b);
      if (a.status == result_status::ok && b.status == result_status::ok)
        if (const auto factor = conversion_factor(b.unit, a.unit))
          test_pair(m, a, b, *factor);
      pairs.push_back({out.metrics.size(), {&a, &b}});
    }
    out.metrics.push_back(std::move(m));
  }
  return pairs;
}

/// Benjamini-Hochberg over every pair that was tested, then each pair judged and the verdict.
void judge_pairs(diff_output& out, const result_pairs& pairs, const diff_options& options) {
  std::vector<double> p;
  std::vector<std::size_t> tested;
  for (std::size_t i = 0; i < out.metrics.size(); ++i)
    if (out.metrics[i].p_value) {
      p.push_back(*out.metrics[i].p_value);
      tested.push_back(i);
    }
  const auto q = benjamini_hochberg(p);
  for (std::size_t k = 0; k < tested.size(); ++k)
    out.metrics[tested[k]].q_value = q[k];
  out.tested = tested.size();
  for (const auto& [index, pair] : pairs) {
    auto& m = out.metrics[index];
    judge(m, *pair.first, *pair.second, options);
    if (m.old_devices != m.new_devices)
      m.note += fmt::format(" (GPU moved: index {} -> {})", fmt::join(m.old_devices, ","),
                            fmt::join(m.new_devices, ","));
    if (const auto context = observations_note(m.observations_changed); !context.empty())
      m.note += " (" + context + ")";
  }
  for (const auto& m : out.metrics)
    out.verdict = worse(out.verdict, m.verdict);
}

/// The new report's results with no partner in the old one.
void add_new_results(diff_output& out, const report& new_report,
                     const std::set<std::string>& matched) {
  for (const auto& b : new_report.results) {
    const std::string device = devices_identity(new_report, b.devices, out.key);
    if (matched.contains(result_key(b, device)))
      continue;
    metric_diff m = base(b, device);
    m.new_devices = b.devices;
    m.new_n = b.stats.n;
    if (b.status == result_status::ok)
      m.new_median = b.stats.median;
    m.kind = change_kind::new_in_new;
    m.verdict = check_status::pass;
    m.note = "not in the old report";
    out.metrics.push_back(std::move(m));
  }
}

} // namespace

diff_output diff_reports(const report& old_report, const report& new_report,
                         const diff_options& options) {
  if (!(options.alpha > 0 && options.alpha < 1))
    throw std::invalid_argument("diff_options.alpha must be in (0, 1)");
  if (!(options.min_effect >= 0))
    throw std::invalid_argument("diff_options.min_effect must not be negative");
  if (!(options.fail_threshold >= options.min_effect))
    throw std::invalid_argument("diff_options.fail_threshold must be at least min_effect");

  diff_output out;
  out.options = options;
  out.old_label = label(old_report);
  out.new_label = label(new_report);

  out.key = common_device_key(old_report, new_report);

  diff_host(out, old_report, new_report);
  pair_devices(out, old_report, new_report);
  std::set<std::string> matched;
  const auto pairs = pair_results(out, old_report, new_report, matched);
  judge_pairs(out, pairs, options);
  add_new_results(out, new_report, matched);
  return out;
}

namespace {

template <class T> nlohmann::ordered_json opt_json(const std::optional<T>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

std::string opt_value(const std::optional<double>& v) {
  return v ? fmt::format("{:.4g}", *v) : std::string("—");
}

} // namespace

nlohmann::ordered_json to_json(const diff_output& d) {
  nlohmann::ordered_json j;
  j["schema"] = "gpuspec.diff.v2";
  j["old"] = d.old_label;
  j["new"] = d.new_label;
  j["options"] = {{"alpha", d.options.alpha},
                  {"min_effect", d.options.min_effect},
                  {"fail_threshold", d.options.fail_threshold},
                  {"test", "mann-whitney-u two-sided"},
                  {"correction", "benjamini-hochberg"},
                  {"tested", d.tested}};
  j["device_key"] = std::string(to_string(d.key));
  j["verdict"] = std::string(to_string(d.verdict));
  auto& inv = j["inventory"] = nlohmann::ordered_json::array();
  for (const auto& c : d.inventory)
    inv.push_back(
        {{"scope", c.scope}, {"field", c.field}, {"old", c.old_value}, {"new", c.new_value}});
  auto& dev = j["devices"] = nlohmann::ordered_json::array();
  for (const auto& m : d.devices)
    dev.push_back({{"identity", m.identity},
                   {"name", m.name},
                   {"old_index", opt_json(m.old_index)},
                   {"new_index", opt_json(m.new_index)}});
  auto& met = j["metrics"] = nlohmann::ordered_json::array();
  for (const auto& m : d.metrics) {
    nlohmann::ordered_json e;
    e["bench_id"] = m.bench_id;
    e["axes"] = m.axes;
    e["metric"] = m.metric;
    e["unit"] = std::string(to_string(m.unit));
    e["higher_is_better"] = m.higher_is_better;
    e["device"] = m.device;
    e["old_devices"] = m.old_devices;
    e["new_devices"] = m.new_devices;
    e["old_median"] = opt_json(m.old_median);
    e["new_median"] = opt_json(m.new_median);
    e["old_n"] = m.old_n;
    e["new_n"] = m.new_n;
    e["relative_change"] = opt_json(m.relative_change);
    e["p_value"] = opt_json(m.p_value);
    e["q_value"] = opt_json(m.q_value);
    e["test_method"] = std::string(to_string(m.method));
    e["change"] = std::string(to_string(m.kind));
    e["verdict"] = std::string(to_string(m.verdict));
    e["note"] = m.note;
    auto& observed = e["observations_changed"] = nlohmann::ordered_json::array();
    for (const auto& c : m.observations_changed)
      observed.push_back({{"key", c.key}, {"old", c.old_value}, {"new", c.new_value}});
    met.push_back(std::move(e));
  }
  return j;
}

int exit_code_of(const diff_output& d) {
  switch (d.verdict) {
  case check_status::fail:
    return 2;
  case check_status::warn:
    return 1;
  case check_status::pass:
  case check_status::skipped:
    return 0;
  }
  return 0;
}

std::vector<const metric_diff*> not_passing(const diff_output& d) {
  std::vector<const metric_diff*> out;
  for (const auto want : {check_status::fail, check_status::warn})
    for (const auto& m : d.metrics)
      if (m.verdict == want)
        out.push_back(&m);
  return out;
}

std::string metric_gpus_text(const metric_diff& m) {
  const auto& devices = m.new_devices.empty() ? m.old_devices : m.new_devices;
  return devices.empty() ? "-" : format_gpu_ranges(devices);
}

std::string to_markdown(const diff_output& d) {
  // The answer first (issue 31), as in the terminal: the verdict, then what is not passing;
  // the details after, and the verdict again last.
  std::string verdict(
      to_string(d.verdict == check_status::skipped ? check_status::pass : d.verdict));
  for (auto& c : verdict)
    c = static_cast<char>(c - 'a' + 'A');
  const auto bad = not_passing(d);
  std::string out = fmt::format(
      "# gpuspec diff: {}\n\n**{} (exit code {}); {} metric{}, {}**\n\n", verdict, verdict,
      exit_code_of(d), d.metrics.size(), d.metrics.size() == 1 ? "" : "s",
      bad.empty() ? std::string("all passing") : fmt::format("{} not passing", bad.size()));
  if (!bad.empty()) {
    out +=
        "## Not passing, worst first\n\n| benchmark | axes | GPU | change | q | verdict | note |\n"
        "| --- | --- | --- | ---: | ---: | --- | --- |\n";
    for (const auto* m : bad)
      out += fmt::format(
          "| {} | {} | {} ({}) | {} | {} | {} | {} |\n", markdown_cell(m->bench_id),
          markdown_cell(format_parameters(m->axes)), metric_gpus_text(*m), markdown_cell(m->device),
          m->relative_change ? fmt::format("{:+.2f}%", 100 * *m->relative_change) : "—",
          m->q_value ? fmt::format("{:.2g}", *m->q_value) : "—", to_string(m->verdict),
          markdown_cell(m->note));
    out += '\n';
  }
  out +=
      fmt::format("Old: {}  \nNew: {}\n\n", markdown_cell(d.old_label), markdown_cell(d.new_label));
  out += "## Inventory\n\n";
  if (d.inventory.empty()) {
    out += "No inventory differences.\n\n";
  } else {
    out += "| scope | field | old | new |\n| --- | --- | --- | --- |\n";
    for (const auto& c : d.inventory)
      out += fmt::format("| {} | {} | {} | {} |\n", markdown_cell(c.scope), c.field,
                         markdown_cell(c.old_value), markdown_cell(c.new_value));
    out += '\n';
  }
  out += fmt::format("## GPUs (paired by {})\n\n| GPU | name | old index | new index |\n"
                     "| --- | --- | --- | --- |\n",
                     to_string(d.key));
  for (const auto& m : d.devices)
    out += fmt::format("| {} | {} | {} | {} |\n", markdown_cell(m.identity), markdown_cell(m.name),
                       m.old_index ? std::to_string(*m.old_index) : "—",
                       m.new_index ? std::to_string(*m.new_index) : "—");
  out += fmt::format(
      "\n## Metrics\n\nMann–Whitney U, two-sided, then the Benjamini–Hochberg correction over "
      "the {} pairs tested; significant when q < {} and |change| ≥ {:.1f}%; a significant "
      "regression ≥ {:.1f}% fails.\n\n",
      d.tested, d.options.alpha, 100 * d.options.min_effect, 100 * d.options.fail_threshold);
  out += "| benchmark | axes | GPU | old median | new median | unit | change | p | q | verdict "
         "| note |\n| --- | --- | --- | ---: | ---: | --- | ---: | ---: | ---: | --- | --- |\n";
  for (const auto& m : d.metrics)
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                       markdown_cell(m.bench_id), markdown_cell(format_parameters(m.axes)),
                       markdown_cell(m.device), opt_value(m.old_median), opt_value(m.new_median),
                       markdown_cell(to_string(m.unit)),
                       m.relative_change ? fmt::format("{:+.2f}%", 100 * *m.relative_change) : "—",
                       m.p_value ? fmt::format("{:.2g}", *m.p_value) : "—",
                       m.q_value ? fmt::format("{:.2g}", *m.q_value) : "—", to_string(m.verdict),
                       markdown_cell(m.note));
  out += fmt::format("\n**Verdict: {} (exit code {})**\n", verdict, exit_code_of(d));
  return out;
}

} // namespace gpuspec::reports::judge
