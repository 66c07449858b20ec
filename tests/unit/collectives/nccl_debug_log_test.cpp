// The NCCL debug-log reader on fixture logs (tests/fixtures/nccl-debug, README there says
// where each line format was read), and properties: random bytes, cut lines and cut files never
// crash and never give a fact the whole line does not.

#include <cstdint>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "gpuspec/collectives/nccl_debug_log.hpp"

namespace gpuspec::collectives {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(GPUSPEC_FIXTURES_DIR) + "/nccl-debug/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(NcclDebugLog, EightGpusOverNvswitchUseP2pAndNvls) {
  const auto f = read_nccl_debug_log(fixture("h100x8-nvswitch-2.24.log"));
  EXPECT_EQ(f.version, "2.24.3+cuda12.2");
  EXPECT_EQ(f.nranks, 8);
  EXPECT_EQ(f.nnodes, 1);
  EXPECT_EQ(f.nvls_multicast, true);
  EXPECT_EQ(f.coll_channels, 32);
  EXPECT_EQ(f.nvls_channels, 16);
  ASSERT_EQ(f.connections.size(), 5u);
  EXPECT_EQ(f.connections[0].path, "P2P/CUMEM/read");
  EXPECT_EQ(f.connections[4].from_rank, 7);
  EXPECT_EQ(f.connections[4].to_rank, 0);
  EXPECT_EQ(transports_used(f), std::vector<nccl_transport>{nccl_transport::p2p});
  const auto big = choice_for(f, "AllReduce", 1073741824);
  ASSERT_TRUE(big.has_value());
  EXPECT_EQ(big->algorithm, "NVLS");
  EXPECT_EQ(big->protocol, "SIMPLE");
  EXPECT_EQ(big->channel_hi, 15);
  const auto small = choice_for(f, "AllReduce", 8);
  ASSERT_TRUE(small.has_value());
  EXPECT_EQ(small->algorithm, "RING");
  EXPECT_EQ(small->protocol, "LL");
  const auto gather = choice_for(f, "AllGather", 1073741824); // with the trailing "comm 0x.."
  ASSERT_TRUE(gather.has_value());
  EXPECT_EQ(gather->channel_hi, 31);
  EXPECT_FALSE(choice_for(f, "ReduceScatter", 8).has_value());
}

TEST(NcclDebugLog, PcieWithP2pDisabledFallsBackToShm) {
  const auto f = read_nccl_debug_log(fixture("pcie-shm-fallback-2.21.log"));
  EXPECT_EQ(f.version, "2.21.5+cuda12.4");
  EXPECT_EQ(f.nvls_multicast, false);
  EXPECT_EQ(transports_used(f), std::vector<nccl_transport>{nccl_transport::shm});
  EXPECT_EQ(f.connections.size(), 4u);
}

TEST(NcclDebugLog, SocketsAndThePre219TuningLine) {
  const auto f = read_nccl_debug_log(fixture("socket-fallback-2.18.log"));
  EXPECT_EQ(transports_used(f), std::vector<nccl_transport>{nccl_transport::net_socket});
  EXPECT_EQ(f.connections[0].path, "NET/Socket/0"); // "[send]" skipped
  ASSERT_EQ(f.choices.size(), 2u);
  EXPECT_EQ(f.choices[0].function, "");
  EXPECT_EQ(f.choices[0].bytes, 262144u);
  EXPECT_EQ(f.choices[0].algorithm, "RING");
  EXPECT_EQ(f.choices[0].protocol, "SIMPLE");
  EXPECT_EQ(f.choices[1].algorithm, "TREE");
  EXPECT_EQ(f.choices[1].protocol, "LL");
}

TEST(NcclDebugLog, OneRankHasNoConnections) {
  const auto f = read_nccl_debug_log(fixture("one-rank-2.28.log"));
  EXPECT_EQ(f.version, "2.28.9+cuda13.0");
  EXPECT_EQ(f.nranks, 1);
  EXPECT_TRUE(f.connections.empty());
  EXPECT_TRUE(transports_used(f).empty());
  EXPECT_TRUE(choice_for(f, "AllReduce", 1073741824).has_value());
}

TEST(NcclDebugLog, WarnOnlyLogHasAVersionAndAWarningOnly) {
  const auto f = read_nccl_debug_log(fixture("user-warn-only.log"));
  EXPECT_EQ(f.version, "2.27.7+cuda12.9");
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_NE(f.warnings[0].find("nvmlDeviceGetNvLinkRemoteDeviceType"), std::string::npos);
  EXPECT_TRUE(f.connections.empty());
  EXPECT_FALSE(f.nranks.has_value());
}

