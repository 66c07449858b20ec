#pragma once
/// The NVLink fabric's services on this node, read passively for `gpuspec health`
/// (docs/health.md, "The NVLink fabric"): which of NVIDIA Fabric Manager (`nv-fabricmanager`,
/// the host's daemon on HGX/DGX NVSwitch nodes) and IMEX (`nvidia-imex`, the memory-export
/// service of a multi-node NVLink domain such as GB200 NVL72) run, from /proc; IMEX's node list
/// from its configuration (NVIDIA IMEX Service for NVLink Networks user guide: config.cfg's
/// IMEX_NODE_CONFIG_FILE, one address per line); and whether that list names this node. No
/// service is asked anything and no socket is opened.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "gpuspec/reports/health/health.hpp"

namespace gpuspec::host {

/// Reads `<root>/proc` and `<root>/etc` ("/" on a host; a fixture tree in tests, `gpuspec health
/// --root`). `hostname` is the inventory's: a node list may name the node by it.
[[nodiscard]] reports::fabric_services_reading
read_fabric_services(const std::filesystem::path& root, const std::string& hostname);

/// This node's IPv4 addresses from /proc/net/fib_trie (its "/32 host LOCAL" entries) and IPv6
/// ones from /proc/net/if_inet6, loopback left out, in the text form inet_ntop writes.
[[nodiscard]] std::vector<std::string> parse_fib_trie_local(std::string_view fib_trie);
[[nodiscard]] std::vector<std::string> parse_if_inet6(std::string_view if_inet6);

/// The entries of an IMEX node list: one per line, blank lines and `#` comments left out.
[[nodiscard]] std::vector<std::string> parse_imex_nodes(std::string_view text);

} // namespace gpuspec::host
