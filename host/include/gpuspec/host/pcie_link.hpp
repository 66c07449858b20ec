#pragma once
/// PCIe link rates and the ceiling of a host/device transfer (transfer.*, issue 11). Pure
/// functions, host only: tested without a GPU.
///
/// Per lane and direction, a link moves generation's transfer rate x the share of it left after
/// the physical layer's encoding / 8 bits per byte (PCI-SIG, PCI Express Base Specification):
///
///   gen  rate       encoding                      GB/s per lane   x16
///   1    2.5 GT/s   8b/10b          (0.8)         0.25            4.0    Rev. 1.0a (2003)
///   2    5 GT/s     8b/10b          (0.8)         0.5             8.0    Rev. 2.0  (2007)
///   3    8 GT/s     128b/130b       (0.9846)      0.985           15.75  Rev. 3.0  (2010)
///   4    16 GT/s    128b/130b                     1.969           31.51  Rev. 4.0  (2017)
///   5    32 GT/s    128b/130b                     3.938           63.02  Rev. 5.0  (2019)
///   6    64 GT/s    FLIT, 242 of 256 bytes (0.9453) 7.563         121.0  Rev. 6.0  (2022)
///
/// Gen6 (PAM4, FLIT mode): each 256-byte FLIT carries 236 bytes of TLPs, 6 of DLLP payload, 8 of
/// CRC and 6 of FEC. The 242 TLP and DLLP bytes are counted, as 128b/130b is counted for Gen3-5:
/// only the physical layer's share is taken off, and TLP headers and DLLPs (acknowledgements,
/// flow control) stay inside the figure for every generation alike. Counting the 236 TLP bytes
/// alone gives 0.9219 (7.375 GB/s per lane). The FLIT layout: PCI-SIG, PCI Express Base
/// Specification Revision 6.0, 2022; summarised in public by G. K. Lockwood, "PCIe Gen6",
/// https://glennklockwood.com/garden/PCIe-Gen6. The same per-lane figures are the reports'
/// table (reports::pcie_bandwidth_gbs), which the tests hold this one to.
///
/// No figure here is measured: a transfer also pays each TLP's header, sequence number and LCRC
/// and the DLLPs that acknowledge it, so a healthy link moves less than its ceiling.

#include <optional>
#include <string>
#include <string_view>

#include "gpuspec/reports/judge/host_rules.hpp"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::host {

/// One PCIe generation's signalling, with where it is defined.
struct pcie_generation_rate {
  int generation = 0;
  double gigatransfers_per_second = 0; ///< per lane
  double encoding_efficiency = 0;      ///< share of the raw rate carrying link-layer bytes
  std::string_view encoding;           ///< "8b/10b", "128b/130b", "FLIT (242 of 256 bytes)"
  std::string_view specification;      ///< the PCI-SIG base specification revision

  /// GB/s (1e9 bytes/s) per lane and direction.
  [[nodiscard]] constexpr double lane_gbs() const {
    return gigatransfers_per_second * encoding_efficiency / 8.0;
  }
};

/// The table above; nullopt for a generation outside 1-6.
[[nodiscard]] std::optional<pcie_generation_rate> pcie_rate_of(int generation);

/// GB/s per direction of a link of `width` lanes at `generation`; nullopt when the generation
/// is unknown or the width is not positive.
[[nodiscard]] std::optional<double> pcie_link_gbs(int generation, int width);

/// "PCIe Gen5 x16: 32 GT/s x 16 lanes x 128b/130b / 8 = 63.02 GB/s per direction (PCI Express
/// Base Specification Revision 5.0, PCI-SIG, 2019)", and "x 2 directions = ..." when
/// `directions` is 2. "" for a link pcie_link_gbs does not know.
[[nodiscard]] std::string pcie_link_formula(int generation, int width, int directions);

/// A link state: generation and width (lanes), either possibly unknown.
struct pcie_link_state {
  std::optional<int> gen, width;
  friend bool operator==(const pcie_link_state&, const pcie_link_state&) = default;
};

/// A GPU's link for a ceiling read from the inventory (not under load): the generation at the
/// lower of NVML's GPU maximum (gen_max) and its device-and-system maximum (gen_max_system),
/// never the idle one (an idle link downtrains its generation for power saving, so gen_current
/// at idle would lower the bar), the width as trained
/// (width_current, which power saving does not change; width_max where it was not read). The
/// rule the collective and the peer-copy ceilings share.
[[nodiscard]] pcie_link_state pcie_link_for_ceiling(const reports::pcie_link& p);

/// What a transfer ceiling is computed from.
struct pcie_ceiling_inputs {
  /// 1 for h2d and d2h; 2 for bidir, whose bytes count both directions.
  int directions = 1;
  /// The highest generation and width NVML reported while the transfer ran (the telemetry of
  /// the measurement window), and how many samples carried both; nullopt when none did.
  std::optional<pcie_link_state> under_load;
  int under_load_samples = 0;
  /// The inventory's reading, taken before the run (device_info::pcie *_current): at idle a
  /// GPU's link may be down-trained for power saving, so this is the last fallback only.
  pcie_link_state inventory;
  /// The link the card and its slot can reach (reports::pcie_reachable_link over the
  /// inventory's maxima and the spec row): what the transfer is judged against.
  reports::pcie_reach reachable;
  const reports::gpu_spec* spec = nullptr; ///< the matched row (the card's own maximum)
  /// The GPU is attached to its CPU by NVLink-C2C (reports::is_c2c_attached): its host
  /// transfers cross the C2C link, and the ceiling is reports::c2c_transfer_ceiling's.
  bool c2c = false;
};

/// The ceiling of a transfer result in GB/s: `datasheet` from the spec row's pcie_gen x
/// pcie_width (the card's maximum; nullopt without a row), `clock_adjusted` from the link the
/// card and its slot can reach (`reachable`: the lower of the GPU's and the system's maxima),
/// never from the link as trained, so a link trained below it shows as a low efficiency (and
/// GPUSPEC-PCIE-LINK-DEGRADED) instead of passing against its own degraded rate. The source
/// names the reachable link and the link as trained under load. Where no maximum is known, the
/// link as trained stands in: under load when telemetry saw it, else the inventory's reading,
/// and the source says which. Both are per direction x `directions`. A GPU attached by
/// NVLink-C2C (`c2c`) gets the C2C link's ceiling instead (reports::c2c_transfer_ceiling).
[[nodiscard]] reports::ceiling pcie_transfer_ceiling(const pcie_ceiling_inputs& in);

} // namespace gpuspec::host
