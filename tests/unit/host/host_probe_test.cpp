// Host inventory parsers and probe_host on the fixture roots in tests/fixtures/hosts.

#include "gpuspec/host/host_probe.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

namespace gb = gpuspec::host;

namespace {

const std::filesystem::path hosts = std::filesystem::path(GPUSPEC_FIXTURES_DIR) / "hosts";

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  EXPECT_TRUE(in) << p;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

TEST(OsRelease, PrettyNameQuotedOrNot) {
  EXPECT_EQ(
      gb::parse_os_release_pretty_name("NAME=\"Ubuntu\"\nPRETTY_NAME=\"Ubuntu 22.04.4 LTS\"\n"),
      "Ubuntu 22.04.4 LTS");
  EXPECT_EQ(gb::parse_os_release_pretty_name("PRETTY_NAME='Rocky Linux 9.3 (Blue Onyx)'"),
            "Rocky Linux 9.3 (Blue Onyx)");
  EXPECT_EQ(gb::parse_os_release_pretty_name("ID=arch\nPRETTY_NAME=Arch\n"), "Arch");
}

TEST(OsRelease, FallsBackToNameAndVersion) {
  EXPECT_EQ(gb::parse_os_release_pretty_name("NAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n"),
            "Debian GNU/Linux 12");
  EXPECT_EQ(gb::parse_os_release_pretty_name("NAME=Foo\n"), "Foo");
  EXPECT_EQ(gb::parse_os_release_pretty_name(""), "");
  EXPECT_EQ(gb::parse_os_release_pretty_name("garbage without equals\n\n"), "");
}

TEST(Cpuinfo, X86DualSocket) {
  const auto cpu = gb::parse_cpuinfo(slurp(hosts / "x86-dual-socket-nouveau/proc/cpuinfo"));
  EXPECT_EQ(cpu.model, "Intel(R) Xeon(R) Platinum 8480+");
  EXPECT_EQ(cpu.logical_cores, 8);
  EXPECT_EQ(cpu.sockets, 2);
}

TEST(Cpuinfo, Aarch64NamedFromImplementerAndPart) {
  const auto cpu = gb::parse_cpuinfo(slurp(hosts / "aarch64-grace/proc/cpuinfo"));
  EXPECT_EQ(cpu.model, "ARM Neoverse-V2");
  EXPECT_EQ(cpu.logical_cores, 72);
  EXPECT_FALSE(cpu.sockets) << "aarch64 cpuinfo has no physical id";
}

TEST(Cpuinfo, UnknownArmPartAndOtherArchitectures) {
  EXPECT_EQ(gb::parse_cpuinfo("processor\t: 0\nCPU implementer\t: 0x99\nCPU part\t: 0x123\n").model,
            "Arm CPU (implementer 0x99, part 0x123)");
  EXPECT_EQ(gb::parse_cpuinfo("processor\t: 0\ncpu\t\t: POWER9, altivec supported\n").model,
            "POWER9, altivec supported");
}

TEST(Cpuinfo, EmptyGivesNothing) {
  const auto cpu = gb::parse_cpuinfo("");
  EXPECT_EQ(cpu.model, "");
  EXPECT_FALSE(cpu.logical_cores);
  EXPECT_FALSE(cpu.sockets);
}

TEST(Meminfo, MemTotalInBytes) {
  EXPECT_EQ(gb::parse_meminfo_total("MemTotal:       24683652 kB\nMemFree: 1 kB\n"),
            std::int64_t{24683652} * 1024);
  EXPECT_EQ(gb::parse_meminfo_total("MemFree:  1 kB\nMemTotal: 2048 kB"), 2048 * 1024);
  EXPECT_FALSE(gb::parse_meminfo_total("MemFree: 1 kB\n"));
  EXPECT_FALSE(gb::parse_meminfo_total("MemTotal: lots kB\n"));
  EXPECT_FALSE(gb::parse_meminfo_total(""));
}

TEST(Modules, ExactNameOnly) {
  const std::string modules = slurp(hosts / "x86-dual-socket-nouveau/proc/modules");
  EXPECT_TRUE(gb::modules_list_has(modules, "nouveau"));
  EXPECT_TRUE(gb::modules_list_has(modules, "nvidia_uvm"));
  EXPECT_FALSE(gb::modules_list_has(modules, "nvidia")) << "nvidia_uvm is not nvidia";
  EXPECT_FALSE(gb::modules_list_has(modules, "nouv"));
  // "nouveau" in another module's used-by column does not count.
  EXPECT_FALSE(gb::modules_list_has("ttm 86016 2 nouveau, Live 0x0\n", "nouveau"));
  EXPECT_FALSE(gb::modules_list_has("", "nouveau"));
}

TEST(ProbeHost, X86DualSocketWithNouveau) {
  const auto host = gb::probe_host(hosts / "x86-dual-socket-nouveau");
  EXPECT_EQ(host.hostname, "dgx-h100-03");
  EXPECT_EQ(host.os, "Ubuntu 22.04.4 LTS");
  EXPECT_EQ(host.kernel, "5.15.0-105-generic");
  EXPECT_EQ(host.cpu_model, "Intel(R) Xeon(R) Platinum 8480+");
  EXPECT_EQ(host.cpu_logical_cores, 8);
  EXPECT_EQ(host.cpu_sockets, 2);
  EXPECT_EQ(host.memory_bytes, std::int64_t{1056398744} * 1024);
  EXPECT_EQ(host.numa_nodes, 2);
  EXPECT_EQ(host.nouveau_loaded, true);
  // Not the host probe's business.
  EXPECT_EQ(host.driver_version, "");
  EXPECT_EQ(host.cuda_driver_version, "");
}

TEST(ProbeHost, Aarch64Grace) {
  const auto host = gb::probe_host(hosts / "aarch64-grace");
  EXPECT_EQ(host.hostname, "gh200-node07");
  EXPECT_EQ(host.os, "Ubuntu 22.04.5 LTS");
  EXPECT_EQ(host.kernel, "6.8.0-1021-nvidia-64k");
  EXPECT_EQ(host.cpu_model, "ARM Neoverse-V2");
  EXPECT_EQ(host.cpu_logical_cores, 72);
  EXPECT_EQ(host.cpu_sockets, 1) << "from sysfs physical_package_id";
  EXPECT_EQ(host.memory_bytes, std::int64_t{492830720} * 1024);
  EXPECT_EQ(host.numa_nodes, 2);
  EXPECT_EQ(host.nouveau_loaded, false);
}

TEST(ProbeHost, MinimalBrokenLeavesFieldsEmpty) {
  const auto host = gb::probe_host(hosts / "minimal-broken");
  EXPECT_EQ(host.hostname, "lonely-box");
  EXPECT_EQ(host.os, "Rocky Linux 9.3");
  EXPECT_EQ(host.kernel, "");
  EXPECT_EQ(host.cpu_model, "");
  EXPECT_FALSE(host.cpu_logical_cores);
  EXPECT_FALSE(host.cpu_sockets);
  EXPECT_FALSE(host.memory_bytes);
  EXPECT_FALSE(host.numa_nodes);
  EXPECT_FALSE(host.nouveau_loaded) << "unknown, not false";
}

TEST(ProbeHost, MissingRootThrowsNothing) {
  const auto host = gb::probe_host(hosts / "no-such-host");
  EXPECT_EQ(host, gpuspec::reports::host_info{});
}

TEST(ProbeHost, ThisMachine) {
  const auto host = gb::probe_host("/");
  EXPECT_FALSE(host.kernel.empty()) << "a Linux test machine has /proc/sys/kernel/osrelease";
  EXPECT_TRUE(host.memory_bytes);
  EXPECT_TRUE(host.cpu_logical_cores);
}
