#pragma once
/// A multi-node report (gpuspec-mpi, docs/multi-node.md) as one report per node, so that
/// `gpuspec check` judges each node with its own inventory and the results its ranks took part
/// in: a fault is the fault of the node, rank and GPU that had it, and the other nodes' GPUs keep
/// their own verdicts. Pure.

#include <vector>

#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::reports::inline judge {

/// One report per node: rank 0's node first (the report's host and devices), then each of
/// `nodes` in order. A report without `nodes` comes back as it is. Each result is given to every
/// node whose ranks took part in it (its "ranks" observation, each with host, gpu and status),
/// with `devices` that node's GPUs:
///  - ok: the job's result (a collective is as fast as its slowest rank) on each node;
///  - failed: on the GPUs whose ranks failed or never answered ("missing"), with those ranks'
///    own failure and reason, naming the node, rank and GPU (PCI bus id, serial); a node's other
///    GPUs get it as skipped ("not judged on this GPU: <the case's failure>"), so a fault is never
///    a healthy GPU's;
///  - skipped or not supported: as it is, on each node's GPUs.
/// A result without a "ranks" observation stays with rank 0's node.
[[nodiscard]] std::vector<report> reports_by_node(const report& r);

} // namespace gpuspec::reports::judge