TEST(NcclDebugLog, ClassifiesEveryTransportNcclPrints) {
  const std::pair<const char*, nccl_transport> cases[] = {
      {"P2P/IPC", nccl_transport::p2p},
      {"P2P/direct pointer", nccl_transport::p2p},
      {"P2P/CUMEM", nccl_transport::p2p},
      {"SHM/direct/direct", nccl_transport::shm},
      {"NET/IB/3/GDRDMA", nccl_transport::net_ib},
      {"NET/Socket/1", nccl_transport::net_socket},
      {"NET/AWS Libfabric/0", nccl_transport::net_other},
      {"CollNet/0", nccl_transport::collnet},
      {"WHATEVER", nccl_transport::unknown},
  };
  for (const auto& [path, want] : cases) {
    nccl_debug_facts f;
    read_nccl_debug_line(std::string("h:1:2 [0] NCCL INFO Channel 02/1 : 3[3] -> 4[4] via ") + path,
                         f);
    ASSERT_EQ(f.connections.size(), 1u) << path;
    EXPECT_EQ(f.connections[0].transport, want) << path;
    EXPECT_EQ(f.connections[0].channel, 2);
  }
}

TEST(NcclDebugLog, ALastLineWithoutNewlineIsNotRead) {
  const auto f = read_nccl_debug_log("h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM");
  EXPECT_TRUE(f.connections.empty());
  EXPECT_EQ(f.unrecognised, 1);
}

// --- properties ------------------------------------------------------------------------------

/// Every line of every fixture.
std::vector<std::string> fixture_lines() {
  std::vector<std::string> lines;
  for (const char* name : {"h100x8-nvswitch-2.24.log", "pcie-shm-fallback-2.21.log",
                           "socket-fallback-2.18.log", "one-rank-2.28.log", "user-warn-only.log"}) {
    std::stringstream s(fixture(name));
    for (std::string line; std::getline(s, line);)
      lines.push_back(line);
  }
  return lines;
}

TEST(NcclDebugLogProperty, ACutLineGivesNoFactOrTheWholeLinesFact) {
  for (const std::string& line : fixture_lines()) {
    nccl_debug_facts whole;
    read_nccl_debug_line(line, whole);
    for (std::size_t n = 0; n < line.size(); ++n) {
      nccl_debug_facts cut;
      read_nccl_debug_line(std::string_view(line).substr(0, n), cut);
      for (const auto& c : cut.connections) {
        ASSERT_EQ(whole.connections.size(), 1u) << line;
        const auto t = c.transport;
        EXPECT_TRUE(t == whole.connections[0].transport || t == nccl_transport::unknown)
            << line << " cut at " << n;
        EXPECT_EQ(c.from_rank, whole.connections[0].from_rank);
      }
      for (const auto& ch : cut.choices) {
        ASSERT_EQ(whole.choices.size(), 1u) << line;
        EXPECT_EQ(ch.algorithm, whole.choices[0].algorithm) << line << " cut at " << n;
        EXPECT_EQ(ch.protocol, whole.choices[0].protocol) << line << " cut at " << n;
        EXPECT_EQ(ch.bytes, whole.choices[0].bytes) << line << " cut at " << n;
      }
      if (cut.nvls_channels) {
        EXPECT_TRUE(whole.nvls_channels.has_value());
      }
    }
  }
}

TEST(NcclDebugLogProperty, RandomBytesAndMutatedLinesNeverCrash) {
  std::mt19937_64 rng(20261201);
  const auto lines = fixture_lines();
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    if (i % 2 == 0) {
      const auto n = rng() % 200;
      for (std::uint64_t j = 0; j < n; ++j)
        text.push_back(static_cast<char>(rng() % 256));
    } else {
      text = lines[rng() % lines.size()];
      for (int m = 0; m < 3 && !text.empty(); ++m)
        text[rng() % text.size()] = static_cast<char>(rng() % 256);
      text += '\n';
    }
    const auto f = read_nccl_debug_log(text);
    EXPECT_GE(f.lines, 0);
    EXPECT_LE(f.unrecognised, f.lines);
  }
}

TEST(NcclDebugLogProperty, HugeNumbersAreRejectedNotWrapped) {
  nccl_debug_facts f;
  read_nccl_debug_line(
      "h:1:1 [0] NCCL INFO AllReduce: 99999999999999999999999 Bytes -> Algo RING proto "
      "SIMPLE channel{Lo..Hi}={0..1}",
      f);
  EXPECT_TRUE(f.choices.empty());
  read_nccl_debug_line("h:1:1 [0] NCCL INFO Channel 99999999999/0 : 0[0] -> 1[1] via P2P", f);
  EXPECT_TRUE(f.connections.empty());
}

} // namespace
} // namespace gpuspec::collectives
