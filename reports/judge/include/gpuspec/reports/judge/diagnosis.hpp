#pragma once
/// Diagnosis rules (docs/check.md): each rule is one small function over the inventory, the
/// counters or one result's telemetry, and each cause has a stable, documented reason code that
/// fleet tooling can count.

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/reports/judge/host_rules.hpp"
#include "gpuspec/reports/judge/verdict.hpp"
#include "gpuspec/reports/model/report.hpp"
#include "gpuspec/reports/model/spec_table.hpp"

namespace gpuspec::reports::inline judge {

/// One documented reason code: the code, its rung on the remediation ladder, and the
/// generic action (rules add the values they saw to `cause`).
struct reason_code {
  std::string_view code;
  remediation step;
  std::string_view summary;
  std::string_view action;
};

/// Every reason code gpuspec emits, in the order docs/check.md lists them.
[[nodiscard]] std::span<const reason_code> reason_codes();
/// The entry of `code`; throws std::out_of_range for a code not in the table (a bug).
[[nodiscard]] const reason_code& find_reason(std::string_view code);

/// Whether `code` says the GPU's answers cannot be trusted: it is gone (lost, not brought up),
/// its memory lost data (an uncorrected ECC error, no spare rows left, words read back wrong), it
/// computed a wrong answer, or a hardware Xid hit it. Such a finding comes before one that says
/// the GPU is slow, hot or set up wrong, at the same severity.
[[nodiscard]] bool untrusted_answers(std::string_view code);
/// The reader's "worst first" (the check's actions and diagnoses, health's drain reason): the
/// worse severity; then untrusted_answers over the rest; then the costlier rung of the
/// remediation ladder. False for two findings of the same gravity (a stable sort keeps the
/// rules' order among them).
[[nodiscard]] bool graver_finding(const diagnosis& a, const diagnosis& b);

/// A diagnosis of `code` with its table action and step, the device's identity as evidence
/// (when `device` is given) and `cause`.
[[nodiscard]] diagnosis make_diagnosis(std::string_view code, verdict_status severity,
                                       std::string cause, const device_info* device,
                                       const host_info& host);

/// Host-level rules over the inventory (host_rules.hpp): nouveau, host memory. `specs` (may be
/// null) lets the host-memory rule know a GPU attached by NVLink-C2C from its spec row.
[[nodiscard]] std::vector<diagnosis> diagnose_host(const report& r,
                                                   const spec_table* specs = nullptr);

/// What the device rules see of one GPU.
struct gpu_facts {
  const report& r;
  const device_info& device;
  const gpu_spec* spec = nullptr; ///< the check's spec row for it, or nullptr
  /// The GPUs of the same model in the report, `device` included (for NVLink links active).
  std::span<const device_info* const> siblings;
  /// The lowest PCIe link its results' telemetry saw, when any did.
  std::optional<pcie_under_load> load;
  const expectation_settings& settings;
};

/// Inventory- and counter-level rules of one GPU: lost GPU, PCIe link (against the card),
/// power limit, persistence, temperature, ECC mode, ECC errors and storms, row remapping,
/// NVLink links and errors, PCIe replays; and counters that contradict themselves (a delta that
/// is not after minus before: inconclusive, the field named).
[[nodiscard]] std::vector<diagnosis> diagnose_device(const gpu_facts& gpu);

/// Why one result on one device warned or failed: its telemetry's probable causes (thermal,
/// HW slowdown, power capping where it is not the normal state, low SM clock, low memory
/// clock), each with `severity` (the result's own). Empty when nothing in the telemetry explains
/// it.
[[nodiscard]] std::vector<diagnosis> explain_result(const report& r, const result& res,
                                                    const device_info* device,
                                                    const expectation_settings& settings,
                                                    verdict_status severity);

/// What one result's telemetry says whatever its throughput (burn-in acceptance): thermal or HW
/// slowdown during it, a temperature at or over the site limit or near the GPU's own slowdown
/// threshold. Warnings.
[[nodiscard]] std::vector<diagnosis> result_findings(const report& r, const result& res,
                                                     const device_info* device,
                                                     const expectation_settings& settings);

/// Peer paths between GPUs of the same model, from the report's host.topology (p2p_rules.cpp):
/// GPUSPEC-P2P-NOT-NVLINK (fail) for pairs over PCIe on an NVSwitch node of a model with NVLink,
/// GPUSPEC-P2P-UNAVAILABLE (warn) for pairs without P2P where pairs over the same kind of path
/// have it; each given to the GPU of the pair with more such pairs (both when as many).
[[nodiscard]] std::vector<diagnosis> diagnose_peer_paths(const gpu_facts& gpu);

/// NCCL collectives (collective.*, docs/collectives.md), read from the observations the
/// benchmark writes: why one is reported and not judged ("" when it is judged): one rank, where
/// nothing crosses a bus and nccl-tests' factor makes the busbw of four of them 0.
[[nodiscard]] std::string collective_not_judged(const result& res);

/// A collective that timed out (failed, with `ranks_not_finished`): GPUSPEC-COLLECTIVE-TIMEOUT
/// on the first GPU that had not arrived, the result's reason (size, deadline, ranks) as the
/// cause; nullopt for any other result.
[[nodiscard]] std::optional<diagnosis> collective_timeout(const report& r, const result& res);

/// What a collective's NCCL log says whatever its throughput: NCCL connected GPUs whose NVLink
/// links are all up through host memory or the network (`nccl_transports` SHM, NET/...):
/// GPUSPEC-NCCL-TRANSPORT-FALLBACK with `severity`. Empty for anything else.
[[nodiscard]] std::vector<diagnosis> collective_findings(const report& r, const result& res,
                                                         verdict_status severity);

/// How far above the single-path bound (a ring's: each GPU sends and receives over its own
/// links, nccl-tests doc/PERFORMANCE.md) a collective's busbw can go with the algorithm NCCL ran
/// (docs/check.md, "Collectives: what the algorithm can reach").
struct collective_reach {
  double factor = 1.0;   ///< the most busbw / the link can be: 1, or 2(n-1)/n for all-reduce
  std::string algorithm; ///< as NCCL named it ("NVLS", "RING"), or those the path allows
  bool stated = false;   ///< NCCL's log named it (our untimed call; a log's INFO lines)
  std::string why;       ///< one sentence: why this factor
};

/// The reach of a collective result (nullopt for any other): the algorithm its observation
/// `nccl_algorithm` names, else the ones its path allows: across nodes (ceiling_link
/// "network", or ranks on several hosts) tree, NVLS-tree and CollNet reduce per node; inside
/// an NVLink node of `arch` hopper or later NVLink SHARP (NVLS) unless the log counted 0 NVLS
/// channels or no multicast; otherwise a ring. Only all-reduce gains (the reduction happens
/// once, in the switch or the network).
[[nodiscard]] std::optional<collective_reach> collective_reach_of(const result& res,
                                                                  std::string_view arch);

} // namespace gpuspec::reports::judge
