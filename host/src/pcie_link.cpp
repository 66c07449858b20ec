// PCIe link rates and the transfer ceiling (pcie_link.hpp).

#include "gpuspec/host/pcie_link.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "gpuspec/reports/model/reference.hpp"

namespace gpuspec::host {
namespace {

constexpr std::array<pcie_generation_rate, 6> rates = {{
    {1, 2.5, 8.0 / 10.0, "8b/10b", "PCI Express Base Specification Revision 1.0a, PCI-SIG, 2003"},
    {2, 5.0, 8.0 / 10.0, "8b/10b", "PCI Express Base Specification Revision 2.0, PCI-SIG, 2007"},
    {3, 8.0, 128.0 / 130.0, "128b/130b",
     "PCI Express Base Specification Revision 3.0, PCI-SIG, 2010"},
    {4, 16.0, 128.0 / 130.0, "128b/130b",
     "PCI Express Base Specification Revision 4.0, PCI-SIG, 2017"},
    {5, 32.0, 128.0 / 130.0, "128b/130b",
     "PCI Express Base Specification Revision 5.0, PCI-SIG, 2019"},
    {6, 64.0, 242.0 / 256.0, "FLIT (242 of 256 bytes: TLP and DLLP; CRC and FEC not counted)",
     "PCI Express Base Specification Revision 6.0, PCI-SIG, 2022"},
}};

std::string spec_source(const reports::gpu_spec& spec) {
  // The rows carry no source of their own for the PCIe figures: they come from the same
  // datasheet as the rest of the row.
  for (const char* group : {"pcie", "peaks", "memory"})
    if (const auto it = spec.sources.find(group); it != spec.sources.end())
      return it->second;
  return "no source recorded";
}

} // namespace

std::optional<pcie_generation_rate> pcie_rate_of(int generation) {
  for (const pcie_generation_rate& r : rates)
    if (r.generation == generation)
      return r;
  return std::nullopt;
}

std::optional<double> pcie_link_gbs(int generation, int width) {
  const auto rate = pcie_rate_of(generation);
  if (!rate || width <= 0)
    return std::nullopt;
  return rate->lane_gbs() * width;
}

std::string pcie_link_formula(int generation, int width, int directions) {
  const auto rate = pcie_rate_of(generation);
  const auto gbs = pcie_link_gbs(generation, width);
  if (!rate || !gbs)
    return {};
  std::string text =
      fmt::format("PCIe Gen{} x{}: {:g} GT/s x {} lanes x {} / 8 = {:.2f} GB/s per "
                  "direction",
                  generation, width, rate->gigatransfers_per_second, width, rate->encoding, *gbs);
  if (directions > 1)
    text += fmt::format(" x {} directions = {:.2f} GB/s", directions, *gbs * directions);
  return text + fmt::format(" ({})", rate->specification);
}

reports::ceiling pcie_transfer_ceiling(const pcie_ceiling_inputs& in) {
  if (in.c2c)
    return reports::c2c_transfer_ceiling(in.spec, in.directions);
  reports::ceiling c;
  const int directions = in.directions > 1 ? in.directions : 1;

  if (in.spec == nullptr)
    c.datasheet_source = "no spec-table row matched this GPU";
  else if (const auto gbs = pcie_link_gbs(in.spec->pcie_gen, in.spec->pcie_width); !gbs)
    c.datasheet_source =
        fmt::format("spec row {} states no PCIe generation and width it knows (gen {}, x{})",
                    in.spec->id, in.spec->pcie_gen, in.spec->pcie_width);
  else {
    c.datasheet = *gbs * directions;
    c.datasheet_source =
        fmt::format("spec row {}: the card's own maximum, {} (row source: {})", in.spec->id,
                    pcie_link_formula(in.spec->pcie_gen, in.spec->pcie_width, directions),
                    spec_source(*in.spec));
  }

  const auto known = [](const std::optional<pcie_link_state>& s) {
    return s && s->gen && s->width && pcie_link_gbs(*s->gen, *s->width);
  };
  const std::string trained =
      known(in.under_load)
          ? fmt::format("Gen{} x{}, the highest NVML reported in {} sample(s) while the transfer "
                        "ran",
                        *in.under_load->gen, *in.under_load->width, in.under_load_samples)
          : std::string("not read under load (no telemetry sample during the transfer)");
  // The slower hop: the GPU's own link, or the host CPU's root ports behind a faster switch.
  if (const auto& r = in.reachable;
      r.transfer_gen() && r.width && pcie_link_gbs(*r.transfer_gen(), *r.width)) {
    const int gen = *r.transfer_gen();
    c.clock_adjusted = *pcie_link_gbs(gen, *r.width) * directions;
    c.clock_adjusted_source = fmt::format(
        "the link the card and its slot can reach, the lower of the GPU's and the system's "
        "maxima{}: {}: {}; the link as trained: {}",
        r.host_gen ? " and the host CPU's root ports" : "", reports::pcie_reach_text(r),
        pcie_link_formula(gen, *r.width, directions), trained);
    return c;
  }
  if (known(in.under_load)) {
    const int gen = *in.under_load->gen, width = *in.under_load->width;
    c.clock_adjusted = *pcie_link_gbs(gen, width) * directions;
    c.clock_adjusted_source = fmt::format(
        "the link as trained under load: the highest generation and width NVML reported while "
        "the transfer ran ({} sample(s)), {}",
        in.under_load_samples, pcie_link_formula(gen, width, directions));
    return c;
  }
  if (known(std::optional<pcie_link_state>(in.inventory))) {
    const int gen = *in.inventory.gen, width = *in.inventory.width;
    c.clock_adjusted = *pcie_link_gbs(gen, width) * directions;
    c.clock_adjusted_source = fmt::format(
        "the link as the inventory read it before the run, not under load (no telemetry reading "
        "during the transfer): {}; a link down-trained at idle for power saving makes this lower "
        "than what the transfer can reach",
        pcie_link_formula(gen, width, directions));
    return c;
  }
  c.clock_adjusted_source = "no PCIe link generation and width known (NVML reported none, before "
                            "or during the run), so no link ceiling";
  return c;
}

pcie_link_state pcie_link_for_ceiling(const reports::pcie_link& p) {
  const auto link = reports::pcie_link_for_ceiling(p);
  return {link.gen, link.width};
}

} // namespace gpuspec::host
