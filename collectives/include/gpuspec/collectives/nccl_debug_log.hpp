#pragma once
/// What NCCL itself says it did, read from its debug log (NCCL_DEBUG=INFO written to
/// NCCL_DEBUG_FILE): the version, the transport of every channel connection, the NVLS state,
/// and the algorithm and protocol chosen for each call. CUDA-free, no NCCL needed: the input
/// is text, so fixture logs test it (tests/fixtures/nccl-debug).
///
/// Lines are NCCL's "host:pid:tid [dev] NCCL INFO <message>" (or NCCL WARN). The messages read,
/// as NCCL 2.18 to 2.28 print them:
///  - "NCCL version 2.24.3+cuda12.2"
///  - "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read" (also "[send]"/"[receive]" before
///    "via", and transports "P2P/IPC", "P2P/direct pointer", "SHM/direct/direct",
///    "NET/Socket/0", "NET/IB/0/GDRDMA", "CollNet/...")
///  - "comm 0x.. rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0 MNNVL 0"
///  - "... 32 coll channels, 0 collnet channels, 16 nvls channels, 32 p2p channels, ..."
///  - "NVLS multicast support is available on dev 0" / "is not available on dev 0"
///  - tuning, 2.19 on: "AllReduce: 1048576 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}=
///    {0..31}"; before: "1048576 Bytes -> Algo 1 proto 2 time 23.5" (numeric ids, no name).
/// Anything else is counted and ignored; a malformed line of a known kind is ignored too
/// (never a guess), so a truncated log gives fewer facts, not wrong ones.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuspec::collectives {

/// The kind of path a channel connection takes, slowest last on one node.
enum class nccl_transport {
  nvls,       ///< NVLink SHARP through the NVSwitch (multicast)
  p2p,        ///< peer to peer: NVLink, or PCIe peer access (CUMEM, IPC, direct pointer)
  shm,        ///< staged through host shared memory
  collnet,    ///< network collectives (SHARP)
  net_ib,     ///< InfiniBand / RoCE verbs
  net_socket, ///< TCP sockets
  net_other,  ///< another network plugin
  unknown,
};

/// "NVLS", "P2P", "SHM", "CollNet", "NET/IB", "NET/Socket", "NET", "unknown".
[[nodiscard]] std::string_view transport_name(nccl_transport t);

struct nccl_channel_connection {
  int channel = 0;
  int from_rank = 0, to_rank = 0;
  std::string path; ///< as NCCL printed it: "P2P/CUMEM/read", "SHM/direct/direct"
  nccl_transport transport = nccl_transport::unknown;
};

struct nccl_tuning_choice {
  std::string function; ///< "AllReduce", ...; "" for the pre-2.19 line, which names none
  std::uint64_t bytes = 0;
  std::string algorithm; ///< "RING", "TREE", "NVLS", "NVLS_TREE", "COLLNET_DIRECT", "PAT", ...
  std::string protocol;  ///< "LL", "LL128", "SIMPLE"
  std::optional<int> channel_lo, channel_hi;
};

struct nccl_debug_facts {
  std::string version; ///< "2.24.3+cuda12.2"; "" when not printed
  std::vector<nccl_channel_connection> connections;
  std::vector<nccl_tuning_choice> choices;
  std::optional<int> nranks, nnodes;
  std::optional<int> coll_channels, nvls_channels;
  /// NVLS multicast as NCCL judged it on the devices it reported (true if any said available).
  std::optional<bool> nvls_multicast;
  std::vector<std::string> warnings; ///< the text of NCCL WARN lines
  std::int64_t lines = 0;            ///< lines read
  std::int64_t unrecognised = 0;     ///< lines with no fact we read
};

/// Adds what one line says to `facts`. Never throws on any input.
void read_nccl_debug_line(std::string_view line, nccl_debug_facts& facts);
/// Every line of `text`.
[[nodiscard]] nccl_debug_facts read_nccl_debug_log(std::string_view text);

/// The distinct transports of the channel connections, fastest first (enum order).
[[nodiscard]] std::vector<nccl_transport> transports_used(const nccl_debug_facts& facts);

/// The last choice NCCL printed for `function` ("AllReduce") at `bytes`, or nullopt.
[[nodiscard]] std::optional<nccl_tuning_choice>
choice_for(const nccl_debug_facts& facts, std::string_view function, std::uint64_t bytes);

} // namespace gpuspec::collectives
