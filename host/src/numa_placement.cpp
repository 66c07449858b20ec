// The GPU's NUMA node from sysfs, and host memory and threads placed on it
// (numa_placement.hpp). mbind and get_mempolicy are called through syscall(2): glibc has no
// wrappers for them (libnuma's numaif.h does), and gpuspec does not depend on libnuma.

#include "gpuspec/host/numa_placement.hpp"

#include "gpuspec/host/host_probe.hpp"

#include <linux/mempolicy.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <system_error>
#include <utility>

#include <fmt/format.h>

namespace gpuspec::host {
namespace {

namespace fs = std::filesystem;

/// CPU ids past this are not taken from a cpulist (sysfs lists at most the kernel's NR_CPUS,
/// 8192 on the largest distribution kernels).
constexpr int max_cpu_id = 65535;
/// Node ids past this are not bound (MAX_NUMNODES is 1024 on the largest kernels).
constexpr int max_node_id = 4095;

std::optional<int> parse_int(std::string_view s) {
  s = trim_space(s);
  int value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty())
    return std::nullopt;
  return value;
}

std::string errno_text(int err) { return std::error_code(err, std::generic_category()).message(); }

long page_size() {
  const long size = ::sysconf(_SC_PAGESIZE);
  return size > 0 ? size : 4096;
}

} // namespace

