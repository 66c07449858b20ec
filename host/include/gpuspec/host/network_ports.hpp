#pragma once
/// The host's InfiniBand and RoCE ports, as the kernel lists them in sysfs: the NICs that carry a
/// multi-node job between nodes, and so the ceiling of a collective across nodes
/// (collective_ceiling.hpp). Read under a root so that the tests use a fixture tree
/// (tests/fixtures/hosts/ib-two-ports).
///
/// Formats (the kernel's Documentation/ABI/stable/sysfs-class-infiniband and
/// drivers/infiniband/core/sysfs.c), per port under /sys/class/infiniband/<device>/ports/<n>/:
///   state       "4: ACTIVE"                (number, colon, name: DOWN, INIT, ARMED, ACTIVE, ...)
///   rate        "400 Gb/sec (4X NDR)"      (active width x active speed; "2.5 Gb/sec (1X SDR)")
///   link_layer  "InfiniBand" | "Ethernet"  (Ethernet: RoCE)

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuspec/reports/model/network_ceiling.hpp"
#include "gpuspec/reports/model/report.hpp"

namespace gpuspec::host {

/// Every port of every device under `root`/sys/class/infiniband, by device then port number. No
/// such directory: an empty list (a host without RDMA devices). A file that cannot be read
/// leaves its field empty; nothing throws.
[[nodiscard]] std::vector<reports::network_port>
read_network_ports(const std::filesystem::path& root = "/");

// The parsers, exposed for the tests.
/// "4: ACTIVE" -> "ACTIVE"; text without a colon is returned trimmed.
[[nodiscard]] std::string parse_port_state(std::string_view text);
/// "400 Gb/sec (4X NDR)" -> 400; "2.5 Gb/sec (1X SDR)" -> 2.5; nullopt without a leading figure
/// followed by "Gb/sec".
[[nodiscard]] std::optional<double> parse_port_rate_gbps(std::string_view text);

/// How many of a node's ports a job uses, and the slowest node of a job across nodes: one rule
/// for our collectives, imported logs and check (reports/model network_ceiling.hpp).
using reports::active_network_ports;
using reports::active_ports;

} // namespace gpuspec::host
