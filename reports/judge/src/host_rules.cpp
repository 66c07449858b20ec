// The host and inventory rules, once (host_rules.hpp). Each message names what was seen and
// what was expected, so it reads on its own in a table.

#include "gpuspec/reports/judge/host_rules.hpp"

#include <algorithm>
#include <array>
#include <string>

#include <fmt/format.h>

#include "gpuspec/reports/judge/host_platforms.hpp"
#include "gpuspec/reports/model/reference.hpp"

namespace gpuspec::reports::inline judge {
namespace {

constexpr double gib = 1024.0 * 1024.0 * 1024.0;

// Systems as their vendors submitted them to MLPerf Inference v4.1 (system descriptions in
// github.com/mlcommons/inference_results_v4.1 at commit a2f5d66, files named below), lowest
// ratio first. A system is added here with its source, never from memory.
constexpr std::array<reference_system, 2> systems{{
    {"Lenovo ThinkSystem SR685a V3 (8x H200-SXM-141GB)", 8, 141, 1536,
     "MLPerf Inference v4.1, closed/Lenovo/systems/H200_SXM_141GBx8_TRT.json: "
     "host_memory_capacity \"1.5 TB\" (24x 64GB), accelerator_memory_capacity \"141 GB\""},
    {"NVIDIA H200 (8x H200-SXM-141GB, the DGX H200 configuration)", 8, 141, 2048,
     "MLPerf Inference v4.1, closed/NVIDIA/systems/H200-SXM-141GBx8_TRT.json: "
     "host_memory_capacity \"2 TB\" (32x 64GB), accelerator_memory_capacity \"141 GB\""},
}};

/// Why a C2C-attached GPU's PCIe host rules are skipped, and what said it is attached.
std::string c2c_no_pcie_host_link(const device_info& d, const gpu_spec* spec) {
  const std::string by =
      is_c2c_attached_by_spec_only(d, spec)
          ? fmt::format("NVML gave no C2C answer; spec row {}'s host_interconnect", spec->id)
          : std::string("NVML's C2C mode enabled");
  return fmt::format("attached to its CPU by NVLink-C2C ({}): no PCIe host link to judge; its "
                     "host transfers are judged against the C2C link",
                     by);
}

double ratio_of(const reference_system& s) { return s.host_memory_gb / (s.gpus * s.gpu_memory_gb); }

host_check make(std::string id, check_status status, std::string message,
                std::optional<int> device = std::nullopt) {
  return host_check{std::move(id), status, std::move(message), device};
}

std::string gen_text(std::optional<int> gen) {
  return gen ? fmt::format("Gen{}", *gen) : std::string("Gen?");
}
std::string width_text(std::optional<int> width) {
  return width ? fmt::format("x{}", *width) : std::string("x?");
}

const gpu_spec* row_of(const spec_table* specs, const device_info& d) {
  return specs == nullptr ? nullptr : spec_of(*specs, d);
}

} // namespace

std::span<const reference_system> reference_systems() { return systems; }

double lowest_reference_memory_ratio() {
  double lowest = ratio_of(systems.front());
  for (const auto& s : systems)
    lowest = std::min(lowest, ratio_of(s));
  return lowest;
}

host_check nouveau_check(const host_info& host) {
  const char* id = "host.nouveau";
  if (!host.nouveau_loaded)
    return make(id, check_status::skipped, "loaded modules unknown (/proc/modules not readable)");
  if (*host.nouveau_loaded)
    return make(id, check_status::fail,
                "nouveau kernel module is loaded; expected not loaded (it conflicts with the "
                "NVIDIA driver: blacklist it and rebuild the initramfs)");
  return make(id, check_status::pass, "nouveau kernel module not loaded");
}

bool is_c2c_attached_by_spec_only(const device_info& d, const gpu_spec* spec) {
  const bool nvml_answered = d.c2c && !d.c2c->mode.empty();
  return !nvml_answered && spec != nullptr && spec->host_interconnect == host_interconnect_c2c;
}

bool is_c2c_attached(const device_info& d, const gpu_spec* spec) {
  return (d.c2c && d.c2c->mode == "enabled") || is_c2c_attached_by_spec_only(d, spec);
}

bool is_coherent_memory_system(std::span<const device_info> devices, const spec_table* specs) {
  return !devices.empty() && std::all_of(devices.begin(), devices.end(), [&](const device_info& d) {
    const gpu_spec* spec = row_of(specs, d);
    if (!is_c2c_attached(d, spec))
      return false;
    // NVML's addressing mode where it read one; else NVLink-C2C's own coherence (the row's).
    const std::string mode = d.c2c ? d.c2c->addressing_mode : std::string();
    return mode == "ats" || (mode.empty() && is_c2c_attached_by_spec_only(d, spec));
  });
}

host_check memory_ratio_check(const host_info& host, std::span<const device_info> devices,
                              const spec_table* specs) {
  const char* id = "host.memory_ratio";
  if (!host.memory_bytes)
    return make(id, check_status::skipped, "host memory unknown (/proc/meminfo not readable)");
  if (devices.empty())
    return make(id, check_status::skipped, "no GPU in the inventory");
  double gpu_total = 0;
  for (const device_info& d : devices) {
    if (!d.memory_bytes)
      return make(id, check_status::skipped, fmt::format("memory of GPU {} unknown", d.index));
    gpu_total += static_cast<double>(*d.memory_bytes);
  }
  const double host_bytes = static_cast<double>(*host.memory_bytes);
  const double ratio = host_bytes / gpu_total;
  const auto& lowest = *std::min_element(systems.begin(), systems.end(),
                                         [](const reference_system& a, const reference_system& b) {
                                           return ratio_of(a) < ratio_of(b);
                                         });
  const double floor = ratio_of(lowest) * (1 - meminfo_allowance);
  const std::string seen = fmt::format(
      "host RAM {:.1f} GiB is {:.2f} x the total GPU memory {:.1f} GiB ({} GPU{})",
      host_bytes / gib, ratio, gpu_total / gib, devices.size(), devices.size() == 1 ? "" : "s");
  if (is_coherent_memory_system(devices, specs)) {
    const bool by_nvml = std::all_of(devices.begin(), devices.end(), [](const device_info& d) {
      return d.c2c && d.c2c->addressing_mode == "ats";
    });
    return make(id, check_status::pass,
                fmt::format("{}; a coherent-memory system (every GPU attached by NVLink-C2C, {}): "
                            "GPU and CPU memory are one coherent pool, so the host-RAM ratio of "
                            "PCIe nodes does not apply",
                            seen,
                            by_nvml ? "addressing mode ATS"
                                    : "NVML gave no C2C answer for some, their spec rows' "
                                      "host_interconnect says so"));
  }
  const std::string reference = fmt::format(
      "vendor reference systems ship from {:.2f} x ({}: {:g} GB for {} x {:g} GB)",
      ratio_of(lowest), lowest.name, lowest.host_memory_gb, lowest.gpus, lowest.gpu_memory_gb);
  if (ratio < floor)
    return make(id, check_status::warn,
                fmt::format("{}; {}, and this warns below {:.2f} x (allowing {:.0f}% for memory "
                            "the firmware and kernel keep): add memory or look for DIMMs the "
                            "BIOS disabled",
                            seen, reference, floor, 100 * meminfo_allowance));
  if (ratio < advised_memory_ratio)
    return make(id, check_status::pass,
                fmt::format("{}; {}. Note: below the often-given advice of {:g} x, which stock "
                            "reference systems do not follow",
                            seen, reference, advised_memory_ratio));
  return make(id, check_status::pass,
              fmt::format("{}; at least {:g} x", seen, advised_memory_ratio));
}

pcie_reach pcie_reachable_link(const device_info& d, const gpu_spec* spec, const host_info* host) {
  pcie_reach r;
  if (d.pcie.gen_max) {
    r.card_gen = d.pcie.gen_max;
    r.card_gen_source = "NVML";
  } else if (spec != nullptr && spec->pcie_gen > 0) {
    r.card_gen = spec->pcie_gen;
    r.card_gen_source = "spec row " + spec->id;
  }
  if (spec != nullptr && spec->pcie_width > 0) {
    r.card_width = spec->pcie_width;
    r.card_width_source = "spec row " + spec->id;
  }
  r.system_gen = d.pcie.gen_max_system;
  r.system_width = d.pcie.width_max;
  const auto lower = [](std::optional<int> a, std::optional<int> b) {
    return a && b ? std::optional<int>(std::min(*a, *b)) : (a ? a : b);
  };
  r.gen = lower(r.card_gen, r.system_gen);
  r.width = lower(r.card_width, r.system_width);
  // A host hop slower than the GPU's own link: a switch between them trains higher than the
  // host CPU's root ports, and a host transfer crosses both.
  if (host != nullptr && r.gen)
    if (const auto platform = host_pcie_platform_of(host->cpu_model);
        platform && platform->pcie_gen < *r.gen) {
      r.host_gen = platform->pcie_gen;
      r.host_gen_source =
          fmt::format("{} (\"{}\"): {}", platform->family, host->cpu_model, platform->source);
    }
  return r;
}

std::string pcie_reach_text(const pcie_reach& r) {
  const auto from = [](const std::string& source) {
    return source.empty() ? std::string() : " (" + source + ")";
  };
  std::string system;
  if (r.system_gen && r.system_width)
    system = fmt::format("system {} {} (NVML)", gen_text(r.system_gen), width_text(r.system_width));
  else if (r.system_width)
    system = fmt::format("system {} (NVML; its generation not read)", width_text(r.system_width));
  else if (r.system_gen)
    system = fmt::format("system {} (NVML; its width not read)", gen_text(r.system_gen));
  else
    system = "the system's maximum not read";
  std::string text = fmt::format("{} {} (GPU {}{}, card {}{}; {})", gen_text(r.gen),
                                 width_text(r.width), gen_text(r.card_gen), from(r.card_gen_source),
                                 width_text(r.card_width), from(r.card_width_source), system);
  if (r.host_gen)
    text += fmt::format("; host transfers at most {} {}, the host CPU's root ports: {}",
                        gen_text(r.host_gen), width_text(r.width), r.host_gen_source);
  return text;
}

host_check pcie_link_check(const device_info& d, const gpu_spec* spec, const pcie_under_load* load,
                           const host_rule_settings& settings) {
  const char* id = "gpu.pcie_link";
  if (is_c2c_attached(d, spec))
    return make(id, check_status::skipped, c2c_no_pcie_host_link(d, spec), d.index);
  const auto& link = d.pcie;
  const bool idle_known = link.width_current || link.gen_current;
  const bool load_known = load != nullptr && (load->gen || load->width);
  const pcie_reach reach = pcie_reachable_link(d, spec);
  if (!idle_known && !load_known && !reach.gen && !reach.width)
    return make(id, check_status::skipped, "PCIe link unknown (NVML did not report it)", d.index);

  // Below the reachable link under load fails; at idle only the width is judged, and warns.
  std::vector<std::string> under_load, at_idle;
  const std::string reachable = "the card and its slot can reach";
  if (load_known && load->width) {
    if (reach.width && *load->width < *reach.width)
      under_load.push_back(fmt::format("width {} under load ({}) below the {} {}",
                                       width_text(load->width), load->where,
                                       width_text(reach.width), reachable));
  } else if (link.width_current && reach.width && *link.width_current < *reach.width) {
    at_idle.push_back(fmt::format("width {} at idle below the {} {}",
                                  width_text(link.width_current), width_text(reach.width),
                                  reachable));
  }
  // Generation: judged only while busy (links downtrain at idle to save power).
  std::optional<int> gen;
  std::string gen_where;
  if (load_known && load->gen) {
    gen = load->gen;
    gen_where = fmt::format("under load ({})", load->where);
  } else if (settings.pcie_under_load) {
    gen = link.gen_current;
    gen_where = "under load (inventory read while busy)";
  }
  if (gen && reach.gen && *gen < *reach.gen)
    under_load.push_back(fmt::format("{} {} below the {} {}", gen_text(gen), gen_where,
                                     gen_text(reach.gen), reachable));

  const std::string seen =
      fmt::format("PCIe {} {} at idle; reachable {}", gen_text(link.gen_current),
                  width_text(link.width_current), pcie_reach_text(reach));
  if (!under_load.empty() || !at_idle.empty()) {
    std::string text = seen + ": ";
    bool first = true;
    for (const auto* list : {&under_load, &at_idle})
      for (const auto& p : *list) {
        text += (first ? "" : "; ") + p;
        first = false;
      }
    return make(id, under_load.empty() ? check_status::warn : check_status::fail,
                text + " (reseat the card, check the riser, the slot and the BIOS PCIe settings)",
                d.index);
  }
  if (gen)
    return make(
        id, check_status::pass,
        fmt::format("{}: {} {} at the reachable generation", seen, gen_text(gen), gen_where),
        d.index);
  if (link.gen_current && reach.gen && *link.gen_current < *reach.gen)
    return make(id, check_status::pass,
                fmt::format("{}: the generation was read at idle only, where a link below its "
                            "maximum is normal power saving; the width is at the reachable one",
                            seen),
                d.index);
  return make(id, check_status::pass, fmt::format("{}: at the reachable link", seen), d.index);
}

host_check pcie_slot_check(const device_info& d, const gpu_spec* spec) {
  const char* id = "gpu.pcie_slot";
  if (is_c2c_attached(d, spec))
    return make(id, check_status::skipped, c2c_no_pcie_host_link(d, spec), d.index);
  const pcie_reach r = pcie_reachable_link(d, spec);
  if (!r.system_gen && !r.system_width)
    return make(id, check_status::skipped,
                "the maximum PCIe link with this system unknown (NVML did not report it)", d.index);
  if (!r.card_gen && !r.card_width)
    return make(id, check_status::skipped,
                "the card's own maximum PCIe link unknown (NVML gave no GPU maximum and no spec "
                "row matched)",
                d.index);
  std::vector<std::string> caps, causes;
  // The generation a stock platform gives the card: the spec row's (the datasheet's host link)
  // where there is one. A GPU that can train a newer generation than the platforms it ships in
  // (NVML's GPU maximum above the row's) is not capped by a stock slot at the row's generation.
  const bool beyond_platform = spec != nullptr && spec->pcie_gen > 0 && r.card_gen &&
                               *r.card_gen > spec->pcie_gen && r.system_gen &&
                               *r.system_gen >= spec->pcie_gen;
  if (r.system_gen && r.card_gen && *r.system_gen < *r.card_gen && !beyond_platform) {
    caps.push_back(fmt::format("the system allows {} (NVML's maximum with this system), the GPU "
                               "can train {} ({})",
                               gen_text(r.system_gen), gen_text(r.card_gen), r.card_gen_source));
    causes.push_back("a BIOS PCIe link-speed setting below the card's generation, a riser or "
                     "retimer rated for an older generation, or a slot of one");
  }
  if (r.system_width && r.card_width && *r.system_width < *r.card_width) {
    caps.push_back(fmt::format("the system allows {} (NVML's maximum with this system), the card "
                               "is {} ({})",
                               width_text(r.system_width), width_text(r.card_width),
                               r.card_width_source));
    causes.push_back("a slot wired for fewer lanes than it holds, a BIOS bifurcation setting, "
                     "or a riser");
  }
  const std::string maxima =
      fmt::format("PCIe maxima: system {} {}, card {} {}", gen_text(r.system_gen),
                  width_text(r.system_width), gen_text(r.card_gen), width_text(r.card_width));
  if (caps.empty() && beyond_platform)
    return make(id, check_status::pass,
                fmt::format("{}: the system allows {}, the generation of the card's stock platform "
                            "(spec row {}); the GPU itself can train {} (NVML), which that "
                            "platform does not offer: no slot, riser or BIOS cap",
                            maxima, gen_text(r.system_gen), spec->id, gen_text(r.card_gen)),
                d.index);
  if (caps.empty())
    return make(id, check_status::pass,
                maxima + ": the system allows the card's own link (no slot, riser or BIOS cap)",
                d.index);
  std::string text = "the slot, riser or BIOS caps the PCIe link: ";
  for (std::size_t i = 0; i < caps.size(); ++i)
    text += (i == 0 ? "" : "; ") + caps[i];
  const auto card_gen = r.card_gen ? r.card_gen : r.gen;
  const auto card_width = r.card_width ? r.card_width : r.width;
  const auto capped = r.gen && r.width ? pcie_bandwidth_gbs(*r.gen, *r.width) : std::nullopt;
  const auto full =
      card_gen && card_width ? pcie_bandwidth_gbs(*card_gen, *card_width) : std::nullopt;
  if (capped && full)
    text += fmt::format(". Transfers reach at most {} {}, {:.2f} GB/s per direction, instead of "
                        "the card's {} {}, {:.2f} GB/s",
                        gen_text(r.gen), width_text(r.width), *capped, gen_text(card_gen),
                        width_text(card_width), *full);
  text += ". Likely cause: ";
  for (std::size_t i = 0; i < causes.size(); ++i)
    text += (i == 0 ? "" : "; ") + causes[i];
  return make(id, check_status::warn, text, d.index);
}

host_check persistence_check(const device_info& d) {
  const char* id = "gpu.persistence_mode";
  if (d.persistence_mode == "enabled")
    return make(id, check_status::pass, "persistence mode enabled", d.index);
  if (d.persistence_mode == "disabled")
    return make(id, check_status::warn,
                "persistence mode disabled; expected enabled (nvidia-persistenced, or "
                "nvidia-smi -pm 1), else the driver re-initialises the GPU for each program",
                d.index);
  if (d.persistence_mode == "not supported")
    return make(id, check_status::skipped, "persistence mode not supported on this GPU or OS",
                d.index);
  return make(id, check_status::skipped, "persistence mode unknown (NVML did not report it)",
              d.index);
}

host_check power_limit_check(const device_info& d) {
  const char* id = "gpu.power_limit";
  if (!d.power_limit_w || !d.power_limit_default_w)
    return make(id, check_status::skipped,
                d.power_limit_w
                    ? fmt::format("power limit {:g} W; default limit unknown", *d.power_limit_w)
                    : std::string("power limit unknown (NVML did not report it)"),
                d.index);
  const double current = *d.power_limit_w, standard = *d.power_limit_default_w;
  if (current < standard - power_limit_slack_w)
    return make(id, check_status::warn,
                fmt::format("power limit {:g} W below the default {:g} W (raise it with "
                            "nvidia-smi -pl, or find who capped it)",
                            current, standard),
                d.index);
  return make(id, check_status::pass,
              fmt::format("power limit {:g} W, default {:g} W", current, standard), d.index);
}

host_check temperature_check(const device_info& d, int limit) {
  const char* id = "gpu.temperature";
  if (!d.temperature_c)
    return make(id, check_status::skipped, "temperature unknown (NVML did not report it)", d.index);
  const int t = *d.temperature_c;
  if (t >= implausible_temperature_c || t < -40)
    return make(id, check_status::warn,
                fmt::format("temperature reads {} °C, which no working GPU sensor reports "
                            "(sensor or driver fault); limit {} °C",
                            t, limit),
                d.index);
  if (t >= limit)
    return make(id, check_status::fail,
                fmt::format("temperature {} °C at or above the {} °C limit (check cooling and "
                            "airflow)",
                            t, limit),
                d.index);
  if (d.temperature_slowdown_c && t >= *d.temperature_slowdown_c - temperature_margin_c)
    return make(id, check_status::warn,
                fmt::format("temperature {} °C within {} °C of the GPU's own slowdown threshold "
                            "{} °C",
                            t, temperature_margin_c, *d.temperature_slowdown_c),
                d.index);
  if (t >= limit - temperature_margin_c)
    return make(id, check_status::warn,
                fmt::format("temperature {} °C within {} °C of the {} °C limit", t,
                            temperature_margin_c, limit),
                d.index);
  return make(id, check_status::pass,
              fmt::format("temperature {} °C, under the {} °C limit", t, limit), d.index);
}

host_check ecc_mode_check(const device_info& d) {
  const char* id = "gpu.ecc_mode";
  if (d.ecc_mode == "enabled")
    return make(id, check_status::pass, "ECC enabled", d.index);
  if (d.ecc_mode == "disabled")
    return make(id, check_status::warn,
                fmt::format("ECC disabled on a GPU that supports it{}; expected enabled "
                            "(nvidia-smi -e 1, then reset the GPU): without it a memory error "
                            "is silent",
                            d.ecc_mode_pending == "enabled" ? " (enabled pending a reset)" : ""),
                d.index);
  if (d.ecc_mode == "not supported")
    return make(id, check_status::skipped, "ECC not supported on this GPU", d.index);
  return make(id, check_status::skipped, "ECC mode unknown (NVML did not report it)", d.index);
}

std::vector<host_check> evaluate_host_checks(const host_info& host,
                                             std::span<const device_info> devices,
                                             const host_rule_settings& settings,
                                             const spec_table* specs) {
  std::vector<host_check> checks;
  checks.push_back(nouveau_check(host));
  checks.push_back(memory_ratio_check(host, devices, specs));
  for (const device_info& d : devices)
    checks.push_back(pcie_link_check(d, row_of(specs, d), nullptr, settings));
  for (const device_info& d : devices)
    checks.push_back(pcie_slot_check(d, row_of(specs, d)));
  for (const device_info& d : devices)
    checks.push_back(persistence_check(d));
  for (const device_info& d : devices)
    checks.push_back(power_limit_check(d));
  for (const device_info& d : devices)
    checks.push_back(temperature_check(d, settings.temperature_limit_c));
  for (const device_info& d : devices)
    checks.push_back(ecc_mode_check(d));
  return checks;
}

bool gpu_is_lost(const device_info& d) {
  constexpr std::string_view lost = "GPU is lost";
  const auto says_lost = [&](const std::string& text) {
    return text.find(lost) != std::string::npos;
  };
  if (std::any_of(d.problems.begin(), d.problems.end(), says_lost))
    return true;
  for (const counter_set* set : {&d.counters_before, &d.counters_after, &d.counters_delta})
    for (const auto& [name, value] : *set)
      if (!value.value && says_lost(value.status))
        return true;
  return false;
}

} // namespace gpuspec::reports::judge