std::optional<std::vector<int>> parse_cpu_list(std::string_view text) {
  text = trim_space(text);
  if (text.empty())
    return std::nullopt;
  std::vector<int> cpus;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const auto dash = item.find('-');
    const auto first = parse_int(item.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : parse_int(item.substr(dash + 1));
    if (!first || !last || *first < 0 || *last < *first || *last > max_cpu_id)
      return std::nullopt;
    for (int cpu = *first; cpu <= *last; ++cpu)
      cpus.push_back(cpu);
    if (comma != std::string_view::npos && text.empty())
      return std::nullopt; // a trailing comma
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

gpu_numa_locality read_gpu_numa_locality(const fs::path& root, std::string_view pci_bus_id) {
  gpu_numa_locality out;
  const fs::path device = root / "sys/bus/pci/devices" / std::string(pci_bus_id);
  const std::string shown = "/sys/bus/pci/devices/" + std::string(pci_bus_id);
  std::error_code ec;
  if (pci_bus_id.empty() || !fs::is_directory(device, ec)) {
    out.why_no_node = pci_bus_id.empty()
                          ? std::string("the GPU's PCI bus id is not known")
                          : fmt::format("{} does not exist: this host's sysfs does not list the "
                                        "GPU's PCI bus id",
                                        shown);
    return out;
  }
  if (const auto text = read_system_file(device / "numa_node"); !text)
    out.why_no_node = fmt::format("{}/numa_node could not be read", shown);
  else if (const auto node = parse_int(*text); !node)
    out.why_no_node = fmt::format("{}/numa_node holds '{}', not a node number", shown,
                                  std::string(trim_space(*text)));
  else if (*node < 0)
    out.why_no_node = fmt::format(
        "the platform gives the GPU no NUMA node ({}/numa_node is {}: one node, or firmware "
        "without proximity information for the slot)",
        shown, *node);
  else
    out.node = *node;

  const auto take_cpus = [&](const fs::path& file, std::string from) {
    const auto text = read_system_file(file);
    if (!text)
      return false;
    const auto cpus = parse_cpu_list(*text);
    if (!cpus)
      return false;
    out.cpus = *cpus;
    out.cpus_text = std::string(trim_space(*text));
    out.cpus_from = std::move(from);
    return true;
  };
  if (!take_cpus(device / "local_cpulist", "local_cpulist") && out.node)
    take_cpus(root / "sys/devices/system/node" / fmt::format("node{}", *out.node) / "cpulist",
              fmt::format("node{}/cpulist", *out.node));
  return out;
}

namespace {

/// The "<key> <number> kB" value of a meminfo-style text, in bytes ("MemAvailable:", or
/// "MemFree:" in a node's "Node 0 MemFree: ... kB" lines).
std::optional<std::uint64_t> meminfo_bytes(std::string_view text, std::string_view key) {
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    const auto k = line.find(key);
    if (k == std::string_view::npos || (k > 0 && line[k - 1] != ' '))
      continue;
    std::string_view rest = trim_space(line.substr(k + key.size()));
    std::uint64_t value = 0;
    const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
    if (ec != std::errc() || ptr == rest.data())
      return std::nullopt;
    const std::string_view unit =
        trim_space(rest.substr(static_cast<std::size_t>(ptr - rest.data())));
    if (unit == "kB")
      return value * 1024;
    return unit.empty() ? std::optional<std::uint64_t>(value) : std::nullopt;
  }
  return std::nullopt;
}

} // namespace

std::optional<std::uint64_t> host_available_bytes(const fs::path& root) {
  const auto text = read_system_file(root / "proc/meminfo");
  return text ? meminfo_bytes(*text, "MemAvailable:") : std::nullopt;
}

std::optional<std::uint64_t> host_total_bytes(const fs::path& root) {
  const auto text = read_system_file(root / "proc/meminfo");
  return text ? meminfo_bytes(*text, "MemTotal:") : std::nullopt;
}

std::string host_memory_skip_reason(std::uint64_t buffer_bytes, int workers,
                                    std::optional<std::uint64_t> total_bytes, double share) {
  if (!total_bytes)
    return {};
  const int at_once = std::max(workers, 1);
  const double needed = static_cast<double>(buffer_bytes) * at_once;
  const double allowed = share * static_cast<double>(*total_bytes);
  if (needed <= allowed)
    return {};
  return fmt::format("the host buffers need {:.0f} MiB a GPU, {:.0f} MiB for the {} GPU(s) that "
                     "may copy at once, and the host has {:.0f} MiB (MemTotal): the transfers take "
                     "at most {:.0f}% of it",
                     static_cast<double>(buffer_bytes) / 1048576.0, needed / 1048576.0, at_once,
                     static_cast<double>(*total_bytes) / 1048576.0, 100 * share);
}

std::optional<std::uint64_t> node_free_bytes(const fs::path& root, int node) {
  if (node < 0)
    return std::nullopt;
  const auto text =
      read_system_file(root / "sys/devices/system/node" / fmt::format("node{}", node) / "meminfo");
  return text ? meminfo_bytes(*text, "MemFree:") : std::nullopt;
}

// --- thread affinity ------------------------------------------------------------------------

thread_affinity_scope::thread_affinity_scope(const std::vector<int>& cpus) {
  if (cpus.empty()) {
    m_status = "not bound: the GPU's local CPUs are not known";
    return;
  }
  const int highest = std::max(*std::max_element(cpus.begin(), cpus.end()), 1023);
  const std::size_t set_bytes = CPU_ALLOC_SIZE(highest + 1);
  m_previous.assign(set_bytes, 0);
  auto* previous = reinterpret_cast<cpu_set_t*>(m_previous.data());
  if (::sched_getaffinity(0, set_bytes, previous) != 0) {
    m_status = "not bound: sched_getaffinity failed: " + errno_text(errno);
    m_previous.clear();
    return;
  }
  std::vector<unsigned char> wanted(set_bytes, 0);
  auto* next = reinterpret_cast<cpu_set_t*>(wanted.data());
  int count = 0;
  for (const int cpu : cpus)
    if (cpu >= 0 && cpu <= highest &&
        CPU_ISSET_S(static_cast<std::size_t>(cpu), set_bytes, previous)) {
      CPU_SET_S(static_cast<std::size_t>(cpu), set_bytes, next);
      ++count;
    }
  if (count == 0) {
    m_status = "not bound: none of the GPU's local CPUs is in this process's allowed set "
               "(a cgroup cpuset or taskset excludes them)";
    m_previous.clear();
    return;
  }
  if (::sched_setaffinity(0, set_bytes, next) != 0) {
    m_status = "not bound: sched_setaffinity failed: " + errno_text(errno);
    m_previous.clear();
    return;
  }
  m_bound = true;
  m_cpu_count = count;
  m_status = fmt::format("bound to {} CPU(s)", count);
  if (static_cast<std::size_t>(count) < cpus.size())
    m_status += fmt::format(" ({} of the GPU's local CPUs are outside this process's allowed set)",
                            cpus.size() - static_cast<std::size_t>(count));
}

thread_affinity_scope::~thread_affinity_scope() {
  if (m_bound)
    (void)::sched_setaffinity(0, m_previous.size(),
                              reinterpret_cast<const cpu_set_t*>(m_previous.data()));
}

// --- memory on a node -----------------------------------------------------------------------

numa_memory::numa_memory(std::size_t bytes, std::optional<int> node, std::string why_unbound)
    : m_bytes(bytes) {
  const auto page = static_cast<std::size_t>(page_size());
  m_mapped = bytes == 0 ? page : (bytes + page - 1) / page * page;
  void* p = ::mmap(nullptr, m_mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw std::system_error(errno, std::generic_category(),
                            fmt::format("mmap of {} bytes of host memory", m_mapped));
  m_data = p;

  if (!node)
    m_binding = "none: " + (why_unbound.empty() ? std::string("no NUMA node was asked for")
                                                : std::move(why_unbound));
  else if (*node < 0 || *node > max_node_id)
    m_binding = fmt::format("none: node {} is outside the range this build binds (0-{})", *node,
                            max_node_id);
  else {
    constexpr int word_bits = 8 * sizeof(unsigned long);
    std::vector<unsigned long> mask(static_cast<std::size_t>(*node / word_bits) + 1, 0ul);
    mask[static_cast<std::size_t>(*node / word_bits)] = 1ul << (*node % word_bits);
    // maxnode is one more than the bits passed: the kernel reads maxnode - 1 bits (libnuma
    // passes the same).
    const unsigned long maxnode = mask.size() * word_bits + 1;
    if (::syscall(SYS_mbind, m_data, m_mapped, MPOL_BIND, mask.data(), maxnode, 0u) == 0) {
      m_bound = true;
      m_binding = "mbind";
    } else {
      m_binding =
          fmt::format("none: mbind(MPOL_BIND, node {}) failed: {}", *node, errno_text(errno));
    }
  }
  // One write per page: every page is allocated now, on the node when bound (a refused
  // allocation is SIGBUS under MPOL_BIND only if the node has no memory at all).
  auto* bytes_of = static_cast<volatile unsigned char*>(m_data);
  for (std::size_t at = 0; at < m_mapped; at += page)
    bytes_of[at] = 0;
}

numa_memory::~numa_memory() { release(); }

numa_memory::numa_memory(numa_memory&& other) noexcept
    : m_data(std::exchange(other.m_data, nullptr)), m_bytes(std::exchange(other.m_bytes, 0)),
      m_mapped(std::exchange(other.m_mapped, 0)), m_bound(std::exchange(other.m_bound, false)),
      m_binding(std::move(other.m_binding)) {}

numa_memory& numa_memory::operator=(numa_memory&& other) noexcept {
  if (this != &other) {
    release();
    m_data = std::exchange(other.m_data, nullptr);
    m_bytes = std::exchange(other.m_bytes, 0);
    m_mapped = std::exchange(other.m_mapped, 0);
    m_bound = std::exchange(other.m_bound, false);
    m_binding = std::move(other.m_binding);
  }
  return *this;
}

void numa_memory::release() noexcept {
  if (m_data != nullptr)
    (void)::munmap(m_data, m_mapped);
  m_data = nullptr;
  m_bytes = 0;
  m_mapped = 0;
  m_bound = false;
}

std::optional<int> node_of_pages(const void* p, std::size_t bytes) {
  if (p == nullptr || bytes == 0)
    return std::nullopt;
  const auto page = static_cast<std::size_t>(page_size());
  const auto first = reinterpret_cast<std::uintptr_t>(p) / page * page;
  const std::size_t pages = (reinterpret_cast<std::uintptr_t>(p) + bytes - first + page - 1) / page;
  std::optional<int> seen;
  for (const std::size_t index : {std::size_t{0}, pages / 2, pages - 1}) {
    int node = -1;
    auto* at = reinterpret_cast<void*>(first + index * page);
    if (::syscall(SYS_get_mempolicy, &node, nullptr, 0ul, at, MPOL_F_NODE | MPOL_F_ADDR) != 0 ||
        node < 0)
      return std::nullopt;
    if (seen && *seen != node)
      return std::nullopt;
    seen = node;
  }
  return seen;
}

} // namespace gpuspec::host
