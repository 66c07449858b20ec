// The GPU's NUMA place read from fixture sysfs trees (tests/fixtures/hosts), the cpulist parser,
// and on this machine: a thread bound to CPUs and restored, memory placed on node 0 (or, where
// mbind is refused, mapped unbound and saying why).

#include "gpuspec/host/numa_placement.hpp"

#include <sched.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "test_text.hpp"
#include <gtest/gtest.h>

namespace gb = gpuspec::host;

namespace {

const std::filesystem::path hosts = std::filesystem::path(GPUSPEC_FIXTURES_DIR) / "hosts";

std::vector<int> range(int first, int last) {
  std::vector<int> v;
  for (int i = first; i <= last; ++i)
    v.push_back(i);
  return v;
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(::sched_getaffinity(0, sizeof set, &set), 0);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set))
      cpus.push_back(cpu);
  return cpus;
}

using gpuspec::testing::contains;

} // namespace

TEST(CpuList, ParsesRangesAndSingles) {
  EXPECT_EQ(gb::parse_cpu_list("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(gb::parse_cpu_list("5"), std::vector<int>{5});
  EXPECT_EQ(gb::parse_cpu_list(" 7-7 "), std::vector<int>{7});
  EXPECT_EQ(gb::parse_cpu_list("2,1-2,0"), (std::vector<int>{0, 1, 2})); // sorted, unique
  const auto both_sockets = gb::parse_cpu_list("0-55,112-167");
  ASSERT_TRUE(both_sockets);
  EXPECT_EQ(both_sockets->size(), 112u);
  EXPECT_EQ(both_sockets->front(), 0);
  EXPECT_EQ(both_sockets->back(), 167);
}

TEST(CpuList, RefusesWhatIsNotACpuList) {
  for (const char* bad : {"", "\n", "3-1", "a", "1,", ",1", "1-", "-1", "1-2-3", "0-70000", "x-2"})
    EXPECT_FALSE(gb::parse_cpu_list(bad)) << "'" << bad << "'";
}

TEST(GpuNumaLocality, NodeAndLocalCpusFromSysfs) {
  const auto l = gb::read_gpu_numa_locality(hosts / "x86-dual-socket-nouveau", "0000:18:00.0");
  EXPECT_EQ(l.node, 0);
  EXPECT_EQ(l.why_no_node, "");
  EXPECT_EQ(l.cpus_text, "0-55,112-167");
  EXPECT_EQ(l.cpus_from, "local_cpulist");
  std::vector<int> expected = range(0, 55);
  const auto second = range(112, 167);
  expected.insert(expected.end(), second.begin(), second.end());
  EXPECT_EQ(l.cpus, expected);
}

TEST(GpuNumaLocality, WithoutLocalCpulistTheNodesCpusStandIn) {
  const auto l = gb::read_gpu_numa_locality(hosts / "x86-dual-socket-nouveau", "0000:9a:00.0");
  EXPECT_EQ(l.node, 1);
  EXPECT_EQ(l.cpus_from, "node1/cpulist");
  EXPECT_EQ(l.cpus_text, "56-111,168-223");
  EXPECT_EQ(l.cpus.size(), 112u);
}

TEST(GpuNumaLocality, MinusOneIsNoNodeButTheCpusAreKept) {
  const auto l = gb::read_gpu_numa_locality(hosts / "aarch64-grace", "0009:01:00.0");
  EXPECT_FALSE(l.node);
  EXPECT_TRUE(contains(l.why_no_node, "numa_node is -1")) << l.why_no_node;
  EXPECT_TRUE(contains(l.why_no_node, "/sys/bus/pci/devices/0009:01:00.0")) << l.why_no_node;
  EXPECT_EQ(l.cpus, range(0, 71));
  EXPECT_EQ(l.cpus_from, "local_cpulist");
}

TEST(GpuNumaLocality, OddFilesAreSaidNotGuessed) {
  const auto l = gb::read_gpu_numa_locality(hosts / "minimal-broken", "0000:01:00.0");
  EXPECT_FALSE(l.node);
  EXPECT_TRUE(contains(l.why_no_node, "holds 'not-a-node'")) << l.why_no_node;
  EXPECT_TRUE(l.cpus.empty()); // "3-1" is not a cpulist, and there is no node to fall back on
  EXPECT_EQ(l.cpus_from, "");
}

TEST(GpuNumaLocality, AGpuSysfsDoesNotListHasNoNode) {
  const auto l = gb::read_gpu_numa_locality(hosts / "x86-dual-socket-nouveau", "0000:3b:00.0");
  EXPECT_FALSE(l.node);
  EXPECT_TRUE(contains(l.why_no_node, "does not exist")) << l.why_no_node;
  EXPECT_TRUE(l.cpus.empty());
  const auto none = gb::read_gpu_numa_locality(hosts / "x86-dual-socket-nouveau", "");
  EXPECT_TRUE(contains(none.why_no_node, "not known")) << none.why_no_node;
}

TEST(ThreadAffinity, BindsAndRestores) {
  const std::vector<int> before = allowed_cpus();
  ASSERT_FALSE(before.empty());
  {
    const std::vector<int> one{before.front()};
    const gb::thread_affinity_scope scope(one);
    ASSERT_TRUE(scope.bound()) << scope.status();
    EXPECT_EQ(scope.cpu_count(), 1);
    EXPECT_EQ(scope.status(), "bound to 1 CPU(s)");
    EXPECT_EQ(allowed_cpus(), one);
  }
  EXPECT_EQ(allowed_cpus(), before);
}

TEST(ThreadAffinity, CpusOutsideTheAllowedSetAreLeftOutOrNotBound) {
  const std::vector<int> before = allowed_cpus();
  {
    const std::vector<int> mixed{before.front(), 60000};
    const gb::thread_affinity_scope scope(mixed);
    ASSERT_TRUE(scope.bound()) << scope.status();
    EXPECT_EQ(scope.cpu_count(), 1);
    EXPECT_TRUE(contains(scope.status(), "outside this process's allowed set")) << scope.status();
  }
  {
    const std::vector<int> outside{60000};
    const gb::thread_affinity_scope scope(outside);
    EXPECT_FALSE(scope.bound());
    EXPECT_TRUE(contains(scope.status(), "not bound")) << scope.status();
  }
  {
    const gb::thread_affinity_scope scope(std::vector<int>{});
    EXPECT_FALSE(scope.bound());
    EXPECT_EQ(scope.status(), "not bound: the GPU's local CPUs are not known");
  }
  EXPECT_EQ(allowed_cpus(), before);
}

TEST(NumaMemory, PlacedOnNodeZeroOrSaysWhyNot) {
  // Every Linux host has node 0. A container's seccomp filter may refuse mbind: the memory is
  // then mapped unbound and says why, which is the fallback the benchmarks report.
  const std::size_t bytes = (std::size_t{1} << 20) + 100;
  gb::numa_memory m(bytes, 0);
  ASSERT_NE(m.data(), nullptr);
  EXPECT_EQ(m.bytes(), bytes);
  EXPECT_GE(m.mapped_bytes(), bytes);
  EXPECT_EQ(m.mapped_bytes() % 4096, 0u);
  std::memset(m.data(), 0x5A, bytes); // usable either way
  if (m.bound()) {
    EXPECT_EQ(m.binding(), "mbind");
    const auto node = m.placed_on();
    if (node) { // get_mempolicy may be filtered even where mbind is not
      EXPECT_EQ(*node, 0);
    }
  } else {
    EXPECT_TRUE(contains(m.binding(), "none: mbind(MPOL_BIND, node 0) failed")) << m.binding();
  }
}

TEST(NumaMemory, UnboundWhenNoNodeOrOneOutOfRange) {
  gb::numa_memory none(4096, std::nullopt, "the platform gives the GPU no NUMA node");
  EXPECT_FALSE(none.bound());
  EXPECT_EQ(none.binding(), "none: the platform gives the GPU no NUMA node");
  ASSERT_NE(none.data(), nullptr);
  static_cast<unsigned char*>(none.data())[4095] = 1;

  gb::numa_memory far(4096, 5000);
  EXPECT_FALSE(far.bound());
  EXPECT_TRUE(contains(far.binding(), "outside the range")) << far.binding();
}

TEST(NumaMemory, MovesOwnership) {
  gb::numa_memory a(8192, std::nullopt, "test");
  void* p = a.data();
  gb::numa_memory b(std::move(a));
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(a.data(), nullptr); // NOLINT(bugprone-use-after-move): moved-from is empty
  gb::numa_memory c;
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(c.binding(), "none: test");
  EXPECT_FALSE(gb::node_of_pages(nullptr, 0));
}

TEST(HostMemory, AvailableAndNodeFreeBytesFromMeminfo) {
  const auto x86 = hosts / "x86-dual-socket-nouveau";
  EXPECT_EQ(gb::host_available_bytes(x86), std::uint64_t{1030291104} * 1024);
  EXPECT_EQ(gb::node_free_bytes(x86, 0), std::uint64_t{510868210} * 1024);
  EXPECT_EQ(gb::node_free_bytes(x86, 1), std::uint64_t{1048576} * 1024); // nearly full
  EXPECT_FALSE(gb::node_free_bytes(x86, 2));                             // no such node
  EXPECT_FALSE(gb::node_free_bytes(x86, -1));
  EXPECT_EQ(gb::host_available_bytes(hosts / "aarch64-grace"), std::uint64_t{480556928} * 1024);
  EXPECT_FALSE(gb::host_available_bytes(hosts / "minimal-broken")); // no MemAvailable line
  EXPECT_FALSE(gb::host_available_bytes(hosts / "no-such-host"));
  // This machine: both are readable on Linux.
  EXPECT_TRUE(gb::host_available_bytes("/"));
  EXPECT_TRUE(gb::host_total_bytes("/"));
}

TEST(HostMemory, TheTransferGuardStandsOnMemTotalNotOnMemAvailable) {
  constexpr std::uint64_t gib = std::uint64_t{1} << 30;
  constexpr std::uint64_t bidir_1gib = 2 * gib; // the largest case: 1 GiB each way
  // Healthy: a VM just booted, little of its 2 TB handed over yet (MemAvailable 3 GiB): eight
  // GPUs' largest cases together run. The old guard (half of MemAvailable a case) skipped them.
  const auto vm = hosts / "vm-ballooned";
  ASSERT_EQ(gb::host_available_bytes(vm), 3 * gib);
  ASSERT_EQ(gb::host_total_bytes(vm), std::uint64_t{2113290240} * 1024);
  EXPECT_GT(bidir_1gib, *gb::host_available_bytes(vm) / 2) << "what the old guard skipped";
  EXPECT_EQ(gb::host_memory_skip_reason(bidir_1gib, 8, gb::host_total_bytes(vm), 0.5), "");
  EXPECT_EQ(gb::host_memory_skip_reason(
                bidir_1gib, 8, gb::host_total_bytes(hosts / "x86-dual-socket-nouveau"), 0.5),
            "");
  // Degraded: a 16 GiB host with eight GPUs copying 2 GiB each at once would run out.
  const auto why = gb::host_memory_skip_reason(bidir_1gib, 8, 16 * gib, 0.5);
  EXPECT_NE(why.find("16384 MiB for the 8 GPU(s)"), std::string::npos) << why;
  EXPECT_NE(why.find("MemTotal"), std::string::npos) << why;
  // One GPU on that host fits; MemTotal not known does not skip.
  EXPECT_EQ(gb::host_memory_skip_reason(bidir_1gib, 1, 16 * gib, 0.5), "");
  EXPECT_EQ(gb::host_memory_skip_reason(bidir_1gib, 8, std::nullopt, 0.5), "");
  EXPECT_FALSE(gb::host_total_bytes(hosts / "minimal-broken")); // MemTotal not a number
}
