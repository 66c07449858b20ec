#pragma once
/// A site's declared MIG layouts: the optional "mig_layout" key of a rules file (docs/check.md,
/// "Site file"; docs/health.md), which `gpuspec health` holds each GPU's partition to
/// (GPUSPEC-MIG-LAYOUT-DIFFERS). gpuspec never partitions a GPU: it says where the layout it
/// finds is not the one declared.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::inline judge {

/// One declaration: for the GPUs it names (by NVML index, or by matched spec-table row), either
/// MIG off (`whole`) or MIG on with exactly these MIG devices' profiles, in any order.
struct mig_layout_rule {
  std::vector<int> gpus;             ///< NVML indices ("gpus"); empty when `spec` names them
  std::vector<std::string> spec;     ///< spec-table row ids ("spec"); empty when `gpus` names them
  bool whole = false;                ///< "whole": true: MIG off
  std::vector<std::string> profiles; ///< "profiles", sorted: "1g.10gb", "1c.3g.40gb"
  std::string why;                   ///< for people
  std::size_t entry = 0;             ///< its index in the file's "mig_layout" array
  friend bool operator==(const mig_layout_rule&, const mig_layout_rule&) = default;
};

/// Whether `text` is a MIG profile name as the inventory writes it (host mig_profile_name):
/// "<g>g.<GB>gb", optionally "<c>c." before it.
[[nodiscard]] bool is_mig_profile_name(std::string_view text);

/// The declaration that holds for `d`: one naming its index wins over one naming its spec row;
/// null when none does.
[[nodiscard]] const mig_layout_rule* declared_layout(const std::vector<mig_layout_rule>& rules,
                                                     const device_info& d);

/// "7 x 1g.10gb", "3g.40gb + 2 x 2g.20gb", "whole (MIG off)": a layout in words, profiles in
/// the order given (equal ones grouped).
[[nodiscard]] std::string layout_text(const std::vector<std::string>& profiles, bool whole);

} // namespace gpuspec::reports::judge
