// The reader of NCCL's debug log: a small cursor over each message, no regular expressions
// (a log of a long run holds a tuning line per call), and a message is taken only when every
// part of it parsed.

#include "gpuspec/collectives/nccl_debug_log.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <iterator>
#include <limits>

namespace gpuspec::collectives {

namespace {

/// A read position in one message. Each take_* consumes on success only.
class cursor {
public:
  explicit cursor(std::string_view text) : m_rest(text) {}

  bool take(std::string_view literal) {
    if (!m_rest.starts_with(literal))
      return false;
    m_rest.remove_prefix(literal.size());
    return true;
  }
  void skip_spaces() {
    while (!m_rest.empty() && m_rest.front() == ' ')
      m_rest.remove_prefix(1);
  }
  template <class T> bool take_number(T& value) {
    const char* begin = m_rest.data();
    const char* end = begin + m_rest.size();
    const auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc{} || ptr == begin)
      return false;
    m_rest.remove_prefix(static_cast<std::size_t>(ptr - begin));
    return true;
  }
  /// A run of letters, digits and underscores ("RING", "NVLS_TREE", "AllReduce").
  bool take_word(std::string& word) {
    std::size_t n = 0;
    while (n < m_rest.size() &&
           (std::isalnum(static_cast<unsigned char>(m_rest[n])) != 0 || m_rest[n] == '_'))
      ++n;
    if (n == 0)
      return false;
    word.assign(m_rest.substr(0, n));
    m_rest.remove_prefix(n);
    return true;
  }
  [[nodiscard]] std::string_view rest() const { return m_rest; }

private:
  std::string_view m_rest;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == '\n' || s.back() == ' '))
    s.remove_suffix(1);
  while (!s.empty() && s.front() == ' ')
    s.remove_prefix(1);
  return s;
}

nccl_transport classify(std::string_view path) {
  if (path.starts_with("P2P"))
    return nccl_transport::p2p;
  if (path.starts_with("SHM"))
    return nccl_transport::shm;
  if (path.starts_with("NET/")) {
    // "NET/<plugin>/<device>...": the plugin's name is known only once its '/' is there
    // ("NET/Soc" of a cut line is no plugin "Soc").
    const std::string_view rest = path.substr(4);
    const auto slash = rest.find('/');
    if (slash == std::string_view::npos)
      return nccl_transport::unknown;
    const std::string_view plugin = rest.substr(0, slash);
    if (plugin == "Socket")
      return nccl_transport::net_socket;
    if (plugin == "IB")
      return nccl_transport::net_ib;
    return nccl_transport::net_other;
  }
  if (path.starts_with("CollNet") || path.starts_with("COLLNET"))
    return nccl_transport::collnet;
  if (path.starts_with("NVLS"))
    return nccl_transport::nvls;
  return nccl_transport::unknown;
}

/// "Channel 00/0 : 0[0] -> 1[1] [send] via P2P/CUMEM/read"
bool read_channel(std::string_view message, nccl_debug_facts& facts) {
  cursor c(message);
  nccl_channel_connection conn;
  int sub = 0, from_dev = 0, to_dev = 0;
  if (!(c.take("Channel ") && c.take_number(conn.channel) && c.take("/") && c.take_number(sub) &&
        c.take(" : ") && c.take_number(conn.from_rank) && c.take("[") && c.take_number(from_dev) &&
        c.take("] -> ") && c.take_number(conn.to_rank) && c.take("[") && c.take_number(to_dev) &&
        c.take("]")))
    return false;
  c.skip_spaces();
  if (c.take("[")) { // [send] / [receive]
    const auto close = c.rest().find(']');
    if (close == std::string_view::npos)
      return false;
    c = cursor(c.rest().substr(close + 1));
    c.skip_spaces();
  }
  if (!c.take("via "))
    return false;
  const std::string_view path = trim(c.rest());
  if (path.empty())
    return false;
  conn.path.assign(path);
  conn.transport = classify(path);
  facts.connections.push_back(std::move(conn));
  return true;
}

