// One reference per result (reference.hpp).

#include "gpuspec/reports/model/reference.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpuspec/reports/model/fraction.hpp"
#include "gpuspec/reports/model/report_names.hpp"
#include "gpuspec/reports/model/units.hpp"

namespace gpuspec::reports::inline model {

bool is_spec_figure(std::string_view figure) {
  if (figure == "memory_bandwidth_gbs" || figure == "pcie_gbs" || figure == "nvlink_gbs")
    return true;
  if (!figure.starts_with("peaks."))
    return false;
  const auto key = figure.substr(6);
  return std::find(std::begin(peak_keys), std::end(peak_keys), key) != std::end(peak_keys);
}

std::string peak_figure(std::string_view key) {
  const std::string figure = "peaks." + std::string(key);
  return is_spec_figure(figure) ? figure : std::string();
}

std::optional<double> pcie_bandwidth_gbs(int gen, int width) {
  // GB/s per lane and direction: GT/s x the line coding's share / 8 bits (8b/10b to Gen2,
  // 128b/130b from Gen3; Gen6 FLIT mode, 242 of 256 bytes), the PCI-SIG base specifications'
  // rates as host/pcie_link.hpp spells them out, unrounded so the two agree exactly.
  static constexpr double per_lane[] = {0,
                                        2.5 * 8 / 10 / 8,
                                        5.0 * 8 / 10 / 8,
                                        8.0 * 128 / 130 / 8,
                                        16.0 * 128 / 130 / 8,
                                        32.0 * 128 / 130 / 8,
                                        64.0 * 242 / 256 / 8};
  if (gen < 1 || gen > 6 || width <= 0)
    return std::nullopt;
  return per_lane[gen] * width;
}

pcie_ceiling_link pcie_link_for_ceiling(const pcie_link& p) {
  std::optional<int> gen = p.gen_max;
  if (p.gen_max_system)
    gen = gen ? std::min(*gen, *p.gen_max_system) : p.gen_max_system;
  return {gen ? gen : p.gen_current, p.width_current ? p.width_current : p.width_max};
}

std::optional<peer_path> peer_copy_path(const topology_info& topology, const device_info& src,
                                        const device_info& dst) {
  const gpu_pair* pair = find_pair(topology, src.index, dst.index);
  const gpu_topology* g = find_gpu(topology, src.index);
  peer_path p;
  if (pair != nullptr && pair->nvlink_links > 0 && g != nullptr && g->nvlink_link_gbs) {
    p.nvlink = true;
    p.nvlink_links = pair->nvlink_links;
    p.nvlink_link_gbs = *g->nvlink_link_gbs;
    p.gbs_per_direction = pair->nvlink_links * *g->nvlink_link_gbs;
    return p;
  }
  const auto gbs = [](const device_info& d) -> std::optional<double> {
    const auto link = pcie_link_for_ceiling(d.pcie);
    return link.gen && link.width ? pcie_bandwidth_gbs(*link.gen, *link.width) : std::nullopt;
  };
  const auto a = gbs(src);
  const auto b = gbs(dst);
  if (!a || !b)
    return std::nullopt;
  const device_info& slower = *a <= *b ? src : dst;
  const auto link = pcie_link_for_ceiling(slower.pcie);
  p.slower = slower.index;
  p.gen = *link.gen;
  p.width = *link.width;
  p.gbs_per_direction = std::min(*a, *b);
  return p;
}

ceiling c2c_transfer_ceiling(const gpu_spec* spec, int directions) {
  ceiling c;
  const int n = directions > 1 ? 2 : 1;
  if (spec == nullptr) {
    c.datasheet_source = "attached by NVLink-C2C; no spec-table row matched this GPU, so no C2C "
                         "link figure";
  } else if (!spec->c2c_gbs) {
    c.datasheet_source =
        fmt::format("attached by NVLink-C2C; spec row {} states no C2C link figure", spec->id);
  } else {
    const auto it = spec->sources.find("c2c");
    c.datasheet = *spec->c2c_gbs / 2.0 * n;
    c.datasheet_source = fmt::format(
        "spec row {}: NVLink-C2C, {:g} GB/s both directions together, {:g} GB/s per "
        "direction{} ({})",
        spec->id, *spec->c2c_gbs, *spec->c2c_gbs / 2.0,
        n == 2 ? fmt::format(" x 2 directions = {:g} GB/s", *c.datasheet) : std::string(),
        it == spec->sources.end() ? std::string("no source named") : it->second);
  }
  c.clock_adjusted_source = "none: a C2C link has no PCIe generation or width to adjust by";
  c.reference = c.datasheet ? reference_kind::datasheet : reference_kind::none;
  return c;
}

std::optional<double> spec_figure_value(const gpu_spec& row, std::string_view figure,
                                        metric_unit unit, std::optional<double> roofline_bytes,
                                        std::optional<double> flops) {
  std::optional<double> value;
  metric_unit from = metric_unit::gigabytes_per_second;
  if (figure == "memory_bandwidth_gbs") {
    if (row.memory_bandwidth_gbs > 0)
      value = row.memory_bandwidth_gbs;
  } else if (figure == "nvlink_gbs") {
    // Per direction, as pcie_gbs: the row states both directions together, and busbw (the
    // only result held to NVLink) is one direction's rate (collective_ceiling.hpp).
    if (row.nvlink_gbs)
      value = *row.nvlink_gbs / 2.0;
  } else if (figure == "pcie_gbs") {
    value = pcie_bandwidth_gbs(row.pcie_gen, row.pcie_width);
  } else if (figure.starts_with("peaks.")) {
    const std::string key(figure.substr(6));
    if (const auto it = row.peaks.find(key); it != row.peaks.end() && it->second > 0)
      value = it->second;
    from = key == "int8_tc" ? metric_unit::teraops_per_second : metric_unit::teraflop_per_second;
    // The roofline the harness applied: the row's bandwidth x operations per byte.
    if (value && roofline_bytes && flops && *roofline_bytes > 0 && *flops > 0 &&
        row.memory_bandwidth_gbs > 0) {
      const double bound = row.memory_bandwidth_gbs * 1e9 * (*flops / *roofline_bytes) / 1e12;
      value = std::min(*value, bound);
    }
  }
  const auto factor = conversion_factor(from, unit);
  if (!value || !factor)
    return std::nullopt;
  return *value * *factor;
}

reference_kind choose_reference(const ceiling& c) {
  const bool sold_as = c.spec_figure == "memory_bandwidth_gbs" || c.spec_figure == "pcie_gbs" ||
                       c.spec_figure == "nvlink_gbs" ||
                       (c.spec_figure.starts_with("peaks.") && c.roofline_bytes);
  const bool datasheet = c.datasheet && *c.datasheet > 0;
  const bool adjusted = c.clock_adjusted && *c.clock_adjusted > 0;
  if (sold_as && datasheet)
    return reference_kind::datasheet;
  if (adjusted)
    return reference_kind::clock_adjusted;
  if (datasheet)
    return reference_kind::datasheet;
  return reference_kind::none;
}

std::optional<double> reference_value(const ceiling& c) {
  switch (c.reference) {
  case reference_kind::datasheet:
    return c.datasheet;
  case reference_kind::clock_adjusted:
    return c.clock_adjusted;
  case reference_kind::none:
    break;
  }
  return std::nullopt;
}

std::optional<double> fraction_of_ceiling(const result& r, std::optional<double> ceiling) {
  if (r.samples.empty())
    return std::nullopt;
  return fraction_of(r.stats.median, ceiling, r.higher_is_better);
}

void settle_efficiency(result& r) {
  r.efficiency = fraction_of_ceiling(r, reference_value(r.ceiling_value));
  r.efficiency_clock_adjusted = fraction_of_ceiling(r, r.ceiling_value.clock_adjusted);
}

std::string_view to_string(reference_kind k) {
  return detail::name_of(detail::reference_kind_names, k);
}

std::optional<reference_kind> reference_kind_from_string(std::string_view s) {
  for (const auto& [kind, name] : detail::reference_kind_names)
    if (name == s)
      return kind;
  return std::nullopt;
}

judged_reference resolve_reference(const result& r, const gpu_spec* spec, double tolerance) {
  const auto& c = r.ceiling_value;
  judged_reference j;
  const auto clock_adjusted = [&]() {
    if (c.clock_adjusted && *c.clock_adjusted > 0) {
      j.kind = reference_kind::clock_adjusted;
      j.value = c.clock_adjusted;
      j.source = c.clock_adjusted_source;
    }
  };
  switch (c.reference) {
  case reference_kind::none:
    return j;
  case reference_kind::clock_adjusted:
    clock_adjusted();
    return j;
  case reference_kind::datasheet:
    break;
  }
  if (spec == nullptr) {
    clock_adjusted();
    j.note = "no spec-table row matches the GPU, so its datasheet ceiling is not believed";
    return j;
  }
  auto table =
      is_spec_figure(c.spec_figure)
          ? spec_figure_value(*spec, c.spec_figure, r.unit, c.roofline_bytes, r.flops_per_iteration)
          : std::nullopt;
  // A MIG device's share of the GPU's figure (docs/mig.md), as its worker scaled it.
  if (table && c.mig_fraction)
    *table *= *c.mig_fraction;
  j.kind = reference_kind::datasheet;
  if (!table) {
    // Nothing in the table to hold it to (a figure the row lacks): the report's own value.
    j.value = c.datasheet;
    j.source = c.datasheet_source;
    if (!j.value || !(*j.value > 0)) {
      j = judged_reference{};
      clock_adjusted();
    }
    return j;
  }
  j.value = table;
  j.source = c.mig_fraction ? fmt::format("spec row {}: {} x {:.4g} (the MIG device's share)",
                                          spec->id, c.spec_figure, *c.mig_fraction)
                            : fmt::format("spec row {}: {}", spec->id, c.spec_figure);
  if (!c.datasheet) {
    j.note = fmt::format("the report carries no datasheet ceiling; the spec table's {} ({:.4g} "
                         "{}) judges",
                         c.spec_figure, *table, to_string(r.unit));
    return j;
  }
  if (std::abs(*c.datasheet - *table) > tolerance * *table) {
    j.replaced = true;
    j.carried = c.datasheet;
    j.note = fmt::format("the report's datasheet ceiling {:.4g} {} disagrees with spec row {} "
                         "({} = {:.4g} {}): judged by the spec table",
                         *c.datasheet, to_string(r.unit), spec->id, c.spec_figure, *table,
                         to_string(r.unit));
    return j;
  }
  j.value = c.datasheet;
  j.source = c.datasheet_source;
  return j;
}

} // namespace gpuspec::reports::model
