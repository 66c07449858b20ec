#pragma once
// Internal to check (check.cpp): the ceilings a report carries are what the gpuspec that wrote
// it computed, and an earlier one computed some of them from readings it no longer trusts (a
// peer copy over PCIe held to the idle link, downtrained to Gen1 for power saving: 4 GB/s).
// Where the report's own inventory says what the path can reach, check recomputes the ceiling
// by the rule the harness now attaches (reference.hpp peer_copy_path, host_rules.hpp
// pcie_reachable_link, c2c_transfer_ceiling) and says so in the verdict.

#include <cstddef>

#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::reports::inline judge::check_detail {

/// The observation a recomputed result carries in check's copy of the report: the sentence
/// that says what the report carried and what judged it instead.
inline constexpr const char* recomputed_ceiling_key = "ceiling_recomputed_by_check";

/// How many results of a report had their carried ceiling replaced, by kind.
struct recomputed_ceilings {
  std::size_t c2c = 0;       ///< host transfers on NVLink-C2C GPUs: the C2C link
  std::size_t host_link = 0; ///< host transfers over PCIe: the link the card and slot reach
  std::size_t peer = 0;      ///< peer copies: NVLink, else the slower GPU's PCIe link
  [[nodiscard]] std::size_t total() const { return c2c + host_link + peer; }
};

/// Replaces, in `r`, each carried ceiling of a host transfer or peer copy that is lower than the
/// one its inventory gives by more than `tolerance` (relative; a C2C GPU's host transfers: any
/// that differs), settles the result's efficiency again, and marks it (recomputed_ceiling_key).
recomputed_ceilings recompute_carried_ceilings(report& r, const spec_table& specs,
                                               double tolerance);

/// Replaces, in a multi-node report `r` (before it is split by node), each collective's carried
/// network ceiling that counts more ports than its ranks can use (one per rank,
/// network_ceiling.hpp) by more than `tolerance`, from the report's own inventories of its nodes;
/// marks each as above. Returns how many changed.
std::size_t recompute_network_ceilings(report& r, double tolerance);

} // namespace gpuspec::reports::judge::check_detail