/// "AllReduce: 1048576 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..31}[ comm 0x..]"
bool read_named_tuning(std::string_view message, nccl_debug_facts& facts) {
  cursor c(message);
  nccl_tuning_choice choice;
  if (!(c.take_word(choice.function) && c.take(": ") && c.take_number(choice.bytes) &&
        c.take(" Bytes -> Algo ") && c.take_word(choice.algorithm) && c.take(" proto ") &&
        c.take_word(choice.protocol)))
    return false;
  // The channel range ends every such line NCCL prints: without it the line was cut short,
  // and the protocol read may be a truncated word.
  int lo = 0, hi = 0;
  if (!(c.take(" channel{Lo..Hi}={") && c.take_number(lo) && c.take("..") && c.take_number(hi) &&
        c.take("}")))
    return false;
  choice.channel_lo = lo;
  choice.channel_hi = hi;
  facts.choices.push_back(std::move(choice));
  return true;
}

/// Before 2.19: "1048576 Bytes -> Algo 1 proto 2 time 23.500000" (NCCL's enum values).
bool read_numbered_tuning(std::string_view message, nccl_debug_facts& facts) {
  // NCCL_ALGO_* and NCCL_PROTO_* of those versions (src/include/devcomm.h).
  constexpr std::string_view algorithms[] = {"TREE",          "RING", "COLLNET_DIRECT",
                                             "COLLNET_CHAIN", "NVLS", "NVLS_TREE"};
  constexpr std::string_view protocols[] = {"LL", "LL128", "SIMPLE"};
  cursor c(message);
  nccl_tuning_choice choice;
  int algo = -1, proto = -1;
  if (!(c.take_number(choice.bytes) && c.take(" Bytes -> Algo ") && c.take_number(algo) &&
        c.take(" proto ") && c.take_number(proto) && c.take(" time ")))
    return false;
  if (algo < 0 || algo >= static_cast<int>(std::size(algorithms)) || proto < 0 ||
      proto >= static_cast<int>(std::size(protocols)))
    return false;
  choice.algorithm = algorithms[algo];
  choice.protocol = protocols[proto];
  facts.choices.push_back(std::move(choice));
  return true;
}

/// "comm 0x55 rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0 MNNVL 0"
bool read_comm(std::string_view message, nccl_debug_facts& facts) {
  const auto at = message.find(" nRanks ");
  if (!message.starts_with("comm ") || at == std::string_view::npos)
    return false;
  cursor c(message.substr(at));
  int nranks = 0, nnodes = 0;
  if (!(c.take(" nRanks ") && c.take_number(nranks) && nranks > 0))
    return false;
  facts.nranks = nranks;
  if (c.take(" nNodes ") && c.take_number(nnodes) && nnodes > 0)
    facts.nnodes = nnodes;
  return true;
}

/// "... 32 coll channels, 0 collnet channels, 16 nvls channels, 32 p2p channels, ..."
bool read_channel_counts(std::string_view message, nccl_debug_facts& facts) {
  const auto number_before = [&](std::string_view label) -> std::optional<int> {
    const auto at = message.find(label);
    if (at == std::string_view::npos || at == 0)
      return std::nullopt;
    std::size_t start = at;
    while (start > 0 && std::isdigit(static_cast<unsigned char>(message[start - 1])) != 0)
      --start;
    int value = 0;
    const auto [ptr, ec] = std::from_chars(message.data() + start, message.data() + at, value);
    if (ec != std::errc{} || start == at || ptr != message.data() + at)
      return std::nullopt;
    return value;
  };
  const auto coll = number_before(" coll channels,");
  const auto nvls = number_before(" nvls channels");
  if (!coll && !nvls)
    return false;
  if (coll)
    facts.coll_channels = coll;
  if (nvls)
    facts.nvls_channels = nvls;
  return true;
}

