// Host, inventory and counter rules of the check (docs/check.md, "Diagnosis"). The inventory
// rules are host_rules.hpp's, the ones the run recorded; here they become diagnoses.

#include "gpuspec/reports/judge/diagnosis.hpp"
#include "gpuspec/reports/model/fraction.hpp"
#include "gpuspec/reports/model/reference.hpp"
#include "gpuspec/reports/model/text_format.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace gpuspec::reports::inline judge {

namespace {

std::optional<std::int64_t> value_of(const counter_set& set, const std::string& name) {
  const auto it = set.find(name);
  return it == set.end() ? std::nullopt : it->second.value;
}

/// A rule's verdict that warned or failed, as a diagnosis; nullopt when it passed or was
/// skipped.
std::optional<diagnosis> from_check(const host_check& c, std::string_view code,
                                    const device_info* device, const host_info& host) {
  if (c.status != check_status::warn && c.status != check_status::fail)
    return std::nullopt;
  auto d = make_diagnosis(
      code, c.status == check_status::fail ? verdict_status::fail : verdict_status::warn, c.message,
      device, host);
  d.evidence["rule"] = c.id;
  return d;
}

void add_check(std::vector<diagnosis>& out, const host_check& c, std::string_view code,
               const device_info* device, const host_info& host) {
  if (auto d = from_check(c, code, device, host))
    out.push_back(std::move(*d));
}

// ---- device rules: each one small function ------------------------------------------------

using device_rule = void (*)(const gpu_facts&, std::vector<diagnosis>&);

void rule_lost(const gpu_facts& g, std::vector<diagnosis>& out) {
  if (!gpu_is_lost(g.device))
    return;
  std::string cause = "NVML answers \"GPU is lost\"";
  for (const auto& p : g.device.problems)
    if (p.find("GPU is lost") != std::string::npos) {
      cause += ": " + p;
      break;
    }
  auto d = make_diagnosis("GPUSPEC-GPU-LOST", verdict_status::fail, cause, &g.device, g.r.host);
  d.evidence["problems"] = fmt::format("{}", g.device.problems.size());
  out.push_back(std::move(d));
}

/// The host-to-device transfers of one GPU (transfer.h2d, .d2h, .bidir; not the peer copies),
/// the fastest of each benchmark: what the link moved at its best.
std::vector<const result*> best_transfers(const gpu_facts& g) {
  std::map<std::string, const result*> best;
  for (const auto& r : g.r.results) {
    if (r.status != result_status::ok || r.devices != std::vector<int>{g.device.index} ||
        !(r.bench_id == "transfer.h2d" || r.bench_id == "transfer.d2h" ||
          r.bench_id == "transfer.bidir") ||
        !(r.stats.median > 0))
      continue;
    auto& b = best[r.bench_id];
    if (b == nullptr || r.stats.median > b->stats.median)
      b = &r;
  }
  std::vector<const result*> out;
  for (const auto& [id, r] : best)
    out.push_back(r);
  return out;
}

void rule_pcie_link(const gpu_facts& g, std::vector<diagnosis>& out) {
  const auto check =
      pcie_link_check(g.device, g.spec, g.load ? &*g.load : nullptr, host_rule_settings{});
  auto d = from_check(check, "GPUSPEC-PCIE-LINK-DEGRADED", &g.device, g.r.host);
  if (!d)
    return;
  // The transfers as evidence: what they moved, against the link the card and its slot can
  // reach (the figure they are judged against) and the link as trained while they ran.
  const pcie_reach reach = pcie_reachable_link(g.device, g.spec, &g.r.host);
  const auto transfers = best_transfers(g);
  std::string figures;
  for (const result* r : transfers) {
    const int directions = r->bench_id == "transfer.bidir" ? 2 : 1;
    std::string text = fmt::format("{:.2f} GB/s ({})", r->stats.median, format_parameters(r->axes));
    if (const auto gen = reach.transfer_gen(); gen && reach.width)
      if (const auto gbs = pcie_bandwidth_gbs(*gen, *reach.width))
        if (const auto f = fraction_of(r->stats.median, *gbs * directions))
          text += fmt::format(", {:.0f}% of the {:.2f} GB/s of Gen{} x{}", 100 * *f,
                              *gbs * directions, *gen, *reach.width);
    const auto& t = r->telemetry;
    if (t.pcie_gen_min && t.pcie_width_min)
      if (const auto gbs = pcie_bandwidth_gbs(*t.pcie_gen_min, *t.pcie_width_min))
        text += fmt::format("; trained Gen{} x{} while it ran: at most {:.2f} GB/s",
                            *t.pcie_gen_min, *t.pcie_width_min, *gbs * directions);
    d->evidence[r->bench_id] = text;
    figures +=
        fmt::format("{}{} {:.2f} GB/s", figures.empty() ? "" : ", ", r->bench_id, r->stats.median);
  }
  if (!figures.empty())
    d->cause += fmt::format("; transfers measured: {}", figures);
  out.push_back(std::move(*d));
}

void rule_pcie_slot(const gpu_facts& g, std::vector<diagnosis>& out) {
  add_check(out, pcie_slot_check(g.device, g.spec), "GPUSPEC-PCIE-LINK-CAPPED", &g.device,
            g.r.host);
}

void rule_power_limit(const gpu_facts& g, std::vector<diagnosis>& out) {
  add_check(out, power_limit_check(g.device), "GPUSPEC-POWER-LIMIT-LOW", &g.device, g.r.host);
}

/// Measured although other processes used it (--allow-busy): every figure is a shared GPU's.
/// A GPU refused for it has no result, and the roll-up says so (GPUSPEC-GPU-BUSY).
void rule_shared(const gpu_facts& g, std::vector<diagnosis>& out) {
  if (!g.device.activity || g.device.activity->processes.empty())
    return;
  const bool measured = std::any_of(g.r.results.begin(), g.r.results.end(), [&](const result& r) {
    return r.status != result_status::skipped &&
           std::find(r.devices.begin(), r.devices.end(), g.device.index) != r.devices.end();
  });
  if (!measured)
    return;
  out.push_back(make_diagnosis(
      "GPUSPEC-GPU-SHARED", verdict_status::warn,
      fmt::format("GPU {} was measured while in use by {} (--allow-busy): its figures are a "
                  "shared GPU's",
                  g.device.index, processes_text(g.device.activity->processes)),
      &g.device, g.r.host));
}

void rule_persistence(const gpu_facts& g, std::vector<diagnosis>& out) {
  add_check(out, persistence_check(g.device), "GPUSPEC-PERSISTENCE-OFF", &g.device, g.r.host);
}

void rule_temperature(const gpu_facts& g, std::vector<diagnosis>& out) {
  add_check(out, temperature_check(g.device, g.settings.temperature_limit_c),
            "GPUSPEC-GPU-TEMPERATURE-HIGH", &g.device, g.r.host);
}

void rule_ecc_mode(const gpu_facts& g, std::vector<diagnosis>& out) {
  add_check(out, ecc_mode_check(g.device), "GPUSPEC-ECC-DISABLED", &g.device, g.r.host);
}

void rule_ecc_uncorrected(const gpu_facts& g, std::vector<diagnosis>& out) {
  std::vector<std::string> seen;
  std::map<std::string, std::string> counters;
  for (const char* name : {"ecc.volatile.uncorrected", "ecc.aggregate.uncorrected",
                           "retired_pages.double_bit", "remapped_rows.uncorrectable"}) {
    const auto v = value_of(g.device.counters_delta, name);
    if (v && *v > 0) {
      seen.push_back(fmt::format("{} +{}", name, *v));
      counters[std::string("counters_delta.") + name] = std::to_string(*v);
    }
  }
  if (seen.empty())
    return;
  std::string cause = "during the run:";
  for (const auto& s : seen)
    cause += " " + s;
  auto d =
      make_diagnosis("GPUSPEC-ECC-UNCORRECTED", verdict_status::fail, cause, &g.device, g.r.host);
  d.evidence.merge(counters);
  out.push_back(std::move(d));
}

void rule_ecc_storm(const gpu_facts& g, std::vector<diagnosis>& out) {
  // The volatile count is this boot's; the aggregate is read where the volatile one is not.
  for (const char* name : {"ecc.volatile.corrected", "ecc.aggregate.corrected"}) {
    const auto v = value_of(g.device.counters_delta, name);
    if (!v)
      continue;
    if (*v >= g.settings.ecc_corrected_storm) {
      auto d = make_diagnosis("GPUSPEC-ECC-CORRECTED-STORM", verdict_status::warn,
                              fmt::format("{} corrected ECC errors during the run ({} +{}; warns "
                                          "at {})",
                                          *v, name, *v, g.settings.ecc_corrected_storm),
                              &g.device, g.r.host);
      d.evidence[std::string("counters_delta.") + name] = std::to_string(*v);
      out.push_back(std::move(d));
    }
    return;
  }
}

void rule_row_remap(const gpu_facts& g, std::vector<diagnosis>& out) {
  const auto state = [&](const char* name) { return value_of(g.device.counters_after, name); };
  if (const auto v = state("remapped_rows.failure"); v && *v > 0) {
    auto d = make_diagnosis("GPUSPEC-ROW-REMAP-FAILURE", verdict_status::fail,
                            "the GPU reports a row-remapping failure", &g.device, g.r.host);
    d.evidence["counters_after.remapped_rows.failure"] = std::to_string(*v);
    for (const char* n : {"remapped_rows.correctable", "remapped_rows.uncorrectable"})
      if (const auto c = state(n))
        d.evidence[std::string("counters_after.") + n] = std::to_string(*c);
    out.push_back(std::move(d));
  }
  if (const auto v = state("remapped_rows.pending"); v && *v > 0) {
    auto d =
        make_diagnosis("GPUSPEC-ROW-REMAP-PENDING", verdict_status::warn,
                       "a row remapping is pending until the GPU is reset", &g.device, g.r.host);
    d.evidence["counters_after.remapped_rows.pending"] = std::to_string(*v);
    out.push_back(std::move(d));
  }
  if (const auto v = state("retired_pages.pending"); v && *v > 0) {
    auto d =
        make_diagnosis("GPUSPEC-PAGE-RETIREMENT-PENDING", verdict_status::warn,
                       "a page retirement is pending until the GPU is reset", &g.device, g.r.host);
    d.evidence["counters_after.retired_pages.pending"] = std::to_string(*v);
    out.push_back(std::move(d));
  }
}

/// The NVLink links the GPU's spec row implies: its total bidirectional figure over both
/// directions of one link of the generation NVML reported (topology's nvlink_link_gbs: NVLink 4
/// 25 GB/s, NVLink 5 50 GB/s per direction), so 900 / 2 / 25 = 18 on an H100 SXM and 1800 / 2 / 50
/// = 18 on a B200. Nullopt when either is unknown or the quotient is not a whole number (a GPU
/// whose links run at another rate than the generation's datacenter one, e.g. GA102's).
struct spec_links {
  std::int64_t links = 0;
  const gpu_topology* topology = nullptr; ///< the GPU's, with the generation and per-link rate
};
std::optional<spec_links> spec_nvlink_links(const gpu_facts& g) {
  if (g.spec == nullptr || !g.spec->nvlink_gbs || !g.r.host.topology)
    return std::nullopt;
  const gpu_topology* t = find_gpu(*g.r.host.topology, g.device.index);
  if (t == nullptr || !t->nvlink_link_gbs || *t->nvlink_link_gbs <= 0)
    return std::nullopt;
  const double links = *g.spec->nvlink_gbs / 2.0 / *t->nvlink_link_gbs;
  const double whole = std::round(links);
  if (whole < 1 || std::abs(links - whole) > 1e-6)
    return std::nullopt;
  return spec_links{static_cast<std::int64_t>(whole), t};
}

void rule_nvlink_down(const gpu_facts& g, std::vector<diagnosis>& out) {
  const auto active = value_of(g.device.counters_after, "nvlink.links_active");
  const auto delta = value_of(g.device.counters_delta, "nvlink.links_active");
  if (!active)
    return;
  std::int64_t sibling_max = *active;
  for (const auto* s : g.siblings)
    if (const auto v = value_of(s->counters_after, "nvlink.links_active"))
      sibling_max = std::max(sibling_max, *v);
  const auto expected = spec_nvlink_links(g);
  std::string cause;
  if (delta && *delta < 0)
    cause = fmt::format("{} NVLink link(s) went down during the run ({} active after it)", -*delta,
                        *active);
  else if (expected && *active < expected->links)
    cause = fmt::format("{} of the {} NVLink links of a {} active (spec row {}: {:g} GB/s "
                        "bidirectional in total, {:g} GB/s per link and direction for NVLink {})",
                        *active, expected->links, g.spec->name, g.spec->id, *g.spec->nvlink_gbs,
                        *expected->topology->nvlink_link_gbs, expected->topology->nvlink_version);
  else if (const auto down = value_of(g.device.counters_after, "nvlink.links_down");
           !expected && *active == 0 && down && *down > 0 && g.spec != nullptr &&
           g.spec->nvlink_gbs)
    // The links' number is not known (no NVLink generation read), but the GPU's links are
    // there and down (dcgmi nvlink's "D", not "_" unsupported or "X" disabled) on a model whose
    // spec row states an NVLink figure (an NVL pair's bridge, an SXM board's switches).
    cause = fmt::format("{} NVLink links down and none active on a {} (spec row {}: {:g} GB/s "
                        "of NVLink, bidirectional in total)",
                        *down, g.spec->name, g.spec->id, *g.spec->nvlink_gbs);
  else if (*active < sibling_max)
    cause = fmt::format("{} NVLink links active, identical GPUs in this node have {}", *active,
                        sibling_max);
  if (cause.empty())
    return;
  auto d = make_diagnosis("GPUSPEC-NVLINK-DOWN", verdict_status::fail, cause, &g.device, g.r.host);
  d.evidence["counters_after.nvlink.links_active"] = std::to_string(*active);
  if (expected)
    d.evidence["nvlink.links_expected"] = std::to_string(expected->links);
  out.push_back(std::move(d));
}

// ---- the NVLink fabric (nvmlDeviceGetGpuFabricInfoV: NVSwitch nodes, NVL72 trays) ---------

void rule_fabric_registration(const gpu_facts& g, std::vector<diagnosis>& out) {
  if (!g.device.fabric)
    return;
  const gpu_fabric& f = *g.device.fabric;
  std::string cause;
  if (f.state != "completed")
    cause = fmt::format("the GPU's NVLink fabric registration is {} (NVML fabric state), not "
                        "completed: the fabric manager has not taken it into the NVLink fabric",
                        f.state == "in_progress" ? "in progress" : "not started");
  else if (f.status != "success")
    cause = fmt::format("the GPU's NVLink fabric registration completed with an error: {}",
                        f.status.empty() ? "no status" : f.status);
  if (cause.empty())
    return;
  auto d = make_diagnosis("GPUSPEC-FABRIC-NOT-REGISTERED", verdict_status::fail, cause, &g.device,
                          g.r.host);
  d.evidence["fabric.state"] = f.state;
  d.evidence["fabric.status"] = f.status;
  out.push_back(std::move(d));
}

/// One field of NVML's fabric health mask (nvml.h NVML_GPU_FABRIC_HEALTH_MASK_*: a 2-bit field
/// at `shift`, or the 4-bit incorrect-configuration one) and the value that is a finding.
struct fabric_health_field {
  const char* name;
  unsigned shift, width, bad; ///< the finding: the field's value is `bad`
  bool unhealthy;             ///< fail (true) or warn
};
// DEGRADED_BW, ROUTE_RECOVERY, ROUTE_UNHEALTHY and ACCESS_TIMEOUT_RECOVERY: 1 is TRUE.
constexpr std::array<fabric_health_field, 4> fabric_health_fields{{
    {"NVLink bandwidth degraded", 0, 0x3, 1, false},
    {"route recovery in progress", 2, 0x3, 1, false},
    {"route unhealthy", 4, 0x3, 1, true},
    {"access-timeout recovery in progress", 6, 0x3, 1, false},
}};
/// INCORRECT_CONFIGURATION (shift 8, width 0xf): 0 not supported, 1 none; 2..7 what is wrong.
constexpr std::array<const char*, 8> fabric_config_errors{"",
                                                          "",
                                                          "incorrect SysGUID",
                                                          "incorrect chassis serial number",
                                                          "no partition",
                                                          "insufficient NVLinks",
                                                          "incompatible GPU firmware",
                                                          "invalid location"};

void rule_fabric_health(const gpu_facts& g, std::vector<diagnosis>& out) {
  if (!g.device.fabric)
    return;
  const gpu_fabric& f = *g.device.fabric;
  std::vector<std::string> unhealthy, degraded;
  if (f.health_mask) {
    const auto mask = static_cast<std::uint64_t>(*f.health_mask);
    for (const auto& field : fabric_health_fields)
      if (((mask >> field.shift) & field.width) == field.bad)
        (field.unhealthy ? unhealthy : degraded).emplace_back(field.name);
    const auto config = (mask >> 8U) & 0xfU;
    if (config >= 2)
      unhealthy.push_back(fmt::format(
          "incorrect configuration: {}",
          config < fabric_config_errors.size() ? fabric_config_errors.at(config) : "unknown"));
  }
  if (f.health_summary == "unhealthy" && unhealthy.empty())
    unhealthy.emplace_back("NVML's fabric health summary: unhealthy");
  if (f.health_summary == "limited_capacity" && degraded.empty() && unhealthy.empty())
    degraded.emplace_back("NVML's fabric health summary: limited capacity");
  const bool fail = !unhealthy.empty();
  if (!fail && degraded.empty())
    return;
  std::vector<std::string> all = unhealthy;
  all.insert(all.end(), degraded.begin(), degraded.end());
  std::string cause = "the GPU's NVLink fabric health: ";
  for (std::size_t i = 0; i < all.size(); ++i)
    cause += (i == 0 ? "" : ", ") + all[i];
  auto d = make_diagnosis(fail ? "GPUSPEC-FABRIC-UNHEALTHY" : "GPUSPEC-FABRIC-DEGRADED",
                          fail ? verdict_status::fail : verdict_status::warn, cause, &g.device,
                          g.r.host);
  d.evidence["fabric.health_mask"] =
      f.health_mask ? fmt::format("{:#x}", *f.health_mask) : std::string("not given");
  d.evidence["fabric.health_summary"] = f.health_summary;
  out.push_back(std::move(d));
}

/// "cluster <uuid> clique <id>": the NVLink domain a registered GPU belongs to.
std::string fabric_domain(const gpu_fabric& f) {
  return fmt::format("cluster {} clique {}", f.cluster_uuid.empty() ? "(none)" : f.cluster_uuid,
                     f.clique_id);
}

bool fabric_registered(const device_info& d) {
  return d.fabric && d.fabric->state == "completed" && d.fabric->status == "success";
}

void rule_fabric_domain(const gpu_facts& g, std::vector<diagnosis>& out) {
  if (!fabric_registered(g.device))
    return;
  // The node's domain: the one most of its registered GPUs are in (ties: the lowest index's).
  std::map<std::string, int> count;
  std::string node_domain;
  for (const auto& d : g.r.devices)
    if (fabric_registered(d)) {
      const std::string key = fabric_domain(*d.fabric);
      if (++count[key] > (node_domain.empty() ? 0 : count[node_domain]))
        node_domain = key;
    }
  const std::string mine = fabric_domain(*g.device.fabric);
  if (mine == node_domain)
    return;
  auto d = make_diagnosis("GPUSPEC-FABRIC-DOMAIN-SPLIT", verdict_status::fail,
                          fmt::format("the GPU registered in NVLink domain {}, {} of the node's "
                                      "GPUs in {}",
                                      mine, count[node_domain], node_domain),
                          &g.device, g.r.host);
  d.evidence["fabric.domain"] = mine;
  d.evidence["node.fabric.domain"] = node_domain;
  out.push_back(std::move(d));
}

// ---- the NVLink-C2C host link (Grace-based GPUs: GB200, GB300, GH200) ----------------------

/// A GPU whose NVML C2C mode is not "enabled" while identical siblings of the node report it
/// enabled: its host link is not the C2C its tray was built with (and the coherent-memory
/// exception of host.memory_ratio no longer holds). The siblings are the evidence: no spec row
/// states a C2C figure from a primary source, so a tray whose GPUs all report it off says nothing.
void rule_c2c_down(const gpu_facts& g, std::vector<diagnosis>& out) {
  if (!g.device.c2c || is_c2c_attached(g.device) || g.device.c2c->mode == "not supported" ||
      g.device.c2c->mode.empty())
    return;
  std::vector<int> enabled;
  for (const auto* s : g.siblings)
    if (s->index != g.device.index && is_c2c_attached(*s))
      enabled.push_back(s->index);
  if (enabled.empty())
    return;
  auto d = make_diagnosis(
      "GPUSPEC-C2C-DOWN", verdict_status::fail,
      fmt::format("the GPU's NVLink-C2C link to its CPU is {} (NVML C2C mode) while {} identical "
                  "GPU(s) of this node have it enabled (GPU {}): its host transfers and coherent "
                  "access to CPU memory do not go over the C2C",
                  g.device.c2c->mode, enabled.size(), fmt::join(enabled, ", ")),
      &g.device, g.r.host);
  d.evidence["c2c.mode"] = g.device.c2c->mode;
  d.evidence["c2c.addressing_mode"] = g.device.c2c->addressing_mode;
  out.push_back(std::move(d));
}

void rule_nvlink_errors(const gpu_facts& g, std::vector<diagnosis>& out) {
  std::string cause;
  std::map<std::string, std::string> counters;
  for (const char* name :
       {"nvlink.crc_flit", "nvlink.crc_data", "nvlink.replay", "nvlink.recovery"}) {
    const auto v = value_of(g.device.counters_delta, name);
    if (v && *v > 0) {
      cause += fmt::format("{}{} +{}", cause.empty() ? "during the run: " : ", ", name, *v);
      counters[std::string("counters_delta.") + name] = std::to_string(*v);
    }
  }
  if (cause.empty())
    return;
  auto d =
      make_diagnosis("GPUSPEC-NVLINK-ERRORS", verdict_status::warn, cause, &g.device, g.r.host);
  d.evidence.merge(counters);
  out.push_back(std::move(d));
}

void rule_pcie_replays(const gpu_facts& g, std::vector<diagnosis>& out) {
  const auto v = value_of(g.device.counters_delta, "pcie.replay");
  if (!v || *v <= 0)
    return;
  auto d = make_diagnosis("GPUSPEC-PCIE-REPLAYS", verdict_status::warn,
                          fmt::format("{} PCIe replays during the run", *v), &g.device, g.r.host);
  d.evidence["counters_delta.pcie.replay"] = std::to_string(*v);
  out.push_back(std::move(d));
}

/// Counters that are states, not running counts: their delta may be negative (a link that
/// dropped); the harness's counter_delta writes any other negative delta as "unavailable".
bool is_state_counter(std::string_view name) {
  return name == "nvlink.links_active" || name == "retired_pages.pending" ||
         name == "remapped_rows.pending" || name == "remapped_rows.failure";
}

std::string device_path(const report& r, const device_info& d) {
  const auto pos = static_cast<std::size_t>(&d - r.devices.data());
  return pos < r.devices.size() ? fmt::format("devices[{}]", pos)
                                : fmt::format("devices[index {}]", d.index);
}

void rule_counter_contradictions(const gpu_facts& g, std::vector<diagnosis>& out) {
  const auto& d = g.device;
  for (const auto& [name, delta] : d.counters_delta) {
    if (!delta.value)
      continue;
    const auto before = value_of(d.counters_before, name);
    const auto after = value_of(d.counters_after, name);
    std::string why;
    if (!before || !after)
      why = fmt::format("{}, but there is no {} reading to take it from", *delta.value,
                        !before ? "before" : "after");
    else if (*after - *before != *delta.value)
      why = fmt::format("{}, but counters_after - counters_before is {} - {} = {}", *delta.value,
                        *after, *before, *after - *before);
    else if (*delta.value < 0 && !is_state_counter(name))
      why = fmt::format("{}: a running count cannot go down", *delta.value);
    if (why.empty())
      continue;
    const std::string field = fmt::format("{}.counters_delta[\"{}\"]", device_path(g.r, d), name);
    auto diag = make_diagnosis("GPUSPEC-REPORT-INCONSISTENT", verdict_status::inconclusive,
                               fmt::format("{}: {}", field, why), &d, g.r.host);
    diag.evidence["field"] = field;
    out.push_back(std::move(diag));
  }
}

void rule_peer_paths(const gpu_facts& g, std::vector<diagnosis>& out) {
  for (auto& d : diagnose_peer_paths(g))
    out.push_back(std::move(d));
}

constexpr std::array<device_rule, 20> device_rules = {
    rule_lost,
    rule_shared,
    rule_pcie_link,
    rule_pcie_slot,
    rule_pcie_replays,
    rule_power_limit,
    rule_persistence,
    rule_temperature,
    rule_ecc_mode,
    rule_ecc_uncorrected,
    rule_ecc_storm,
    rule_row_remap,
    rule_nvlink_down,
    rule_nvlink_errors,
    rule_peer_paths,
    rule_counter_contradictions,
    rule_fabric_registration,
    rule_fabric_health,
    rule_fabric_domain,
    rule_c2c_down,
};

} // namespace

std::vector<diagnosis> diagnose_host(const report& r, const spec_table* specs) {
  std::vector<diagnosis> out;
  add_check(out, nouveau_check(r.host), "GPUSPEC-NOUVEAU-LOADED", nullptr, r.host);
  add_check(out, memory_ratio_check(r.host, r.devices, specs), "GPUSPEC-HOST-MEMORY-LOW", nullptr,
            r.host);
  return out;
}

std::vector<diagnosis> diagnose_device(const gpu_facts& gpu) {
  std::vector<diagnosis> out;
  for (const auto rule : device_rules)
    rule(gpu, out);
  return out;
}

} // namespace gpuspec::reports::judge