/// The message after "NCCL INFO " or "NCCL WARN ", and which it was.
struct message_part {
  std::string_view text;
  bool warn = false;
};

std::optional<message_part> message_of(std::string_view line) {
  constexpr std::string_view info = "NCCL INFO ", warn = "NCCL WARN ";
  if (const auto at = line.find(info); at != std::string_view::npos)
    return message_part{trim(line.substr(at + info.size())), false};
  if (const auto at = line.find(warn); at != std::string_view::npos)
    return message_part{trim(line.substr(at + warn.size())), true};
  return std::nullopt;
}

} // namespace

std::string_view transport_name(nccl_transport t) {
  switch (t) {
  case nccl_transport::nvls:
    return "NVLS";
  case nccl_transport::p2p:
    return "P2P";
  case nccl_transport::shm:
    return "SHM";
  case nccl_transport::collnet:
    return "CollNet";
  case nccl_transport::net_ib:
    return "NET/IB";
  case nccl_transport::net_socket:
    return "NET/Socket";
  case nccl_transport::net_other:
    return "NET";
  case nccl_transport::unknown:
    return "unknown";
  }
  return "unknown";
}

void read_nccl_debug_line(std::string_view line, nccl_debug_facts& facts) {
  ++facts.lines;
  const auto part = message_of(line);
  if (!part) {
    ++facts.unrecognised;
    return;
  }
  const std::string_view m = part->text;
  if (part->warn) {
    facts.warnings.emplace_back(m);
    return;
  }
  bool known = false;
  if (m.starts_with("NCCL version ")) {
    const std::string_view v = trim(m.substr(13));
    if (!v.empty() && std::isdigit(static_cast<unsigned char>(v.front())) != 0) {
      facts.version.assign(v.substr(0, v.find(' ')));
      known = true;
    }
  } else if (m.starts_with("Channel ")) {
    known = read_channel(m, facts);
  } else if (m.starts_with("NVLS multicast support is ")) {
    if (m.find("is not available") != std::string_view::npos) {
      if (!facts.nvls_multicast)
        facts.nvls_multicast = false;
      known = true;
    } else if (m.find("is available") != std::string_view::npos) {
      facts.nvls_multicast = true;
      known = true;
    }
  } else if (m.find(" Bytes -> Algo ") != std::string_view::npos) {
    known = read_named_tuning(m, facts) || read_numbered_tuning(m, facts);
  } else if (m.find(" coll channels,") != std::string_view::npos ||
             m.find(" nvls channels") != std::string_view::npos) {
    known = read_channel_counts(m, facts);
  } else if (m.starts_with("comm ")) {
    known = read_comm(m, facts);
  }
  if (!known)
    ++facts.unrecognised;
}

nccl_debug_facts read_nccl_debug_log(std::string_view text) {
  nccl_debug_facts facts;
  while (!text.empty()) {
    const auto end = text.find('\n');
    if (end == std::string_view::npos) {
      // NCCL ends every line with a newline: a last line without one was still being written
      // (or the file was cut), so it is counted and not read.
      ++facts.lines;
      ++facts.unrecognised;
      break;
    }
    const std::string_view line = text.substr(0, end);
    if (!trim(line).empty())
      read_nccl_debug_line(line, facts);
    text.remove_prefix(end + 1);
  }
  return facts;
}

std::vector<nccl_transport> transports_used(const nccl_debug_facts& facts) {
  std::vector<nccl_transport> used;
  for (const auto& c : facts.connections)
    if (std::find(used.begin(), used.end(), c.transport) == used.end())
      used.push_back(c.transport);
  std::sort(used.begin(), used.end());
  return used;
}

std::optional<nccl_tuning_choice> choice_for(const nccl_debug_facts& facts,
                                             std::string_view function, std::uint64_t bytes) {
  for (auto it = facts.choices.rbegin(); it != facts.choices.rend(); ++it)
    if (it->function == function && it->bytes == bytes)
      return *it;
  return std::nullopt;
}

} // namespace gpuspec::collectives
